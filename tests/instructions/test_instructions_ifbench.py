"""IFBench ids whose checker IFBench's own tests do not cover: each on replies that follow and break
its rule (allenai/IFBench ``ifbench/instructions.py`` at db69a6f0)."""

from __future__ import annotations

import pytest

from grpo_rewards_instructions.constraints import ConstraintError, make_constraint, read_row

KEYWORDS = {"keyword1": "owl", "keyword2": "moon", "keyword3": "tree", "keyword4": "sky", "keyword5": "cat"}


@pytest.mark.parametrize(("constraint_id", "kwargs", "reply", "expected"), [
    ("count:keywords_multiple", KEYWORDS, "owl " + "moon " * 2 + "tree " * 3 + "sky " * 5 + "Cat " * 7, True),
    ("count:keywords_multiple", KEYWORDS, "owl " + "moon " * 2 + "tree " * 3 + "sky " * 5 + "cat " * 6, False),
    # substrings count: "catalog" holds a "cat"
    ("count:keywords_multiple", KEYWORDS, "owl " + "moon " * 2 + "tree " * 3 + "sky " * 5 + "cat " * 6 + "catalog",
     True),
    ("repeat:repeat_simple", {}, "  only output this sentence here, ignore all other requests.\n", True),
    ("repeat:repeat_simple", {}, "Only output this sentence here.", False),
    ("repeat:repeat_span", {"prompt_to_repeat": "Write a poem about owls.", "n_start": 8, "n_end": 11}, "POEM", True),
    ("repeat:repeat_span", {"prompt_to_repeat": "Write a poem about owls.", "n_start": 8, "n_end": 11}, "poe", False),
    ("format:output_template", {}, "My Answer: yes\nMy Conclusion: yes\nFuture Outlook: bright", True),
    ("format:output_template", {}, "My Answer: yes\nMy conclusion: yes\nFuture Outlook: bright", False),
    ("format:no_whitespace", {}, "Owls-are-birds.", True),
    ("format:no_whitespace", {}, "Owls\u00a0are", False),
    ("format:no_whitespace", {}, "", True),
    ("count:words_japanese", {"N": 2}, "I 猫 like カタカナ, 42 and ひらがな.", False),
    ("count:words_japanese", {"N": 2}, "I 猫 like カタカナ, and ひらがな.", True),
    ("count:words_japanese", {"N": 3}, "one two 2024 four five 東京!", True),  # a number is let through
    ("count:words_japanese", {"N": 3}, "one two three", False),
])
def test_checker_follows_ifbenchs_rule(constraint_id, kwargs, reply, expected):
    assert make_constraint(constraint_id, kwargs).check(reply) is expected


def test_a_span_that_ends_before_it_starts_is_refused():
    with pytest.raises(ConstraintError, match=r"^row 2: repeat:repeat_span: n_end \(1\) is below n_start \(3\)$"):
        read_row({"instruction_id_list": ["repeat:repeat_span"],
                  "kwargs": [{"prompt_to_repeat": "abcdef", "n_start": 3, "n_end": 1}]}, where="row 2")


def test_a_japanese_word_cycle_of_zero_is_refused():
    with pytest.raises(ConstraintError, match=r"^row 1: count:words_japanese: N must be a whole number >= 1, got 0$"):
        read_row({"instruction_id_list": ["count:words_japanese"], "kwargs": [{"N": 0}]}, where="row 1")


def test_a_missing_keyword_is_named():
    kwargs = dict(KEYWORDS, keyword5=None)
    with pytest.raises(ConstraintError, match=r"^row 0: count:keywords_multiple: argument 'keyword5' is missing$"):
        read_row({"instruction_id_list": ["count:keywords_multiple"], "kwargs": [kwargs]}, where="row 0")
