"""A tool or JSON schema's ``pattern`` is the dataset's regular expression, run by jsonschema on the model's string with
Python's ``re``: one that backtracks exponentially on a near miss (``^(a+)+$``, as many e-mail patterns do) held
``tools.schema_valid``'s call for ever. Both schema rewards are registered with a hard deadline in worker processes."""

from __future__ import annotations

import json

from grpo_rewards import get_reward

#: about 2**40 steps of Python's re for forty a's and a "!"
EXPONENTIAL = {"type": "object", "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}, "required": ["s"]}
STRINGS = ("aaa", "b", "a" * 40 + "!")
#: one worker, so the first sample's worker (jsonschema imported by the scorer's warmup) runs the others too
OPTIONS = {"timeout": 3.0, "workers": 1}


def test_both_schema_rewards_are_registered_with_a_deadline_and_a_timeout_value_of_zero():
    for name in ("tools.schema_valid", "text.json"):
        options = get_reward(name).options
        assert (options.timeout, options.timeout_value) == (10.0, 0.0), name


def test_a_tool_schema_pattern_that_backtracks_for_ever_is_a_timeout_and_the_other_samples_are_scored():
    tool = {"type": "function", "function": {"name": "f", "parameters": EXPONENTIAL}}
    reward = get_reward("tools.schema_valid", options=OPTIONS)
    calls = [f'<tool_call>{{"name": "f", "arguments": {{"s": "{s}"}}}}</tool_call>' for s in STRINGS]
    result = reward.score(prompts=[None] * 3, completions=calls, tools=[[tool]] * 3)
    assert (result.values, result.labels) == ([1.0, 0.0, 0.0], ["valid", "invalid_arguments", "timeout"])


def test_a_json_schema_pattern_that_backtracks_for_ever_is_a_timeout_and_the_other_samples_are_scored():
    reward = get_reward("text.json", options=OPTIONS)
    replies = [json.dumps({"s": s}) for s in STRINGS]
    result = reward.score(prompts=[None] * 3, completions=replies, schema=[EXPONENTIAL] * 3)
    assert (result.values, result.labels) == ([1.0, 0.0, 0.0], ["valid", "invalid", "timeout"])
