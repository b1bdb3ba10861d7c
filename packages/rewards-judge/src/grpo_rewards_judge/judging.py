"""What ``judge.rubric`` and ``judge.pairwise`` share: the server settings, the cache, one batch of requests.

:class:`JudgeSettings` checks the connection, sampling and grading parameters once (with
``grpo_rewards.params``) and builds the :class:`~grpo_rewards_judge.client.ChatClient`;
:meth:`JudgeSettings.unsent` says which completions are not sent (and what they are paid),
:meth:`JudgeSettings.paid` what a parsed reply pays;
:meth:`JudgeSettings.ask` sends a batch of judge prompts (identical ones once, cached ones not
at all) and returns each reply with what it cost, for the reward to parse and label;
:func:`metrics` sums what a batch cost into the numbers the core logs
(``judge_latency/<metric>``, ``judge_tokens/<metric>``, ``judge_requests/<metric>``,
``judge_cache_hits/<metric>``).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from grpo_rewards import params

from . import cache as cache_module
from .client import ChatClient, Reply, api_key_from

#: Labels of samples the judge did not grade: their value is ``None`` (TRL masks it).
NOT_GRADED = ("timeout", "unreachable", "error")
#: The labels a judge reports, besides the core's.
LABELS = ("scored", "unparsable", "truncated", "refused", "injection", "missing_input", *NOT_GRADED)


def outcome(label: str, finish_reason: str | None) -> str:
    """The label of a parsed reply, told by how the reply ended: without a grade, a reply cut at ``max_tokens``
    (``finish_reason`` ``length``: a judge that reasons first ran out of room, or a thinking model spent the budget
    on its reasoning and its content is empty) is ``truncated``, and one the server filtered is ``refused``.

    >>> outcome("unparsable", "length"), outcome("scored", "length"), outcome("unparsable", "content_filter")
    ('truncated', 'scored', 'refused')
    """
    if label == "scored":
        return label
    if finish_reason == "length" and label == "unparsable":
        return "truncated"
    return "refused" if finish_reason == "content_filter" else label


@dataclass
class Asked:
    """One judge prompt's reply: the text (``None`` when there is none), its status, and whether cached."""

    status: str
    text: str | None = None
    finish_reason: str | None = None
    cached: bool = False
    reply: Reply | None = None


class JudgeSettings:
    """The server, the model, the sampling, the cache and the grading values of one judge reward."""

    def __init__(self, *, base_url: str, model: str, api_key_env: str | None, system: str | None,
                 max_concurrency: int, request_timeout: float, max_retries: int, backoff: float,
                 temperature: float, max_tokens: int, seed: int | None, cache_path: str | None,
                 unparsable_value: float | None, refused_value: float | None, max_completion_chars: int,
                 reject_grade_lines: bool) -> None:
        params.text(base_url, "base_url")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must be an http:// or https:// URL (such as http://127.0.0.1:8000/v1), "
                             f"got {base_url!r}")
        params.text(model, "model")
        params.text(system, "system", none_ok=True)
        params.integer(max_concurrency, "max_concurrency", low=1, high=256)
        params.number(request_timeout, "request_timeout", positive=True)
        params.integer(max_retries, "max_retries", low=0, high=10)
        params.number(backoff, "backoff", low=0)
        params.number(temperature, "temperature", low=0, high=2)
        params.integer(max_tokens, "max_tokens", low=1)
        params.integer(seed, "seed", none_ok=True)
        params.text(cache_path, "cache_path", none_ok=True)
        self.unparsable_value = params.number(unparsable_value, "unparsable_value", low=0, high=1, none_ok=True)
        self.refused_value = params.number(refused_value, "refused_value", low=0, high=1, none_ok=True)
        self.max_completion_chars = params.integer(max_completion_chars, "max_completion_chars", low=1)
        self.reject_grade_lines = params.boolean(reject_grade_lines, "reject_grade_lines")
        self.model = model
        self.system = system
        self.sampling: dict[str, Any] = {"temperature": float(temperature), "max_tokens": max_tokens}
        if seed is not None:
            self.sampling["seed"] = seed
        self.client = ChatClient(base_url, model, api_key=api_key_from(api_key_env), request_timeout=request_timeout,
                                 max_retries=max_retries, backoff=backoff, max_concurrency=max_concurrency,
                                 body=self.sampling)
        self.cache = cache_module.JudgeCache(cache_path)
        self._warned_unreachable = False
        self._warned_error = False
        self._warned_unparsable = False
        self._warned_truncated = False

    def unsent(self, text: str | None, states_grade: Callable[[str], bool],
               fields: Iterable[Any] = ()) -> tuple[float | None, str] | None:
        """The value and label of a completion the judge is not sent, or ``None``: send it.

        Not sent: one whose row has ``None`` among ``fields``, the values of the dataset columns the template
        names (another task's row in a mixed dataset, or a row without its reference: ``None``,
        ``missing_input``; it was sent with the field empty and graded against nothing), one without text
        (``None``, ``unreadable``), one longer than ``max_completion_chars`` (0.0, ``too_large``), and, with
        ``reject_grade_lines``, one that ``states_grade`` (it writes the judge's verdict itself, which a small
        judge copies: ``unparsable_value``, ``injection``)."""
        if any(value is None for value in fields):
            return None, "missing_input"
        if text is None:
            return None, "unreadable"
        if len(text) > self.max_completion_chars:
            return 0.0, "too_large"
        if self.reject_grade_lines and states_grade(text):
            return self.unparsable_value, "injection"
        return None

    def paid(self, value: float | None, label: str) -> float | None:
        """What a sample whose reply was parsed to ``(value, label)`` is paid: the grade when ``scored``,
        else ``unparsable_value`` or ``refused_value``."""
        if label == "scored":
            return value
        return self.unparsable_value if label in ("unparsable", "truncated") else self.refused_value

    def messages(self, prompt: str) -> list[dict[str, str]]:
        system = [{"role": "system", "content": self.system}] if self.system else []
        return [*system, {"role": "user", "content": prompt}]

    def ask(self, prompts: Sequence[str | None], template: str) -> list[Asked]:
        """The reply to each judge prompt (``None``: nothing to ask, ``status`` ``skipped``)."""
        keys = {p: cache_module.key(self.model, template, [self.system, p], self.sampling)
                for p in prompts if p is not None}
        answered: dict[str, Asked] = {}
        todo: list[str] = []
        for prompt in dict.fromkeys(p for p in prompts if p is not None):
            hit = self.cache.get(keys[prompt])
            if hit is not None:
                answered[prompt] = Asked("ok", hit.reply, hit.finish_reason, cached=True)
            else:
                todo.append(prompt)
        replies = self.client.complete_many([self.messages(p) for p in todo])
        for prompt, reply in zip(todo, replies):
            answered[prompt] = Asked(reply.status, reply.text, reply.finish_reason, reply=reply)
            if reply.status == "ok" and reply.text is not None and reply.finish_reason != "content_filter":
                self.cache.put(keys[prompt], reply.text, reply.finish_reason)
        if replies and all(r.status == "unreachable" for r in replies) and not self._warned_unreachable:
            self._warned_unreachable = True
            warnings.warn(f"judge at {self.client.url} cannot be reached ({replies[0].error}); its samples get "
                          "None (label 'unreachable') until it answers", RuntimeWarning, stacklevel=3)
        if replies and all(r.status == "error" for r in replies) and not self._warned_error:
            # (a wrong key or model name, a message without text: every sample None, which TRL masks, and nothing said)
            self._warned_error = True
            warnings.warn(f"judge at {self.client.url} answered no request of this call with a reply it can read "
                          f"({replies[0].error}); its samples get None (label 'error')", RuntimeWarning, stacklevel=3)
        return [answered[p] if p is not None else Asked("skipped") for p in prompts]

    def warn_if_unparsable(self, asked: Sequence[Asked], labels: Sequence[str]) -> None:
        """Warn once (per reward) when every reply of a call that got replies was ``unparsable``, quoting the first:
        a judge that never writes the grade line pays ``unparsable_value`` to every sample, which trains nothing;
        and once when a reply was ``truncated``, naming ``max_tokens``."""
        if "truncated" in labels and not self._warned_truncated:
            self._warned_truncated = True
            warnings.warn(f"judge {self.model!r} at {self.client.url}: replies were cut at max_tokens="
                          f"{self.sampling['max_tokens']} before stating a grade (label 'truncated', paid "
                          "unparsable_value); raise max_tokens: a judge that reasons first, or a thinking model, "
                          "needs room for its reasoning and the grade line", RuntimeWarning, stacklevel=3)
        replies = [a for a in asked if a.status == "ok" and a.text is not None]
        if self._warned_unparsable or not replies or \
                {label for label in labels if label in ("scored", "unparsable", "refused")} != {"unparsable"}:
            return
        self._warned_unparsable = True
        first = replies[0].text or ""
        quoted = first if len(first) <= 300 else first[:300] + f"... ({len(first)} characters)"
        warnings.warn(f"judge {self.model!r} at {self.client.url}: no reply of this call states a grade in the asked "
                      f"format (every sample 'unparsable'); the first reply was {quoted!r}. Make the template ask for "
                      "the exact grade line, give the judge enough max_tokens to reach it, or use a larger judge "
                      "(docs/judges.md)", RuntimeWarning, stacklevel=3)


def metrics(asked: Sequence[Asked]) -> dict[str, float]:
    """What a batch cost: mean seconds per request sent, tokens used, requests sent, cache hits."""
    sent = {id(a.reply): a.reply for a in asked if a.reply is not None and a.reply.attempts}.values()
    seconds = [r.seconds for r in sent]
    return {
        "judge_latency": sum(seconds) / len(seconds) if seconds else 0.0,
        "judge_tokens": float(sum(r.tokens for r in sent)),
        "judge_requests": float(len(seconds)),
        "judge_cache_hits": float(len({id(a) for a in asked if a.cached})),
    }


def column_values(names: Sequence[str], kwargs: Mapping[str, Any], n: int, reward: str) -> dict[str, list[Any]]:
    """The per-sample values of the dataset columns a template names, or a ``ValueError`` naming the missing."""
    missing = [c for c in names if not (isinstance(kwargs.get(c), (list, tuple)) and len(kwargs[c]) == n)]
    if missing:
        have = sorted(k for k, v in kwargs.items() if isinstance(v, (list, tuple)) and len(v) == n) or ["none"]
        raise ValueError(f"{reward}: the template reads dataset column(s) {', '.join(map(repr, missing))}; "
                         f"the batch has: {', '.join(have)}")
    return {c: list(kwargs[c]) for c in names}
