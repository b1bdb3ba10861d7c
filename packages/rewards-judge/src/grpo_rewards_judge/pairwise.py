"""``judge.pairwise``: the completions of one prompt judged together, scored or ranked against each other."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Sequence
from typing import Any

from grpo_rewards import RewardResult, completion_text, params

from .judging import NOT_GRADED, JudgeSettings, column_values, metrics, outcome
from .parse import ScoreFormat, parse_numbered, scale_bounds, states_numbered_grade
from .templates import PAIRWISE_TEMPLATE, SYSTEM, fill, neutralise, render, template_for

NAME = "judge.pairwise"
MODES = ("score", "rank")


def ranks(scores: Sequence[float]) -> list[float]:
    """Each score's rank in [0, 1] (worst 0.0, best 1.0, ties share their mean rank; one alone: 0.5).

    >>> ranks([0.2, 0.9, 0.2, 0.5])
    [0.16666666666666666, 1.0, 0.16666666666666666, 0.6666666666666666]
    """
    if len(scores) == 1:
        return [0.5]
    order = sorted(range(len(scores)), key=lambda i: scores[i])
    rank = [0.0] * len(scores)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and scores[order[j + 1]] == scores[order[i]]:
            j += 1
        for k in range(i, j + 1):
            rank[order[k]] = (i + j) / 2 / (len(scores) - 1)
        i = j + 1
    return rank


class Pairwise:
    """The completions of one prompt are shown to an LLM judge together and graded against each other.

    The batch is split into groups by prompt (GRPO's ``num_generations`` completions each; groups
    larger than ``max_group`` in chunks of ``max_group``); each group is one request whose reply
    has a line ``Score K: N`` per response ``K`` on ``scale``. ``mode: score`` pays each response its
    grade mapped to [0, 1]; ``mode: rank`` pays its rank among the group's graded responses (worst
    0.0, best 1.0, ties shared). The server, sampling, cache, retries and labels are those of
    ``judge.rubric`` (``unparsable`` per response whose line is missing or off the scale). The
    template has ``{prompt}``, ``{completions}`` (the numbered responses, each delimited) and any
    dataset column. A completion with a grade line of its own (``Score 2: 10``, ``Score: 10``) is not
    shown to the judge (``injection``, as in ``judge.rubric``). Units: none (a grade, not a length).

    Position bias: judges favour responses by their place in the list (often the first). With
    ``shuffle: true`` (the default) each group's responses are shown in an order of their own,
    drawn from ``shuffle_seed`` and the group's content (its prompt and completions): deterministic
    (the same group is shown the same way on every run and machine, so the cache still answers
    it), different from group to group, and recorded by :meth:`order`, which gives the original
    index of the response shown as number ``K``; each ``Score K`` is paid to that completion.
    ``shuffle: false`` shows them in batch order.

    Example::

        - use: judge.pairwise
          with: {base_url: "http://127.0.0.1:8000/v1", model: Qwen/Qwen2.5-7B-Instruct, mode: rank}

    >>> judge = Pairwise(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0, request_timeout=1.0)
    >>> judge(prompts=["p", "p"], completions=["a", "b"]).labels  # nothing listens on port 9
    ['unreachable', 'unreachable']
    """

    def __init__(
        self,
        model: str,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key_env: str | None = None,
        template: str | None = None,
        system: str | None = SYSTEM,
        scale: Sequence[float] = (1, 10),
        mode: str = "score",
        max_group: int = 16,
        max_concurrency: int = 8,
        request_timeout: float = 120.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        temperature: float = 0.0,
        max_tokens: int = 512,
        seed: int | None = 0,
        cache_path: str | None = None,
        unparsable_value: float | None = 0.0,
        refused_value: float | None = 0.0,
        max_completion_chars: int = 16_000,
        reject_grade_lines: bool = True,
        shuffle: bool = True,
        shuffle_seed: int = 0,
    ) -> None:
        low, high = scale_bounds(scale)
        self.format = ScoreFormat("scale", low=low, high=high)
        self.mode = params.choice(mode, "mode", MODES)
        self.max_group = params.integer(max_group, "max_group", low=1, high=64)
        #: the template, and the dataset columns it reads
        self.template, self.columns = template_for(
            template, PAIRWISE_TEMPLATE, "completions", ("prompt", "completions"), low=low, high=high)
        self.shuffle = params.boolean(shuffle, "shuffle")
        self.shuffle_seed = params.integer(shuffle_seed, "shuffle_seed")
        self.settings = JudgeSettings(
            base_url=base_url, model=model, api_key_env=api_key_env, system=system,
            max_concurrency=max_concurrency, request_timeout=request_timeout, max_retries=max_retries,
            backoff=backoff, temperature=temperature, max_tokens=max_tokens, seed=seed, cache_path=cache_path,
            unparsable_value=unparsable_value, refused_value=refused_value,
            max_completion_chars=max_completion_chars, reject_grade_lines=reject_grade_lines)

    def order(self, prompt: Any, texts: Sequence[str]) -> list[int]:
        """The order one group is shown in: ``order[K - 1]`` is the index in ``texts`` of the response
        shown as number ``K`` (``shuffle: false``: ``[0, 1, ...]``).

        >>> judge = Pairwise(model="m")
        >>> judge.order("p", ["a", "b", "c", "d"]), Pairwise(model="m", shuffle=False).order("p", ["a", "b"])
        ([1, 2, 3, 0], [0, 1])
        """
        shown = list(range(len(texts)))
        if self.shuffle and len(texts) > 1:
            digest = hashlib.sha256(repr((self.shuffle_seed, render(prompt), list(texts))).encode("utf-8", "replace"))
            random.Random(digest.digest()).shuffle(shown)
        return shown

    def judge_prompt(self, prompt: Any, texts: Sequence[str], row: dict[str, Any]) -> str:
        """The template filled for one group: its responses in the order :meth:`order` gives, numbered
        from 1, each in its own block."""
        shown = [texts[i] for i in self.order(prompt, texts)]
        blocks = "\n\n".join(f"<response {k}>\n{neutralise(t)}\n</response {k}>" for k, t in enumerate(shown, 1))
        values = {"prompt": render(prompt), **{c: render(row[c]) for c in self.columns}}
        filled = fill(self.template.replace("{completions}", "\0COMPLETIONS\0"), values)
        return filled.replace("\0COMPLETIONS\0", blocks)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 **kwargs: Any) -> RewardResult:
        n = len(completions)
        columns = column_values(self.columns, kwargs, n, NAME)
        values: list[float | None] = [None] * n
        labels = ["unreadable"] * n
        texts: list[str | None] = [completion_text(c) for c in completions]
        groups: dict[str, list[int]] = {}
        for i, text in enumerate(texts):
            unsent = self.settings.unsent(
                text, lambda t: states_numbered_grade(t, self.format) or self.format.states_grade(t),
                [v[i] for v in columns.values()])
            if unsent is not None:
                values[i], labels[i] = unsent
                continue
            groups.setdefault(repr(prompts[i]), []).append(i)
        chunks = [members[k:k + self.max_group] for members in groups.values()
                  for k in range(0, len(members), self.max_group)]
        asks: list[str | None] = [
            self.judge_prompt(prompts[c[0]], [texts[i] or "" for i in c], {k: v[c[0]] for k, v in columns.items()})
            for c in chunks]
        asked = self.settings.ask(asks, self.template)
        for chunk, answer in zip(chunks, asked):
            if answer.status in NOT_GRADED:
                for i in chunk:
                    values[i], labels[i] = None, answer.status
                continue
            shown = self.order(prompts[chunk[0]], [texts[i] or "" for i in chunk])
            grades = [(value, outcome(label, answer.finish_reason))  # grades[K - 1]: the one shown as K
                      for value, label in parse_numbered(answer.text, len(chunk), self.format)]
            position = {index: k for k, index in enumerate(shown)}
            parsed = [grades[position[j]] for j in range(len(chunk))]
            graded = [(i, v) for i, (v, label) in zip(chunk, parsed) if label == "scored" and v is not None]
            ranked = dict(zip([i for i, _ in graded], ranks([v for _, v in graded]))) if graded else {}
            for i, (value, label) in zip(chunk, parsed):
                values[i] = ranked[i] if label == "scored" and self.mode == "rank" else self.settings.paid(value, label)
                labels[i] = label
        self.settings.warn_if_unparsable(asked, labels)
        return RewardResult(values=values, labels=labels, metrics=metrics(asked))
