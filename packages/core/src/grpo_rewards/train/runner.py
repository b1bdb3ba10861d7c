"""Build TRL's GRPOTrainer from a validated config and run it, protecting the run directory.

:func:`prepare` does every check that is cheap (config shape and values, the reward set against
the registry and the dataset's columns, the model path, the run directory) and raises them
together, or returns a :class:`Plan`; :func:`run` then resolves the model, builds the trainer,
clears a replaced run (only its own files) and trains; the run files are written when the first
step begins (see :mod:`.progress`). Under ``torchrun``/``accelerate launch`` every rank runs the
same code: each checks, only the main process writes, and the ranks meet at a barrier before the
first deletion so no rank mistakes the new run for an old one.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..concurrent import trl_gathers_async_rewards
from ..errors import ConfigError, DatasetError, GrpoRewardsError, ModelError, RunComplete, RunDirError
from ..registry import Registry, load_registry
from ..rewardset import RewardSet, load_reward_set
from ..scorer_hooks import row_problems
from . import manifest as run_files
from . import rundir
from .config import DEFAULT_CONFIG, build_config, config_problems, path_rule, reward_file_set
from .data import describe, load_dataset_from_config, prompt_length_problem
from .environment import DEFAULT_TOOL_ITERATIONS, EnvironmentPlan, column_problems, plan_environment
from .lock import RunLock, check_free
from .model import card_name, check_model
from .model import model_path as resolve_model
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

__all__ = ["Plan", "prepare", "run", "train"]


@dataclass
class Plan:
    """Everything checked and ready except the model and the trainer."""

    config: dict[str, Any]
    source: str
    registry: Registry
    reward_set: RewardSet
    dataset: Any
    grpo_kwargs: dict[str, Any]
    run_dir: Path
    resume_from: Path | None = None
    overwrite: bool = False
    force: bool = False
    changes: list[str] = field(default_factory=list)  # reward-set changes accepted by --force
    replace: bool = False  # the run dir holds the files of a start that completed no step
    announced: bool = False  # prepare printed the header line
    environment: EnvironmentPlan | None = None  # TRL's environment_factory, when the run has one


def _with_environment_rewards(spec: Any, environment: EnvironmentPlan | None) -> None:
    """Add the reward of each environment that owns one to a reward-set list that does not name it
    (in place: the run's config records it): the core scores it under the environment's name, once."""
    if environment is not None and isinstance(spec, list):
        named = {e.get("use") if isinstance(e, dict) else e for e in spec}
        spec += [e for e in environment.reward_entries() if e["use"] not in named]


def _rewards_spec(config: dict[str, Any], registry: Any, environment: EnvironmentPlan | None = None) -> Any:
    spec = config.get("rewards")
    if spec is None:
        task = config["dataset"].get("task")
        info = registry.task(task) if task else None
        defaults = list(info.default_rewards or []) if info is not None else []
        if not defaults and environment is not None:
            defaults = [e for env, _ in environment.chosen.values() for e in env.default_rewards or []]
        if not defaults and not (environment is not None and environment.reward_entries()):
            where = f"task {task} has no default rewards" if task else "a file or Hub dataset has no default rewards"
            raise ConfigError(f"rewards: missing ({where}); add a rewards: list, e.g. rewards: [{{use: math.accuracy}}]")
        spec = config["rewards"] = [dict(entry) for entry in defaults]
    _with_environment_rewards(spec, environment)
    if isinstance(spec, str) and not Path(spec).expanduser().is_file():
        raise ConfigError(f"reward-set file not found: {spec}{path_rule(spec)}")
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


def check_grpo_values(grpo: dict[str, Any], run_dir: Path, reward_weights: list[float], *,
                      tools: bool = False) -> dict[str, Any]:
    """Construct ``GRPOConfig`` once to let TRL validate values; returns the kwargs for the real one.
    ``tools``: the run has an environment, so TRL's tool loop gets a bounded number of turns."""
    from trl import GRPOConfig

    kwargs = {**grpo, "output_dir": str(run_dir), "reward_weights": reward_weights}
    if tools and kwargs.get("max_tool_calling_iterations") is None:
        kwargs["max_tool_calling_iterations"] = DEFAULT_TOOL_ITERATIONS
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
        raise ConfigError(f"grpo: GRPOConfig rejected the grpo: values: {exc}", "grpo") from exc
    if args.max_steps is None or args.max_steps <= 0:
        if not args.num_train_epochs:
            raise ConfigError("grpo: set grpo.max_steps (or num_train_epochs) to say how long to train", "grpo")
    return kwargs


def _problems(exc: GrpoRewardsError, prefix: str = "") -> list[str]:
    problems = getattr(exc, "problems", None)
    return [prefix + p for p in problems] if problems else [prefix + str(exc)]


def _check_finished(checkpoint: Path, grpo: dict[str, Any], run_dir: Path) -> None:
    """Raise :class:`RunComplete` when the checkpoint already reached the run's last step."""
    step = rundir.checkpoint_step(checkpoint)
    max_steps = grpo.get("max_steps")
    if not isinstance(max_steps, int) or max_steps <= 0:
        return  # an epoch-based run: TRL decides
    if step >= max_steps:
        raise RunComplete(
            f"the run in {run_dir} is complete at step {step} (max_steps {max_steps}); nothing was changed. "
            f"To train further, raise max_steps: grpo-rewards train --output-dir {run_dir} --resume "
            f"--max-steps {step + max(step, 1)}")


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
    verbose: bool = False,
) -> Plan:
    """Check everything that can be checked before the model loads; raise one error listing every problem.

    ``verbose``: say what is being done (building the dataset can take a while).
    """
    if config_path is None and resume:
        saved = Path(output_dir or DEFAULT_CONFIG["output_dir"]) / rundir.CONFIG
        if saved.is_file():  # resume a run with the config it was started with
            config_path = saved
    config, source = build_config(config_path, overrides, output_dir=output_dir, max_steps=max_steps, seed=seed,
                                  check=False)
    problems = config_problems(config)
    if problems and not isinstance(config.get("output_dir"), str):
        raise ConfigError(problems, source)
    run_dir = Path(config["output_dir"]).expanduser()
    resume_from: Path | None = None
    notes: list[str] = []
    run_dir_error: RunDirError | None = None
    try:
        if process_rank() == 0:  # the other ranks of a run share its lock (taken by rank 0 in run)
            check_free(run_dir)
        resume_from, notes = rundir.check_run_dir(run_dir, resume=resume, overwrite=overwrite)
    except RunDirError as exc:  # one of the problems: the others are still looked for
        run_dir_error = exc
        problems.append(str(exc))
    if resume_from is not None and isinstance(config.get("grpo"), dict):
        _check_finished(resume_from, config["grpo"], run_dir)
    for note in notes:
        say(f"grpo-rewards: {note}")
    try:
        config["model"] = check_model(config.get("model"))
    except ModelError as exc:
        problems.append(str(exc))
    if registry is None:
        registry = load_registry()
    if verbose:
        say(run_files.header_line(registry))

    reward_set = dataset = spec = environment = None
    if isinstance(config.get("dataset"), dict):
        try:
            task = registry.task(config["dataset"]["task"]) if config["dataset"].get("task") else None
        except GrpoRewardsError:
            task = None  # the dataset's own error says it
        environment, found = plan_environment(config.get("environment"), registry, task)
        problems += found
    try:
        spec = _rewards_spec(config, registry, environment)
        reward_set = load_reward_set(spec, registry=registry)  # names and parameters first
    except GrpoRewardsError as exc:
        problems += _problems(exc, "rewards: ")
    if reward_set is not None and isinstance(spec, str):  # rewards: set.yaml: the run records the set itself,
        entries = reward_file_set(spec)                    # and runs what it records (a resume compares them)
        try:
            reward_set = load_reward_set(entries, registry=registry)
        except GrpoRewardsError:  # a module found only beside the set file: keep the file's reference
            pass
        else:
            config["rewards"] = spec = entries
            _with_environment_rewards(spec, environment)  # loaded with the dataset's columns below
    if isinstance(config.get("dataset"), dict) and not any(p.startswith("dataset") for p in problems):
        if verbose:
            say(f"grpo-rewards: building the dataset ({describe(config['dataset'])})")
        try:
            dataset = load_dataset_from_config(config["dataset"], registry)
        except GrpoRewardsError as exc:
            problems += _problems(exc)
        else:
            if isinstance(config["dataset"].get("path"), str):  # the run records which file, from any folder
                config["dataset"]["path"] = str(Path(config["dataset"]["path"]).expanduser().resolve())
    if environment is not None and dataset is not None:
        problems += column_problems(environment, dataset.column_names)
    if reward_set is not None and dataset is not None:
        try:
            reward_set = load_reward_set(spec, registry=registry, columns=dataset.column_names)
        except GrpoRewardsError as exc:
            problems += _problems(exc, "rewards: ")
    if reward_set is not None:
        problems += _concurrency(reward_set)
        if dataset is not None:
            problems += _scorer_notes(reward_set, dataset, say if verbose else None)
    grpo_kwargs: dict[str, Any] = {}
    if not any(p.startswith("grpo") for p in problems) and reward_set is not None:
        try:
            grpo_kwargs = check_grpo_values(config["grpo"], run_dir, reward_set.reward_weights,
                                            tools=environment is not None)
        except ConfigError as exc:
            problems += exc.problems
    if run_dir_error is not None and problems == [str(run_dir_error)]:
        raise run_dir_error  # the only problem: its own error, as before
    if problems or reward_set is None or dataset is None:
        raise ConfigError(problems, source)
    changes: list[str] = []
    if resume_from is not None:
        changes = run_files.check_resume(run_dir, {"rewards": reward_set.manifest()}, force=force)
    return Plan(config=config, source=source, registry=registry, reward_set=reward_set, dataset=dataset,
                grpo_kwargs=grpo_kwargs, run_dir=run_dir, resume_from=resume_from, overwrite=overwrite, force=force,
                changes=changes, replace=bool(notes) and resume_from is None, announced=verbose,
                environment=environment)


def _concurrency(reward_set: Any) -> list[str]:
    """Give TRL the rewards' async forms unless the set says not to or the installed TRL cannot await them."""
    supported = trl_gathers_async_rewards()
    if reward_set.concurrent is None:
        reward_set.concurrent = supported
    elif reward_set.concurrent and not supported:
        return ["rewards: concurrent: true needs a TRL whose GRPOTrainer awaits async reward functions given as "
                "callable instances (trl.trainer.utils.is_async_callable; TRL 1.x); this TRL cannot: "
                "set concurrent: false or upgrade trl"]
    return []


def rewards_line(reward_set: Any) -> str:
    """How the rewards run, for the header: concurrently or one after another, and where."""
    how = "concurrently (TRL awaits them together)" if reward_set.concurrent else "one after another"
    places = {r.options.execution.describe() for r in reward_set.rewards}
    return f"rewards run {how}, " + ("; ".join(sorted(places)) if places != {"local"} else "on this machine")


def _scorer_notes(reward_set: Any, dataset: Any, announce: Any) -> list[str]:
    """Print what each reward runs on (a sandbox) and return the dataset rows each reward cannot score."""
    problems = []
    for entry, info in zip(reward_set.entries, reward_set.infos):
        note = info.runtime_note()
        if note and announce is not None:
            announce(f"grpo-rewards: {entry.metric} runs in {note}")
        problems += [f"dataset: {entry.metric}: {p}" for p in row_problems(info.scorer, dataset)]
    return problems


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
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    local = int(os.environ.get("LOCAL_WORLD_SIZE", "1") or 1)
    threads = max(1, cpus // max(1, local))
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
    say(f"grpo-rewards: {plan.source} · rewards: "
        + ", ".join(f"{e.metric}×{e.weight:g}" for e in plan.reward_set.entries)
        + f" · {len(plan.dataset)} prompts · output {plan.run_dir}")
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


