"""A call in a daemon thread, waited for up to a deadline: for code that cannot go to a worker process.

A worker process can be killed; a thread cannot. These helpers run code that cannot be sent to a
worker (an unpicklable reward under check, a reward's ``explain``) in a daemon thread and stop
waiting at the deadline, leaving the thread behind, so the caller never hangs on it.

>>> call_with_deadline(lambda: 6 * 7, 5.0)
42
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["call_with_deadline", "run_in_thread"]


def run_in_thread(call: Callable[[], Any], deadline: float) -> tuple[bool, Any, BaseException | None]:
    """``call()`` in a daemon thread, waited for ``deadline`` seconds: ``(finished, value, error)``
    (an unfinished thread is left behind, so a check that runs untrusted code never hangs on it)."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # handed to the caller's thread
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(deadline)
    if thread.is_alive():
        return False, None, None
    return True, box.get("value"), box.get("error")


def call_with_deadline(call: Callable[[], Any], deadline: float) -> Any:
    """``call()`` in a thread: its result, its exception, or ``TimeoutError`` after ``deadline`` seconds
    (see :func:`run_in_thread`)."""
    finished, value, error = run_in_thread(call, deadline)
    if not finished:
        raise TimeoutError(f"no result within {deadline:g} s")
    if error is not None:
        raise error
    return value
