"""format.regex: a per-sample reward; user patterns compiled at set-up, each match under a timeout."""

from __future__ import annotations

import pickle
import time

import pytest

import grpo_rewards
import grpo_rewards_format as fmt
from grpo_rewards_format import RegexReward

CATASTROPHIC = r"(a|aa)+$"  # the regex engine cannot defuse this one: exponential backtracking
SLOW_INPUT = "a" * 60 + "b"


def test_search_match_and_fullmatch_modes():
    text = "The answer is 42."
    assert RegexReward(r"\d+")(text) == (1.0, "matched")
    assert RegexReward(r"\d+", mode="match")(text) == (0.0, "unmatched")
    assert RegexReward(r"The .*\.", mode="fullmatch")(text) == (1.0, "matched")
    assert RegexReward(r"The .*", mode="fullmatch")(text + "\nMore.") == (0.0, "unmatched")


def test_flags_are_given_by_name_or_letter():
    assert RegexReward(r"the ANSWER")("The answer")[0] == 0.0
    assert RegexReward(r"the ANSWER", flags=["IgnoreCase"])("The answer")[0] == 1.0
    assert RegexReward(r"a.b", flags=["s"], mode="fullmatch")("a\nb")[0] == 1.0


def test_matched_and_unmatched_values_are_parameters_and_unreadable_completions_score_zero():
    reward = fmt.make_regex(r"\\boxed", matched_value=0.5, unmatched_value=-1.0)
    assert reward(prompts=[None] * 3, completions=[r"\boxed{1}", "1", None]) == [0.5, -1.0, 0.0]


def test_catastrophic_backtracking_is_the_unmatched_value_labelled_regex_timeout():
    assert RegexReward(CATASTROPHIC, regex_timeout=0.05, unmatched_value=-0.5)(SLOW_INPUT) == (-0.5, "regex_timeout")


def test_outcome_labels_are_counted_and_logged_by_the_core_under_the_metric_name():
    logged: dict[str, float] = {}
    reward = fmt.make_regex(CATASTROPHIC, metric="only_as", regex_timeout=0.05)
    values = reward(prompts=[None] * 3, completions=[SLOW_INPUT, SLOW_INPUT, "aa"], log_metric=logged.__setitem__)
    assert values == [0.0, 0.0, 1.0]
    assert logged["outcomes/only_as/regex_timeout"] == 2.0
    assert logged["outcomes/only_as/matched"] == 1.0


def test_the_core_deadline_bounds_a_whole_sample_not_only_one_match():
    # A sample that runs past the core's per-sample timeout is killed in its worker: the deadline
    # holds however long the text is (the regex module's own timeout overshoots on large texts).
    reward = grpo_rewards.get_reward("format.regex", pattern=CATASTROPHIC, regex_timeout=60.0,
                                     options=grpo_rewards.RewardOptions(timeout=0.5, timeout_value=-1.0))
    started = time.monotonic()
    assert reward(prompts=[None], completions=[SLOW_INPUT]) == [-1.0]
    assert time.monotonic() - started < 5.0


def test_max_chars_applies_to_the_regex_reward():
    reward = grpo_rewards.get_reward("format.regex", pattern=r"\d",
                                     options=grpo_rewards.RewardOptions(max_chars=10, too_large_value=-2.0))
    assert reward(prompts=[None, None], completions=["4", "4" * 11]) == [1.0, -2.0]


def test_the_issue_example_nested_quantifier_is_defused_by_the_regex_engine():
    # The regex module recognises (a+)+ and answers "no match" without backtracking.
    assert RegexReward(r"(a+)+$", regex_timeout=0.05)(SLOW_INPUT) == (0.0, "unmatched")


def test_a_bad_pattern_fails_when_the_reward_set_is_validated_naming_the_entry():
    spec = {"rewards": [{"use": "format.regex", "as": "answer_tag", "with": {"pattern": "<answer>(.*"}}]}
    with pytest.raises(grpo_rewards.RewardSetError) as info:
        grpo_rewards.load_reward_set(spec)
    assert len(info.value.problems) == 1
    assert "format.regex" in info.value.problems[0]
    assert "invalid regular expression" in info.value.problems[0]


def test_a_missing_pattern_is_a_set_up_error():
    with pytest.raises(grpo_rewards.RewardSetError, match="missing required parameter 'pattern'"):
        grpo_rewards.load_reward_set({"rewards": [{"use": "format.regex"}]})


@pytest.mark.parametrize("params", [
    {"mode": "find"}, {"flags": ["z"]}, {"flags": "i"}, {"regex_timeout": 0}, {"matched_value": "1"},
])
def test_bad_regex_parameters_are_rejected(params):
    with pytest.raises(ValueError):
        RegexReward(r"x", **params)


@pytest.mark.parametrize("removed", ["timeout_value", "metric_name"])
def test_the_regex_reward_has_no_option_look_alike_parameters(removed):
    with pytest.raises(TypeError):
        RegexReward(r"x", **{removed: 0.0})


def test_a_reward_set_entry_builds_a_working_regex_reward():
    spec = {"rewards": [{"use": "format.regex", "with": {"pattern": r"^\d+$", "mode": "fullmatch"}}]}
    (reward,) = grpo_rewards.load_reward_set(spec).reward_funcs
    assert reward(prompts=[None, None], completions=["42", [{"role": "assistant", "content": "4 2"}]]) == [1.0, 0.0]


def test_the_regex_reward_pickles_with_its_pattern_and_flags():
    reward = fmt.make_regex(r"ANSWER: \d", flags=["i"], metric="answer_line")
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "answer_line"
    assert clone(prompts=[None], completions=["answer: 4"]) == [1.0]


def test_a_deadline_is_a_deadline_on_ten_megabytes():
    # The regex module's own timeout overshoots in proportion to the text (5 s for 0.1 s on 10 MB);
    # the core's per-sample timeout kills the worker, whatever the size.
    reward = grpo_rewards.get_reward("format.regex", pattern=r"a.*b", regex_timeout=60.0,  # quadratic: hours
                                     options=grpo_rewards.RewardOptions(timeout=1.0, timeout_value=-1.0))
    reward(prompts=[None], completions=["a"])  # starts the worker
    started = time.monotonic()
    assert reward(prompts=[None], completions=["a" * 10_000_000]) == [-1.0]
    assert time.monotonic() - started < 4.0
