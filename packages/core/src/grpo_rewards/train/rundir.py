"""The run directory: which files a run owns, which checkpoints are whole, what may be cleared.

A run of ours writes ``manifest.json``, ``config.yaml``, ``config.resume-N.yaml``,
``reward_curves.png``, ``metrics.jsonl``, ``final/`` and ``merged/``; TRL writes
``checkpoint-N/``, ``trainer_state.json``, the ``README.md`` model card and ``runs/`` (TensorBoard).
Those are the only names ``--overwrite`` ever deletes, and only in a folder that holds a run of
ours: a folder with anything else in it is refused with the names of what is there, so
``--output-dir . --overwrite`` can never wipe a project.

>>> is_run_file("checkpoint-20"), is_run_file("config.resume-40.yaml"), is_run_file("notes.txt")
(True, True, False)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import struct
import tempfile
import zipfile
from pathlib import Path

from ..errors import RunDirError

MANIFEST = "manifest.json"
CONFIG = "config.yaml"
STATE = "trainer_state.json"
PLOT = "reward_curves.png"
METRICS = "metrics.jsonl"
FINAL = "final"
MERGED = "merged"
#: What our runs write (besides the resume configs and the temporary files of atomic writes).
OUR_FILES = (MANIFEST, CONFIG, PLOT, METRICS, FINAL, MERGED)
#: What TRL and transformers write into ``output_dir``.
TRL_FILES = (STATE, "README.md", "runs")
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
_RUN_PATTERNS = (_CHECKPOINT, re.compile(r"^config\.resume-\d+\.yaml$"),
                 re.compile(r"^\.(manifest\.json|metrics\.jsonl)\.tmp$"), re.compile(r"^\.reward_curves\.png\.tmp\.png$"))


def is_run_file(name: str) -> bool:
    """Whether a top-level name in a run folder is one that a run (ours or TRL's) writes."""
    return name in OUR_FILES or name in TRL_FILES or any(p.match(name) for p in _RUN_PATTERNS)


def foreign_entries(run_dir: Path) -> list[str]:
    """The names in ``run_dir`` that no run writes (folders end with ``/``), sorted."""
    if not run_dir.is_dir():
        return []
    return sorted(p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir() if not is_run_file(p.name))


def _names(entries: list[str], limit: int = 6) -> str:
    return ", ".join(entries[:limit]) + (f", ... ({len(entries)} in all)" if len(entries) > limit else "")


def _state_ok(path: Path) -> bool:
    """Whether ``path`` is a readable trainer state (a kill during its write leaves it cut short)."""
    try:
        return isinstance(json.loads(path.read_text(encoding="utf-8")), dict)
    except (OSError, ValueError):
        return False


def _safetensors_problem(path: Path) -> str | None:
    """Why a ``.safetensors`` file is not whole (header unreadable, or shorter than its tensors), or None."""
    try:
        size = path.stat().st_size
        with path.open("rb") as f:
            (header_len,) = struct.unpack("<Q", f.read(8))
            if header_len > size:
                return f"{path.name} is cut short ({size} bytes)"
            header = json.loads(f.read(header_len))
    except (OSError, ValueError, struct.error):
        return f"{path.name} is cut short or not a safetensors file"
    ends = [t["data_offsets"][1] for k, t in header.items() if k != "__metadata__" and isinstance(t, dict)]
    expected = 8 + header_len + max(ends, default=0)
    if size < expected:
        return f"{path.name} is cut short ({size} of {expected} bytes)"
    return None


def checkpoint_problem(checkpoint: Path) -> str | None:
    """Why a ``checkpoint-N`` folder cannot be resumed from, or None when it looks whole.

    Cheap, no tensors are loaded: ``trainer_state.json`` parses, every ``.safetensors`` file is as
    long as its header says, every torch file (``optimizer.pt``, ``scheduler.pt``, ``rng_state.pth``)
    has the end-of-archive record a complete write leaves.
    """
    state = checkpoint / STATE
    if not state.is_file():
        return f"it has no {STATE} (a save cut short)"
    if not _state_ok(state):
        return f"its {STATE} does not read (cut short by a kill?)"
    for path in sorted(checkpoint.iterdir()):
        if path.suffix == ".safetensors":
            problem = _safetensors_problem(path)
        elif path.suffix in (".pt", ".pth", ".bin"):
            problem = None if zipfile.is_zipfile(path) else f"{path.name} is cut short"
        else:
            continue
        if problem:
            return problem
    return None


def checkpoints(run_dir: Path, *, damaged: bool = False) -> list[Path]:
    """``checkpoint-N`` folders with a readable ``trainer_state.json``, oldest first.

    With ``damaged=True``: the folders whose ``trainer_state.json`` exists but does not read.
    """
    if not run_dir.is_dir():
        return []
    found = []
    for child in run_dir.iterdir():
        match = _CHECKPOINT.match(child.name)
        if match and child.is_dir() and (child / STATE).is_file() and _state_ok(child / STATE) != damaged:
            found.append((int(match.group(1)), child))
    return [path for _, path in sorted(found)]


def last_checkpoint(run_dir: Path) -> Path | None:
    found = checkpoints(run_dir)
    return found[-1] if found else None


def resumable_checkpoint(run_dir: Path) -> tuple[Path | None, list[str]]:
    """The newest whole checkpoint, and one line for each newer one skipped and why."""
    skipped: list[str] = []
    candidates = sorted((int(m.group(1)), p) for p in run_dir.iterdir()
                        if p.is_dir() and (m := _CHECKPOINT.match(p.name))) if run_dir.is_dir() else []
    for _, path in reversed(candidates):
        problem = checkpoint_problem(path)
        if problem is None:
            return path, skipped
        if (path / STATE).exists() or any(path.iterdir()):
            skipped.append(f"skipping {path.name}: {problem}")
    return None, skipped


def checkpoint_step(checkpoint: Path) -> int:
    """The global step a checkpoint was saved at (its ``trainer_state.json``, else its name)."""
    try:
        return int(json.loads((checkpoint / STATE).read_text(encoding="utf-8"))["global_step"])
    except (OSError, ValueError, KeyError, TypeError):
        return int(checkpoint.name.split("-")[-1])


def completed_steps(run_dir: Path) -> bool:
    """Whether a run in ``run_dir`` completed at least one step (a checkpoint, a state or a logged step)."""
    if any(_CHECKPOINT.match(p.name) for p in run_dir.iterdir()) or (run_dir / STATE).exists():
        return True
    metrics = run_dir / METRICS
    return metrics.is_file() and metrics.stat().st_size > 0


def holds_our_run(run_dir: Path) -> bool:
    return (run_dir / MANIFEST).is_file() or any(_CHECKPOINT.match(p.name) for p in run_dir.iterdir())


def check_writable(run_dir: Path) -> str | None:
    """Why ``run_dir`` cannot be created or written, or None (tries a temporary folder, then removes it)."""
    parent = run_dir
    while not parent.exists():
        if parent.parent == parent:
            break
        parent = parent.parent
    if not parent.is_dir():
        return f"{parent} is a file, not a folder"
    try:
        probe = tempfile.mkdtemp(prefix=".grpo-rewards-write-check-", dir=parent)
        os.rmdir(probe)
    except OSError as exc:
        return f"cannot create files in {parent} ({exc.strerror or exc})"
    return None


def check_run_dir(run_dir: Path, *, resume: bool, overwrite: bool) -> tuple[Path | None, list[str]]:
    """Decide what to do with ``run_dir`` before anything is written.

    Returns the checkpoint to resume (or None) and lines to print (checkpoints skipped, a failed
    start replaced). Read-only, so every rank can call it before the first barrier.
    """
    if resume and overwrite:
        raise RunDirError("--resume and --overwrite contradict each other: pick one")
    if run_dir.exists() and not run_dir.is_dir():
        raise RunDirError(f"output dir {run_dir} is a file, not a folder")
    problem = check_writable(run_dir)
    if problem:
        raise RunDirError(f"output dir {run_dir}: {problem}; choose another --output-dir")
    contents = sorted(p.name for p in run_dir.iterdir()) if run_dir.is_dir() else []
    if resume:
        checkpoint, notes = resumable_checkpoint(run_dir)
        if checkpoint is None:
            what = "does not exist" if not run_dir.exists() else (
                "holds no whole checkpoint-N folder" if contents else "is empty")
            raise RunDirError(f"--resume: output dir {run_dir} {what}, so there is nothing to continue"
                              + (f" ({'; '.join(notes)})" if notes else "") + "; run without --resume to start a new run")
        return checkpoint, notes
    if not contents:
        return None, []
    ours = holds_our_run(run_dir)
    # without a run of ours, everything there is the user's (a README.md too)
    foreign = foreign_entries(run_dir) if ours else sorted(
        p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir())
    if overwrite:
        if not ours:
            raise RunDirError(f"--overwrite: output dir {run_dir} does not hold a grpo-rewards run (no {MANIFEST}, "
                              f"no checkpoint-N) but {_names(foreign)}; nothing was deleted. "
                              "--overwrite only replaces a run; choose another --output-dir")
        if foreign:
            raise RunDirError(f"--overwrite: output dir {run_dir} also holds files a run does not write "
                              f"({_names(foreign)}); nothing was deleted. Move them out of the folder, or choose "
                              "another --output-dir")
        return None, []
    if foreign:
        raise RunDirError(f"output dir {run_dir} already holds other files ({_names(foreign)}); nothing was "
                          "changed. Choose another --output-dir (a new or empty folder)")
    if ours and completed_steps(run_dir):
        n = len(checkpoints(run_dir))
        raise RunDirError(f"output dir {run_dir} already holds another run ({MANIFEST}, {n} "
                          f"checkpoint{'s' if n != 1 else ''}); nothing was changed. Use --resume to continue that "
                          "run, --overwrite to delete it and start over, or another --output-dir")
    return None, [f"{run_dir} holds the files of a start that completed no step: they will be replaced"]


def clear_run_dir(run_dir: Path) -> list[str]:
    """Delete what a run wrote in ``run_dir`` (and nothing else); returns the names deleted."""
    deleted = []
    for child in sorted(run_dir.iterdir()):
        if not is_run_file(child.name):
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
        deleted.append(child.name)
    return deleted
