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


# 7 stop words of 25 words: the original's float is 28.000000000000004 %, above a limit of 28
SEVEN_OF_25 = "the a an of to in on " + " ".join(f"owl{i}" for i in range(18))


@pytest.mark.parametrize(("constraint_id", "kwargs", "reply", "expected"), [
    ("ratio:stop_words", {"percentage": 28}, SEVEN_OF_25, False),
    ("ratio:stop_words", {"percentage": 29}, SEVEN_OF_25, True),
    # \w+ words: "don't" is "don" and "t", both NLTK stop words; "The" counts, lowercased
    ("ratio:stop_words", {"percentage": 60}, "The owls don't sing", True),
    ("ratio:stop_words", {"percentage": 59}, "The owls don't sing", False),
    ("ratio:stop_words", {"percentage": 100}, "?!", False),  # no word: not followed, as the original
    ("format:emoji", {}, "Owls hoot 🦉. Cats purr 🐱!", True),
    ("format:emoji", {}, "Owls hoot 🦉. Cats purr.", False),
    ("format:emoji", {}, "Owls hoot 🦉 . Cats purr 🐱 !", True),  # the character before the last counts too
    ("format:emoji", {}, "Owls hoot. 🦉 Cats purr 🐱.", True),  # an emoji that opens the next sentence counts
    ("format:emoji", {}, "Copyright ©.", True),  # emoji's own table: © is an emoji
    ("format:emoji", {}, "Number #.", False),
    ("format:emoji", {}, "...", False),  # a sentence of punctuation only
    # children 2, have 1, little 2, to 1, regret 2: odd and even alternate
    ("words:odd_even_syllables", {}, "Children have little to regret.", True),
    ("words:odd_even_syllables", {}, "Owl banana.", False),  # 1 and 3: both odd
    ("words:odd_even_syllables", {}, "Owl 42 banana", True),  # a word with a digit has 0 syllables (even)
    ("words:odd_even_syllables", {}, "", True),
    ("format:line_indent", {}, "a\n b\n  c", True),
    ("format:line_indent", {}, "a\n b\n b", False),
    ("format:line_indent", {}, "a\n\n b", True),  # one blank line is removed
    ("format:line_indent", {}, "a\n\n\n b", False),  # the second of two blank lines stays (0 spaces)
    ("format:line_indent", {}, "a\n\t b", False),  # only spaces indent
])
def test_new_ifbench_checker_follows_ifbenchs_rule(constraint_id, kwargs, reply, expected):
    assert make_constraint(constraint_id, kwargs).check(reply) is expected


def test_the_line_indent_check_is_linear_on_a_reply_of_many_blank_lines():
    # IFBench's list.remove in a loop is quadratic; 200,000 blank lines are one pass here
    reply = "a\n" + "\n" * 200_000 + " b"
    assert make_constraint("format:line_indent", {}).check(reply) is False
