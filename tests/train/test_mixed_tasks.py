"""A dataset that mixes tasks: each reward scores its own rows and gives the others ``None``, as TRL's multi-task
reward functions do; training takes such a dataset (it refused every row without the reward's gold columns)."""

from __future__ import annotations

import json
import warnings

from lanes import needs

from grpo_rewards.train import runner

pytestmark = needs("trl")

NONE = {"solution": None, "instruction_id_list": None, "kwargs": None, "tests": None, "gold_calls": None,
        "reference": None, "db_sql": None, "query": None}
ROWS = [  # (row, a completion, what each reward gives it: math, instructions, code, text, tools, sql)
    ({"prompt": "What is 2+2?", "solution": "4"}, "\\boxed{4}", ("correct", None, None, None, None, None)),
    ({"prompt": "Write about owls without commas.", "instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]},
     "owls hunt at night", (None, "followed", None, None, None, None)),
    ({"prompt": "Double the number.", "tests": [{"input": "2\n", "output": "4\n"}]},
     "```python\nprint(int(input()) * 2)\n```", (None, None, "passed", None, None, None)),
    ({"prompt": "Capital of France?", "reference": "Paris"}, "Paris", (None, None, None, "ok", None, None)),
    ({"prompt": "Weather in Paris?", "gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]},
     '[get_weather(city="Paris")]', (None, None, None, None, "matched", None)),
    ({"prompt": "How many rows?", "db_sql": "CREATE TABLE t(a); INSERT INTO t VALUES (1), (2);",
      "query": "SELECT COUNT(*) FROM t"}, "```sql\nSELECT COUNT(*) FROM t\n```", (None, None, None, None, None, "matched")),
]
REWARDS = ["math.accuracy", "instructions.followed", "code.tests_passed", "text.f1", "tools.call_match",
           "code.sql_match"]
NOT_SCORED = ["no_gold", "no_constraints", "no_tests", "no_reference", "no_gold", "no_gold"]


def test_a_dataset_mixing_six_tasks_is_trained_each_reward_scoring_its_own_rows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with open("mixed.jsonl", "w") as f:
        for row, _, _ in ROWS:
            f.write(json.dumps({**NONE, **row}) + "\n")
    (tmp_path / "run.yaml").write_text("model: tiny\ndataset: {path: mixed.jsonl}\nrewards: [" + ", ".join(REWARDS)
                                       + "]\ngrpo: {max_steps: 1}\n")
    plan = runner.prepare("run.yaml")  # before: 16 problems, one per row without a reward's gold columns
    assert (plan.reward_set.metrics, len(plan.dataset), str(plan.run_dir)) == (REWARDS, 6, "runs/mixed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not one warning: another task's row is not a bad row
        for k, reward in enumerate(plan.reward_set.rewards):
            rows = list(plan.dataset)
            result = reward.score(prompts=[r["prompt"] for r in rows], completions=[c for _, c, _ in ROWS],
                                  **{key: [r[key] for r in rows] for key in rows[0] if key != "prompt"})
            expected = [labels[k] or NOT_SCORED[k] for _, _, labels in ROWS]
            assert (result.labels, [v is not None for v in result.values]) == (
                expected, [labels[k] is not None for _, _, labels in ROWS]), reward.__name__
            assert [v for v in result.values if v is not None] == [1.0]
