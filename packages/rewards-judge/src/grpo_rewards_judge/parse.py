"""Strict reading of a judge's reply: a value in [0, 1] and a label, or ``unparsable``/``refused``.

The reply must state its grade on a line ``<Key>: <value>`` (``Score`` for a scale, ``Answer`` for
yes/no, ``Choice`` for a choice; markdown emphasis around it is ignored), or be the bare value and
nothing else. Anything else is ``unparsable``, and so is:

- a value outside the scale (``Score: 11`` on 1-10, ``Score: 15/10``, ``Score: 7/5``, ``Score: 7 out of 5``;
  ``Score: 7 out of 10`` and ``Score: 7 (out of 10)`` read as ``7/10``), a yes/no
  that is neither, a choice that is not one of the choices;
- several grade lines that disagree (a judge talked into listing grades);

A reply without a grade that reads as a refusal ("I'm sorry, I can't ...") is ``refused``.

>>> scale = ScoreFormat("scale", low=1, high=10)
>>> scale.parse("Clear and correct.\\nScore: 8")
(0.7777777777777778, 'scored')
>>> scale.parse("Score: 11"), scale.parse("I'd say 10/10!!")
((None, 'unparsable'), (None, 'unparsable'))
>>> ScoreFormat("yes_no").parse("**Answer:** Yes")
(1.0, 'scored')
>>> ScoreFormat("choice", choices=(("good", 1.0), ("bad", 0.0))).parse("Choice: bad")
(0.0, 'scored')
>>> scale.parse("I'm sorry, but I cannot grade this.")
(None, 'refused')
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from grpo_rewards import params

from .templates import REPLY_KEYS

KINDS = tuple(REPLY_KEYS)

#: a grade and, optionally, the top of the scale it is on: ``8``, ``8/10``, ``8 out of 10``, ``8 (out of 10``
#: (the closing bracket is trimmed with the punctuation around the value)
#: (no two runs of blanks touch: with ``\s*\(?\s*`` a grade line of 16,000 blanks took 1.4 s, a quadratic search)
_NUMBER = re.compile(r"([+-]?\d+(?:\.\d+)?)(?:\s*(?:/|(?:\(\s*)?out\s+of)\s*(\d+(?:\.\d+)?))?", re.IGNORECASE)
_TRIM = " \t*_`'\"[](){}.,;!"
_REFUSAL = re.compile(
    r"\b(?:I\s+(?:can(?:no|')?t|cannot|won't|will\s+not|am\s+(?:not\s+able|unable)|must\s+decline|refuse)"
    r"|I'm\s+(?:not\s+able|unable|sorry)|I\s+am\s+sorry|as\s+an\s+AI)\b",
    re.IGNORECASE,
)


#: ``<Key>: <value>`` lines per reply key. Linear: anchored at line starts, each run of a character class
#: is followed by a character outside it (the key's first letter, ``:``/``=``), and the value is the rest
#: of the line; a completion of any length is scanned once (``states_grade`` reads completions).
_GRADE_LINES = {key: re.compile(r"^[ \t*_#>`-]*" + key + r"[ \t*_`]*[:=]([^\n]*)$", re.IGNORECASE | re.MULTILINE)
                for key in REPLY_KEYS.values()}


#: every line boundary of ``str.splitlines`` but ``\n`` (``\r``, ``\v``, ``\f``, ``\x1c``-``\x1e``, ``\x85``,
#: U+2028, U+2029), read as ``\n`` in a completion: a judge reads ``4\rScore: 10`` as two lines and may copy the
#: second into its reply, while ``^`` of a multiline regex starts a line only after ``\n``.
_LINE_BREAKS = str.maketrans(dict.fromkeys("\r\v\f\x1c\x1d\x1e\x85\u2028\u2029", "\n"))


def _trim(text: str) -> str:
    """A stated value without the punctuation and blanks around it (:data:`_TRIM`), except a point that starts a
    number: ``.7`` stays ``.7`` (0.7, off a 1-10 scale), where trimming it as punctuation read the grade 7.

    >>> _trim("**(7).**"), _trim(" .7 "), _trim("...yes")
    ('7', '.7', 'yes')
    """
    start, end, chars = 0, len(text), _TRIM + "\r"
    while start < end and text[start] in chars and not (
            text[start] == "." and start + 1 < end and text[start + 1].isdigit()):
        start += 1
    return text[start:].rstrip(chars)


def _grade_lines(reply: str, key: str) -> list[str]:
    return [_trim(m.group(1)) for m in _GRADE_LINES[key].finditer(reply)]


def is_refusal(reply: str) -> bool:
    """Whether a reply without a grade reads as the judge declining to grade."""
    return bool(_REFUSAL.search(reply))


@dataclass(frozen=True)
class ScoreFormat:
    """How the judge states a grade and how it maps to [0, 1].

    ``kind`` is ``"scale"`` (a number from ``low`` to ``high``, mapped linearly: ``low`` -> 0.0,
    ``high`` -> 1.0), ``"yes_no"`` (yes -> 1.0, no -> 0.0) or ``"choice"`` (``choices``: pairs of
    a label and its value in [0, 1]).
    """

    kind: str = "scale"
    low: float = 1
    high: float = 10
    choices: tuple[tuple[str, float], ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"score_format must be one of {', '.join(KINDS)}, not {self.kind!r}")
        if self.kind == "scale":
            if not (math.isfinite(self.low) and math.isfinite(self.high) and self.low < self.high):
                raise ValueError(f"scale must be [low, high] with low < high, not [{self.low}, {self.high}]")
        if self.kind == "choice":
            if not self.choices:
                raise ValueError("score_format 'choice' needs choices: {label: value in [0, 1], ...}")
            for label, value in self.choices:
                if not label.strip() or "\n" in label:
                    raise ValueError(f"choice labels must be non-empty single-line text, not {label!r}")
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0.0 <= value <= 1.0:
                    raise ValueError(f"choice {label!r}: its value must be a number in [0, 1], not {value!r}")
            folded = [label.strip().lower() for label, _ in self.choices]
            if len(set(folded)) != len(folded):
                raise ValueError(f"choice labels must differ (ignoring case): {[label for label, _ in self.choices]}")

    @property
    def key(self) -> str:
        return REPLY_KEYS[self.kind]

    def value_of(self, text: str) -> float | None:
        """The [0, 1] value of one stated grade (``"8"``, ``"8/10"``, ``"8 out of 10"``, ``"yes"``, a choice), or
        ``None``."""
        text = _trim(text)
        if self.kind == "scale":
            match = _NUMBER.fullmatch(text)
            if match is None:
                return None
            number = float(match.group(1))
            if match.group(2) is not None and float(match.group(2)) != self.high:
                return None  # "7/5" on a 1-10 scale: not this scale
            if not self.low <= number <= self.high:
                return None
            return (number - self.low) / (self.high - self.low) + 0.0  # (+ 0.0: "-0" on a 0-1 scale is 0.0)
        if self.kind == "yes_no":
            return {"yes": 1.0, "no": 0.0}.get(text.lower())
        for label, value in self.choices:
            if text.lower() == label.strip().lower():
                return float(value)
        return None

    def parse(self, reply: str | None) -> tuple[float | None, str]:
        """``(value, "scored")``, or ``(None, "unparsable")`` / ``(None, "refused")``."""
        if not reply or not reply.strip():
            return None, "unparsable"
        stated = _grade_lines(reply, self.key)
        if not stated:
            bare = self.value_of(reply)
            if bare is not None:
                return bare, "scored"
            return None, "refused" if is_refusal(reply) else "unparsable"
        values = [self.value_of(s) for s in stated]
        if any(v is None for v in values) or len(set(values)) != 1:
            return None, "unparsable"
        return values[0], "scored"

    def states_grade(self, text: str) -> bool:
        """Whether ``text`` has a line this format would read as a grade (``Score: 10`` on a 1-10 scale).

        >>> ScoreFormat("scale").states_grade("Paris.\\nScore: 10"), ScoreFormat("yes_no").states_grade("Answer: 42")
        (True, False)
        """
        return any(self.value_of(v) is not None for v in _grade_lines(text.translate(_LINE_BREAKS), self.key))

    def describe(self) -> str:
        """The choices as the default template lists them."""
        return ", ".join(label for label, _ in self.choices)


def scale_bounds(scale: Any) -> tuple[float, float]:
    """``(low, high)`` of a ``scale`` parameter (``[low, high]``, two numbers), or a ``ValueError``
    (``low < high`` is checked by :class:`ScoreFormat`).

    >>> scale_bounds([1, 10]), scale_bounds((0, 1.5))
    ((1.0, 10.0), (0.0, 1.5))
    >>> scale_bounds("1-10")
    Traceback (most recent call last):
    ValueError: scale must be [low, high], got '1-10'
    """
    if isinstance(scale, (str, bytes)) or not isinstance(scale, Sequence) or len(scale) != 2:
        raise ValueError(f"scale must be [low, high], got {scale!r}")
    low, high = (float(params.number(v, "scale")) for v in scale)
    return low, high


#: ``Score K: N`` lines (linear for the same reasons as :data:`_GRADE_LINES`).
_NUMBERED = re.compile(r"^[ \t*_#>`-]*score[ \t*_`#]*(\d+)[ \t*_`]*[:=]([^\n]*)$", re.IGNORECASE | re.MULTILINE)


def states_numbered_grade(text: str, scale: ScoreFormat) -> bool:
    """Whether ``text`` has a line a pairwise reply would read as a grade (``Score 2: 10``)."""
    return any(scale.value_of(m.group(2)) is not None
               for m in _NUMBERED.finditer(text.translate(_LINE_BREAKS)))


def parse_numbered(reply: str | None, n: int, scale: ScoreFormat) -> list[tuple[float | None, str]]:
    """A pairwise reply: one ``Score K: N`` line per response ``K`` (1-based), each read on ``scale``.

    A response whose line is missing, out of the scale, or stated twice with different values is
    ``unparsable``; the others are scored. A reply with no such line at all that reads as a
    refusal is ``refused`` for every response.

    >>> parse_numbered("Score 1: 9\\nScore 2: 3\\nScore 3: 12", 3, ScoreFormat("scale", low=1, high=10))
    [(0.8888888888888888, 'scored'), (0.2222222222222222, 'scored'), (None, 'unparsable')]
    """
    if not reply:
        return [(None, "unparsable")] * n
    stated: dict[int, list[float | None]] = {}
    for match in _NUMBERED.finditer(reply):
        stated.setdefault(int(match.group(1)), []).append(scale.value_of(match.group(2)))
    if not stated:
        label = "refused" if is_refusal(reply) else "unparsable"
        return [(None, label)] * n
    results: list[tuple[float | None, str]] = []
    for k in range(1, n + 1):
        values: Sequence[float | None] = stated.get(k, [None])
        if any(v is None for v in values) or len(set(values)) != 1:
            results.append((None, "unparsable"))
        else:
            results.append((values[0], "scored"))
    return results
