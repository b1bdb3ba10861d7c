"""A tiny random sequence-classification reward model, written locally in about a second."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path


def make_tiny_reward_model(path: Path, seed: int = 0, num_labels: int = 1) -> Path:
    """A 2-layer Qwen2ForSequenceClassification (``num_labels``, random weights for ``seed``) with the
    tiny model's tokenizer and ChatML chat template, saved at ``path``."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    from grpo_rewards.train.tiny import make_tiny_model

    lm = make_tiny_model(path.parent / f"{path.name}-lm", seed=seed)
    config = AutoConfig.from_pretrained(lm)
    config.num_labels = num_labels
    config.architectures = ["Qwen2ForSequenceClassification"]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = AutoModelForSequenceClassification.from_config(config)
    path.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(path, safe_serialization=True)
    for f in lm.iterdir():
        if f.name.startswith(("tokenizer", "special_tokens", "chat_template")):
            shutil.copy(f, path / f.name)
    return path


_SHARED: list[tuple[Path, int]] = []  # (the model, the process that wrote it)


def tiny_reward_model() -> Path:
    """:func:`make_tiny_reward_model`'s default model, written once per test process (a forked child uses
    its parent's) into a temporary folder that the process that wrote it removes when it exits."""
    if not _SHARED:
        folder = Path(tempfile.mkdtemp(prefix="grpo-tiny-rm-"))
        atexit.register(_remove, folder, os.getpid())
        _SHARED.append((make_tiny_reward_model(folder / "tiny-rm"), os.getpid()))
    return _SHARED[0][0]


def _remove(folder: Path, owner: int) -> None:
    if os.getpid() == owner:  # (an exiting forked child leaves it to the process that wrote it)
        shutil.rmtree(folder, ignore_errors=True)
