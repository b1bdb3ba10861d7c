"""Build TRL's GRPOTrainer from a checked :class:`~grpo_rewards.train.plan.Plan` and run it, protecting the run directory.

:func:`~grpo_rewards.train.plan.prepare` (:mod:`.plan`, re-exported here) does every cheap check and
returns a :class:`Plan`; :func:`run` then resolves the model, builds the trainer, clears a replaced run
(only its own files) and trains; the run files are written when the first step begins (see
:mod:`.progress`). Under ``torchrun``/``accelerate launch`` every rank runs the same code: each checks,
only the main process writes, and the ranks meet at a barrier before the first deletion so no rank
mistakes the new run for an old one.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from ..errors import DatasetError, RunDirError
from ..execution.pool import local_ranks, usable_cpus
from . import manifest as run_files
from . import rundir
from .data import prompt_length_problem
from .lock import RunLock
from .model import card_name
from .model import model_path as resolve_model
from .plan import Plan, _scorer_notes, prepare, quiet_warnings  # noqa: F401  (_scorer_notes: tests/tools reads it here)
from .plot import make_callback
from .progress import (
    RewardWatch,
    keep_metrics_until,
    make_progress_callback,
    process_rank,
    quiet_trainer_output,
    say,
)
from .trainer import build_trainer, finish

__all__ = ["Plan", "prepare", "rewards_line", "run", "say", "set_threads", "train"]


def rewards_line(reward_set: Any) -> str:
    """How the rewards run, for the header: concurrently or one after another, and where."""
    how = "concurrently (TRL awaits them together)" if reward_set.concurrent else "one after another"
    places = {r.options.execution.describe() for r in reward_set.rewards}
    return f"rewards run {how}, " + ("; ".join(sorted(places)) if places != {"local"} else "on this machine")


def _barrier() -> None:
    from accelerate import PartialState

    state = PartialState()
    if state.num_processes > 1:
        state.wait_for_everyone()


def set_threads() -> str:
    """Use as many torch threads as CPUs this process may use (per local process), unless OMP_NUM_THREADS is set."""
    import torch

    if os.environ.get("OMP_NUM_THREADS"):
        return f"torch threads: {torch.get_num_threads()} (OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']})"
    cpus = usable_cpus()
    local = local_ranks()
    threads = max(1, cpus // local)
    torch.set_num_threads(threads)
    return (f"torch threads: {threads} (the {cpus} CPUs this process may use"
            + (f", shared by {local} processes" if local > 1 else "") + "; set OMP_NUM_THREADS to choose)")


def run(plan: Plan, callbacks: list[Any] | None = None) -> Any:
    """Resolve the model, build the trainer, write the run files when the first step begins, train.

    The main process holds the run folder's lock (:mod:`.lock`) from here to the end, and checks the
    folder again under it (another run may have used it since :func:`prepare`); the other ranks of
    the run share that lock. ``callbacks``: extra ``transformers.TrainerCallback`` objects. Returns
    the trainer.
    """
    if process_rank() != 0:
        return _run(plan, callbacks)
    with RunLock(plan.run_dir) as lock:
        stale = lock.recovered
        if stale:
            say(f"grpo-rewards: took over the lock of pid {stale.get('pid', '?')} (started {stale.get('started', '?')}), "
                "which is no longer running")
        resume_from, notes = rundir.check_run_dir(plan.run_dir, resume=plan.resume_from is not None,
                                                  overwrite=plan.overwrite)
        if resume_from != plan.resume_from or (bool(notes) and resume_from is None) != plan.replace:
            raise RunDirError(f"output dir {plan.run_dir} changed since it was checked (another run used it); "
                              "nothing was changed. Start again to check it anew")
        return _run(plan, callbacks)


def _run(plan: Plan, callbacks: list[Any] | None) -> Any:
    from trl import GRPOConfig


    quiet_warnings()
    started = time.monotonic()
    plan.reward_set.start_workers()  # while the model loads: step 1 does not wait for worker start-up
    if not plan.announced:
        say(run_files.header_line(plan.registry))
    say(f"grpo-rewards: {plan.source} · rewards: {plan.rewards_and_environment(' · ')} · {len(plan.dataset)} prompts "
        f"· output {plan.run_dir}")
    say(f"grpo-rewards: {rewards_line(plan.reward_set)}")
    plan.reward_set.prepare()  # connects to a Ray cluster now: one that cannot be reached stops the run here
    for line in plan.environment.prepare() if plan.environment is not None else []:  # and the environments' too
        say(f"grpo-rewards: {line}")
    say(f"grpo-rewards: {set_threads()}")
    model_path = resolve_model(plan.config["model"])
    args = GRPOConfig(**plan.grpo_kwargs)  # sets up the distributed state under torchrun / accelerate
    too_long = prompt_length_problem(plan.dataset, model_path, int(args.max_completion_length or 0))
    if too_long:  # before the model loads and before the run folder is written
        raise DatasetError(too_long)
    say(f"grpo-rewards: loading the model {plan.config['model']}"
        + (f" from {model_path}" if model_path != plan.config["model"] else "") + " and building the trainer")
    new_manifest = run_files.build_manifest(plan.config, plan.reward_set, plan.registry, model_path=model_path)
    if plan.environment is not None:
        new_manifest["environments"] = plan.environment.manifest()
    new_manifest["run_id"] = rundir.new_run_id()

    def on_start(state: Any) -> None:
        """The first step begins (a resume has loaded its checkpoint): write the run files now."""
        if process_rank() != 0:
            return
        for change in plan.changes:
            print(f"grpo-rewards: --force: {change}", flush=True)
        run_files.write_start(plan.run_dir, new_manifest, plan.config, resumed_from=plan.resume_from,
                              changes=plan.changes)
        if plan.resume_from is not None:
            keep_metrics_until(plan.run_dir, state.global_step, plan.resume_from)

    progress = make_progress_callback(plan.run_dir, plan.reward_set.metrics, on_start)
    trainer = build_trainer(plan, model_path, args, [progress, make_callback(plan.run_dir, plan.reward_set.metrics),
                                                     *(callbacks or [])], card_name(plan.config["model"]))
    quiet_trainer_output(trainer)
    from transformers.utils import logging as hf_logging

    shown = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()  # the model has loaded: no "Writing model shards" bar at each checkpoint
    _barrier()  # every rank has checked the run dir and loaded the model before rank 0 clears anything
    if process_rank() == 0 and (plan.overwrite or plan.replace) and plan.run_dir.is_dir():
        deleted = rundir.clear_run_dir(plan.run_dir)
        if deleted:
            print(f"grpo-rewards: {'--overwrite: ' if plan.overwrite else ''}deleted the previous run's "
                  f"{', '.join(deleted)} in {plan.run_dir}", flush=True)
    _barrier()
    total = plan.grpo_kwargs.get("max_steps")
    say(f"grpo-rewards: ready in {time.monotonic() - started:.0f} s; "
        + (f"resuming from {plan.resume_from} at step {rundir.checkpoint_step(plan.resume_from)}; "
           if plan.resume_from is not None else "")
        + (f"training to step {total}; " if isinstance(total, int) and total > 0 else "")
        + "each step generates completions, scores them and updates the model (the first step is the slowest)")
    try:
        with RewardWatch():
            finish(plan, trainer)
    finally:
        if shown:
            hf_logging.enable_progress_bar()
    return trainer


def train(config_path: str | Path | None = None, overrides: list[str] | None = None, **options: Any) -> Any:
    """``prepare`` then ``run``: the whole ``grpo-rewards train`` as a function."""
    return run(prepare(config_path, overrides, **options))
