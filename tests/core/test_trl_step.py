"""One real GRPO step through TRL's GRPOTrainer with reward_funcs/reward_weights from a reward set."""

from __future__ import annotations

import math

import pytest


def test_grpo_step_logs_each_reward_under_its_reward_set_name(registry, tiny_model, tmp_path):
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards import load_reward_set

    data = Dataset.from_list([{"prompt": f"Say {w}", "solution": w} for w in ("yes", "no", "maybe", "ok")])
    reward_set = load_reward_set(
        [
            {"use": "fixture.shout", "weight": 1.0, "as": "loud"},
            {"use": "fixture.offset", "weight": 0.5, "with": {"offset": 1}},
            {"use": "fixture.matches", "weight": 2.0},
        ],
        registry=registry,
        columns=data.column_names,
    )
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=8,
        max_steps=1,
        logging_steps=1,
        report_to=[],
        save_strategy="no",
        use_cpu=True,
        reward_weights=reward_set.reward_weights,
    )
    trainer = GRPOTrainer(
        model=str(tiny_model), reward_funcs=reward_set.reward_funcs, args=args, train_dataset=data,
    )
    trainer.train()
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    for name in ("loud", "fixture.offset", "fixture.matches"):
        assert math.isfinite(logged[f"rewards/{name}/mean"])
    # offset = len(completion) + 1 >= 1 for every completion
    assert logged["rewards/fixture.offset/mean"] >= 1.0
    # the core reports its per-reward timing through TRL's log_metric
    assert logged["timing/loud"] >= 0.0
    assert not any(k.startswith("outcomes/fixture.matches/") for k in logged)  # no label occurred: none logged
    assert trainer.reward_func_names == ["loud", "fixture.offset", "fixture.matches"]


def test_dataset_columns_named_text_and_self_do_not_break_a_grpo_step(registry, tiny_model, tmp_path):
    """TRL passes every column by keyword; 'text' (the scorer's text argument) and 'self' are left out."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from grpo_rewards import load_reward_set

    rows = [{"prompt": f"Say {w}", "text": w, "self": i, "solution": w} for i, w in enumerate(("yes", "no", "ok", "hi"))]
    data = Dataset.from_list(rows)
    reward_set = load_reward_set(
        [
            {"use": "fixture.offset", "with": {"offset": 1}},  # a class: both 'self' and 'text' collide
            {"use": "fixture.offset", "with": {"offset": 2}, "as": "offset_in_worker", "timeout": 30.0},
            {"use": "fixture.matches"},
        ],
        registry=registry,
        columns=data.column_names,
    )
    args = GRPOConfig(
        output_dir=str(tmp_path / "out"), per_device_train_batch_size=4, num_generations=4,
        max_completion_length=8, max_steps=1, logging_steps=1, report_to=[], save_strategy="no", use_cpu=True,
    )
    trainer = GRPOTrainer(model=str(tiny_model), reward_funcs=reward_set.reward_funcs, args=args, train_dataset=data)
    with pytest.warns(UserWarning, match="column.*'self', 'text' have the name of the scorer's own argument") as caught:
        trainer.train()
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    assert logged["rewards/fixture.offset/mean"] >= 1.0
    assert logged["rewards/offset_in_worker/mean"] >= 2.0
    assert "outcomes/offset_in_worker/error" not in logged and "outcomes/fixture.matches/error" not in logged
    tail = "have the name of the scorer's own argument and are not passed to it (rename the column to use it)"
    warned = sorted(str(w.message) for w in caught if "scorer's own argument" in str(w.message))
    assert warned == [  # once per reward; a function scorer has no 'self' to collide with
        f"reward 'fixture.matches': dataset column(s) 'text' {tail}",
        f"reward 'fixture.offset': dataset column(s) 'self', 'text' {tail}",
        f"reward 'offset_in_worker': dataset column(s) 'self', 'text' {tail}",
    ]
