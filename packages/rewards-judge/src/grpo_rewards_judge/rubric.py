"""``judge.rubric``: an LLM judge on any OpenAI-compatible server grades each completion against a rubric."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from grpo_rewards import RewardResult, completion_text, params

from .judging import NOT_GRADED, Asked, JudgeSettings, column_values, metrics, outcome
from .parse import KINDS, ScoreFormat, scale_bounds
from .templates import DEFAULT_TEMPLATES, SAMPLE_FIELDS, SYSTEM, fill, render, template_for

NAME = "judge.rubric"


class Rubric:
    """An LLM judge grades each completion against a rubric; its grade mapped to [0, 1].

    The judge is any OpenAI-compatible chat endpoint (``base_url`` up to ``/chat/completions``:
    ``transformers serve``, ``vllm serve``, OpenAI, ...) serving ``model``; the API key, when the
    server needs one, is read from the environment variable named by ``api_key_env``, never from
    the config. ``template`` is the rubric, with ``{prompt}``, ``{completion}`` and any dataset
    column (``{reference}``) as fields (default: one per ``score_format``, see
    ``grpo_rewards_judge.DEFAULT_TEMPLATES``); ``score_format`` is ``scale`` (a number from
    ``scale[0]`` to ``scale[1]``, mapped linearly to [0, 1]), ``yes_no`` (1.0 / 0.0) or ``choice``
    (``choices``: label -> value in [0, 1]). Requests run ``max_concurrency`` at a time, each with
    ``request_timeout`` seconds, retried ``max_retries`` times on 429/5xx with exponential
    ``backoff``, greedy by default (``temperature: 0``), cached by (model, template, inputs).

    Labels: ``scored``; ``unparsable`` (the reply states no grade in the asked format, or one
    outside the scale: ``unparsable_value``), ``refused`` (the judge declined: ``refused_value``),
    ``timeout``, ``unreachable`` and ``error`` (the server answered with another error): ``None``,
    masked by TRL. A completion longer than ``max_completion_chars`` is not sent (``too_large``,
    0.0), and one with a line the reply parser would read as a grade (``Score: 10``) is not sent
    either (``injection``: ``unparsable_value``; ``reject_grade_lines: false`` sends it). A row whose
    column the template names is ``None`` (another task's row) is not sent either: ``None``,
    ``missing_input``. The judge's mean latency, the tokens it used, the requests sent and the
    cache hits are logged as ``judge_latency/<metric>``, ``judge_tokens/<metric>``, ``judge_requests/<metric>``
    and ``judge_cache_hits/<metric>``. Units: none (a grade, not a length). ``grpo-rewards score
    --explain`` shows each row's judge reply (:meth:`explain`).

    Example (a reward-set entry; a server such as ``transformers serve --port 8000`` running)::

        - use: judge.rubric
          with: {base_url: "http://127.0.0.1:8000/v1", model: HuggingFaceTB/SmolLM2-135M-Instruct,
                 template: "Is {completion} the answer to {prompt}? Reference: {reference}.
                            End with 'Answer: yes' or 'Answer: no'.", score_format: yes_no}

    >>> rubric = Rubric(model="m", base_url="http://127.0.0.1:9/v1", max_retries=0, request_timeout=1.0)
    >>> rubric.columns, rubric.format.kind
    ((), 'scale')
    >>> result = rubric(prompts=["2+2?"], completions=["4"])  # nothing listens on port 9
    >>> result.values, result.labels
    ([None], ['unreachable'])
    """

    def __init__(
        self,
        model: str,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key_env: str | None = None,
        template: str | None = None,
        system: str | None = SYSTEM,
        score_format: str = "scale",
        scale: Sequence[float] = (1, 10),
        choices: Mapping[str, float] | None = None,
        max_concurrency: int = 8,
        request_timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        temperature: float = 0.0,
        max_tokens: int = 256,
        seed: int | None = 0,
        cache_path: str | None = None,
        unparsable_value: float | None = 0.0,
        refused_value: float | None = 0.0,
        max_completion_chars: int = 32_000,
        reject_grade_lines: bool = True,
    ) -> None:
        params.choice(score_format, "score_format", KINDS)
        low, high = scale_bounds(scale)
        if choices is not None and not isinstance(choices, Mapping):
            raise ValueError(f"choices must be a mapping of label -> value in [0, 1], got {choices!r}")
        self.format = ScoreFormat(score_format, low=low, high=high,
                                  choices=tuple((str(k), v) for k, v in (choices or {}).items()))
        #: the rubric, and the dataset columns it reads
        self.template, self.columns = template_for(
            template, DEFAULT_TEMPLATES[score_format], "completion", SAMPLE_FIELDS, low=low, high=high,
            choices=self.format.describe())
        self.settings = JudgeSettings(
            base_url=base_url, model=model, api_key_env=api_key_env, system=system,
            max_concurrency=max_concurrency, request_timeout=request_timeout, max_retries=max_retries,
            backoff=backoff, temperature=temperature, max_tokens=max_tokens, seed=seed, cache_path=cache_path,
            unparsable_value=unparsable_value, refused_value=refused_value,
            max_completion_chars=max_completion_chars, reject_grade_lines=reject_grade_lines)

    def judge_prompt(self, prompt: Any, text: str, row: Mapping[str, Any]) -> str:
        """The rubric filled for one sample (what the judge is sent as the user message)."""
        values = {"prompt": render(prompt), "completion": text, **{c: render(row[c]) for c in self.columns}}
        return fill(self.template, values)

    def __call__(self, prompts: Sequence[Any], completions: Sequence[Any], completion_ids: Any = None,
                 **kwargs: Any) -> RewardResult:
        columns = column_values(self.columns, kwargs, len(completions), NAME)
        values, labels, asked = self._judge(prompts, completions, columns)
        self.settings.warn_if_unparsable(asked, labels)
        return RewardResult(values=values, labels=labels, metrics=metrics(asked))

    def explain(self, completion: Any, prompt: Any = "", **row: Any) -> dict[str, Any]:
        """What ``grpo-rewards score --explain`` and ``compare`` show about one row: the judge's ``reply``
        (the exact text the grade was read from; ``None`` when the sample was not sent or got no reply),
        the ``label`` and ``value`` read from it, and whether the reply came from the cache (``cached``:
        the one the scoring asked for, when it ran in this process or with a ``cache_path``).
        A reply not cached (a worker scored the row, or the cache dropped it) is asked for again."""
        columns = column_values(self.columns, {c: [row.get(c)] for c in self.columns if c in row}, 1, NAME)
        values, labels, asked = self._judge([prompt], [completion], columns)
        return {"label": labels[0], "value": values[0], "reply": asked[0].text, "cached": asked[0].cached}

    def _judge(self, prompts: Sequence[Any], completions: Sequence[Any],
               columns: Mapping[str, list[Any]]) -> tuple[list[float | None], list[str], list[Asked]]:
        """Each sample's value and label, and the judge's reply it was read from."""
        n = len(completions)
        values: list[float | None] = [None] * n
        labels = ["unreadable"] * n
        asks: list[str | None] = []
        for i, completion in enumerate(completions):
            text = completion_text(completion)
            unsent = self.settings.unsent(text, self.format.states_grade, [v[i] for v in columns.values()])
            if unsent is not None:
                asks.append(None)
                values[i], labels[i] = unsent
            else:
                asks.append(self.judge_prompt(prompts[i], text or "", {c: v[i] for c, v in columns.items()}))
        asked = self.settings.ask(asks, self.template)
        for i, answer in enumerate(asked):
            if answer.status == "skipped":
                continue
            if answer.status in NOT_GRADED:
                values[i], labels[i] = None, answer.status
                continue
            value, label = self.format.parse(answer.text)
            label = outcome(label, answer.finish_reason)
            values[i], labels[i] = self.settings.paid(value, label), label
        return values, labels, asked
