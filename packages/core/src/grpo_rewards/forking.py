"""What a forked child must not take over from its parent, for every reward: torch's thread pool.

Imported with ``grpo_rewards`` itself (its ``__init__``), so the hook is in place before any plugin's reward
runs and before any fork; it imports nothing. (Each owner of a connection or a pool resets its own at a fork:
the worker pool, the code sandbox's warm sandboxes and compile cache, the judge's HTTP and cache connections,
the Ray backend.)

In a child forked from a process that imported torch, torch's intra-op threads are set to 1, as PyTorch's own
DataLoader workers are: with GNU OpenMP the parent's thread pool does not survive ``fork()``, and the child's
first parallel operation waits for ever (seen: ``text.similarity``'s embeddings in a child forked after the
parent had embedded). A child that needs more threads can call ``torch.set_num_threads`` itself.
"""

from __future__ import annotations

import os
import sys


def torch_after_fork() -> None:
    """Set torch's intra-op threads to 1 in this (forked) process when torch is imported; otherwise nothing."""
    torch = sys.modules.get("torch")
    if torch is not None:
        try:
            torch.set_num_threads(1)
        except Exception:  # a partly imported torch: nothing of it has run
            pass


os.register_at_fork(after_in_child=torch_after_fork)
