"""The reward contract: TRL's call, a scorer and its optional methods, completions, a reward's result.

A reward is ``f(prompts, completions, completion_ids=None, **columns) -> list[float | None]``,
one value per completion; ``None`` means "not applicable to this sample" (TRL turns it into NaN
and leaves it out of the mean). Completions are ``str`` or a list of chat messages.

A plugin usually writes a :class:`Scorer` instead (one sample at a time), and the core lifts it
into that call (:class:`grpo_rewards.Reward`). Everything the core reads from a scorer is named in
:class:`Scorer`'s docstring and read through one module, :mod:`grpo_rewards.scorer_hooks`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .errors import NotApplicable
from .values import container_kind

Message = dict[str, Any]
Completion = str | list[Message]
RewardValue = float | None

#: What a reward's lengths are measured in (``units=`` at registration).
UNITS = ("chars", "words", "tokens", "none")

#: Keyword arguments TRL passes to every reward that are not dataset columns.
TRL_CONTROL_KWARGS = frozenset({"trainer_state", "log_extra", "log_metric", "environments"})

#: Outcome labels the core itself gives samples (a batch-form reward all but the last two: it has no
#: per-sample text to guard), besides the labels the reward reports; each is logged as
#: ``outcomes/<name>/<label>`` from the call it first occurs on (zeros included after that).
LOGGED_OUTCOMES = ("timeout", "error", "crashed", "memory", "too_large", "unreadable")

#: The labels of values given without a label of their own (``ok``; ``none`` for ``None``): counted in a
#: reward's ``stats``, never logged and never a line of ``grpo-rewards score``'s report.
UNLOGGED_LABELS = frozenset({"ok", "none"})

#: The fields the core puts in every row a scorer gets, besides the dataset's columns (a row of a JSONL
#: file for ``grpo-rewards score``/``compare`` has the same keys): never a dataset column.
ROW_FIELDS = frozenset({"prompt", "completion", "completion_ids"})

#: The optional methods a :class:`Scorer` may define (each read only by :mod:`grpo_rewards.scorer_hooks`).
SCORER_METHODS = ("quick", "warmup", "explain", "describe_runtime", "check_rows")

#: The optional attributes a built scorer may have (read the same way); ``<param>_column`` stands for
#: every attribute whose name ends in ``_column``.
SCORER_ATTRIBUTES = ("columns", "units", "<param>_column")

#: The keyword under which a batch-form reward whose call declares it gets the reward's effective options.
OPTIONS_KEYWORD = "reward_options"


class RewardFunc(Protocol):
    """What ``GRPOTrainer(reward_funcs=[...])`` calls."""

    __name__: str

    def __call__(
        self,
        prompts: Sequence[Any],
        completions: Sequence[Completion],
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[RewardValue]: ...


class Scorer(Protocol):
    """What a plugin registers for a per-sample reward: ``score(text, **row) -> value``.

    ``text`` is the completion's text (:func:`completion_text`); ``row`` holds the
    :data:`ROW_FIELDS` (``prompt``, ``completion`` as TRL gave it, ``completion_ids``) and one value
    of each dataset column. It returns a finite float, ``None`` (not applicable) or
    ``(value, "label")`` — the label is counted and logged as ``outcomes/<metric>/<label>``. A
    function, or a class whose instances are built with the reward's parameters (``with:``). It
    must be picklable to run in worker processes.

    A scorer may also define these methods (:data:`SCORER_METHODS`); the core calls each only
    through :mod:`grpo_rewards.scorer_hooks`, and a scorer without one behaves as the default says:

    - ``quick(text, **row) -> value | (value, label) | None``: a cheap answer tried in the caller's
      process before a sample is sent to a worker (only when the reward runs in workers: a
      ``timeout`` or a remote execution); ``None`` or an exception sends the sample to a worker,
      which then decides. It runs without a deadline, so it must be bounded. Its positional
      argument names, like the scorer's, are never passed as dataset columns. Default: every
      sample goes to a worker.
    - ``warmup() -> None``: called once in each worker process that loads the scorer (imports,
      caches, a model), and when workers are started ahead of the first batch. An exception here
      fails the load: each sample of the call is then an ``error``. Default: nothing.
    - ``explain(completion, **row) -> dict``: what ``grpo-rewards compare`` shows about one row
      where two judges disagree, and what ``grpo-rewards score --out ... --explain`` writes for every
      row (the extracted answer, the rule that decided, a judge's reply); ``row`` is the
      file's row without ``completion``/``completion_ids``. Runs under a short deadline; an
      exception or a timeout is shown in place of the explanation. Default: no explanation.
    - ``describe_runtime() -> str``: what the reward's work runs on (a sandbox, a server), shown by
      ``grpo-rewards show``, the training header and the manifest. A static or class method: it is
      read from the registered class too. An exception is shown as ``unknown (...)``. Default: nothing shown.
    - ``check_rows(rows) -> list[str]``: problems in a training dataset's rows that the reward
      cannot score, one line each naming the row; reported with the other configuration problems
      before any model is loaded. A static or class method. Default: no problems. A reward that
      reads its rows one at a time builds it with :func:`check_each_row`.

    And these attributes of a built scorer (:data:`SCORER_ATTRIBUTES`), read the same way:
    ``columns`` (the dataset columns this instance reads, when its parameters decide them: a
    judge's template), ``units`` (what its lengths are measured in, when its parameters decide
    them), and ``<param>_column`` (the column a parameter names, for the missing-column message).

    A batch-form reward (``form="batch"``) is TRL's call itself (:class:`RewardFunc`, which may
    return a :class:`RewardResult`); every optional method but ``quick`` applies to it too. The core
    guards no per-sample text of a batch (``max_chars``, ``invalid_value``): a batch reward whose call
    declares the keyword parameter ``reward_options`` (:data:`OPTIONS_KEYWORD`, by that name:
    ``**kwargs`` alone does not ask for it) is passed the reward's effective
    :class:`~grpo_rewards.RewardOptions` (its registered options with a reward set's entry or
    ``get_reward``'s ``options`` over them), in-process and in a worker, to apply them itself; a dataset
    column of that name is never passed to it. Default: not passed.

    >>> def exact(text: str, **row) -> tuple[float, str]:
    ...     return (1.0, "correct") if text.strip() == row["answer"] else (0.0, "wrong")
    >>> exact(" 4", prompt="2+2?", completion=" 4", completion_ids=None, answer="4")
    (1.0, 'correct')
    """

    def __call__(self, text: str, /, **row: Any) -> Any: ...


@dataclass(frozen=True)
class RewardResult:
    """A reward's result on one batch: a value and an outcome label per sample, and the call's seconds.

    What :meth:`grpo_rewards.Reward.score` returns (``__call__`` returns its ``values`` to TRL),
    and what a batch-form reward may return instead of a plain list (its ``labels``, if any, are
    then the labels; ``seconds`` is measured by the core). The core counts the labels and logs them
    once per call as ``outcomes/<metric>/<label>``. A per-sample scorer reports a label by
    returning ``(value, "label")``.

    ``metrics`` are numbers about the call itself (a judge's latency, the tokens it used), logged
    by the core beside ``timing/<metric>`` as ``<key>/<metric>``.

    A batch-form reward may give its ``values`` as a one-dimensional numpy array or torch tensor of floats
    (what a library that scores a batch at once returns): the core checks it and passes TRL a list of floats,
    as it does for a list; the results :meth:`grpo_rewards.Reward.score` returns always hold lists.

    >>> RewardResult(values=[1.0, 0.0], labels=["correct", "wrong"]).values
    [1.0, 0.0]
    """

    values: list[RewardValue]
    labels: list[str] = field(default_factory=list)
    seconds: float = 0.0
    metrics: dict[str, float] = field(default_factory=dict)


def _content_text(content: Any) -> str | None:
    if content is None:
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal content parts: keep the text parts
        parts: list[str] = [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
        return "".join(parts) if parts else None
    return None


def completion_text(completion: Any) -> str | None:
    """The text a reward should read from one completion, or ``None`` when there is none.

    A ``str`` is returned unchanged. For a conversational completion (a list of messages) it is
    the content of the final assistant message; when that message only calls tools, its tool
    calls rendered as JSON. Anything else (``None``, a number, a list without an assistant
    message) gives ``None``.

    >>> completion_text("The answer is 4.")
    'The answer is 4.'
    >>> completion_text([{"role": "assistant", "content": "4"}])
    '4'
    >>> completion_text([{"role": "assistant", "content": "", "tool_calls": [{"type": "function",
    ...     "function": {"name": "add", "arguments": {"a": 2}}}]},
    ...     {"role": "tool", "name": "add", "content": "4"},
    ...     {"role": "assistant", "content": "It is 4."}])
    'It is 4.'
    >>> completion_text([{"role": "user", "content": "hi"}]) is None
    True
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    if not isinstance(completion, (list, tuple)):
        return None
    for message in reversed(completion):
        if not isinstance(message, dict) or message.get("role") != "assistant":
            continue
        text = _content_text(message.get("content"))
        if text:
            return text
        calls = message.get("tool_calls")
        if calls:
            try:
                return json.dumps(calls, sort_keys=True, default=str)
            except (TypeError, ValueError):
                return str(calls)
        return text if text is not None else ""
    return None


def message_text(message: Any) -> str | None:
    """The text of one chat message's ``content`` (a string, or the text parts of multimodal content), or ``None``.

    >>> message_text({"role": "assistant", "content": [{"type": "text", "text": "4"}]})
    '4'
    """
    return _content_text(message.get("content")) if isinstance(message, dict) else None


def trajectory_messages(completion: Any) -> list[Message]:
    """One completion as a list of message dicts, for rewards that read a whole agentic trajectory.

    A ``str`` is one assistant message; a dict is one message; in a list, items that are not dicts
    are left out. Anything else (``None``, a number) gives no messages. The tool loop's
    trajectory is kept in order: assistant messages with ``tool_calls``, ``tool`` results, the answer.

    >>> trajectory_messages("4")
    [{'role': 'assistant', 'content': '4'}]
    >>> [m["role"] for m in trajectory_messages([{"role": "assistant", "tool_calls": []}, {"role": "tool", "content": "4"}, 7])]
    ['assistant', 'tool']
    """
    if isinstance(completion, str):
        return [{"role": "assistant", "content": completion}]
    if isinstance(completion, dict):
        return [completion]
    if isinstance(completion, (list, tuple)):
        return [message for message in completion if isinstance(message, dict)]
    return []


def as_column(value: Any) -> list[Any] | tuple[Any, ...] | None:
    """The items of ``value`` when it holds one item per sample, else ``None``.

    TRL passes ``prompts``, ``completions`` and each dataset column as a list. A list or tuple is
    returned as it is; a column as other libraries hold one becomes a list of its items: a
    ``datasets`` ``Column`` (what ``dataset["name"]`` returns) or any other ``Sequence``, a pandas
    ``Series`` (in order), a numpy array or torch tensor with at least one dimension (its rows, as
    Python values). Strings, bytes and mappings are single values, never columns.

    >>> import numpy as np
    >>> as_column(np.array([1.5, 2.0])), as_column(range(2)), as_column("ab"), as_column({"a": 1})
    ([1.5, 2.0], [0, 1], None, None)
    """
    kind = type(value)
    if kind is list or kind is tuple:
        return value
    if isinstance(value, (str, bytes, bytearray, Mapping)):
        return None
    library = container_kind(value)
    if library == "pandas":
        return value.tolist()
    if library is not None:  # a numpy array or torch tensor
        return value.tolist() if value.ndim >= 1 else None
    if isinstance(value, Sequence):
        return list(value)
    return None


def batch_columns(prompts: Any, completions: Any, kwargs: dict[str, Any]) -> tuple[Any, Any, dict[str, Any]]:
    """``prompts``, ``completions`` and the keyword arguments of a reward call, each column a list or tuple.

    The one place that says what a per-sample column is (:func:`as_column`): ``completions`` and
    ``prompts`` as lists, and every keyword argument that holds ``len(completions)`` items (TRL's
    control arguments aside). Anything else is passed on as it is. A call in TRL's form (lists
    throughout) is returned unchanged.

    >>> import numpy as np
    >>> batch_columns(None, np.array(["a", "b"]), {"solution": np.array([1, 2]), "k": 3, "other": [1, 2, 3]})
    (None, ['a', 'b'], {'solution': [1, 2], 'k': 3, 'other': [1, 2, 3]})
    """
    if type(completions) is not list and type(completions) is not tuple:
        completions = as_column(completions) or completions
    if prompts is not None and type(prompts) is not list and type(prompts) is not tuple:
        prompts = as_column(prompts) or prompts
    converted: dict[str, Any] | None = None
    for key, value in kwargs.items():
        kind = type(value)
        if kind is list or kind is tuple or value is None or key in TRL_CONTROL_KWARGS:
            continue
        items = as_column(value)
        if items is not None and len(items) == len(completions):
            if converted is None:
                converted = dict(kwargs)
            converted[key] = items
    return prompts, completions, kwargs if converted is None else converted


def check_each_row(rows: Iterable[Any], check: Callable[[Any], object],
                   errors: type[Exception] | tuple[type[Exception], ...], *, max_problems: int = 5) -> list[str]:
    """The lines of a scorer's ``check_rows`` for rows that are read one at a time.

    ``check(row)`` is called on each row in order (its result is ignored); an exception of the
    ``errors`` types becomes the line ``row <index>: <message>`` (index from 0, as ``datasets``
    numbers rows), and the rows after the ``max_problems``-th line are not read. A row for which it
    raises :class:`NotApplicable` is no problem (another task's row in a mixed dataset), unless every
    row does: then one line says so. Any other exception propagates: it is a bug in ``check``, not a bad row.

    >>> def has_answer(row):
    ...     if row.get("answer") is None:
    ...         raise NotApplicable("no answer")
    ...     if not row["answer"]:
    ...         raise ValueError("an empty answer")
    >>> check_each_row([{"answer": "4"}, {}, {"answer": ""}, {"answer": None}], has_answer, ValueError)
    ['row 2: an empty answer']
    >>> check_each_row([{}, {"answer": None}], has_answer, ValueError)
    ['every row is one the reward does not score (row 0: no answer): it applies to none of the 2 rows']
    """
    problems: list[str] = []
    if max_problems <= 0:
        return problems
    read = not_applicable = 0
    first = ""
    for index, row in enumerate(rows):
        read += 1
        try:
            check(row)
        except NotApplicable as exc:
            not_applicable += 1
            first = first or f"row {index}: {exc}"
        except errors as exc:
            problems.append(f"row {index}: {exc}")
            if len(problems) >= max_problems:
                break
    if read and not_applicable == read:
        problems.append(f"every row is one the reward does not score ({first}): it applies to none of the "
                        f"{read} row{'s' if read != 1 else ''}")
    return problems
