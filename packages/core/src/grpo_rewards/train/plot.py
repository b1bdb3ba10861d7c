"""Reward curves: one panel per reward (``rewards/<name>/mean``) plus the weighted total (``reward``).

Drawn from TRL's log history during a run (on the main process), and afterwards by
``grpo-rewards plot RUN_DIR`` from the run's ``metrics.jsonl`` (else ``trainer_state.json``), with
the panels in the reward set's order and the same colours in both. Uses matplotlib's Agg backend
(no display needed). Each PNG says it was drawn here (its ``Software`` text chunk): ``plot`` replaces
an existing file only when it says so, or when the run folder recorded writing it; a picture of the user's
is left as it is.
"""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path
from typing import Any

from ..errors import PlotError
from .progress import read_metrics
from .rundir import MANIFEST, METRICS, PLOT, STATE, last_checkpoint, record_files, recorded_files

TOTAL = "reward"
#: the ``Software`` text chunk of every PNG drawn here
SOFTWARE = "grpo-rewards plot"
_PNG = b"\x89PNG\r\n\x1a\n"


def reward_series(log_history: list[dict[str, Any]]) -> dict[str, list[tuple[float, float]]]:
    """``{name: [(step, mean), ...]}`` for every reward and the total, in the order TRL logged them.

    >>> reward_series([{"step": 1, "rewards/a/mean": 0.5, "reward": 0.5}, {"step": 2, "loss": 0.1}])
    {'a': [(1, 0.5)], 'reward': [(1, 0.5)]}
    """
    series: dict[str, list[tuple[float, float]]] = {}
    total: list[tuple[float, float]] = []
    for entry in log_history:
        step = entry.get("step")
        if step is None:
            continue
        for key, value in entry.items():
            if key.startswith("rewards/") and key.endswith("/mean") and isinstance(value, (int, float)):
                series.setdefault(key[len("rewards/"):-len("/mean")], []).append((step, float(value)))
        if isinstance(entry.get(TOTAL), (int, float)):
            total.append((step, float(entry[TOTAL])))
    if total:
        series[TOTAL] = total
    return series


def _smooth(values: list[float], window: int) -> list[float]:
    """The mean of the finite values among each value and the ``window - 1`` before it (NaN where there are
    none): a running sum, so the time is linear in the steps, whatever the window.

    >>> _smooth([1.0, 3.0, float("nan"), 5.0], 2)
    [1.0, 2.0, 3.0, 5.0]
    """
    out: list[float] = []
    total, count = 0.0, 0
    for i, v in enumerate(values):
        if math.isfinite(v):
            total += v
            count += 1
        if i >= window and math.isfinite(old := values[i - window]):
            total -= old
            count -= 1
        if count == 0:
            total = 0.0  # no drift carried across a stretch without values
        out.append(total / count if count else math.nan)
    return out


def order_names(series: dict[str, Any], names: list[str] | None) -> list[str]:
    """The panels' order: the reward set's order (``names``), then any other reward, then the total."""
    ordered = [n for n in (names or []) if n in series]
    ordered += [n for n in series if n not in ordered and n != TOTAL]
    return ordered + ([TOTAL] if TOTAL in series else [])


def draw(log_history: list[dict[str, Any]], out: Path, *, title: str | None = None,
         names: list[str] | None = None) -> Path:
    """Write the reward-curve PNG for ``log_history`` to ``out`` (atomically); returns ``out``.

    ``names``: the reward set's metric names, which fix the panels' order and colours (the n-th
    reward of the set is drawn in matplotlib's colour ``Cn`` in every plot; the total in black).
    """
    series = reward_series(log_history)
    if not series:
        raise PlotError("the log history has no rewards/<name>/mean values yet (has the run logged a step?)")
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    panels = order_names(series, names)
    cols = min(len(panels), 3)
    rows = math.ceil(len(panels) / cols)
    fig = Figure(figsize=(4.2 * cols, 3.1 * rows + 0.4), dpi=100)
    windows = []
    for i, name in enumerate(panels):
        ax = fig.add_subplot(rows, cols, i + 1)
        steps = [s for s, _ in series[name]]
        values = [v for _, v in series[name]]
        color = "black" if name == TOTAL else f"C{i % 10}"
        ax.plot(steps, values, marker="." if len(values) < 60 else None, linewidth=0.8, alpha=0.45, color=color)
        window = max(1, len(values) // 10)
        if window > 1:
            windows.append(window)
            ax.plot(steps, _smooth(values, window), linewidth=2.0, color=color, label=f"mean of last {window} steps")
            ax.legend(loc="best", fontsize=7)
        ax.set_title("total (weighted sum)" if name == TOTAL else name, fontsize=10)
        ax.set_xlabel("step", fontsize=8)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_ylabel("weighted sum of the means" if name == TOTAL else "mean reward per step", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.grid(alpha=0.3)
    note = "thin line: each step's mean over its completions"
    if windows:
        note += f"; bold line: moving average of the last {max(windows)} logged steps"
    fig.suptitle((f"{title}: " if title else "") + note, fontsize=9)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp.png")
    record_files(out.parent, tmp.name, out.name)  # when ``out`` is in a run folder that keeps a record
    fig.savefig(tmp, metadata={"Software": SOFTWARE})
    tmp.replace(out)
    return out


def drawn_here(path: Path) -> bool:
    """Whether ``path`` is a PNG this module drew (its ``Software`` text chunk, before the image data)."""
    try:
        with Path(path).open("rb") as f:
            if f.read(8) != _PNG:
                return False
            while len(head := f.read(8)) == 8:
                length, kind = int.from_bytes(head[:4], "big"), head[4:]
                if kind in (b"IDAT", b"IEND") or length > 2**16:
                    return False
                data = f.read(length)
                f.read(4)  # its CRC
                if kind == b"tEXt" and data == b"Software\0" + SOFTWARE.encode():
                    return True
    except OSError:
        return False
    return False


def _replaceable(out: Path) -> None:
    """Nothing, or a PlotError when ``out`` exists and is not a picture drawn here (or recorded by its run)."""
    if not os.path.lexists(out) or drawn_here(out) or out.name in (recorded_files(out.parent) or ()):
        return
    raise PlotError(f"{out} exists and was not drawn by grpo-rewards, so it is left as it is: give another --out, "
                    "or move it away")


def _read_state(path: Path) -> list[dict[str, Any]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise PlotError(f"{path} does not read as JSON (cut short by a kill?): {type(exc).__name__}") from None
    history = data.get("log_history") if isinstance(data, dict) else None
    return history if isinstance(history, list) else []


def load_log_history(run_dir: Path) -> list[dict[str, Any]]:
    """The log history of a run: ``metrics.jsonl``, else the longest readable ``trainer_state.json``
    (the run's, or its newest checkpoint's); a cut-short state file is skipped, and named when nothing else reads.
    """
    run_dir = Path(run_dir)
    metrics = read_metrics(run_dir)
    if metrics:
        return metrics
    candidates = [run_dir / STATE]
    checkpoint = last_checkpoint(run_dir)
    if checkpoint is not None:
        candidates.append(checkpoint / STATE)
    best: list[dict[str, Any]] | None = None
    damaged: PlotError | None = None
    for path in candidates:
        if path.is_file():
            try:
                history = _read_state(path)
            except PlotError as exc:
                damaged = exc
                continue
            if best is None or len(history) > len(best):
                best = history
    if best is None:
        if damaged is not None:
            raise damaged
        raise PlotError(f"{run_dir} has no {METRICS}, no {STATE} and no checkpoint-N/{STATE}: not a run "
                        "directory, or the run has not logged yet")
    return best


def reward_names(run_dir: Path) -> list[str] | None:
    """The reward set's metric names in order, from the run's manifest (None without one)."""
    try:
        manifest = json.loads((Path(run_dir) / MANIFEST).read_text(encoding="utf-8"))
        return [r["name"] for r in manifest["rewards"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def plot_run(run_dir: Path, out: Path | None = None) -> Path:
    """Redraw ``RUN_DIR/reward_curves.png`` (or ``out``) from the run's metrics, in its reward set's order."""
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise PlotError(f"{run_dir} is not a folder")
    out = Path(out) if out is not None else run_dir / PLOT
    _replaceable(out)
    return draw(load_log_history(run_dir), out, title=run_dir.name, names=reward_names(run_dir))


def make_callback(run_dir: Path, names: list[str] | None = None, *, every_seconds: float = 15.0) -> Any:
    """A ``TrainerCallback`` that redraws the PNG as the run logs (throttled) and saves the state at the end."""
    from transformers import TrainerCallback

    class RewardCurveCallback(TrainerCallback):
        """Keeps ``reward_curves.png`` current on the main process; writes ``trainer_state.json`` at the end."""

        def __init__(self) -> None:
            self.last = 0.0

        def _draw(self, state: Any) -> None:
            try:
                draw(state.log_history, run_dir / PLOT, title=run_dir.name, names=names)
            except PlotError:
                pass
            self.last = time.monotonic()

        def on_log(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if state.is_world_process_zero and time.monotonic() - self.last >= every_seconds:
                self._draw(state)

        def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            if state.is_world_process_zero:
                record_files(run_dir, STATE)
                state.save_to_json(str(run_dir / STATE))
                self._draw(state)

    return RewardCurveCallback()
