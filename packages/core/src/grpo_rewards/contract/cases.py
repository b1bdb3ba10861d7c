"""The contract points and the calls that test them: one :class:`Case` per call of the reward."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

NAME = "name"
COUNT = "one value per completion"
TYPES = "float or None"
STANDARD = "string completions"
CONVERSATIONAL = "conversational completions"
EMPTY_BATCH = "empty batch"
EMPTY = "empty completion"
HUGE = "huge completion"
MUTATION = "no mutation"
PICKLE = "pickle round trip"
DETERMINISM = "determinism"
COLUMNS = "columns"
UNITS = "units"
RANGE = "output range"
PATHOLOGICAL = "pathological inputs"
#: Every contract point, in the order they are reported.
POINTS = (NAME, COUNT, TYPES, STANDARD, CONVERSATIONAL, EMPTY_BATCH, EMPTY, HUGE, MUTATION, PICKLE,
          DETERMINISM, COLUMNS, UNITS, RANGE, PATHOLOGICAL)
#: Points checked on the values of every case that returned, not by a case of their own.
VALUE_POINTS = (COUNT, TYPES, MUTATION)

#: Values given to the columns a reward reads when the caller gives none (other columns get "4").
DEFAULT_COLUMN_VALUE = "4"
COLUMN_VALUES: dict[str, Any] = {"solution": "4", "answer": "4", "correct": True}
MEGABYTE = 1_000_000
EXTRA_COLUMN = "some_other_column"
TEXTS = ("The answer is 4.", "<think>2 + 2 = 4</think>\n<answer>4</answer>", "I think it is \\boxed{5}.")

#: Inputs no reward may raise on or hang on: ``(label, completion)``.
PATHOLOGICAL_INPUTS: tuple[tuple[str, Any], ...] = (
    ("None", None),
    ("a number (42)", 42),
    ("a message list without an assistant message", [{"role": "user", "content": "hi"}]),
    ("an assistant message whose content is None", [{"role": "assistant", "content": None}]),
    ("unicode", "ẞ 🙂 \u200b\u202e ﷽ 数学 e\u0301 \x00 \ud800"),
    ("nested tags", "<think><answer><think>" * 2000 + "</answer></think>" * 2000),
    ("1 MB of digits", "9" * MEGABYTE),
    ("deep braces", "\\boxed{" * 20_000 + "\\frac{1}{" * 5_000 + "}" * 25_000),
    ("unbalanced braces", "{" * 100_000 + "[(" * 10_000),
    ("a power tower", "The answer is \\boxed{9^{9^{9^{9}}}} = 9**9**9**9."),
)

#: What one call gets: ``(prompts, completions, completion_ids, keyword arguments, call twice?)``.
Arguments = tuple[list[Any], list[Any], list[list[int]] | None, dict[str, Any], bool]


def _noop(*args: Any, **kwargs: Any) -> None:
    """Stands in for TRL's ``log_metric`` and ``log_extra``."""


def _ids(completion: Any) -> list[int]:
    text = completion if isinstance(completion, str) else str(completion)
    return [ord(c) % 50_000 for c in text[:4096]]


def _conversation(text: str) -> list[dict[str, str]]:
    return [{"role": "assistant", "content": text}]


@dataclass
class Case:
    """One call of the reward and the contract point it speaks for."""

    point: str
    label: str
    completions: list[Any]
    ids: bool = True
    extra: dict[str, Any] = field(default_factory=dict)
    repeat: bool = False  # call again on fresh copies of the inputs (determinism)
    conversational_prompts: bool = False

    def arguments(self, rows: Sequence[Mapping[str, Any]]) -> Arguments:
        """The call's arguments, the dataset columns taken from ``rows`` in turn (completion ``i``
        gets row ``i % len(rows)``; one row: its values repeated per completion)."""
        n = len(self.completions)
        if self.conversational_prompts:
            prompts: list[Any] = [[{"role": "user", "content": f"Question {i}?"}] for i in range(n)]
        else:
            prompts = [f"Question {i}?" for i in range(n)]
        ids = [_ids(c) for c in self.completions] if self.ids else None
        names = list(dict.fromkeys(name for row in rows for name in row))
        kwargs = {name: [copy.deepcopy(rows[i % len(rows)][name]) for i in range(n)] for name in names}
        kwargs.update(copy.deepcopy(self.extra))
        return prompts, list(self.completions), ids, kwargs, self.repeat


def build_cases(units: str, pathological: bool) -> list[Case]:
    """The calls a contract run makes: the completion_ids=None call only for a reward not in tokens.

    >>> [case.point for case in build_cases("tokens", pathological=False)]
    ['string completions', 'conversational completions', 'empty batch', 'empty completion', \
'huge completion', 'columns']
    """
    texts = list(TEXTS)
    huge = ("The answer is 4. " * (MEGABYTE // 17 + 1))[:MEGABYTE]
    cases = [
        Case(STANDARD, "three string completions", texts, repeat=True),
        Case(CONVERSATIONAL, "three conversational completions", [_conversation(t) for t in texts],
             repeat=True, conversational_prompts=True),
        Case(EMPTY_BATCH, "an empty batch", []),
        Case(EMPTY, "empty completions", ["", _conversation("")]),
        Case(HUGE, "a 1 MB completion", [huge]),
        Case(COLUMNS, "TRL's keyword arguments and an extra column", texts,
             extra={"trainer_state": None, "log_metric": _noop, "log_extra": _noop,
                    EXTRA_COLUMN: ["x", "y", "z"]}),
    ]
    if units != "tokens":
        cases.append(Case(UNITS, "completion_ids=None", texts, ids=False))
    if pathological:
        cases += [Case(PATHOLOGICAL, label, [value]) for label, value in PATHOLOGICAL_INPUTS]
    return cases


def points_run(cases: list[Case], output_range: tuple[float, float] | None) -> list[str]:
    """The points a run of ``cases`` checks, in :data:`POINTS` order: the name, pickling and the
    declared units always; the values of every call; determinism when a case repeats; the output
    range only when one is declared.

    >>> points_run(build_cases("chars", pathological=False), None)[-3:]
    ['determinism', 'columns', 'units']
    """
    ran = {NAME, PICKLE, UNITS, *VALUE_POINTS, *(case.point for case in cases)}
    if any(case.repeat for case in cases):
        ran.add(DETERMINISM)
    if output_range is not None:
        ran.add(RANGE)
    return [point for point in POINTS if point in ran]
