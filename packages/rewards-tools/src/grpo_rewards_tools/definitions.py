"""The tool-call rewards, each defined once: what the plugin registers and what the package exports come from here.

Each scorer is named by reference (``"grpo_rewards_tools.rewards:CallMatch"``), so registering the
plugin (``grpo-rewards list``) imports none of the scorers; they are imported when a reward is
first built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: Value for a completion with nothing readable (``None``, a number, no assistant message).
INVALID_VALUE = 0.0
#: The final answer's text is guarded by the core's size limit (calls are read from the whole trajectory).
MAX_CHARS = 200_000

CALL_MATCH = RewardDefinition(
    "tools.call_match", "grpo_rewards_tools.rewards:CallMatch", invalid_value=INVALID_VALUE, hacks=corpus,
    output_range=(0.0, 1.0), max_chars=MAX_CHARS, too_large_value=0.0,
    description="The completion's tool calls against the row's gold calls (unordered, maximum bipartite matching; "
                "f1, fraction or exact)",
    example="{use: tools.call_match, with: {mode: f1, strings: casefold}}")
#: A tool schema's ``pattern``/``patternProperties`` are the dataset's regular expressions, which jsonschema applies to
#: the model's strings with Python's ``re``: one that backtracks exponentially (``^(a+)+$``, many e-mail patterns) on a
#: near miss held a reward call for ever. As ``text.json``'s: a hard deadline, in worker processes (0.0, ``timeout``).
SCHEMA_TIMEOUT = 10.0

SCHEMA_VALID = RewardDefinition(
    "tools.schema_valid", "grpo_rewards_tools.rewards:SchemaValid", invalid_value=INVALID_VALUE, hacks=corpus,
    output_range=(0.0, 1.0), max_chars=MAX_CHARS, too_large_value=0.0, timeout=SCHEMA_TIMEOUT, timeout_value=0.0,
    description="Every tool call names a tool of the row's tools column with arguments its JSON Schema accepts",
    example="{use: tools.schema_valid, with: {mode: all}}")

#: Every tools reward, in the order the plugin registers them.
DEFINITIONS = (CALL_MATCH, SCHEMA_VALID)


def make_call_match(*, metric: str | None = None, **params: Any) -> Reward:
    """``tools.call_match`` with parameters (see :class:`~grpo_rewards_tools.rewards.CallMatch`);
    ``metric`` is the name TRL logs it under.

    >>> reward = make_call_match(mode="exact")
    >>> reward(prompts=[None], completions=['add(a=1)'], gold_calls=[[{"name": "add", "arguments": {"a": 1}}]])
    [1.0]
    """
    return CALL_MATCH.reward(metric=metric, **params)


def make_schema_valid(*, metric: str | None = None, **params: Any) -> Reward:
    """``tools.schema_valid`` with parameters (see :class:`~grpo_rewards_tools.rewards.SchemaValid`)."""
    return SCHEMA_VALID.reward(metric=metric, **params)
