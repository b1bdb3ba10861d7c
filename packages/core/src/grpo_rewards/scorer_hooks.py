"""Optional methods a scorer may define, read in this one place.

- ``describe_runtime() -> str``: what the reward's work runs on (a sandbox, a server), shown by
  ``grpo-rewards show``, the training header and the manifest. A static or class method, so it can
  be read from the registered class as well as from an instance.
- ``check_rows(rows) -> list[str]``: problems in a dataset's rows that the reward cannot score
  (one line each, naming the row), reported with the other configuration problems before training.

>>> class Sandboxed:
...     @staticmethod
...     def describe_runtime():
...         return "sandbox: none needed"
>>> runtime_note(Sandboxed), runtime_note(len)
('sandbox: none needed', None)
"""

from __future__ import annotations

from typing import Any


def runtime_note(obj: Any) -> str | None:
    """What ``obj`` (a scorer, its class, or a built reward's implementation) says it runs on, or None."""
    describe = getattr(obj, "describe_runtime", None)
    if not callable(describe):
        return None
    try:
        return str(describe())
    except Exception as exc:  # a description must never stop a command
        return f"unknown ({type(exc).__name__}: {exc})"


def row_problems(obj: Any, rows: Any) -> list[str]:
    """The problems ``obj.check_rows(rows)`` reports (none when it has no such method)."""
    check = getattr(obj, "check_rows", None)
    return [str(p) for p in check(rows)] if callable(check) else []
