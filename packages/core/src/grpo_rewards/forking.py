"""What a forked child must not take over from its parent: torch's thread pool, and what objects hold.

Imported with ``grpo_rewards`` itself (its ``__init__``), so the hook is in place before any plugin's reward
runs and before any fork; it imports nothing.

An object that holds a lock, a connection or a pool a child must not share (the judge's HTTP client and its
cache's SQLite connection, the code package's compile cache) calls :func:`renew_after_fork` on itself; in every
child forked while it lives, its ``_after_fork()`` is called. (The worker pool, the warm sandboxes and the Ray
backend reset their module-wide state themselves.)

In a child forked from a process that imported torch, torch's intra-op threads are set to 1, as PyTorch's own
DataLoader workers are: with GNU OpenMP the parent's thread pool does not survive ``fork()``, and the child's
first parallel operation waits for ever (seen: ``text.similarity``'s embeddings in a child forked after the
parent had embedded). A child that needs more threads can call ``torch.set_num_threads`` itself.
"""

from __future__ import annotations

import os
import sys
import weakref
from typing import Any

#: the objects whose ``_after_fork()`` a forked child calls (:func:`renew_after_fork`)
_renewed: weakref.WeakSet[Any] = weakref.WeakSet()


def renew_after_fork(owner: Any) -> None:
    """Have ``owner._after_fork()`` called in every child forked from this process while ``owner`` lives."""
    _renewed.add(owner)


def torch_after_fork() -> None:
    """Set torch's intra-op threads to 1 in this (forked) process when torch is imported; otherwise nothing."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            torch.set_num_threads(1)
        except Exception:  # a partly imported torch: nothing of it has run
            pass


def _after_fork_in_child() -> None:
    torch_after_fork()
    for owner in list(_renewed):
        owner._after_fork()


os.register_at_fork(after_in_child=_after_fork_in_child)
