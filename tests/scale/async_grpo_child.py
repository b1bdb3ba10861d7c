"""Runs in a spawned child, as TRL's experimental async trainer runs rewards: its own ``_score_group``."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any


def score_group(reward_funcs: list[Any], prompts: list[Any], completions: list[Any],
                columns: dict[str, list[Any]]) -> dict[str, list[float]]:
    """``rewards/<name>`` of every sample, as ``AsyncRolloutWorker._score_group`` computes them."""
    import asyncio
    import os

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    from accelerate import PartialState

    PartialState()  # as TRL's rollout child does before it logs
    from trl.experimental.async_grpo.async_rollout_worker import (
        RolloutGroup,
        TrainingSequence,
        _AsyncRolloutLoop,
    )
    from trl.trainer.utils import get_callable_name

    n = len(completions)
    group = RolloutGroup(
        prompts=prompts, reward_kwargs=columns, completions=completions, completions_ids=[[1, 2]] * n,
        completions_sequences=[[TrainingSequence([1, 2], [0, 1], [0.0, -0.5], f"r{i}")] for i in range(n)],
        tool_call_counts=[0] * n, tool_failure_counts=[0] * n, model_version=0, group_id=0,
        env_rewards=[None] * n, rollout_rewards=[None] * n)
    loop = SimpleNamespace(reward_funcs=reward_funcs, reward_func_names=[get_callable_name(f) for f in reward_funcs],
                           _env_reward_types=[], _provides_rollout_reward=False)
    samples = asyncio.run(_AsyncRolloutLoop._score_group(loop, group))
    return {key: [s.metrics[key] for s in samples] for key in samples[0].metrics if key.startswith("rewards/")}
