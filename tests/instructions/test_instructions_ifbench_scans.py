"""The scans of the IFBench checkers give what IFBench's regular expressions give, on generated text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards_instructions import ifbench

WORDY = st.text(alphabet=st.sampled_from(list("itIT_ .'-\n5é")), max_size=20)
DIGITS = st.text(alphabet=st.sampled_from(list("12a ,.\u0663\u00b2")), max_size=20)
OPTIONS = st.text(alphabet=st.sampled_from(list("aAbBcC(),/ _x\u00e0")), max_size=14)
FIELDS = st.text(alphabet=st.sampled_from(list('"a_ $\n9')), max_size=12)
HEADERS = st.lists(st.sampled_from(["StudentID", '"Subject"', "Subject", "Grade", "Semester", '"Score"', "Score",
                                    "\t", " ", "\t ", ",", "x"]), max_size=12).map("".join)


@settings(max_examples=600, deadline=None)
@given(WORDY, st.sampled_from(["it", "It", "'t", "t-", "_i", "é"]))
def test_keyword_in_sentence_matches_the_word_boundary_pattern(text, word):
    expected = re.search(r"\b" + re.escape(word) + r"\b", text, re.IGNORECASE) is not None
    assert ifbench.contains_word(text, word) is expected


@settings(max_examples=600, deadline=None)
@given(WORDY, st.sampled_from(["it", "It", "T", "é"]))
def test_person_name_matches_the_case_sensitive_word_boundary_pattern(text, word):
    expected = re.search(r"\b" + re.escape(word) + r"\b", text) is not None
    assert ifbench.contains_word(text, word, ignore_case=False) is expected


@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(["Question ", "Question", "1", "22", ".", ")", ";", "x", "\n", " ", "\t"]),
                max_size=12).map("".join))
def test_question_split_matches_the_pattern(text):
    assert ifbench.split_questions(text) == re.split(r"\n*(?:Question \d+[\.|\):;]?\s*)", text)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("aAbEfx.|) \t_-9")), max_size=8))
def test_option_line_matches_the_pattern(line):
    assert ifbench._is_option_line(line) is (re.match(r"^[A-Ea-e][\.|\)]\s*\w+", line) is not None)


@settings(max_examples=600, deadline=None)
@given(DIGITS)
def test_digit_runs_match_the_digit_pattern(text):
    assert ifbench.digit_runs(text) == re.findall(r"\d+", text)
    assert ifbench.count_digit_runs(text) == len(re.findall(r"\d+", text))


@settings(max_examples=600, deadline=None)
@given(OPTIONS)
def test_strict_options_match_the_letters_pattern(options):
    assert ifbench.strict_options(options) is (re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", options) is not None)


@settings(max_examples=600, deadline=None)
@given(FIELDS)
def test_quoted_special_field_matches_the_pattern(field):
    assert ifbench._quoted_special(field) is (re.match(r'".*[^\d\w\s].*"', field) is not None)


@settings(max_examples=600, deadline=None)
@given(HEADERS)
def test_tab_header_matches_the_pattern(header):
    pattern = (r'^(StudentID|"StudentID")\t *(Subject|"Subject")\t *(Grade|"Grade")\t *(Semester|"Semester")'
               r'\t *(Score|"Score")$')
    expected = re.match(pattern, header) is not None
    assert ifbench._header_matches(header, ifbench._STUDENT_COLUMNS, "\t", " ") is expected


def test_the_header_example_of_each_csv_id_is_read():
    assert ifbench._header_matches('ProductID, "Category",\tBrand,Price,  Stock', ifbench._PRODUCT_COLUMNS, ",", " \t")
    assert not ifbench._header_matches("ProductID,Category,Brand,Price", ifbench._PRODUCT_COLUMNS, ",", " \t")


def test_hostile_megabytes_are_checked():
    assert ifbench.contains_word("i" * 1_000_000, "it") is False
    assert ifbench._quoted_special('"' + "a" * 1_000_000) is False
    assert ifbench.count_digit_runs("1a" * 500_000) == 500_000
