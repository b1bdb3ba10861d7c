"""Strict reading of judge replies: what is a grade, what is unparsable, what is a refusal."""

from __future__ import annotations

import pytest

from grpo_rewards_judge.parse import ScoreFormat, parse_numbered

SCALE = ScoreFormat("scale", low=1, high=10)


@pytest.mark.parametrize(("reply", "expected"), [
    ("Correct and clear.\nScore: 10", (1.0, "scored")),
    ("Score: 1", (0.0, "scored")),
    ("**Score:** 4", (1 / 3, "scored")),
    ("Score = 7/10", (2 / 3, "scored")),
    ("score: 5.5", (0.5, "scored")),
    ("  8  ", (7 / 9, "scored")),               # the bare value and nothing else
    ("Score: 6\nlater...\nScore: 6", (5 / 9, "scored")),  # stated twice, the same
    ("Score: 7.", (2 / 3, "scored")),            # a sentence's full stop after the grade
    ("Score: (7).", (2 / 3, "scored")),
    ("Score: 7 out of 10", (2 / 3, "scored")),   # the scale's top said in words, as judges write it (was unparsable)
    ("**Score:** 7 (out of 10).", (2 / 3, "scored")),
    ("Score: 10 Out Of 10", (1.0, "scored")),
])
def test_a_grade_on_the_scale_maps_linearly_to_zero_one(reply, expected):
    value, label = SCALE.parse(reply)
    assert label == expected[1] and value == pytest.approx(expected[0])


@pytest.mark.parametrize("reply", [
    "Score: 11",                 # above the scale
    "Score: 0",                  # below it
    "Score: 15/10",
    "Score: 7/5",                # another scale
    "Score: 7 out of 5",
    "Score: 11 out of 10",
    "Score: 7 out of",
    "Score: 7 (of 10)",
    "Score: 10\nScore: 3",       # two grades that disagree
    "Score: ten",
    "Score: .7",                 # 0.7, off the scale: the leading point was trimmed as punctuation and read as 7
    ".7",
    "Score: 0.7",
    "I'd give it a 10",          # no grade line, not a bare value
    "The answer is 1.",
    "",
    None,
])
def test_anything_else_is_unparsable(reply):
    assert SCALE.parse(reply) == (None, "unparsable")


@pytest.mark.parametrize("reply", ["I'm sorry, but I can't grade this response.", "I cannot evaluate that.",
                                   "As an AI, I must decline."])
def test_a_reply_without_a_grade_that_declines_is_refused(reply):
    assert SCALE.parse(reply) == (None, "refused")


def test_a_refusal_that_still_states_a_grade_is_scored():
    assert SCALE.parse("I'm sorry, it is wrong.\nScore: 1") == (0.0, "scored")


def test_yes_no_reads_answer_lines_and_bare_words():
    yes_no = ScoreFormat("yes_no")
    assert [yes_no.parse(r) for r in ("Answer: yes", "No.", "**answer**: NO", "Answer: maybe", "Yes, clearly.")] == [
        (1.0, "scored"), (0.0, "scored"), (0.0, "scored"), (None, "unparsable"), (None, "unparsable")]


def test_choice_reads_one_of_the_labels_with_its_value():
    choice = ScoreFormat("choice", choices=(("helpful", 1.0), ("partly", 0.5), ("unhelpful", 0.0)))
    assert [choice.parse(r) for r in ("Choice: partly", "Choice: Helpful", "Choice: great", "unhelpful")] == [
        (0.5, "scored"), (1.0, "scored"), (None, "unparsable"), (0.0, "scored")]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"kind": "stars"}, "score_format must be one of scale, yes_no, choice"),
    ({"kind": "scale", "low": 5, "high": 5}, "low < high"),
    ({"kind": "choice"}, "needs choices"),
    ({"kind": "choice", "choices": (("a", 2.0),)}, r"its value must be a number in \[0, 1\], not 2.0"),
    ({"kind": "choice", "choices": (("A", 1.0), ("a", 0.0))}, "must differ"),
])
def test_a_bad_score_format_is_one_clear_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        ScoreFormat(**kwargs)


def test_pairwise_lines_are_read_per_response_and_a_missing_or_off_scale_one_is_unparsable():
    reply = "Response 2 is best.\nScore 1: 4\nScore 2: 10\nScore 4: 3\nScore 5: 9"
    assert parse_numbered(reply, 4, SCALE) == [(1 / 3, "scored"), (1.0, "scored"), (None, "unparsable"),
                                              (2 / 9, "scored")]
    assert parse_numbered("Score 1: 12\nScore 2: 2", 2, SCALE) == [(None, "unparsable"), (1 / 9, "scored")]
    assert parse_numbered("Score 1: .7\nScore 2: 2.", 2, SCALE) == [(None, "unparsable"), (1 / 9, "scored")]
    assert parse_numbered("I cannot compare these.", 2, SCALE) == [(None, "refused")] * 2


def test_grade_lines_are_read_one_line_at_a_time_whatever_the_line_endings():
    assert SCALE.parse("Fine.\r\n\r\n> **Score:** 9\r\n") == (8 / 9, "scored")
    assert SCALE.parse("Score:\n9") == (None, "unparsable")  # the grade belongs on the key's line
    assert parse_numbered("Score #1: 2\r\nscore 2 = 10", 2, SCALE) == [(1 / 9, "scored"), (1.0, "scored")]


def test_minus_zero_on_a_scale_from_zero_is_a_plain_zero():
    # before: -0.0 was paid (and logged as "-0.0")
    value, label = ScoreFormat("scale", low=0, high=1).parse("Score: -0")
    assert (str(value), label) == ("0.0", "scored")


def test_a_grade_line_of_blanks_is_read_in_linear_time():
    # the "out of" reading first had two runs of blanks side by side (\s*\(?\s*): a completion's grade line of
    # 32,000 blanks (what max_completion_chars lets through to the injection check) took about 5.5 s; now ~2 ms.
    # The bound is 2,500 times that: only a search that is not linear reaches it
    import time

    line = "Score: 7" + " " * 32_000 + "x"
    started = time.process_time()
    assert (SCALE.states_grade(line), SCALE.parse(line)) == (False, (None, "unparsable"))
    assert time.process_time() - started < 5.0
