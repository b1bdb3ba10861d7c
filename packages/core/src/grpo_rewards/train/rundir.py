"""The run directory: which files a run owns, which checkpoints are whole, what may be cleared.

A run of ours writes ``manifest.json``, ``config.yaml``, ``config.resume-N.yaml``,
``reward_curves.png``, ``metrics.jsonl``, ``final/`` and ``merged/``; TRL writes
``checkpoint-N/``, ``trainer_state.json``, the ``README.md`` model card and ``runs/`` (TensorBoard).

A folder holds a run of ours only with proof: the marker file ``.grpo-rewards-run``, holding the
run's id, that the run's ``manifest.json`` repeats (:func:`run_id`). Beside it the run keeps a record
of every top-level name it writes, ``.grpo-rewards-files`` (:func:`record_files`: a name is added
before it is written, whether our code or TRL writes it, and dropped when TRL rotates a checkpoint
away). ``--overwrite`` and the replacement of a start that completed no step delete only the names
in that record, and only in a folder with the proof: anything else there (a ``checkpoint-N`` a user
copied in, notes) is refused with its names, so ``--output-dir . --overwrite`` can never wipe a
project. A folder that merely looks like a run (a ``manifest.json``, a ``checkpoint-N``) without the
marker, or a run of ours without the record (written by an earlier version), can be resumed but is
never cleared: ``--overwrite`` refuses it with the names to remove by hand. While a run lives it
holds the folder's lock (:mod:`.lock`).

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
#: The proof that this program made a run folder: it holds the run id the manifest repeats.
MARKER = ".grpo-rewards-run"
#: The run folder's lock file (:mod:`.lock`).
LOCK = ".grpo-rewards-lock"
#: The record of the top-level names the run wrote, one a line (:func:`record_files`).
FILES = ".grpo-rewards-files"
_FILES_TMP = f".{FILES}.tmp"
CONFIG = "config.yaml"
STATE = "trainer_state.json"
PLOT = "reward_curves.png"
METRICS = "metrics.jsonl"
FINAL = "final"
MERGED = "merged"
#: What our runs write (besides the resume configs and the temporary files of atomic writes).
OUR_FILES = (MANIFEST, CONFIG, PLOT, METRICS, FINAL, MERGED, MARKER, LOCK, FILES, _FILES_TMP)
#: The files that prove and describe a run's ownership of its folder: never in its record.
_BOOKKEEPING = (MARKER, FILES, _FILES_TMP, LOCK)
#: What TRL and transformers write into ``output_dir``.
TRL_FILES = (STATE, "README.md", "runs")
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")
_RUN_PATTERNS = (_CHECKPOINT, re.compile(r"^config\.resume-\d+\.yaml$"),
                 re.compile(r"^\.(manifest\.json|metrics\.jsonl)\.tmp$"), re.compile(r"^\.reward_curves\.png\.tmp\.png$"))


def is_run_file(name: str) -> bool:
    """Whether a top-level name in a run folder is one that a run (ours or TRL's) writes."""
    return name in OUR_FILES or name in TRL_FILES or any(p.match(name) for p in _RUN_PATTERNS)


def _model_card(path: Path) -> bool:
    """Whether ``path`` is a model card as transformers writes them (YAML front matter first)."""
    try:
        with path.open("rb") as f:
            return path.is_file() and f.read(4) in (b"---\n", b"---\r")
    except OSError:
        return False


def _named_like_a_run(path: Path) -> bool:
    return is_run_file(path.name) and (path.name != "README.md" or _model_card(path))


def recorded_files(run_dir: Path) -> set[str] | None:
    """The names the run in ``run_dir`` recorded writing (:func:`record_files`), or None without a record."""
    try:
        text = (run_dir / FILES).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    return {line for line in text.split("\n") if line and "/" not in line and line not in (".", "..")}


def record_files(run_dir: Path, *names: str) -> None:
    """Add top-level ``names`` to the record of what the run in ``run_dir`` wrote, before they are written.

    Appended, so a kill during a write leaves the name recorded (and a kill during the append at worst
    one cut-short name that matches nothing). Only the process that writes the run's files (rank 0)
    calls it; without a record (a folder an earlier version wrote) nothing is recorded.
    """
    known = recorded_files(run_dir)
    if known is None:
        return
    new = [n for n in dict.fromkeys(names) if n not in known and n not in _BOOKKEEPING and "/" not in n and n]
    if new:
        with (run_dir / FILES).open("a", encoding="utf-8") as f:
            f.write("".join(n + "\n" for n in new))


def forget_missing_files(run_dir: Path) -> None:
    """Drop the recorded names that are gone (a checkpoint TRL rotated away), so a folder of the same
    name copied in later is not taken for the run's; the record is replaced atomically."""
    known = recorded_files(run_dir)
    if known is None:
        return
    kept = sorted(n for n in known if os.path.lexists(run_dir / n))
    if len(kept) == len(known):
        return
    tmp = run_dir / _FILES_TMP
    tmp.write_text("".join(n + "\n" for n in kept), encoding="utf-8")
    tmp.replace(run_dir / FILES)


def _ours(path: Path, recorded: set[str] | None) -> bool:
    """Whether a top-level entry is the run's: in its record when it keeps one, else named like a run's
    file; a ``README.md`` only while it is still a model card (a user may have written notes over it)."""
    if path.name == "README.md" and not _model_card(path):
        return False
    if recorded is not None:
        return path.name in recorded or path.name in _BOOKKEEPING
    return _named_like_a_run(path)


def foreign_entries(run_dir: Path) -> list[str]:
    """The names in ``run_dir`` that its run did not write (folders end with ``/``), sorted: those not
    in the run's record, or, in a folder without one, those no run writes."""
    if not run_dir.is_dir():
        return []
    recorded = recorded_files(run_dir) if run_id(run_dir) is not None else None
    return sorted(p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir() if not _ours(p, recorded))


def new_run_id() -> str:
    """A fresh run id (written to the marker and the manifest)."""
    import uuid

    return uuid.uuid4().hex


def write_marker(run_dir: Path, run: str) -> None:
    """Write the proof that this run made ``run_dir`` and its (empty) record of files, before any other file of the run."""
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / FILES).write_text("", encoding="utf-8")
    (run_dir / MARKER).write_text(json.dumps({"run_id": run, "program": "grpo-rewards"}) + "\n", encoding="utf-8")


def run_id(run_dir: Path) -> str | None:
    """The id of the run of ours in ``run_dir``: the marker's, when the manifest repeats it; else None."""
    try:
        marker = json.loads((run_dir / MARKER).read_text(encoding="utf-8"))
        manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(marker, dict) or not isinstance(manifest, dict):
        return None
    found = marker.get("run_id")
    return found if isinstance(found, str) and found and manifest.get("run_id") == found else None


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


def looks_like_a_run(run_dir: Path) -> bool:
    """Whether ``run_dir`` has a manifest or a checkpoint (proof of ours or not: see :func:`run_id`)."""
    return (run_dir / MANIFEST).is_file() or any(_CHECKPOINT.match(p.name) for p in run_dir.iterdir())


def _by_hand(run_dir: Path) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir() if p.name != LOCK)
    return (f"it has no {MARKER} whose run id its {MANIFEST} repeats, the proof that grpo-rewards wrote it (a folder "
            f"that only looks like a run, or one written before that proof existed); nothing was changed. If it is "
            f"a run to replace, remove its files by hand ({_names(names, limit=12)}), or choose another --output-dir")


def _unrecorded(run_dir: Path) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir() if p.name not in _BOOKKEEPING)
    return (f"its run keeps no {FILES}, the record of the files it wrote (a run of an earlier version), so "
            f"grpo-rewards cannot tell its files from yours; nothing was changed. If it is a run to replace, remove "
            f"its files by hand ({_names(names, limit=12)}), or choose another --output-dir")


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
    contents = sorted(p.name for p in run_dir.iterdir() if p.name != LOCK) if run_dir.is_dir() else []
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
    looks = looks_like_a_run(run_dir)
    ours = run_id(run_dir) is not None
    # without a run of ours, everything there is the user's (a README.md too)
    foreign = foreign_entries(run_dir) if looks else sorted(
        p.name + ("/" if p.is_dir() else "") for p in run_dir.iterdir() if p.name != LOCK)
    if overwrite:
        if looks and not ours:
            raise RunDirError(f"--overwrite: output dir {run_dir} looks like a run, but {_by_hand(run_dir)}")
        if ours and recorded_files(run_dir) is None:
            raise RunDirError(f"--overwrite: output dir {run_dir} holds a run of ours, but {_unrecorded(run_dir)}")
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
    if looks and completed_steps(run_dir):
        n = len(checkpoints(run_dir))
        missing = MARKER if not ours else FILES if recorded_files(run_dir) is None else None
        raise RunDirError(f"output dir {run_dir} already holds another run ({MANIFEST}, {n} "
                          f"checkpoint{'s' if n != 1 else ''}); nothing was changed. Use --resume to continue that "
                          "run, " + ("" if missing else "--overwrite to delete it and start over, ")
                          + "or another --output-dir"
                          + (f" (--overwrite would refuse it: {missing} missing)" if missing else ""))
    if not ours:
        raise RunDirError(f"output dir {run_dir} holds files named like a run's, but {_by_hand(run_dir)}")
    if recorded_files(run_dir) is None:
        raise RunDirError(f"output dir {run_dir} holds the start of a run of ours, but {_unrecorded(run_dir)}")
    return None, [f"{run_dir} holds the files of a start that completed no step: they will be replaced"]


def clear_run_dir(run_dir: Path, run: str | None = None) -> list[str]:
    """Delete what a run wrote in ``run_dir`` (and nothing else); returns the names deleted.

    Only a folder with the proof of a run of ours (:func:`run_id`; ``run``: that run's id when the
    caller checked it before) and its record of files is cleared, and only of the recorded names
    (then the record and the marker); the lock of the run that clears it stays. A folder that holds
    nothing but that lock (``--overwrite`` into a new folder) has nothing to clear.
    """
    if not any(p.name != LOCK for p in run_dir.iterdir()):
        return []  # a new folder (made for this run's lock): nothing to clear
    found = run_id(run_dir)
    if found is None or (run is not None and found != run):
        raise RunDirError(f"{run_dir} is not cleared: " + (_by_hand(run_dir) if found is None else
                                                          f"it now holds another run ({found}, not {run})"))
    recorded = recorded_files(run_dir)
    if recorded is None:
        raise RunDirError(f"{run_dir} is not cleared: {_unrecorded(run_dir)}")
    deleted = []
    for child in sorted(run_dir.iterdir()):
        if not _ours(child, recorded) or child.name in (FILES, MARKER, LOCK):
            continue
        if child.is_dir() and not child.is_symlink():
            shutil.rmtree(child)
        else:
            child.unlink()
        deleted.append(child.name)
    for name in (FILES, MARKER):  # the proof goes last: a kill before this leaves a folder that is still ours
        (run_dir / name).unlink(missing_ok=True)
        deleted.append(name)
    return sorted(deleted)
