"""`grpo-rewards score` on recorded tool-calling trajectories gives what one real TRL step gave.

A GRPOTrainer step with ``environment_factory`` (the SQLite environment, which owns its reward) on
the tiny model: the first turn of each rollout is scripted (a ``rollout_func`` that writes Qwen's
``<tool_call>`` text for three of each group's four completions: a right query, a wrong one, two
calls in one turn), so tool calls happen whatever the random model would say; TRL parses them, runs
them in its environments, appends the ``tool`` messages and lets the model go on. The trajectories
TRL passed to the rewards are written as JSONL rows and scored offline, where ``tools.sqlite``
replays each recorded call into a fresh environment: every value and label is the step's.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from lanes import needs

pytestmark = [pytest.mark.slow, needs("trl")]  # trains a step on the tiny model

WRONG_SQL = "SELECT COUNT(*) FROM departments"


class Recorder:
    """A reward as TRL calls it, keeping every call's arguments and result."""

    def __init__(self, reward: Any) -> None:
        self.reward = reward
        self.__name__ = reward.__name__
        self.calls: list[tuple[dict[str, Any], Any]] = []

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None, **kwargs: Any) -> list[Any]:
        result = self.reward.score(prompts=prompts, completions=completions, completion_ids=completion_ids, **kwargs)
        self.calls.append(({"prompts": prompts, "completions": completions, **kwargs}, result))
        return list(result.values)


def _call(sql: str) -> str:
    return "<tool_call>\n" + json.dumps({"name": "query", "arguments": {"sql": sql}}) + "\n</tool_call>"


def test_score_replays_recorded_tool_calls_to_the_values_and_labels_of_a_trl_step(tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards import load_registry, load_reward_set
    from grpo_rewards.cli import main
    from grpo_rewards.train.environment import plan_environment, tool_tokenizer
    from grpo_rewards.train.tiny import make_tiny_model
    from grpo_rewards_tools.environments.database import SQLite
    from grpo_rewards_tools.environments.tasks import make_sqlite

    model = make_tiny_model(tmp_path / "tiny", max_positions=4096)
    registry = load_registry()
    plan, problems = plan_environment("tools.sqlite", registry)
    assert plan is not None and not problems
    rows = [{**row, "gold_calls": json.dumps([{"name": "query", "arguments": {"sql": row["gold_sql"]}}])}
            for row in make_sqlite(2, 5)]
    gold_sql = {row["prompt"][-1]["content"]: row["gold_sql"] for row in rows}
    spec = [*plan.reward_entries(), {"use": "tools.call_match", "with": {"mode": "f1"}}]
    reward_set = load_reward_set(spec, columns=list(rows[0]), registry=registry)
    recorders = [Recorder(r) for r in reward_set.rewards]
    tokenizer = tool_tokenizer(str(model))
    end = tokenizer.convert_tokens_to_ids("<|im_end|>")

    def first_turns(prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """Each group's four first turns: a right query, a wrong one, two calls in one turn, no call."""
        prompt_ids, _, _ = trainer._tokenize_prompts(prompts)
        texts = []
        for i, prompt in enumerate(prompts):
            right = gold_sql[prompt[-1]["content"]]
            texts.append([_call(right), _call(WRONG_SQL), _call(WRONG_SQL) + "\n" + _call(right),
                          "I cannot tell."][i % 4])
        completion_ids = [tokenizer(t, add_special_tokens=False)["input_ids"] + [end] for t in texts]
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": None}

    # room for two calls and their results (the tiny tokenizer spends about a token per 2 characters),
    # while the model's own turn after a result stays short
    args = GRPOConfig(output_dir=str(tmp_path / "run"), per_device_train_batch_size=8, num_generations=4,
                      max_completion_length=768, generation_kwargs={"max_new_tokens": 12},
                      max_tool_calling_iterations=2, max_steps=1, logging_steps=1,
                      report_to=[], save_strategy="no", use_cpu=True, seed=3, shuffle_dataset=False,
                      reward_weights=reward_set.reward_weights)
    trainer = GRPOTrainer(model=str(model), reward_funcs=recorders, args=args, train_dataset=Dataset.from_list(rows),
                          processing_class=tokenizer, environment_factory=plan.factory, rollout_func=first_turns)
    trainer.train()
    assert trainer.reward_func_names == ["tools.sqlite", "tools.call_match"]  # TRL did not add its own copy
    (arguments, trained_sqlite), (_, trained_match) = recorders[0].calls[0], recorders[1].calls[0]
    completions = arguments["completions"]
    assert len(completions) == 8
    calls = [[c["function"]["name"] for m in turn if m.get("role") == "assistant" for c in m.get("tool_calls") or []]
             for turn in completions]
    tool_messages = [[m["content"] for m in turn if m.get("role") == "tool"] for turn in completions]
    assert calls == [["query"], ["query"], ["query", "query"], []] * 2  # TRL parsed every scripted call
    by_question = {row["prompt"][-1]["content"]: row for row in rows}
    expected = []
    for i, prompt in enumerate(arguments["prompts"]):  # and ran each in the rollout's own environment
        row = by_question[prompt[-1]["content"]]
        db = SQLite()
        db.reset(**row)
        expected.append([db.query(sql) for sql in [[row["gold_sql"]], [WRONG_SQL], [WRONG_SQL, row["gold_sql"]],
                                                   []][i % 4]])
    assert tool_messages == expected
    assert trained_sqlite.labels == ["correct", "wrong_result", "correct", "no_query"] * 2
    assert trained_sqlite.values == [1.0, 0.0, 1.0, 0.0] * 2

    recorded = [{"prompt": arguments["prompts"][i], "completion": completions[i],
                 **{k: arguments[k][i] for k in ("database", "gold", "gold_sql", "gold_calls")}}
                for i in range(len(completions))]
    rows_file, set_file, out = tmp_path / "rows.jsonl", tmp_path / "set.yaml", tmp_path / "scored.jsonl"
    rows_file.write_text("".join(json.dumps(row) + "\n" for row in recorded))
    set_file.write_text(json.dumps({"rewards": spec}))  # JSON is YAML
    assert main(["score", str(rows_file), "--rewards", str(set_file), "--out", str(out), "--no-progress"]) == 0
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["rewards"]["tools.sqlite"] for s in scored] == trained_sqlite.values
    assert [s["labels"]["tools.sqlite"] for s in scored] == trained_sqlite.labels
    assert [s["rewards"]["tools.call_match"] for s in scored] == trained_match.values
    assert [s["labels"]["tools.call_match"] for s in scored] == trained_match.labels
