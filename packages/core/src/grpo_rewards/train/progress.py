"""What a person sees while a run trains, and the metrics log the plot and ``--resume`` read.

One short line per logging step (step, total reward, each reward's mean, seconds per step,
elapsed and time left), a progress bar on a terminal, and every metric TRL logs kept in
``RUN_DIR/metrics.jsonl`` (one JSON object per logging step). The callback also calls the
runner's ``on_start`` once, when the first step begins: that is when the run files are written.

>>> format_line({"reward": 0.5, "rewards/math.accuracy/mean": 0.375}, step=3, max_steps=40,
...             names=["math.accuracy"], per_step=9.84, elapsed=29.5)
'step 3/40  reward 0.500  math.accuracy 0.375  9.8 s/step  0:30 elapsed, 6:04 left'
"""

from __future__ import annotations

import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .rundir import METRICS, record_files


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


def _clock(seconds: float) -> str:
    hours, rest = divmod(round(seconds), 3600)
    return (f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}")


def _number(value: Any) -> str:
    if not isinstance(value, (int, float)) or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    return f"{value:.3f}"


def format_line(logs: dict[str, Any], *, step: int, max_steps: int, names: list[str], per_step: float | None,
                elapsed: float) -> str:
    """The one line printed for a logging step."""
    parts = [f"step {step}/{max_steps}", f"reward {_number(logs.get('reward'))}"]
    parts += [f"{name} {_number(logs.get(f'rewards/{name}/mean'))}" for name in names]
    if per_step is not None:
        left = max(0, max_steps - step) * per_step
        parts.append(f"{per_step:.1f} s/step  {_clock(elapsed)} elapsed, {_clock(left)} left")
    return "  ".join(parts)


def append_metrics(run_dir: Path, entry: dict[str, Any]) -> None:
    """Append one logging step to ``RUN_DIR/metrics.jsonl``."""
    record_files(run_dir, METRICS)
    with (run_dir / METRICS).open("a", encoding="utf-8") as f:
        f.write(json.dumps(entry, default=float) + "\n")


def read_metrics(run_dir: Path) -> list[dict[str, Any]]:
    """The logged steps of ``RUN_DIR/metrics.jsonl``; a line cut short by a kill is skipped."""
    path = Path(run_dir) / METRICS
    if not path.is_file():
        return []
    entries = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


def keep_metrics_until(run_dir: Path, step: int, checkpoint: Path | None = None) -> None:
    """Drop the logged steps after ``step`` (a resume from checkpoint-``step`` logs them again).

    A run without ``metrics.jsonl`` (started by an older version) gets one from the checkpoint's
    ``trainer_state.json``, so the file holds the whole run.
    """
    entries = read_metrics(run_dir)
    if not (run_dir / METRICS).is_file() and checkpoint is not None:
        try:
            state = json.loads((checkpoint / "trainer_state.json").read_text(encoding="utf-8"))
            entries = [e for e in state.get("log_history", []) if isinstance(e, dict)]
        except (OSError, ValueError, AttributeError):
            entries = []
    kept = [e for e in entries if isinstance(e.get("step"), (int, float)) and e["step"] <= step]
    if len(kept) == len(entries) and (run_dir / METRICS).is_file():
        return
    tmp = run_dir / f".{METRICS}.tmp"
    record_files(run_dir, tmp.name, METRICS)
    tmp.write_text("".join(json.dumps(e) + "\n" for e in kept), encoding="utf-8")
    tmp.replace(run_dir / METRICS)


def make_progress_callback(run_dir: Path, names: list[str], on_start: Callable[[Any], None],
                           *, bar: bool | None = None) -> Any:
    """A ``TrainerCallback``: ``on_start(state)`` at the first step, then lines, bar and metrics log.

    ``bar``: draw a progress bar (default: when stderr is a terminal).
    """
    from transformers import TrainerCallback

    class ProgressCallback(TrainerCallback):
        """Short lines and a progress bar on the main process; ``metrics.jsonl`` in the run folder."""

        def __init__(self) -> None:
            self.started = False
            self.t0 = time.monotonic()
            self.first_step = 0
            self.bar: Any = None

        def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self.t0 = time.monotonic()
            self.first_step = state.global_step

        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.started:
                return
            self.started = True
            on_start(state)
            self.t0 = time.monotonic()
            if state.is_world_process_zero and (bar if bar is not None else sys.stderr.isatty()):
                from tqdm.auto import tqdm

                self.bar = tqdm(total=state.max_steps, initial=state.global_step, unit="step", dynamic_ncols=True,
                                bar_format="{l_bar}{bar}| step {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.bar is not None:
                self.bar.update(state.global_step - self.bar.n)

        def on_log(self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None,
                   **kwargs: Any) -> None:
            if not state.is_world_process_zero or not logs:
                return
            elapsed = time.monotonic() - self.t0
            done = state.global_step - self.first_step
            append_metrics(run_dir, {"step": state.global_step, **logs, "elapsed_s": round(elapsed, 3)})
            if "reward" not in logs:
                return
            line = format_line(logs, step=state.global_step, max_steps=state.max_steps, names=names,
                               per_step=elapsed / done if done > 0 else None, elapsed=elapsed)
            if self.bar is not None:
                self.bar.write(line)
            else:
                print(line, flush=True)

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if self.bar is not None:
                self.bar.close()
                self.bar = None

    return ProgressCallback()


def quiet_trainer_output(trainer: Any) -> None:
    """Remove transformers' own printers (a dict of ~50 metrics per step, or its progress bar)."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    for callback in (PrinterCallback, ProgressCallback):
        trainer.remove_callback(callback)


#: Seconds a reward call may run before the progress output names it (and again after as many more).
WAIT_NOTICE = 60.0


def rewards_running() -> list[tuple[str, int]]:
    """``(metric, frame id)`` of every reward call now running in this process, in any thread: read from
    the threads' stacks (a :class:`~grpo_rewards.Reward` scoring a batch), so the calls cost nothing."""
    from ..reward import Reward

    found = []
    for frame in sys._current_frames().values():
        while frame is not None:
            if frame.f_code.co_name == "_score" and isinstance(frame.f_locals.get("self"), Reward):
                found.append((frame.f_locals["self"].metric, id(frame)))
                break
            frame = frame.f_back  # type: ignore[assignment]
    return found


class RewardWatch:
    """A daemon thread that says which reward a step is waiting for once a call has run :data:`WAIT_NOTICE`
    seconds (a reward without a ``timeout`` that never returns would otherwise stall the run in silence)."""

    def __init__(self, notice: float | None = None, every: float | None = None) -> None:
        self.notice = WAIT_NOTICE if notice is None else notice
        self.every = every if every is not None else min(10.0, self.notice / 4)
        self._stop = threading.Event()
        self._seen: dict[tuple[str, int], float] = {}
        self._told: dict[tuple[str, int], int] = {}
        self._thread = threading.Thread(target=self._watch, name="grpo-rewards reward watch", daemon=True)

    def __enter__(self) -> RewardWatch:
        if process_rank() == 0:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()

    def _watch(self) -> None:
        while not self._stop.wait(self.every):
            now = time.monotonic()
            running = set(rewards_running())
            self._seen = {call: self._seen.get(call, now) for call in running}
            for call, since in self._seen.items():
                waited = now - since
                times = int(waited // self.notice)
                if times > self._told.get(call, 0):
                    self._told[call] = times
                    print(f"grpo-rewards: the step is waiting for the reward {call[0]} ({waited:.0f} s so far; it has "
                          "no timeout: give the entry 'timeout: SECONDS' to bound each sample)", flush=True)
            self._told = {call: n for call, n in self._told.items() if call in self._seen}

