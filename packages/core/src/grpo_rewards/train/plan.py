"""Check a training run before anything heavy loads: :func:`prepare` returns the :class:`Plan` that
:func:`grpo_rewards.train.runner.run` carries out.

:func:`prepare` does every check that is cheap (config shape and values, the reward set against
the registry and the dataset's columns, the environments, the model path, the run directory,
GRPOConfig's own validation) and raises them together in one :class:`~grpo_rewards.errors.ConfigError`,
or returns a :class:`Plan`. Nothing here loads a model or writes to the run directory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import params
from ..concurrent import trl_gathers_async_rewards
from ..errors import ConfigError, GrpoRewardsError, ModelError, RunComplete, RunDirError
from ..registry import Registry, load_registry
from ..rewardset import RewardSet, load_reward_set
from ..scorer_hooks import row_problems
from . import manifest as run_files
from . import rundir
from .checks import target_module_problems
from .config import build_config, config_problems, path_rule, reward_file_set
from .data import describe, load_dataset_from_config
from .environment import DEFAULT_TOOL_ITERATIONS, EnvironmentPlan, column_problems, plan_environment
from .lock import check_free
from .model import check_model, model_folder
from .progress import process_rank, say

__all__ = ["Plan", "check_grpo_values", "has_accelerator", "prepare", "quiet_warnings"]


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

    def rewards_and_environment(self, sep: str = ", ") -> str:
        """``metric×weight`` of each reward, then the environment(s), as the dry run and the run's header say them."""
        return ", ".join(f"{e.metric}×{e.weight:g}" for e in self.reward_set.entries) + (
            f"{sep}{self.environment.describe()}" if self.environment is not None else "")


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
            raise ConfigError(f"missing ({where}); add a rewards: list, e.g. rewards: [{{use: math.accuracy}}]")
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
    try:  # TRL takes any value: at 0 or below its loop runs none of the model's tool calls, silently
        params.integer(kwargs.get("max_tool_calling_iterations"), "max_tool_calling_iterations", low=1,
                       none_ok=True)
    except ValueError as exc:
        raise ConfigError(f"grpo: {exc} (the rounds of tool calls TRL runs for a completion; at 0 or below it runs "
                          f"none; unset, a run with an environment gets {DEFAULT_TOOL_ITERATIONS})", "grpo") from exc
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
        default, _ = build_config(None, overrides, output_dir=output_dir, check=False)  # the folder it ran in
        saved = Path(str(default["output_dir"])).expanduser() / rundir.CONFIG
        if saved.is_file():  # resume a run with the config it was started with
            config_path = saved
    config, source = build_config(config_path, overrides, output_dir=output_dir, max_steps=max_steps, seed=seed,
                                  check=False)
    if not isinstance(config.get("output_dir"), str):
        raise ConfigError(config_problems(config), source)
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
    if resume_from is not None and isinstance(config.get("grpo"), dict):
        _check_finished(resume_from, config["grpo"], run_dir)  # said before the checks below import TRL (~4 s)
    problems = config_problems(config) + ([str(run_dir_error)] if run_dir_error is not None else [])
    for note in notes:
        say(f"grpo-rewards: {note}")
    try:
        config["model"] = check_model(config.get("model"))
        if isinstance(config.get("peft"), dict) and not any(p.startswith("peft") for p in problems):
            problems += target_module_problems(config["peft"], model_folder(config["model"]))
    except ModelError as exc:
        problems.append(str(exc))
    if registry is None:
        registry = load_registry()
    if verbose:
        say(run_files.header_line(registry))

    reward_set = dataset = spec = environment = None
    environment_problems: list[str] = []
    if isinstance(config.get("dataset"), dict):
        try:
            task = registry.task(config["dataset"]["task"]) if config["dataset"].get("task") else None
        except GrpoRewardsError:
            task = None  # the dataset's own error says it
        environment, environment_problems = plan_environment(config.get("environment"), registry, task)
        problems += environment_problems
    try:
        if not (environment_problems and config.get("rewards") is None):  # else the rewards are the environment's:
            spec = _rewards_spec(config, registry, environment)              # its problem is the one to read
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
        problems += column_problems(environment, dataset)
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


def _scorer_notes(reward_set: Any, dataset: Any, announce: Any) -> list[str]:
    """Print what each reward runs on (a sandbox) and return the dataset rows each reward cannot score."""
    problems = []
    for entry, info in zip(reward_set.entries, reward_set.infos):
        note = info.runtime_note()
        if note and announce is not None:
            announce(f"grpo-rewards: {entry.metric} runs in {note}")
        problems += [f"dataset: {entry.metric}: {p}" for p in row_problems(info.scorer, dataset)]
    return problems
