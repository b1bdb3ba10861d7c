"""``grpo-rewards train`` and ``grpo-rewards plot``: the training run and its reward curves (see :mod:`grpo_rewards.train`)."""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from ..errors import RunComplete
from ..registry import Registry, use_registry
from ..train.config import build_config
from ..train.plot import plot_run
from ..train.runner import prepare, rewards_line, run, say
from .command import Command, new_parser

EPILOG = """\
examples:
  grpo-rewards train                                   # the embedded default: SmolLM2-135M on a+b, offline
  grpo-rewards train run.yaml grpo.learning_rate=1e-5 dataset.n=64
  grpo-rewards train run.yaml --output-dir runs/x --resume
  grpo-rewards train --print-config > run.yaml          # start from the default config
  grpo-rewards train run.yaml model=tiny --max-steps 2 --output-dir /tmp/smoke   # the config end to end, ~30 s
  torchrun --nproc_per_node 2 -m grpo_rewards.train run.yaml   # many processes (or: accelerate launch)
"""


def train_parser() -> argparse.ArgumentParser:
    parser = new_parser(
        "train",
        "Train with TRL's GRPOTrainer, the installed reward plugins and one config file. "
        "With no config: the embedded SmolLM2-135M-Instruct on math:arithmetic, offline, about 20 minutes "
        "on 2 CPU cores. model=tiny: a tiny random model, for checking a config end to end (about half a minute "
        "on 2 CPU cores).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("config", nargs="?", help="YAML config (model, output_dir, dataset, rewards, grpo, peft)")
    parser.add_argument("overrides", nargs="*", metavar="KEY=VALUE",
                        help="override a config value, dotted: grpo.learning_rate=1e-5, dataset.n=64, model=PATH")
    parser.add_argument("--output-dir", help="run directory (config: output_dir)")
    parser.add_argument("--max-steps", type=int, help="training steps (config: grpo.max_steps)")
    parser.add_argument("--seed", type=int, help="training seed (config: grpo.seed)")
    parser.add_argument("--resume", action="store_true",
                        help="continue the run in the output dir from its newest whole checkpoint (its saved config is "
                        "used when no CONFIG is given)")
    parser.add_argument("--force", action="store_true",
                        help="with --resume: continue even if the reward set or plugin versions changed")
    parser.add_argument("--overwrite", action="store_true",
                        help="delete the run in the output dir (only the files a run writes; a folder holding "
                        "anything else is refused) and start a new run there")
    parser.add_argument("--dry-run", action="store_true",
                        help="check the config, rewards, dataset and output dir, print the plan, load no model")
    parser.add_argument("--print-config", action="store_true", help="print the resolved config as YAML and exit")
    return parser


def _split_overrides(args: argparse.Namespace) -> tuple[str | None, list[str]]:
    """A first positional ``key=value`` is an override, not a config file."""
    config, overrides = args.config, list(args.overrides)
    if config is not None and "=" in config and not config.endswith((".yaml", ".yml")):
        overrides.insert(0, config)
        config = None
    return config, overrides


def run_train(args: argparse.Namespace) -> int:
    config_path, overrides = _split_overrides(args)
    if args.print_config:
        import yaml

        config, _ = build_config(config_path, overrides, output_dir=args.output_dir, max_steps=args.max_steps,
                                 seed=args.seed)
        print(yaml.safe_dump(config, sort_keys=False), end="")
        return 0
    try:
        plan = prepare(config_path, overrides, output_dir=args.output_dir, max_steps=args.max_steps, seed=args.seed,
                       resume=args.resume, overwrite=args.overwrite, force=args.force, verbose=not args.dry_run)
    except RunComplete as done:
        say(f"grpo-rewards: {done}")
        return 0
    if args.dry_run:
        say(f"grpo-rewards: dry run OK: {plan.source}, model {plan.config['model']}, {len(plan.dataset)} prompts "
            f"with columns {', '.join(plan.dataset.column_names)}, rewards {plan.rewards_and_environment()}"
            + f", output {plan.run_dir}" + (f", resuming {plan.resume_from.name}" if plan.resume_from else "")
            + f"; {rewards_line(plan.reward_set)}"
            + (" (not contacted in a dry run)" if any(r.options.execution.remote for r in plan.reward_set.rewards)
               else ""))
        return 0
    try:
        with _ctrl_c_guard():
            run(plan)
    except KeyboardInterrupt:
        return _interrupted()
    return 0


#: Seconds after a Ctrl-C before the guard stops a run whose main thread has not acted on it.
CTRL_C_GRACE = 15.0
_interrupting = threading.Lock()


@contextlib.contextmanager
def _ctrl_c_guard() -> Iterator[None]:
    """Make one Ctrl-C stop the run even when the main thread cannot act on it (blocked in native code,
    or a cleanup that waits for a reward that never returns): Python's own signal handler writes the
    signal to a pipe at once, from any state of the main thread, and a daemon thread reading it ends the
    run with :func:`_interrupted` if the main thread has not done so within :data:`CTRL_C_GRACE` seconds."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    try:
        previous = signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    except ValueError:  # not the main thread of the main interpreter
        os.close(read_end)
        os.close(write_end)
        yield
        return

    def watch() -> None:
        try:
            while got := os.read(read_end, 64):  # end of file: the run ended
                if signal.SIGINT in got:
                    time.sleep(CTRL_C_GRACE)
                    _interrupted()
        except OSError:
            pass
        finally:
            os.close(read_end)

    threading.Thread(target=watch, name="grpo-rewards ctrl-c guard", daemon=True).start()
    try:
        yield
    finally:
        signal.set_wakeup_fd(previous)
        os.close(write_end)  # the watcher reads end-of-file and returns


def _interrupted() -> int:
    """One Ctrl-C stops the run: saved checkpoints stay, and a reward still running in a thread (one
    without a timeout that never returns) does not keep the process alive or need a second Ctrl-C."""
    if not _interrupting.acquire(blocking=False):  # the main thread and the guard: one of them says it
        return 130
    from ..train.progress import rewards_running

    waiting = sorted({metric for metric, _ in rewards_running()})
    print("grpo-rewards: interrupted" + (f" (the reward {', '.join(waiting)} was still running)" if waiting else ""),
          file=sys.stderr, flush=True)
    # A reward's thread (TRL's async rewards run in an executor the interpreter joins at exit), or any other
    # thread the interpreter would join, could hold the exit forever: leave without it. Checkpoints are
    # saved, the lock's flock goes with the process and the run folder's lock file was removed on the way out.
    if waiting or _threads_holding_the_exit():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    return 130


def _threads_holding_the_exit() -> list[str]:
    """Names of the live non-daemon threads besides this one: the interpreter waits for them at exit."""
    import threading

    here = threading.current_thread()
    return [t.name for t in threading.enumerate() if t is not here and t.is_alive() and not t.daemon]


def plot_parser() -> argparse.ArgumentParser:
    parser = new_parser("plot", "Redraw the reward curves of a run directory from its log history.")
    parser.add_argument("run_dir", help="a grpo-rewards train output dir (or a checkpoint-N folder)")
    parser.add_argument("--out", help="PNG to write (default: RUN_DIR/reward_curves.png)")
    return parser


def run_plot(args: argparse.Namespace) -> int:
    out = plot_run(Path(args.run_dir), Path(args.out) if args.out else None)
    print(f"grpo-rewards: wrote {out}")
    return 0


TRAIN = Command("train", train_parser, run_train, intermixed=True)
PLOT = Command("plot", plot_parser, run_plot)
COMMANDS = (TRAIN, PLOT)


def train_command(argv: list[str], registry: Registry | None = None) -> int:
    """``grpo-rewards train ARGS`` from Python; ``registry`` replaces plugin discovery (tests, notebooks)."""
    with use_registry(registry) if registry is not None else contextlib.nullcontext():
        return TRAIN.main(argv)
