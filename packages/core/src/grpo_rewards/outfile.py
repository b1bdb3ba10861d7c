"""The ``--out`` file of ``score`` and ``compare``: checked before any work, written whole or not at all.

:func:`check_out` refuses an ``--out`` that is one of the command's inputs (by identity: the same
file under another name or through a link counts), anything that is not a regular file: a
folder, a FIFO, a device, a socket, and an existing file the command did not write (its
``written_here`` test: a file of the user's is never overwritten, whatever the flags; an empty one
holds nothing to lose). A symlink is followed to its target, which must itself be a regular file
(or a new file in an existing folder). :func:`atomic_writer` writes a temporary file next to the
target and renames it over the target once complete, so a failure leaves the old file as it was;
the new file keeps the old one's permission bits, and a new one follows the umask.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> data = folder / "rows.jsonl"; _ = data.write_text("{}")
>>> scored = every_jsonl_row(lambda row: "reward" in row)
>>> check_out(str(folder / "scored.jsonl"), inputs={"input file": str(data)}, command="score", written_here=scored).name
'scored.jsonl'
>>> check_out(str(data), inputs={"input file": str(data)}, command="score", written_here=scored)
Traceback (most recent call last):
...
grpo_rewards.errors.GrpoRewardsError: --out ... is the input file; choose another file (it would be overwritten)
>>> notes = folder / "notes.jsonl"; _ = notes.write_text('{"mine": 1}')
>>> check_out(str(notes), inputs={"input file": str(data)}, command="score", written_here=scored)
Traceback (most recent call last):
...
grpo_rewards.errors.GrpoRewardsError: --out ... exists and was not written by grpo-rewards score, so it is left as it is: give another file name, or move it away
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import IO, Any

from . import jsontext
from .errors import GrpoRewardsError

_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a regular file")


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        st = path.stat()
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def every_jsonl_row(test: Callable[[dict[str, Any]], bool]) -> Callable[[Path], bool]:
    """A ``written_here`` test for :func:`check_out`: every line of the file is a JSON object that passes
    ``test`` (the rows a command writes; an empty file passes)."""

    def written(path: Path) -> bool:
        try:
            with path.open(encoding="utf-8") as fh:
                for line in fh:
                    if line.strip():
                        row = jsontext.loads(line)
                        if not isinstance(row, dict) or not test(row):
                            return False
        except (OSError, ValueError):  # (UnicodeDecodeError is a ValueError)
            return False
        return True

    return written


def check_out(out: str, *, inputs: Mapping[str, str], command: str = "",
              written_here: Callable[[Path], bool] | None = None) -> Path:
    """The file ``--out`` names (a symlink's target), checked before anything is scored.

    Refused: one of ``inputs`` (``{what: path}``; names that are not files are skipped), anything but
    a regular file, a dangling symlink, a missing folder, no write permission, and, given ``written_here``, an
    existing non-empty file that it (given the target) does not recognise as one ``grpo-rewards COMMAND`` wrote
    (a command checks once more when it knows all its inputs: that check says which input ``--out`` names).
    """
    given = Path(out)
    target = Path(os.path.realpath(given))
    if given.is_symlink() and not target.exists():
        raise GrpoRewardsError(f"--out {out} is a symlink to {target}, which does not exist; give a regular file")
    mine = _identity(target)
    for what, other in inputs.items():
        if mine is not None and mine == _identity(Path(other)):
            raise GrpoRewardsError(f"--out {out} is the {what}; choose another file (it would be overwritten)")
    if mine is not None:
        mode = target.stat().st_mode
        if not stat.S_ISREG(mode):
            hint = f"; give a file name such as {given / 'scored.jsonl'}" if stat.S_ISDIR(mode) else ""
            through = f" (through the symlink {given})" if target != given.absolute() and given.is_symlink() else ""
            raise GrpoRewardsError(f"--out {out} is {_kind(mode)}{through}: --out writes only regular files{hint}")
        if written_here is not None and target.stat().st_size and not written_here(target):
            raise GrpoRewardsError(f"--out {out} exists and was not written by grpo-rewards {command}, so it is left as "
                                   "it is: give another file name, or move it away")
    parent = target.parent
    if not parent.exists():
        raise GrpoRewardsError(f"--out {out}: the folder {parent} does not exist")
    if not parent.is_dir():
        raise GrpoRewardsError(f"--out {out}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK) or (mine is not None and not os.access(target, os.W_OK)):
        raise GrpoRewardsError(f"--out {out} cannot be written (permission denied)")
    return target


def _new_file_mode() -> int:
    umask = os.umask(0o22)
    os.umask(umask)
    return 0o666 & ~umask


@contextmanager
def atomic_writer(path: Path) -> Iterator[IO[str]]:
    """Write a temporary file next to ``path`` (a symlink's target) and rename it over ``path`` once complete.

    The result has the permission bits of the file it replaces, or the umask's for a new file; a
    ``path`` that became something other than a regular file meanwhile is refused, untouched.
    """
    target = Path(os.path.realpath(path))
    try:
        old = target.stat()
    except FileNotFoundError:
        mode = _new_file_mode()
    else:
        if not stat.S_ISREG(old.st_mode):
            raise GrpoRewardsError(f"--out {path} is {_kind(old.st_mode)}: --out writes only regular files")
        mode = stat.S_IMODE(old.st_mode)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            yield fh
        os.replace(tmp, target)
    except BaseException:
        with suppress(OSError):
            os.unlink(tmp)
        raise
