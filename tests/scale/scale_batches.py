"""A real batch for every first-party reward: completions in every shape, and the columns it reads.

Used by the tests that compare two ways of running one reward (the local pool against Ray, the
synchronous call against the concurrent one) on the same inputs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from grpo_rewards import load_registry
from grpo_rewards.contract.cases import COLUMN_VALUES, DEFAULT_COLUMN_VALUE
from grpo_rewards.registry import FIRST_PARTY
from grpo_rewards.rewardset import required_columns

REGISTRY = load_registry()
FIRST_PARTY_REWARDS = sorted(name for name, info in REGISTRY.rewards.items() if info.plugin in FIRST_PARTY)
#: The first-party rewards a remote backend can run: per sample and worker-safe.
PER_SAMPLE = [n for n in FIRST_PARTY_REWARDS
              if REGISTRY.rewards[n].form == "sample" and REGISTRY.rewards[n].options.worker_safe]

COMPLETIONS: list[Any] = [
    "The answer is 4.",
    "<think>2 + 2 = 4</think>\n<answer>4</answer>",
    "I think it is \\boxed{5}.",
    "",
    [{"role": "assistant", "content": "<think>so</think><answer>\\boxed{4}</answer>"}],
    "Step 1: add.\nStep 2: check.\n" + "word " * 60 + "\\boxed{4}",
    "<think>\nlong " + "thought " * 200 + "</think>\n<answer>\\frac{8}{2}</answer>",
    None,
]


def params_for(name: str) -> dict[str, Any]:
    """Values for the reward's required parameters, from its registered example (``judge.reward_model``:
    a tiny random reward model built locally instead of the example's Hub model; the code rewards half a
    second of CPU a test, as their hack corpus runs them: the batch's sleeping program waits out each
    test's wall-clock limit, which follows it)."""
    info = REGISTRY.rewards[name]
    if name == "judge.reward_model":
        return {"model": str(_tiny_reward_model())}
    if info.plugin == "code":
        from grpo_rewards_code.hacks import FAST

        if name in FAST:
            return dict(FAST[name])
    if not any(p.required for p in info.params.values()):
        return {}
    example = yaml.safe_load(info.example or "")
    return dict(example["with"])


def batch_for(name: str) -> tuple[list[Any], list[Any], dict[str, list[Any]]]:
    """``(prompts, completions, columns)`` for one call of reward ``name``; the columns include
    ``completion_ids`` (one token per word)."""
    info = REGISTRY.rewards[name]
    if info.plugin == "gym":
        from grpo_rewards_gym import make_rows

        rows = make_rows("basic_arithmetic", 4, seed=0) + make_rows("leg_counting", 4, seed=1)
        completions = []
        for i, row in enumerate(rows):
            answers = (f"<answer>{row['answer']}</answer>", f"\\boxed{{{row['answer']}}}", "<answer>-1</answer>",
                       "no answer at all")
            completions.append(answers[i % len(answers)])
        columns = {key: [r[key] for r in rows] for key in rows[0] if key != "prompt"}
        columns["completion_ids"] = _ids(completions)
        return [r["prompt"] for r in rows], completions, columns
    if info.plugin == "code":
        from grpo_rewards_code.tasks import make_stdio

        # one test a row: the sleeping program waits out each test's wall-clock limit, in every call of the batch
        rows = make_stdio(6, 0, families=["sum"], tests=1)
        programs = ["```python\nprint(sum(map(int, input().split())))\n```",  # passes every test
                    "```python\nprint(0)\n```",  # fails them
                    "```python\nprint(sum(map(int, input().split()))\n```",  # a syntax error
                    "```python\nimport time\ntime.sleep(60)\n```",  # runs past the time limit
                    "I would add the numbers.",  # no code
                    [{"role": "assistant", "content": "```python\nraise SystemExit(3)\n```"}]]
        columns = {key: [r[key] for r in rows] for key in rows[0] if key != "prompt"}
        columns["completion_ids"] = _ids(programs)
        return [r["prompt"] for r in rows], programs, columns
    completions = list(COMPLETIONS)
    columns = {c: [COLUMN_VALUES.get(c, DEFAULT_COLUMN_VALUE)] * len(completions)
               for c in required_columns(info, params_for(name))}
    columns["completion_ids"] = _ids(completions)
    return ["What is 2 + 2?"] * len(completions), completions, columns


def _ids(completions: list[Any]) -> list[list[int]]:
    texts = [c[-1]["content"] if isinstance(c, list) else (c or "") for c in completions]
    return [list(range(len(t.split()))) for t in texts]


def _tiny_reward_model() -> Path:
    """The judge tests' tiny sequence-classification model, written once per test process."""
    from judge_models import tiny_reward_model

    return tiny_reward_model()
