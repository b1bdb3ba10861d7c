"""Where Ray may start in the tests: inside the private network namespace that conftest.py makes."""

from __future__ import annotations

import os
import socket

#: Set in the child pytest that runs inside the namespace.
INSIDE = "GRPO_REWARDS_NETNS"


def only_loopback() -> bool:
    """Whether this process's network namespace has no interface but ``lo``."""
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and is not a zombie."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(") ", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def refuse_outside_namespace() -> None:
    """Raise unless this process runs where Ray may start: the namespace run, with only ``lo``."""
    if os.environ.get(INSIDE) != "1" or not only_loopback():
        raise RuntimeError("refusing to start Ray outside a private network namespace whose only interface is lo "
                           f"(interfaces: {[name for _, name in socket.if_nameindex()]})")
