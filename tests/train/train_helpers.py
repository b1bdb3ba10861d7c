"""Helpers of the training tests (a registry with the toy plugin, small configs), importable by name.

They live here, not in ``conftest.py``: ``from conftest import ...`` resolves to whichever folder's
conftest was imported first, so ``pytest tests/train tests/kit`` collected the wrong one.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path


def toy_registry():
    import train_toy_plugin

    from grpo_rewards.plugin.manager import get_plugins
    from grpo_rewards.registry import load_registry

    plugins = get_plugins(load_entry_points=False)
    plugins.add(train_toy_plugin, "toy")
    return load_registry(plugins)


def tiny_config(model: Path, out: Path, **grpo: object) -> dict:
    """A config that trains the tiny model for 3 steps of 2 prompts x 4 completions x 8 tokens."""
    settings = {
        "max_steps": 3, "per_device_train_batch_size": 4, "num_generations": 4, "max_completion_length": 8,
        "logging_steps": 1, "save_steps": 2, "learning_rate": 1.0e-4, "seed": 0, "report_to": "none",
        "activation_checkpointing": False, "disable_tqdm": True,
    }
    settings.update(grpo)
    return {
        "model": str(model),
        "output_dir": str(out),
        "dataset": {"task": "toy:count", "n": 16},
        "rewards": [
            {"use": "toy.digits", "weight": 1.0},
            {"use": "toy.short", "weight": 0.5, "with": {"limit": 20}, "as": "short20"},
        ],
        "grpo": settings,
    }


def write_config(path: Path, config: dict) -> Path:
    import yaml

    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


@contextlib.contextmanager
def child_as_from_a_terminal(args: list[str]) -> Iterator[subprocess.Popen]:
    """A child process started with Ctrl-C's default action, as from a terminal (whatever the test
    process's own SIGINT disposition), its output read as text through pipes; killed on the way out
    if it is still running."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def ctrl_c(proc: subprocess.Popen, timeout: float = 120) -> str:
    """Send ``proc`` one Ctrl-C and wait up to ``timeout`` seconds for it to end: its standard error."""
    proc.send_signal(signal.SIGINT)
    return proc.communicate(timeout=timeout)[1]
