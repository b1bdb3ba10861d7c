"""`grpo-rewards score` gives what training gives: the same rows scored offline and through one
real GRPOTrainer step on the tiny model get the same value from every first-party reward, group
rewards included, and `--tokenizer` makes the completion_ids the trainer passed."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from lanes import needs

pytestmark = needs("trl")

pytest.importorskip("grpo_rewards_math")
pytest.importorskip("grpo_rewards_length")
pytest.importorskip("grpo_rewards_format")

FIRST_PARTY = ("format", "length", "math")
#: Parameters a first-party reward cannot go without, and inputs that make the group rewards
#: depend on another entry (the reward-set feature training uses).
PARAMS: dict[str, dict[str, Any]] = {"format.regex": {"pattern": "[0-9]"}, "length.target": {"target": 20},
                                     "length.group_relative": {"unit": "chars"}}
INPUTS = {"length.cosine": {"correct": "math.accuracy"}, "length.group_relative": {"correct": "math.accuracy"}}
PROMPTS = [("What is 2 + 3? Put the final answer in \\boxed{}.", "5"), ("Compute 12 * 5 - 8.", "52"),
           ("What is 3 + 4?", "7"), ("Say 1 2 3.", "3")]


class Recorder:
    """A reward as TRL calls it, keeping every call's arguments and values."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward
        self.__name__ = reward.__name__
        self.calls: list[tuple[dict[str, Any], list[Any]]] = []

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None, **kwargs: Any) -> list[Any]:
        values = self.reward(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
        self.calls.append(({"prompts": prompts, "completions": completions, "completion_ids": completion_ids,
                            **kwargs}, values))
        return values


def _reward_set_spec() -> list[dict[str, Any]]:
    from grpo_rewards import load_registry

    registry = load_registry()
    names = sorted(n for n, info in registry.rewards.items() if info.plugin in FIRST_PARTY)
    assert {n.split(".")[0] for n in names} == set(FIRST_PARTY)
    return [{"use": n, "with": PARAMS.get(n, {}), **({"inputs": INPUTS[n]} if n in INPUTS else {})} for n in names]


def _train_one_step(model: Path, spec: list[dict[str, Any]], out: Path) -> list[Recorder]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards import load_reward_set

    data = Dataset.from_list([{"prompt": p, "solution": s} for p, s in PROMPTS])
    reward_set = load_reward_set(spec, columns=data.column_names)
    recorders = [Recorder(r) for r in reward_set.reward_funcs]
    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=8, num_generations=4,
                      max_completion_length=24, max_steps=1, logging_steps=1, report_to=[], save_strategy="no",
                      use_cpu=True, seed=3, reward_weights=reward_set.reward_weights)
    GRPOTrainer(model=str(model), reward_funcs=recorders, args=args, train_dataset=data).train()
    return recorders


def test_score_gives_every_first_party_reward_the_value_one_trainer_step_gave(tiny_model, tmp_path):
    from grpo_rewards.cli import main

    spec = _reward_set_spec()
    recorders = _train_one_step(tiny_model, spec, tmp_path / "run")
    # the trainer calls every reward once per step, with all 8 completions (2 prompts x 4)
    assert all(len(r.calls) == 1 for r in recorders)
    arguments = recorders[0].calls[0][0]
    n = len(arguments["completions"])
    assert n == 8 and len(set(arguments["prompts"])) == 2
    rows = [{"prompt": arguments["prompts"][i], "completion": arguments["completions"][i],
             "completion_ids": arguments["completion_ids"][i], "solution": arguments["solution"][i]}
            for i in range(n)]
    rows_file = tmp_path / "rows.jsonl"
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    set_file = tmp_path / "set.yaml"
    set_file.write_text(json.dumps({"rewards": spec}))  # JSON is YAML
    out = tmp_path / "scored.jsonl"
    # --batch-size 3 is smaller than a group of 4: a prompt's rows must still share one call
    assert main(["score", str(rows_file), "--rewards", str(set_file), "--out", str(out), "--batch-size", "3",
                 "--no-progress"]) == 0
    scored = [json.loads(line)["rewards"] for line in out.read_text().splitlines()]
    for recorder in recorders:
        trained = recorder.calls[0][1]
        offline = [s[recorder.__name__] for s in scored]
        assert len(trained) == len(offline) == n
        for a, b in zip(trained, offline):
            assert (a is None and b is None) or (a is not None and b is not None and math.isclose(a, b)), (
                recorder.__name__, trained, offline)
    group = next(r for r in recorders if r.__name__ == "length.group_relative").calls[0][1]
    assert any(v not in (None, 0.0) for v in group)  # the group reward had something to compare


def test_tokenizer_makes_the_completion_ids_the_trainer_passed(tiny_model, tmp_path):
    """Completions the trainer decoded from canonical token ids (a scripted rollout: some end with
    EOS, one is cut off) get the same ids back from `score --tokenizer`."""
    from datasets import Dataset
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards.cli import main

    tok = AutoTokenizer.from_pretrained(tiny_model)
    texts = ["The answer is \\boxed{7}.", "<think> add </think> <answer> 12 </answer>", "Hello world!",
             "0 1 2 3 4 5 6 7 8 9 10 11 12"]
    limit = 6

    def rollout(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        prompt_ids, completion_ids = [], []
        for i, prompt in enumerate(prompts):
            ids = tok(texts[i % len(texts)], add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
            completion_ids.append(ids[:limit] if i % len(texts) == 3 else ids)  # the last one is cut off
            prompt_ids.append(tok(prompt, add_special_tokens=False)["input_ids"])
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": None}

    recorder = Recorder(lambda_free_reward)
    data = Dataset.from_list([{"prompt": "What is 3 + 4?"}, {"prompt": "Compute 12."}])
    args = GRPOConfig(output_dir=str(tmp_path / "run"), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=limit, max_steps=1, report_to=[], save_strategy="no", use_cpu=True)
    GRPOTrainer(model=str(tiny_model), reward_funcs=[recorder], args=args, train_dataset=data,
                rollout_func=rollout).train()
    arguments = recorder.calls[0][0]
    trained_ids = [list(ids) for ids in arguments["completion_ids"]]
    assert any(ids[-1] != tok.eos_token_id for ids in trained_ids)  # a truncated one is among them
    rows = [{"completion": c, **({"truncated": True} if ids[-1] != tok.eos_token_id else {})}
            for c, ids in zip(arguments["completions"], trained_ids)]
    rows_file, set_file, out = tmp_path / "rows.jsonl", tmp_path / "set.yaml", tmp_path / "scored.jsonl"
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in rows))
    set_file.write_text("rewards:\n  - use: length.soft_overlong\n")
    assert main(["score", str(rows_file), "--rewards", str(set_file), "--out", str(out), "--tokenizer",
                 str(tiny_model), "--no-progress"]) == 0
    assert [json.loads(line)["completion_ids"] for line in out.read_text().splitlines()] == trained_ids


def lambda_free_reward(prompts: Any, completions: Any, completion_ids: Any = None, **kwargs: Any) -> list[float]:
    return [float(len(ids)) for ids in completion_ids]
