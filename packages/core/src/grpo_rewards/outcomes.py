"""Outcome labels counted, and logged: the one place that counts a reward's labels.

A :class:`Tally` adds up the labels (and seconds) of calls: :class:`grpo_rewards.Reward` keeps one
per reward (``reward.stats``) and logs from it; ``grpo-rewards score`` keeps one per reward of a
file's report. Labels of values given without a label (:data:`~grpo_rewards.protocol.UNLOGGED_LABELS`)
are counted but never logged.

>>> tally = Tally()
>>> tally.add(0.5, ["correct", "wrong", "correct"])
>>> tally.add(0.25, ["none"])
>>> sorted(tally.counts.items()), tally.seconds
([('correct', 2), ('none', 1), ('wrong', 1)], 0.75)
>>> tally.reported()
{'correct': 2, 'wrong': 1}
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .protocol import LOGGED_OUTCOMES, UNLOGGED_LABELS

__all__ = ["Tally"]

_LOCK = threading.Lock()
_PENDING_CALLS = 32  # calls a tally keeps uncounted before it adds them up (the lock once per 32 calls)
_FEW_LABELS = 8  # a call with at most this many distinct labels counts each with one C-level list.count
_CORE_LABELS = frozenset(LOGGED_OUTCOMES)

#: ``(name, labels seen, "timing/<name>", "<name>/outcome" or None, ((label, "outcomes/<name>/<label>"), ...))``
LogNames = tuple[str, int, str, str | None, tuple[tuple[str, str], ...]]


class Tally:
    """The labels and seconds of calls, added up; safe to add to from several threads at once.

    A call appends to :attr:`pending` (one atomic ``deque.append``, no lock: right after a training
    step or another grader the lock's code is cold and cost a call ~4 µs, bench/math.md); reading
    :attr:`counts` or :attr:`seconds` adds the pending calls up under the lock. A pickled copy keeps
    the seconds and starts its counts afresh (they belong to the process that counted them).
    """

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._seconds = 0.0
        #: ``(seconds, {label: count})`` of calls not yet added to :attr:`counts` and :attr:`seconds`
        self.pending: deque[tuple[float, Mapping[str, int]]] = deque()
        #: every label counted so far (``ok``/``none`` too); each is logged from the call it first occurs on
        self.seen: set[str] = set()
        self._names: LogNames | None = None

    def add(self, seconds: float, labels: Sequence[str]) -> None:
        """Count one call's labels and seconds (counted now: the caller may change its list). A call's few
        distinct labels are each counted with one C-level ``count`` (512 labels: ~3 µs when they are all one,
        ~10 µs for a few, against ~40 µs for a ``Counter``; bench/text.md), more of them with a ``Counter``."""
        counted: Mapping[str, int]
        if labels and labels.count(labels[0]) == len(labels):  # a batch of one label (often: all ok)
            counted = {labels[0]: len(labels)}
        else:
            distinct = dict.fromkeys(labels)  # (in the order they first occur, as a Counter counts them)
            counted = {label: labels.count(label) for label in distinct} if len(distinct) <= _FEW_LABELS \
                else Counter(labels)
        pending = self.pending
        pending.append((seconds, counted))
        self.seen.update(counted)
        if len(pending) > _PENDING_CALLS:
            self.tally()

    def tally(self) -> None:
        """Add the calls not yet counted to :attr:`counts` and :attr:`seconds` (each call once: ``popleft``
        is atomic, and two threads tallying at once take turns)."""
        pending = self.pending
        if not pending:
            return
        with _LOCK:
            counts = self._counts
            while pending:
                try:
                    seconds, counted = pending.popleft()
                except IndexError:  # another thread took the last one first
                    break
                self._seconds += seconds
                counts.update(counted)

    @property
    def counts(self) -> Counter[str]:
        """Every label counted so far (``ok``/``none`` for unlabelled values)."""
        self.tally()
        return self._counts

    @property
    def seconds(self) -> float:
        """Seconds of every call counted so far."""
        self.tally()
        return self._seconds

    def reported(self) -> dict[str, int]:
        """The counts worth reporting: every label but the unlabelled ones, and none that is zero."""
        return {k: v for k, v in self.counts.items() if k not in UNLOGGED_LABELS and v}

    def log_names(self, name: str) -> LogNames:
        """What a call of the reward ``name`` logs under, remembered (with the name and the number of labels
        seen) until the name or the labels change: ``timing/<name>``; the ``<name>/outcome`` column of
        TRL's completions table once the reward has reported a label of its own (else None); and
        ``(label, "outcomes/<name>/<label>")`` of every label logged on a call: each label from the call it
        first occurs on (the core's ``timeout``, ``error``, ... included), zeros after that, so a series is
        continuous once it starts; in name order."""
        names = self._names  # seen only grows: its size says if it changed
        seen = self.seen
        if names is not None and names[0] == name and names[1] == len(seen):
            return names
        logged = sorted(seen - UNLOGGED_LABELS)
        names = (name, len(seen), f"timing/{name}", None if _CORE_LABELS.issuperset(logged) else f"{name}/outcome",
                 tuple((label, f"outcomes/{name}/{label}") for label in logged))
        self._names = names
        return names

    def log(self, name: str, seconds: float, labels: list[str], metrics: Mapping[str, float],
            log_metric: Callable[[str, float], Any] | None, log_extra: Callable[[str, list[str]], Any] | None) -> None:
        """Log one call of the reward ``name`` through TRL's ``log_metric`` and ``log_extra``:
        ``timing/<name>``, ``<key>/<name>`` of each of the call's ``metrics``, ``outcomes/<name>/<label>``,
        and the labels as a column of TRL's completions table once the reward reports labels of its own."""
        _, _, timing, outcome_column, outcomes = self.log_names(name)
        if callable(log_metric):
            log_metric(timing, seconds)
            for key, number in metrics.items():  # the batch reward's own numbers about this call
                log_metric(f"{key}/{name}", number)
            for label, metric in outcomes:
                log_metric(metric, float(labels.count(label)))
        if outcome_column and callable(log_extra):  # the reward reports labels
            log_extra(outcome_column, list(labels))

    def copy(self) -> Tally:
        """A new tally with these seconds and no counts (what a copy of a reward starts from)."""
        new = Tally()
        new._seconds = self.seconds
        return new

    def __getstate__(self) -> dict[str, Any]:
        return {"seconds": self.seconds}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]
        self._seconds = float(state.get("seconds", 0.0))
