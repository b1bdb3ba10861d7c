"""Answer extraction from completions and gold solutions: the rules and their priority order."""

from __future__ import annotations

import pytest

from grpo_rewards_math.extract import Extraction, extract_answer, extract_gold, find_answer, last_boxed

COMPLETIONS = [
    # (completion, answer, rule)
    (r"7 + 5 = 12, so the answer is \boxed{12}.", "12", "boxed"),
    (r"First \boxed{3}, but on reflection \boxed{4}.", "4", "boxed"),
    (r"\fbox{42}", "42", "boxed"),
    (r"The answer is $\boxed{\frac{1}{2}}$", r"\frac{1}{2}", "boxed"),
    (r"\boxed{\{1, 2\}}", r"\{1, 2\}", "boxed"),
    (r"\boxed{\left(\frac{a}{b}\right)^{2}}", r"\left(\frac{a}{b}\right)^{2}", "boxed"),
    (r"so \boxed 5 it is", "5", "boxed"),
    (r"\boxed{\boxed{5}}", "5", "boxed"),
    (r"\boxed{3} and then \boxed{4", "3", "boxed"),
    (r"Put the answer in \boxed{}: 7", "7", "last_number"),
    (r"<answer>12</answer>", "12", "answer_tag"),
    (r"<think>1+1 is 3?</think><answer> 2 </answer>", "2", "answer_tag"),
    (r"<answer>The answer is $x = 3$.</answer>", "x = 3", "answer_tag"),
    ("<answer>\n-7\n</answer> and 9 more words 10", "-7", "answer_tag"),
    ("<answer>5/6", "5/6", "answer_tag"),
    ("48 / 2 = 24 clips.\n#### 72", "72", "gsm8k"),
    ("#### 1,000\nextra line 5", "1,000", "gsm8k"),
    ("The answer is 42.", "42", "phrase"),
    ("So the answer is 3.5. Then I stop.", "3.5", "phrase"),
    ("The final answer is 17", "17", "phrase"),
    ("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.", r"\frac{3}{4}", "phrase"),
    ("Answer: (B)", "(B)", "phrase"),
    ("**Answer:** **9**", "9", "phrase"),
    ("the answer is 2 because 1 + 1 = 2", "2", "phrase"),
    ("The answer is: yes", "yes", "phrase"),
    (r"Answer: \(x^2\)", "x^2", "phrase"),
    ("We get $x = 2$ and finally $y = 5$ at the end.", "y = 5", "math"),
    (r"so \(\sqrt{2}\) works", r"\sqrt{2}", "math"),
    (r"Hence \[ 3\pi \]", r"3\pi", "math"),
    ("It costs \\$5, and $$\\frac{7}{2}$$ is it", r"\frac{7}{2}", "math"),
    ("7 + 5 = 12", "12", "last_number"),
    ("The result: 1,234,567 apples", "1,234,567", "last_number"),
    ("x = -3", "x = -3", "last_number"),
    ("5-3 gives 2 and 10-7", "10-7", "last_number"),
    ("about 50% of them", "50%", "last_number"),
    ("that is 3 / 4 of it", "3/4", "last_number"),
    ("it is 0.25.", "0.25", "last_number"),
]


@pytest.mark.parametrize(("completion", "answer", "rule"), COMPLETIONS)
def test_answer_is_extracted_by_the_first_rule_that_matches(completion, answer, rule):
    assert find_answer(completion) == Extraction(answer, rule)


def test_boxed_answer_wins_over_every_other_rule():
    text = "<answer>1</answer>\n#### 2\nThe answer is 3. $4$ 5 \\boxed{6}"
    assert find_answer(text) == Extraction("6", "boxed")


def test_answer_tag_wins_over_gsm8k_marker_and_phrases():
    assert find_answer("#### 2\nThe answer is 3.\n<answer>1</answer>") == Extraction("1", "answer_tag")


def test_last_number_fallback_can_be_turned_off():
    assert find_answer("7 + 5 = 12", fallback_last_number=False) is None
    assert extract_answer("The answer is 12", fallback_last_number=False) == "12"


def test_text_without_any_answer_has_none():
    assert find_answer("I do not know.") is None
    assert find_answer("") is None
    assert find_answer(None) is None  # type: ignore[arg-type]


def test_delimiter_restricts_extraction_to_the_text_after_it():
    text = r"<think>maybe \boxed{3}</think> so \boxed{4}"
    assert extract_answer(text, delimiter="</think>") == "4"
    assert extract_answer(r"<think>maybe \boxed{3}</think>", delimiter="</think>") is None
    assert extract_answer(r"<think>still thinking \boxed{3}", delimiter="</think>") is None


def test_delimiter_uses_its_last_occurrence():
    assert extract_answer("a</think>1</think>2", delimiter="</think>") == "2"


def test_unbalanced_last_box_falls_back_to_the_previous_box():
    assert last_boxed(r"\boxed{1} then \boxed{\frac{2}{3}") == "1"
    assert last_boxed(r"\boxed{\frac{2}{3}") is None


def test_box_with_an_overlong_content_is_not_an_answer():
    assert last_boxed("\\boxed{" + "1" * 20_000 + "}") is None


GOLDS = [
    ("42", "42"),
    (" 3/4 ", "3/4"),
    (r"$\frac{1}{2}$", r"\frac{1}{2}"),
    (r"\(x^2\)", "x^2"),
    ("Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n#### 72", "72"),
    ("#### 1,000", "1,000"),
    (r"We find $x = 3$, so the sum is $\boxed{6}$.", "6"),
    (r"Thus \boxed{\text{(C)}}", r"\text{(C)}"),
    ("<answer>9</answer>", "9"),
    (7, "7"),
    (2.5, "2.5"),
]


@pytest.mark.parametrize(("solution", "gold"), GOLDS)
def test_gold_answer_is_read_from_bare_math_and_gsm8k_solutions(solution, gold):
    assert extract_gold(solution) == gold


def test_numpy_numbers_in_the_gold_column_are_read_as_numbers():
    np = pytest.importorskip("numpy")
    assert (extract_gold(np.int64(7)), extract_gold(np.float64(2.5))) == ("7", "2.5")


@pytest.mark.parametrize("solution", [None, "", "   ", True, ["4"]])
def test_missing_or_empty_gold_gives_none(solution):
    assert extract_gold(solution) is None


def test_one_megabyte_completion_is_extracted(tmp_path):
    big = ("lorem ipsum 3 dolor " * 52_000) + r"\boxed{7}"
    assert len(big) > 1_000_000
    assert find_answer(big) == Extraction("7", "boxed")
    assert find_answer("{" * 1_000_000) is None
    assert find_answer("\\boxed{" * 200_000) is None
    assert find_answer("$" * 1_000_001) is None
    assert find_answer("1" * 1_000_000) is None  # longer than any answer
    assert find_answer("1" * 10_000) == Extraction("1" * 10_000, "last_number")


def test_one_megabyte_of_answer_phrases_is_extracted():
    assert find_answer("The answer is 5. " * 60_000 + "The answer is 6.") == Extraction("6", "phrase")


def test_accept_passes_over_a_rejected_phrase_answer_only():
    text = r"The answer is obtained below. \boxed{x}"
    assert find_answer(text, accept=lambda a: False) == Extraction("x", "boxed")
    assert find_answer("The answer is about 7 and 5, so 12", accept=str.isdigit) == Extraction("12", "phrase")
    assert find_answer("The answer is about 7 and 5, so 12", accept=lambda a: False) == Extraction("12", "last_number")
    assert find_answer("The answer is about 7 and 5, so 12", accept=lambda a: True).rule == "phrase"


# -- issue 12: answers as the world writes them ------------------------------------------------
PROSE = [
    # undelimited LaTeX in prose: the whole expression, never a number cut out of it
    (r"So the result is \frac{7}{4}", r"\frac{7}{4}"),
    (r"We get \frac{7}{4}.", r"\frac{7}{4}"),
    (r"so x = \sqrt{11}", r"x = \sqrt{11}"),
    ("The value is sqrt(2)/2", "sqrt(2)/2"),
    ("7 + 5 = 12", "12"),
    ("x = 2 + 3 = 5", "5"),
    (r"the total is 12\text{ m}^2 here", r"12\text{ m}^2"),
    ("so the total is 42.", "42"),
    ("It takes 7 weeks", "7"),
    ("There are 2 500 people", "2 500"),
    ("Total: 3,40 $", "3,40"),
    ("We meet at 14:05:00.", "14:05:00"),
    ("It ends at 2:05 p.m.", "2:05 p.m."),
    ("that is .75 of it", ".75"),
]


@pytest.mark.parametrize(("completion", "answer"), PROSE)
def test_last_stated_result_is_the_whole_expression_around_the_last_number(completion, answer):
    assert find_answer(completion) == Extraction(answer, "last_number")


def test_phrase_reads_the_value_after_is_when_the_sentence_names_a_variable_first():
    text = "Final answer: the smallest $k$ is 17."
    assert find_answer(text, accept=lambda a: "$" not in a) == Extraction("17", "phrase")


BOXES = [
    (r"\boxed{2}, \boxed{5}", "2, 5"),
    (r"$\boxed{(1, 3)}$ and $\boxed{(4, 0)}$", "(1, 3), (4, 0)"),
    (r"$x = \boxed{2}$, $y = \boxed{5}$", "2, 5"),
    (r"\boxed{1} \quad \boxed{2} \text{ or } \boxed{3}", "1, 2, 3"),
    (r"First \boxed{3}, but on reflection \boxed{4}.", "4"),
    (r"\boxed{3} and then \boxed{4", "3"),
]


@pytest.mark.parametrize(("completion", "answer"), BOXES)
def test_boxes_divided_only_by_separators_are_one_answer(completion, answer):
    assert find_answer(completion) == Extraction(answer, "boxed")


def test_several_delimited_pieces_divided_only_by_separators_are_one_answer():
    assert find_answer("$a = 3$, $b = 1$") == Extraction("a = 3, b = 1", "math")
    assert find_answer("We get $x = 2$ and finally $y = 5$.") == Extraction("y = 5", "math")


def test_gold_boxes_are_joined_like_a_completion_s():
    assert extract_gold(r"So $\boxed{2}, \boxed{5}$.") == "2, 5"


@pytest.mark.parametrize("solution", [float("nan"), float("inf"), "NaN", "nan"])
def test_a_nan_gold_gives_none(solution):
    assert extract_gold(solution) is None


def test_float_gold_is_written_as_its_value():
    assert (extract_gold(2.0), extract_gold(0.1), extract_gold(1e20)) == ("2.0", "0.1", "1e+20")


def test_a_whole_reference_solution_as_gold_gives_its_answer():
    solution = "Adding the two parts gives 40 + 2, so the answer is 42. We check: 42 - 2 = 40."
    assert extract_gold(solution, accept=lambda a: a.isdigit()) == "42"
    assert extract_gold("42", accept=lambda a: a.isdigit()) == "42"


@pytest.mark.parametrize(("completion", "answer"), [
    ("we get [2 + 3] = [5]", "[5]"),
    ("we find (x = 5) then", "x = 5"),
    ("[45 degrees]", "[45 degrees]"),
])
def test_the_last_stated_result_keeps_its_brackets_balanced(completion, answer):
    assert find_answer(completion) == Extraction(answer, "last_number")


def test_a_bare_matrix_completion_is_read_whole():
    text = r"\begin{bmatrix} 0 & 0 \\ 0 & 1 \end{bmatrix}"
    assert find_answer(text, accept=lambda a: True) == Extraction(text, "whole")


def test_a_text_gold_of_several_words_stays_a_text_answer():
    assert extract_gold("none of the above", accept=lambda a: True) == "none of the above"
    assert extract_gold("Answer is forty two.", accept=lambda a: a.isdigit()) is None


@pytest.mark.parametrize(("completion", "answer", "rule"), [
    ("So $d = \\frac{90}{n}$ for each divisor. Therefore there are 12 sequences.", "12", "last_number"),
    ("The area is $12$ square units (see Figure 1).", "12", "math"),
])
def test_a_number_in_a_later_sentence_wins_over_the_last_math(completion, answer, rule):
    assert find_answer(completion) == Extraction(answer, rule)


def test_a_final_answer_phrase_after_the_last_box_wins_only_with_math():
    assert find_answer("so \\boxed{255}. Final Answer: The final answer is $10,455$.") == Extraction("10,455", "phrase")
    assert find_answer("so \\boxed{255}. Final answer: the box above.") == Extraction("255", "boxed")


@pytest.mark.parametrize("text", ["0", "12", "-3", "0.5", "-0.5", "004", "1000.99", "00.0100", "-0", "1" * 60,
                                  "1" * 61, "3.14159265358979323846"])
def test_a_bare_numeral_reads_as_the_rules_read_it(monkeypatch, text):
    import grpo_rewards_math.extract as extract_module
    from grpo_rewards_math.correctness import _parsable

    fast = (extract_answer(text, accept=_parsable), extract_gold(text, accept=_parsable))
    monkeypatch.setattr(extract_module, "_is_numeral", lambda text: False)
    assert fast == (extract_answer(text, accept=_parsable), extract_gold(text, accept=_parsable)) == (text, text)


def test_a_long_blank_run_before_the_full_stop_does_not_let_the_timeout_end_the_phrase_sentence():
    # the sentence-end pattern read a blank run again from each of its characters: the sentence after
    # "The answer is" was cut at its full stop only when that took under REGEX_TIMEOUT (10,000 blanks took
    # seconds), otherwise it ran to "Done 3." and the math was no answer; 9,000 blanks take well under a
    # millisecond now, over a second before
    assert find_answer("The answer is $7$" + " " * 9_000 + "x. Done 3.") == Extraction("7", "phrase")


def test_the_sentence_end_is_found_in_one_pass_over_a_blank_run():
    from grpo_rewards_math.extract.phrases import _SENTENCE_END

    # A regex's steps cannot be counted from Python, so this reads a million characters once: ~10 ms when
    # linear, hours when quadratic; the regex module's timeout (30 s) is only a guard between the two
    for blank in (" ", "\u3000"):
        text = "7" + blank * 1_000_000 + "x. y"
        assert _SENTENCE_END.timed.match(text, timeout=30).start("end") == len(text) - 3
        assert _SENTENCE_END.timed.match(text, 0, len(text) - 3, timeout=30) is None  # (no full stop)


#: the sentence end as it was searched for (quadratic on a blank run): what the one-pass match must find
_OLD_SENTENCE_END = r"\.(?=\s|$)|\s+(?:because|since|as|which|where)\b"
_SENTENCE_PIECES = ["because", "BeCause", "since", "as", "AS", "which", "where", "wherever", "asx", "as_", "as1",
                    "\u017fince", "x", "7", "_", "$", ".", "..", ". ", "\u00e9", "\u3000", "\u00a0", "\u2028", "\x85",
                    " ", "  ", "\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x00", "\u212a", "\\(", "\\)"]


def test_the_one_pass_sentence_end_finds_what_the_searched_pattern_found():
    import random
    import re

    import regex

    from grpo_rewards_math.extract.phrases import _ASCII_SPACE, _SENTENCE_END, _outside_math, _sentence

    old_timed = regex.compile(_OLD_SENTENCE_END, regex.IGNORECASE)
    old_ascii = re.compile(_OLD_SENTENCE_END.replace(r"\s", _ASCII_SPACE), re.IGNORECASE)
    rng = random.Random(7)
    for _ in range(20_000):
        text = "".join(rng.choice(_SENTENCE_PIECES) for _ in range(rng.randint(0, 16))) * rng.choice([1, 1, 1, 9])
        pos, endpos = rng.randint(0, len(text) + 1), rng.choice([len(text), rng.randint(0, len(text) + 2)])
        for old, new in ((old_timed, _SENTENCE_END.timed), (old_ascii, _SENTENCE_END.ascii)):
            found, cut = old.search(text, pos, endpos), new.match(text, pos, endpos)
            assert (found and found.span()) == (cut and cut.span("end")), (text, pos, endpos)
        gaps = _outside_math(text)  # the whole sentence reading: the first gap between math pieces with an end
        assert _sentence(text) == next((text[:m.start()] for s, e in gaps if (m := old_timed.search(text, s, e))), text)
