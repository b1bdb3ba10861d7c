"""What a task may change in its worker process, and how the worker puts it back before the next task.

A scorer shares its worker with every other reward's samples. After each task the worker restores
what a scorer most easily changes for those that follow: the working directory, ``os.environ``, the
Python-level signal handlers (a scorer that ignores SIGTERM), a pending alarm, the blocked-signal
mask and the umask. Each check is cheap (a few system calls and a dictionary comparison: about 10 µs
a task), and nothing is written back when nothing changed. Signal handlers are not read back one by
one (60 reads a task would cost more than most scorers): once the state is captured, the worker's
``signal.signal`` notes which signals it changed, and only those are put back.

>>> saved = ProcessState.capture()
>>> os.environ["GRPO_REWARDS_STATE_DOCTEST"] = "1"
>>> saved.restore()
['environment']
>>> "GRPO_REWARDS_STATE_DOCTEST" in os.environ
False
"""

from __future__ import annotations

import os
import signal
from dataclasses import dataclass
from typing import Any

_changed_signals: set[int] = set()
_original_signal = signal.signal


def _recording_signal(signalnum: Any, handler: Any) -> Any:
    """``signal.signal`` in a worker: the same, remembering which signal changed."""
    previous = _original_signal(signalnum, handler)
    _changed_signals.add(int(signalnum))
    return previous


def watch_signals() -> None:
    """From now on this process's ``signal.signal`` notes which signals it changes (a worker calls it once)."""
    signal.signal = _recording_signal


def _handlers() -> dict[int, Any]:
    """Every Python-level signal handler now (read once, when the worker starts)."""
    found = {}
    for sig in signal.valid_signals():
        if sig in (signal.SIGKILL, signal.SIGSTOP):
            continue
        try:
            found[int(sig)] = signal.getsignal(sig)
        except (ValueError, OSError):  # pragma: no cover - a real-time signal Python does not know
            continue
    return found


def _environ() -> dict[Any, Any]:
    data = getattr(os.environ, "_data", None)
    return dict(data) if isinstance(data, dict) else dict(os.environ)


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask


@dataclass
class ProcessState:
    """A snapshot of the process state a task may leave changed."""

    cwd: str
    environ: dict[Any, Any]  # os.environ's own encoded table: compared in one step
    handlers: dict[int, Any]
    mask: frozenset[int]
    umask: int

    @classmethod
    def capture(cls) -> ProcessState:
        """The state now (taken once, when the worker starts)."""
        return cls(os.getcwd(), _environ(), _handlers(),
                   frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, ())), _umask())

    def move(self, cwd: str) -> None:
        """Go to ``cwd`` and have each task start there from now on (the caller's working directory, which a
        batch carries: a reward reads relative paths from where it is called, as it would in-process); a
        folder that cannot be entered leaves the worker where it is."""
        try:
            os.chdir(cwd)
        except OSError:
            return
        self.cwd = cwd

    def restore(self) -> list[str]:
        """Put back whatever differs; returns what was restored (``[]`` when nothing changed)."""
        restored = []
        try:
            changed = os.getcwd() != self.cwd
        except OSError:  # the task removed the folder it moved into
            changed = True
        if changed:
            try:
                os.chdir(self.cwd)
                restored.append("cwd")
            except FileNotFoundError:  # the folder the worker started in was removed: there is none to go back to
                pass
        if getattr(os.environ, "_data", os.environ) != self.environ:
            os.environ.clear()
            os.environ.update({os.fsdecode(k): os.fsdecode(v) for k, v in self.environ.items()})
            restored.append("environment")
        if _changed_signals:
            changed_handlers = False
            for sig in sorted(_changed_signals):
                handler = self.handlers.get(sig)
                if handler is not None and signal.getsignal(sig) != handler:
                    _original_signal(sig, handler)
                    changed_handlers = True
            _changed_signals.clear()
            if changed_handlers:
                restored.append("signal handlers")
        if signal.getitimer(signal.ITIMER_REAL) != (0.0, 0.0):  # an alarm set and left pending
            signal.setitimer(signal.ITIMER_REAL, 0)
            restored.append("alarm")
        if frozenset(signal.pthread_sigmask(signal.SIG_BLOCK, ())) != self.mask:
            signal.pthread_sigmask(signal.SIG_SETMASK, self.mask)
            restored.append("signal mask")
        if _umask() != self.umask:
            os.umask(self.umask)
            restored.append("umask")
        return restored
