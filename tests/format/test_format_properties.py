"""Properties over generated text: every format reward returns a value in its range and never raises."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards_format import (
    Boxed,
    ReasoningSteps,
    RegexReward,
    Repetition,
    TagCount,
    Think,
    ThinkAnswer,
    XmlFields,
)

PIECES = ["<think>", "</think>", "<answer>", "</answer>", "\\boxed{", "{", "}", "\\{", "```", "\n", " ",
          "Step 1: x", "- y", "4", "\u200b", "＜think＞"]
texts = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=5)), max_size=30).map("".join)

SCORERS = [ThinkAnswer(), ThinkAnswer(strict=False, newlines=True), Think(), Think(opening_in_prompt=True),
           TagCount(), Boxed(), Boxed(exactly_one=False, last_chars=20), ReasoningSteps(), XmlFields()]


@settings(max_examples=150, deadline=None)
@given(texts)
def test_scores_stay_between_zero_and_one(text):
    for scorer in SCORERS:
        assert 0.0 <= scorer(text) <= 1.0


@settings(max_examples=100, deadline=None)
@given(texts)
def test_repetition_stays_between_max_penalty_and_zero(text):
    assert -0.5 <= Repetition(max_penalty=-0.5, ngram_size=2)(text) <= 0.0


@settings(max_examples=100, deadline=None)
@given(texts)
def test_strict_think_answer_implies_soft_think_answer_and_full_tag_count(text):
    if ThinkAnswer()(text) == 1.0:
        assert ThinkAnswer(strict=False)(text) == 1.0 or "```" in text
        assert TagCount()(text) == 1.0 or "```" in text


@settings(max_examples=100, deadline=None)
@given(texts)
def test_regex_reward_gives_one_of_its_configured_values(text):
    assert RegexReward(r"<answer>.*</answer>", flags=["s"], matched_value=2.0, unmatched_value=-1.0)(text)[0] in (
        2.0, -1.0)
