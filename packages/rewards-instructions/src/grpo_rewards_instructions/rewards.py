r"""``instructions.followed`` and ``instructions.all_followed``: a reply checked against its row's constraints.

Batch-form rewards: each call returns a :class:`grpo_rewards.RewardResult` whose ``labels`` are
``followed`` / ``partly_followed`` / ``not_followed`` per reply and whose ``metrics`` count, per
constraint id, how many replies were checked against it and how many followed it
(``checked:<id>``, ``followed:<id>``); the core logs those as ``<key>/<metric>`` beside its own
``timing/`` and ``outcomes/`` numbers.
"""

from __future__ import annotations

import unicodedata
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from grpo_rewards import NotApplicable, RewardResult, completion_text, params

from . import text
from .constraints import COLUMNS, Constraint, ConstraintError, check_rows, read_row
from .ifeval import DETECTS

MODES = ("strict", "loose")
#: The columns a row's constraints are read from (``kwargs`` goes with ``instruction_id_list``).
ROW_COLUMNS = (*COLUMNS, "kwargs")
#: Replies longer than this many characters get 0.0, label ``too_large`` (Punkt and langdetect would
#: read a megabyte for seconds); a reward-set entry may raise it.
MAX_CHARS = 200_000  # (the core's own max_chars option applies to per-sample rewards only)


def loose_variants(reply: str) -> list[str]:
    r"""IFEval's loose variants of a reply: as written, without its first line, its last line or both,
    each also with every ``*`` removed (duplicates dropped, the original's order kept).

    >>> loose_variants("Sure!\n*Hi*")
    ['Sure!\n*Hi*', 'Sure!\nHi', '*Hi*', 'Sure!', '', 'Hi']
    """
    lines = reply.split("\n")
    first = "\n".join(lines[1:]).strip()
    last = "\n".join(lines[:-1]).strip()
    both = "\n".join(lines[1:-1]).strip()
    variants = [reply, reply.replace("*", ""), first, last, both,
                first.replace("*", ""), last.replace("*", ""), both.replace("*", "")]
    return list(dict.fromkeys(variants))


def visible(text: str) -> bool:
    """Whether ``text`` has a character that prints: a letter, digit, punctuation mark or symbol (the
    original only asks for ``text.strip()``, so a reply of NUL bytes or zero-width spaces followed
    "no commas"; here it follows nothing).

    >>> visible(" \\x00\\u200b\\n"), visible(" ok")
    (False, True)
    """
    for char in text:
        if not char.isspace() and unicodedata.category(char)[0] in "LNPS":
            return True
    return False


def follows(reply: str, constraint: Constraint, mode: str) -> bool:
    """Whether ``reply`` satisfies ``constraint``: a text with nothing visible satisfies nothing (the
    original: a blank text); ``loose``: any of :func:`loose_variants` does."""
    candidates = [reply] if mode == "strict" else loose_variants(reply)
    return any(visible(c) and constraint.check(c) for c in candidates)


class _Checked:
    """The shared part: parameters, reading rows, checking every reply against its constraints."""

    def __init__(self, mode: str = "strict", max_reply_chars: int = MAX_CHARS) -> None:
        self.mode = params.choice(mode, "mode", MODES)
        self.max_reply_chars = params.integer(max_reply_chars, "max_reply_chars", low=1)

    @staticmethod
    def check_rows(rows: Any) -> list[str]:
        """Before training: a line per row whose constraints cannot be read (unknown id, bad kwargs)."""
        return check_rows(rows)

    def _value(self, verdicts: list[bool]) -> float:
        raise NotImplementedError

    def __call__(self, prompts: Sequence[Any] | None, completions: Sequence[Any],
                 completion_ids: Sequence[Sequence[int]] | None = None, **columns: Any) -> RewardResult:
        try:
            return self._score(completions, columns)
        finally:
            text.forget()  # a reply's sentences, tokens and language are shared by its constraints only

    def _score(self, completions: Sequence[Any], columns: dict[str, Any]) -> RewardResult:
        n = len(completions)
        rows = _rows(n, columns)
        values: list[float | None] = [None] * n
        labels: list[str] = [""] * n
        checked: dict[str, int] = {}
        followed: dict[str, int] = {}
        cache: dict[str, tuple[Constraint, ...] | str] = {}  # a group's rows repeat: read each once per call
        todo: list[tuple[int, str, tuple[Constraint, ...]]] = []
        for i, completion in enumerate(completions):
            constraints = cache.get(key := _row_key(rows[i]))
            if constraints is None:
                try:
                    constraints = read_row(rows[i], where=f"row {i}")
                except NotApplicable:
                    constraints = NO_CONSTRAINTS
                except (ConstraintError, RecursionError) as exc:
                    constraints = str(exc) if isinstance(exc, ConstraintError) else \
                        f"row {i}: its constraint columns are nested too deeply to read"
                    _warn_once(constraints)
                cache[key] = constraints
            reply = None if isinstance(constraints, str) else completion_text(completion)
            if constraints is NO_CONSTRAINTS:  # another task's row: None, quietly
                labels[i] = "no_constraints"
            elif isinstance(constraints, str):  # check_rows reports it before training; here: not applicable
                labels[i] = "bad_row"
            elif reply is None:
                values[i], labels[i] = 0.0, "unreadable"
            elif len(reply) > self.max_reply_chars:
                values[i], labels[i] = 0.0, "too_large"
            else:
                todo.append((i, reply, constraints))
        text.detect_ahead([candidate for _, reply, constraints in todo for c in constraints if c.id in DETECTS
                           for candidate in self._candidates(reply) if DETECTS[c.id](candidate)])
        for i, reply, constraints in todo:
            verdicts = [follows(reply, c, self.mode) for c in constraints]
            for constraint, verdict in zip(constraints, verdicts):
                checked[constraint.id] = checked.get(constraint.id, 0) + 1
                followed[constraint.id] = followed.get(constraint.id, 0) + verdict
            values[i] = self._value(verdicts)
            labels[i] = "followed" if all(verdicts) else "partly_followed" if any(verdicts) else "not_followed"
        metrics = {f"checked:{k}": float(v) for k, v in sorted(checked.items())}
        metrics.update({f"followed:{k}": float(followed[k]) for k in sorted(followed)})
        return RewardResult(values=values, labels=labels, metrics=metrics)

    def _candidates(self, reply: str) -> list[str]:
        """The texts :func:`follows` may check for ``reply``."""
        return [c for c in ([reply] if self.mode == "strict" else loose_variants(reply)) if visible(c)]


#: a row without constraint columns (each ``None``): the cache's mark for it
NO_CONSTRAINTS = "no constraints"


def _row_key(row: Mapping[str, Any]) -> str:
    """The key of a row's constraint columns in a call's cache (a group's rows repeat); a unique one for a row
    whose columns cannot even be written out (Python objects nested past the recursion limit)."""
    try:
        return repr([row.get(c) for c in ROW_COLUMNS])
    except RecursionError:
        return f"unreadable {id(row)}"


def _warn_once(problem: str) -> None:
    # Python's warning registry shows each distinct message once per process under the default filter
    warnings.warn(f"instructions rewards: {problem}; the sample gets None (label bad_row)", UserWarning,
                  stacklevel=3)


def _rows(n: int, columns: dict[str, Any]) -> list[dict[str, Any]]:
    """Per sample, the row made of the per-sample columns (the constraints' columns among them)."""
    per_sample = {k: v for k, v in columns.items() if isinstance(v, (list, tuple)) and len(v) == n}
    return [{k: v[i] for k, v in per_sample.items()} for i in range(n)]


class Followed(_Checked):
    """The fraction of the row's constraints the reply satisfies (IFEval's instruction-level accuracy).

    Columns: IFEval's ``instruction_id_list`` + ``kwargs``, open-instruct's ``ground_truth`` or a
    ``constraints`` list (see :mod:`grpo_rewards_instructions.constraints`). ``mode``: ``strict``
    (the reply as written) or ``loose`` (IFEval's loose variants: first/last line removed, ``*``
    stripped; a constraint holds when any variant satisfies it). Labels ``followed``,
    ``partly_followed``, ``not_followed`` (and ``unreadable``, ``too_large``: 0.0; ``bad_row``: None,
    for a row whose constraints cannot be read, which ``check_rows`` reports before training;
    ``no_constraints``: None, for a row without any, as another task's row in a mixed dataset).
    Unit: none (a share of the row's constraints, 0 to 1).

    >>> from grpo_rewards_instructions import followed
    >>> followed(prompts=["Write about owls without commas, in lowercase."],
    ...          completions=["owls hunt at night and see well in the dark."],
    ...          instruction_id_list=[["punctuation:no_comma", "keywords:existence"]],
    ...          kwargs=[[{}, {"keywords": ["moon"]}]])
    [0.5]
    """

    def _value(self, verdicts: list[bool]) -> float:
        return sum(verdicts) / len(verdicts)


class AllFollowed(_Checked):
    """1.0 when the reply satisfies every constraint of its row, else 0.0 (IFEval's prompt-level
    accuracy); columns, modes and labels as ``instructions.followed``. Unit: none (0 or 1).

    >>> from grpo_rewards_instructions import all_followed
    >>> all_followed(prompts=[None, None], completions=["OWLS HUNT AT NIGHT.", "Owls hunt at night."],
    ...              instruction_id_list=[["change_case:english_capital"]] * 2, kwargs=[[{}]] * 2)
    [1.0, 0.0]
    """

    def _value(self, verdicts: list[bool]) -> float:
        return float(all(verdicts))
