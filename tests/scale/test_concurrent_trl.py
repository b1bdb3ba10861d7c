"""A real GRPO step (TRL's GRPOTrainer, a tiny model) with the async forms: TRL awaits them and logs the
same rewards, outcomes and timings as with the synchronous rewards, for the same seed."""

from __future__ import annotations

from typing import Any

from grpo_rewards import ConcurrentReward, load_reward_set

SET = [
    {"use": "length.target", "with": {"target": 6, "unit": "chars"}, "weight": 1.0},
    {"use": "format.think", "weight": 0.5},
    {"use": "length.soft_overlong", "with": {"max_length": 8, "buffer": 4, "unit": "chars"},
     "timeout": 30.0},  # in the worker pool
]


def _step(model: Any, out: Any, concurrent: bool) -> tuple[dict[str, float], Any]:
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    data = Dataset.from_list([{"prompt": f"Say {w}"} for w in ("yes", "no", "maybe", "ok")])
    reward_set = load_reward_set(SET, columns=data.column_names, concurrent=concurrent)
    args = GRPOConfig(output_dir=str(out), per_device_train_batch_size=4, num_generations=4,
                      max_completion_length=8, max_steps=1, logging_steps=1, report_to=[], save_strategy="no",
                      use_cpu=True, seed=7, reward_weights=reward_set.reward_weights)
    trainer = GRPOTrainer(model=str(model), reward_funcs=reward_set.reward_funcs, args=args, train_dataset=data)
    trainer.train()
    logged = {k: v for entry in trainer.state.log_history for k, v in entry.items()}
    return logged, trainer


def test_trl_awaits_the_async_forms_and_logs_what_the_synchronous_rewards_log(tiny_model, tmp_path):
    sync, _ = _step(tiny_model, tmp_path / "sync", concurrent=False)
    concurrent, trainer = _step(tiny_model, tmp_path / "concurrent", concurrent=True)
    assert trainer._has_async_funcs and all(isinstance(f, ConcurrentReward) for f in trainer.reward_funcs)
    names = ["length.target", "format.think", "length.soft_overlong"]
    assert trainer.reward_func_names == names

    def rewards(logged: dict[str, float]) -> dict[str, float]:
        return {k: v for k, v in logged.items() if k.startswith(("rewards/", "outcomes/")) or k == "reward"}

    assert rewards(concurrent) == rewards(sync)
    assert {k for k in concurrent if k.startswith("timing/")} == {k for k in sync if k.startswith("timing/")} == {
        f"timing/{n}" for n in names}
    assert not any(k.startswith("outcomes/length.soft_overlong/") for k in concurrent)  # no label occurred: none logged
