"""The 29 constraints IFEvalG adds to IFEval (open-instruct's open_instruct/IFEvalG/instructions.py at 42c6d0de),
each on replies that follow and break its rule; no project ships labelled cases for these ids."""

from __future__ import annotations

import pytest

from grpo_rewards_instructions.constraints import make_constraint
from grpo_rewards_instructions.ifevalg import split_into_sentences

CASES = [
    ("punctuation:punctuation_dot", {}, "No dots here!", True),
    ("punctuation:punctuation_dot", {}, "One dot.", False),
    ("punctuation:punctuation_exclamation", {}, "Calm reply.", True),
    ("punctuation:punctuation_exclamation", {}, "Wow!", False),
    ("count:lowercase_counting", {"N": 2}, "OWLS hunt at NIGHT", True),
    ("count:lowercase_counting", {"N": 2}, "owls hunt at NIGHT", False),
    ("letters:letter_counting", {"N": 5, "relation": "less than"}, "Owl 42", True),
    ("letters:letter_counting", {"N": 5, "relation": "at least"}, "Owls hunt", True),
    ("letters:letter_counting", {"N": 5, "relation": "at least"}, "Owl 42!", False),
    ("letters:letter_counting2", {"letter": "o", "let_frequency": 2, "let_relation": "at least"}, "Owls hoot", True),
    ("count:count_unique", {}, "Owls hunt at night.", True),
    ("count:count_unique", {}, "Owls hunt owls.", True),  # tokens are case-sensitive, as in the original
    ("count:count_unique", {}, "owls hunt owls.", False),
    ("count:count_increment_word", {"keyword1": "owl", "keyword2": "moon"}, "An owl, the moon, a moon.", True),
    ("count:count_increment_word", {"keyword1": "owl", "keyword2": "moon"}, "An owl, the moon.", False),
    ("keywords:palindrome", {}, "We saw a racecar", True),  # "a" is a one-letter palindrome
    ("keywords:palindrome", {}, "We saw the owl", False),
    ("keywords:keyword_specific_position", {"keyword": "owls", "n": 2, "m": 3}, "Hi there. I like owls a lot.", True),
    ("keywords:keyword_specific_position", {"keyword": ["owls"], "n": 2, "m": 2}, "Hi there. I like owls.", False),
    ("keywords:keyword_specific_position", {"keyword": "owls", "n": 3, "m": 1}, "Hi there. I like owls.", False),
    ("keywords:start_end", {}, "Owls are everywhere, owls", True),
    ("keywords:start_end", {}, "Owls are everywhere, owls.", False),
    ("keywords:start_end", {}, "Owls", False),
    ("keywords:exclude_word_harder", {"keyword": "owl"}, "Owls and an owl-like bird", True),
    ("keywords:exclude_word_harder", {"keyword": "owl"}, "Owls and an owl hunt", False),
    ("paragraphs:paragraphs", {}, "Owls.\n***\nMoons.", True),
    ("paragraphs:paragraphs", {}, "Owls.\n***\n***\nMoons.", False),
    ("paragraphs:paragraphs2", {}, "Owls.\n\nMoons.\n\n", True),
    ("paragraphs:paragraphs2", {}, "Owls.\n\n\n\nMoons.", False),
    ("first_word:first_word_sent", {"first_word": ["owls"]}, "Owls hunt. Owls sleep!", True),
    ("first_word:first_word_sent", {"first_word": "owls"}, "Owls hunt. They sleep!", False),
    ("first_word:first_word_answer", {"first_word": "owls"}, "  owls hunt. They sleep!", True),
    ("first_word:first_word_answer", {"first_word": "owls"}, "The owls hunt.", False),
    ("last_word:last_word_sent", {"last_word": "night"}, "Owls hunt at night. Bats fly at night!", True),
    ("last_word:last_word_sent", {"last_word": "night"}, "Owls hunt at night. Bats fly by day!", False),
    ("last_word:last_word_answer", {"last_word": "night"}, "Owls hunt at NIGHT!", True),
    ("last_word:last_word_answer", {"last_word": "night"}, "Owls hunt at night, mostly.", False),
    ("detectable_format:bigram_wrapping", {}, "<<Owls hunt>> <<at night>>", True),
    ("detectable_format:bigram_wrapping", {}, "<<Owls hunt at>> night", False),
    ("copy:copying_simple", {"prompt_to_repeat": "Write about owls."}, "  write about OWLS. ", True),
    ("copy:copying_simple", {"prompt_to_repeat": "Write about owls."}, "Write about owls. Owls hunt.", False),
    ("copy:copying_multiple", {"prompt_to_repeat": "Hi.", "N": 2}, "Hi.\n******\nhi.", True),
    ("copy:copying_multiple", {"prompt_to_repeat": "Hi.", "N": 3}, "Hi.\n******\nhi.", False),
    ("copy:copy", {"prompt_to_repeat": "Write about owls."}, "write about owls.", True),
    ("new:copy_span_idx", {"prompt_to_repeat": "Write about owls.", "n_start": 6, "n_end": 11}, " ABOUT ", True),
    ("new:copy_span_idx", {"prompt_to_repeat": "Write about owls.", "n_start": 6, "n_end": 11}, "about owls", False),
    ("detectable_format:sentence_hyphens", {}, "Owls hunt.-Bats fly.", True),
    ("detectable_format:sentence_hyphens", {}, "Owls hunt. - Bats fly.", False),
    ("keywords:no_adjacent_consecutive", {}, "Owls hunt at night", True),
    ("keywords:no_adjacent_consecutive", {}, "a big owl", False),  # a, b
    ("detectable_format:square_brackets", {}, "[Owls] [hunt.]", True),
    ("detectable_format:square_brackets", {}, "[Owls] hunt", False),
    ("keywords:word_once", {"keyword": "owl"}, "An owl hunts.", True),
    ("keywords:word_once", {"keyword": "owl"}, "An owl and owls.", False),  # substrings count, as in the original
    ("keywords:word_count_different_numbers", {"keyword": "owl", "frequency": 2, "relation": "at least"},
     "owl OWL", True),
    ("copy:repeat_phrase", {"phrase": "the big cat", "small_n": 2}, "the red cat and the tall cat", True),
    # the original reads only the last phrase's count of changed words
    ("copy:repeat_phrase", {"phrase": "the big cat", "small_n": 2}, "the big cat and the tall cat", True),
    ("copy:repeat_phrase", {"phrase": "the big cat", "small_n": 2}, "the tall cat and the big cat", False),
    ("copy:repeat_phrase", {"phrase": "the big cat", "small_n": 2}, "the red cat", False),
    ("count:counting_composition", {"n_sent": 1, "n_words": 3},
     "Owls hunt .\n***\nBats fly .\n***\nCats nap .", True),
    ("count:counting_composition", {"n_sent": 1, "n_words": 3}, "Owls hunt .\n***\nBats fly .", False),
]


@pytest.mark.parametrize(("cid", "kwargs", "reply", "expected"), CASES)
def test_checker_follows_open_instructs_rule(cid, kwargs, reply, expected):
    assert make_constraint(cid, kwargs).check(reply) is expected


def test_ifevals_regex_sentence_splitter_keeps_abbreviations_and_decimals_whole():
    assert split_into_sentences("Dr. Who paid 3.5 dollars at example.com today. Then he left... Why?") == [
        "Dr. Who paid 3.5 dollars at example.com today.", "Then he left...", "Why?"]


def test_find_phrases_is_the_lazy_pattern_and_linear_on_a_flood():
    import re

    from grpo_rewards_instructions.ifevalg import find_phrases

    for value in ["the a cat the b cat", "the  cat", "the cat", "the x\ncat the y cat", "thethe a cat cat"]:
        assert find_phrases(value, "the", "cat") == re.findall("the .*? cat", value)
    assert find_phrases("the " * 100_000, "the", "cat") == []
