"""Build TRL's GRPOTrainer from a validated config and run it, protecting the run directory.

:func:`prepare` does every check that is cheap (config shape, GRPOConfig fields and values, the
reward set against the registry and the dataset's columns, the model path, the run directory)
and returns a :class:`Plan`; :func:`run` then resolves the model, writes the manifest and trains.
Under ``torchrun``/``accelerate launch`` every rank runs the same code: each checks, only the
main process writes the manifest, the config and the plot, and the ranks meet at a barrier
before the first write so no rank mistakes the new run for an old one.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import RewardError, TrainError
from . import manifest as run_files
from .config import DEFAULT_CONFIG, ConfigError, build_config
from .data import load_dataset_from_config
from .model import ModelError, check_model, resolve_model


def process_rank() -> int:
    """This process's global rank from the launcher's environment (0 when not distributed)."""
    for key in ("RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK"):
        if os.environ.get(key, "").isdigit():
            return int(os.environ[key])
    return 0


def say(message: str) -> None:
    """Print on the main process only."""
    if process_rank() == 0:
        print(message, flush=True)


@dataclass
class Plan:
    """Everything checked and ready except the model and the trainer."""

    config: dict[str, Any]
    source: str
    registry: Any
    reward_set: Any
    dataset: Any
    grpo_kwargs: dict[str, Any]
    run_dir: Path
    resume_from: Path | None = None
    overwrite: bool = False
    force: bool = False
    changes: list[str] = field(default_factory=list)  # reward-set changes accepted by --force


def _rewards_spec(config: dict[str, Any], registry: Any) -> Any:
    spec = config.get("rewards")
    if spec is None:
        task = config["dataset"].get("task")
        info = registry.task(task) if task else None
        if info is None or not info.default_rewards:
            where = f"task {task} has no default rewards" if task else "a file or Hub dataset has no default rewards"
            raise ConfigError(f"rewards: missing ({where}); add a rewards: list, e.g. rewards: [{{use: math.accuracy}}]")
        spec = config["rewards"] = [dict(entry) for entry in info.default_rewards]
    return {"rewards": spec} if isinstance(spec, list) else spec


def has_accelerator() -> bool:
    """Whether torch sees a GPU or another accelerator (CUDA, ROCm, XPU, MPS, ...)."""
    import torch

    accelerator = getattr(torch, "accelerator", None)
    if accelerator is not None and hasattr(accelerator, "is_available"):
        return bool(accelerator.is_available())
    return bool(torch.cuda.is_available())


def quiet_warnings() -> None:
    """Silence transformers' deprecation notices about the ``gradient_checkpointing`` alias TRL sets."""
    import warnings

    warnings.filterwarnings("ignore", message=".*gradient_checkpointing.*deprecated.*", category=FutureWarning)
    warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing.*", category=FutureWarning)


def check_grpo_values(grpo: dict[str, Any], run_dir: Path, reward_weights: list[float]) -> dict[str, Any]:
    """Construct ``GRPOConfig`` once to let TRL validate values; returns the kwargs for the real one."""
    from trl import GRPOConfig

    kwargs = {**grpo, "output_dir": str(run_dir), "reward_weights": reward_weights}
    kwargs.setdefault("report_to", "none")
    kwargs.setdefault("save_strategy", "steps")
    if not has_accelerator():
        # A CPU-only machine: TRL's bf16 default would be refused, and without use_cpu the processes of
        # a torchrun launch would not form a (gloo) process group. Only keys the config leaves unset.
        kwargs.setdefault("use_cpu", True)
        kwargs.setdefault("bf16", False)
    quiet_warnings()
    try:
        args = GRPOConfig(**kwargs)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"GRPOConfig rejected the grpo: values: {exc}", "grpo") from exc
    if args.max_steps is None or args.max_steps <= 0:
        if not args.num_train_epochs:
            raise ConfigError("set grpo.max_steps (or num_train_epochs) to say how long to train", "grpo")
    return kwargs


def prepare(
    config_path: str | Path | None = None,
    overrides: list[str] | None = None,
    *,
    output_dir: str | None = None,
    max_steps: int | None = None,
    seed: int | None = None,
    resume: bool = False,
    overwrite: bool = False,
    force: bool = False,
    registry: Any = None,
) -> Plan:
    """Check everything that can be checked before the model loads; raise one clear error if not."""
    if config_path is None and resume:
        saved = Path(output_dir or DEFAULT_CONFIG["output_dir"]) / run_files.CONFIG
        if saved.is_file():  # resume a run with the config it was started with
            config_path = saved
    config, source = build_config(config_path, overrides, output_dir=output_dir, max_steps=max_steps, seed=seed)
    run_dir = Path(config["output_dir"]).expanduser()
    resume_from = run_files.check_run_dir(run_dir, resume=resume, overwrite=overwrite)
    if resume_from is not None:
        for damaged in run_files.checkpoints(run_dir, damaged=True):
            say(f"grpo-rewards: skipping {damaged.name}: its {run_files.STATE} does not read (cut short by a kill?)")
    config["model"] = check_model(config.get("model"))
    if registry is None:
        from ..registry import load_registry

        registry = load_registry()
    from ..rewardset import load_reward_set

    spec = _rewards_spec(config, registry)
    load_reward_set(spec, registry=registry)  # names and parameters, before the dataset is built
    dataset = load_dataset_from_config(config["dataset"], registry)
    reward_set = load_reward_set(spec, registry=registry, columns=dataset.column_names)
    grpo_kwargs = check_grpo_values(config["grpo"], run_dir, reward_set.reward_weights)
    changes: list[str] = []
    if resume_from is not None:
        changes = run_files.check_resume(run_dir, {"rewards": reward_set.manifest()}, force=force)
    return Plan(config=config, source=source, registry=registry, reward_set=reward_set, dataset=dataset,
                grpo_kwargs=grpo_kwargs, run_dir=run_dir, resume_from=resume_from, overwrite=overwrite, force=force,
                changes=changes)


def _barrier() -> None:
    from accelerate import PartialState

    state = PartialState()
    if state.num_processes > 1:
        state.wait_for_everyone()


def run(plan: Plan, callbacks: list[Any] | None = None) -> Any:
    """Resolve the model, write the run files (main process), train; returns the trainer.

    ``callbacks``: extra ``transformers.TrainerCallback`` objects (the reward-curve one is always added).
    """
    from trl import GRPOConfig, GRPOTrainer

    quiet_warnings()

    say(run_files.header_line(plan.registry))
    say(f"grpo-rewards: {plan.source} · rewards: "
        + ", ".join(f"{e.name}×{e.weight:g}" for e in plan.reward_set.entries)
        + f" · {len(plan.dataset)} prompts · output {plan.run_dir}")
    model_path = resolve_model(plan.config["model"])
    args = GRPOConfig(**plan.grpo_kwargs)  # sets up the distributed state under torchrun / accelerate
    new_manifest = run_files.build_manifest(plan.config, plan.reward_set, plan.registry, model_path=model_path)
    changes = plan.changes
    _barrier()  # every rank has checked the run dir before rank 0 writes into it
    if process_rank() == 0:
        if plan.overwrite and plan.run_dir.is_dir() and any(plan.run_dir.iterdir()):
            print(f"grpo-rewards: --overwrite: deleting the previous contents of {plan.run_dir}", flush=True)
            run_files.clear_run_dir(plan.run_dir)
        for change in changes:
            print(f"grpo-rewards: --force: {change}", flush=True)
        run_files.write_start(plan.run_dir, new_manifest, plan.config, resumed_from=plan.resume_from,
                              changes=changes)
    _barrier()
    from .plot import make_callback

    try:
        trainer = GRPOTrainer(
            model=model_path,
            reward_funcs=plan.reward_set.reward_funcs,
            args=args,
            train_dataset=plan.dataset,
            callbacks=[make_callback(plan.run_dir), *(callbacks or [])],
        )
    except OSError as exc:  # an unknown Hub id, no network, a folder without weights
        raise ModelError(f"cannot load model {plan.config['model']!r}: {exc}".strip()) from exc
    if plan.resume_from is not None:
        say(f"grpo-rewards: resuming from {plan.resume_from}")
    try:
        trainer.train(resume_from_checkpoint=str(plan.resume_from) if plan.resume_from else None)
    except RewardError as exc:
        saved = run_files.last_checkpoint(plan.run_dir)
        keep = (f"The run directory keeps {saved.name}; fix the reward and continue with --resume."
                if saved else "No checkpoint was saved yet; fix the reward and start again.")
        raise TrainError(f"training stopped at step {trainer.state.global_step}: {exc}. {keep}") from exc
    saved = run_files.last_checkpoint(plan.run_dir)
    if saved is None or saved.name != f"checkpoint-{trainer.state.global_step}":
        saved = plan.run_dir / "final"
        trainer.save_model(str(saved))  # every rank calls it: sharded models are gathered first
    say(f"grpo-rewards: done at step {trainer.state.global_step}; model in {saved}, "
        f"reward curves in {plan.run_dir / run_files.PLOT}")
    return trainer


def train(config_path: str | Path | None = None, overrides: list[str] | None = None, **options: Any) -> Any:
    """``prepare`` then ``run``: the whole ``grpo-rewards train`` as a function."""
    return run(prepare(config_path, overrides, **options))


if __name__ == "__main__":  # pragma: no cover - python -m grpo_rewards.train.runner CONFIG
    from .command import train_command

    sys.exit(train_command(sys.argv[1:]))
