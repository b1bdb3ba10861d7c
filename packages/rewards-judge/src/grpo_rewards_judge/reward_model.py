"""``judge.reward_model``: a sequence-classification reward model on a device of its own."""

from __future__ import annotations

import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grpo_rewards import RewardResult, completion_text, params

from .templates import render, utf8

NAME = "judge.reward_model"
NORMALISE = ("none", "sigmoid", "zscore")
#: A completion is cut to this many characters per ``max_length`` token before tokenising (a token
#: averages 3-5 characters, so the cut never reaches what the model would read).
CHARS_PER_TOKEN = 32


class RewardModel:
    """A reward model (``AutoModelForSequenceClassification``) scores each prompt + completion.

    ``model`` is a local folder or a Hub id (loaded as transformers loads it: offline with
    ``HF_HUB_OFFLINE=1`` from the local cache). It is loaded once, on first use, on ``device``
    (``cpu``, ``cuda:1``, ``mps``, ...): name a device the policy does not train on (TRL would put a
    reward model passed as a model on the training device). The conversation — the prompt's
    messages, or a string prompt as one user message, then the completion as the assistant's —
    goes through the tokenizer's chat template when it has one (else prompt and completion are
    joined by a newline), truncated to ``max_length`` tokens (the completion first cut to 32
    characters a token), scored ``batch_size`` at a time under
    ``torch.inference_mode``. The score is the logit of ``label`` (default: the only one of a
    one-label head), then ``normalise``: ``none`` (the raw logit), ``sigmoid`` (into (0, 1): the
    Bradley-Terry probability of beating a score-0 answer) or ``zscore`` (minus the batch mean,
    over the batch's standard deviation; 0.0 when all are equal). Units: none (a score, not a length).

    Example::

        - use: judge.reward_model
          with: {model: Skywork/Skywork-Reward-V2-Qwen3-0.6B, device: "cuda:1", normalise: sigmoid}

    >>> RewardModel(model="/no/such/folder")
    Traceback (most recent call last):
    ...
    ValueError: model: '/no/such/folder' is neither a local model folder (with config.json) nor a Hub id
    """

    def __init__(self, model: str, device: str = "cpu", batch_size: int = 8, max_length: int = 2048,
                 normalise: str = "none", label: int | None = None, dtype: str = "float32",
                 revision: str | None = None) -> None:
        params.text(model, "model")
        path = Path(model).expanduser()
        local = model.startswith(("/", ".", "~")) or path.exists()
        if local and not (path / "config.json").is_file():
            raise ValueError(f"model: {model!r} is neither a local model folder (with config.json) nor a Hub id")
        self.model_name = str(path) if local else model
        self.device = params.text(device, "device")
        self.batch_size = params.integer(batch_size, "batch_size", low=1)
        self.max_length = params.integer(max_length, "max_length", low=8)
        self.normalise = params.choice(normalise, "normalise", NORMALISE)
        self.label = params.integer(label, "label", low=0, none_ok=True)
        self.dtype = params.choice(dtype, "dtype", ("float32", "bfloat16", "float16", "auto"))
        self.revision = params.text(revision, "revision", none_ok=True)
        self._check_device()
        self._loaded: tuple[Any, Any] | None = None
        self._lock = threading.Lock()

    def _check_device(self) -> None:
        import torch

        try:
            device = torch.device(self.device)
        except (RuntimeError, ValueError) as exc:
            raise ValueError(f"device: {self.device!r} is not a torch device ({exc})") from None
        if device.type == "cuda" and not torch.cuda.is_available():
            raise ValueError(f"device: {self.device!r} asks for CUDA, which this machine does not have")
        if device.type == "cuda" and device.index is not None and device.index >= torch.cuda.device_count():
            raise ValueError(f"device: {self.device!r}, but this machine has {torch.cuda.device_count()} CUDA devices")

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_loaded"] = None
        state["_lock"] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def warmup(self) -> None:
        self.load()

    def load(self) -> tuple[Any, Any]:
        """The model (in eval mode, on ``device``) and its tokenizer, loaded once."""
        with self._lock:
            if self._loaded is None:
                import torch
                from transformers import AutoModelForSequenceClassification, AutoTokenizer

                dtype = "auto" if self.dtype == "auto" else getattr(torch, self.dtype)
                tokenizer = AutoTokenizer.from_pretrained(self.model_name, revision=self.revision)
                model = AutoModelForSequenceClassification.from_pretrained(
                    self.model_name, revision=self.revision, dtype=dtype).to(self.device)
                model.eval()
                if tokenizer.pad_token is None:
                    tokenizer.pad_token = tokenizer.eos_token
                if model.config.pad_token_id is None:
                    model.config.pad_token_id = tokenizer.pad_token_id
                labels = int(model.config.num_labels)
                if self.label is None and labels != 1:
                    raise ValueError(f"{NAME}: {self.model_name} has {labels} labels: choose one with label: N")
                if self.label is not None and self.label >= labels:
                    raise ValueError(f"{NAME}: label {self.label}, but {self.model_name} has {labels} labels")
                self._loaded = (model, tokenizer)
            return self._loaded

    def text_of(self, tokenizer: Any, prompt: Any, completion: str) -> str:
        """The conversation as the model reads it: through its chat template when it has one."""
        if isinstance(prompt, (list, tuple)) and all(isinstance(m, dict) and "role" in m for m in prompt):
            messages = [dict(m) for m in prompt]
        else:
            messages = [{"role": "user", "content": render(prompt)}] if prompt is not None else []
        if getattr(tokenizer, "chat_template", None):
            return str(tokenizer.apply_chat_template([*messages, {"role": "assistant", "content": completion}],
                                                     tokenize=False))
        return "\n".join([*(render(m.get("content")) for m in messages), completion])

    def raw_scores(self, prompts: Sequence[Any], texts: Sequence[str]) -> list[float]:
        """The logit of each (prompt, completion), ``batch_size`` at a time."""
        import torch

        model, tokenizer = self.load()
        scores: list[float] = []
        # cut first: the tokenizer would read a megabyte whole before truncating it to max_length tokens
        cut = CHARS_PER_TOKEN * self.max_length
        conversations = [utf8(self.text_of(tokenizer, p, t[:cut])) for p, t in zip(prompts, texts)]
        with torch.inference_mode():
            for start in range(0, len(conversations), self.batch_size):
                batch = tokenizer(conversations[start:start + self.batch_size], return_tensors="pt", padding=True,
                                  truncation=True, max_length=self.max_length, add_special_tokens=False)
                logits = model(**batch.to(model.device)).logits.float()
                column = logits[:, self.label if self.label is not None else 0]
                scores.extend(float(v) for v in column.cpu())
        return scores

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 **kwargs: Any) -> RewardResult:
        n = len(completions)
        values: list[float | None] = [None] * n
        labels = ["unreadable"] * n
        todo = [i for i, c in enumerate(completions) if completion_text(c) is not None]
        if not todo:
            return RewardResult(values=values, labels=labels)
        raw = self.raw_scores([prompts[i] for i in todo], [completion_text(completions[i]) or "" for i in todo])
        if self.normalise == "sigmoid":
            scored = [1.0 / (1.0 + math.exp(-v)) if v >= 0 else math.exp(v) / (1.0 + math.exp(v)) for v in raw]
        elif self.normalise == "zscore":
            mean = sum(raw) / len(raw)
            std = math.sqrt(sum((v - mean) ** 2 for v in raw) / len(raw))
            scored = [(v - mean) / std if std > 0 else 0.0 for v in raw]
        else:
            scored = raw
        for i, value in zip(todo, scored):
            values[i], labels[i] = value if math.isfinite(value) else None, "scored" if math.isfinite(value) else "error"
        return RewardResult(values=values, labels=labels)
