"""``format.regex``: a user pattern from the config, compiled at set-up, matched under a timeout.

A per-sample reward like the others, so the core's execution options apply to it: ``timeout``
(a hard deadline per sample, in a worker process that is killed on overrun) and ``max_chars``.
The ``regex`` module's own ``timeout=`` stays as a guard on each match: a pattern that backtracks
catastrophically stops after ``regex_timeout`` seconds and the sample gets ``unmatched_value``
with the outcome label ``regex_timeout``, which the core counts and logs as
``outcomes/<metric>/regex_timeout``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from .text_utils import check_number

#: Flag names accepted in ``flags`` (full name or one letter, any case).
FLAG_NAMES = {
    "ignorecase": "IGNORECASE", "i": "IGNORECASE",
    "multiline": "MULTILINE", "m": "MULTILINE",
    "dotall": "DOTALL", "s": "DOTALL",
    "verbose": "VERBOSE", "x": "VERBOSE",
    "ascii": "ASCII", "a": "ASCII",
}
MODES = ("search", "match", "fullmatch")
#: Outcome labels of one sample.
MATCHED, UNMATCHED, REGEX_TIMEOUT = "matched", "unmatched", "regex_timeout"


class RegexReward:
    r"""``matched_value`` when the user pattern matches the completion, else ``unmatched_value``.

    Unit: none. Formula: ``matched_value if pattern.<mode>(text) else unmatched_value``, with
    ``mode`` one of ``search`` (anywhere), ``match`` (at the start), ``fullmatch`` (the whole
    text). Each sample is labelled ``matched``, ``unmatched`` or ``regex_timeout`` (the match ran
    past ``regex_timeout`` seconds: the value is ``unmatched_value``). ``flags`` are names
    (``ignorecase``, ``multiline``, ``dotall``, ``verbose``, ``ascii`` or their first letter).
    The pattern is compiled by ``__init__``: a bad pattern is a ``ValueError`` when the reward
    set is validated, not a crash during training. Unreadable completions (``None``, no assistant
    message) get the core's ``invalid_value``: 0.0, like every format reward.

    >>> score = RegexReward(r"<answer>\s*\d+\s*</answer>\s*$")
    >>> score("<answer>4</answer>"), score("4")
    ((1.0, 'matched'), (0.0, 'unmatched'))
    >>> RegexReward(r"(a|aa)+$", regex_timeout=0.05)("a" * 60 + "b")  # catastrophic backtracking
    (0.0, 'regex_timeout')
    """

    def __init__(
        self,
        pattern: str,
        mode: Literal["search", "match", "fullmatch"] = "search",
        flags: Sequence[str] = (),
        matched_value: float = 1.0,
        unmatched_value: float = 0.0,
        regex_timeout: float = 0.1,
    ) -> None:
        if not isinstance(pattern, str):
            raise ValueError(f"pattern must be a string, got {pattern!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if isinstance(flags, str) or not isinstance(flags, (list, tuple)):
            raise ValueError(f"flags must be a list of flag names, got {flags!r}")
        unknown = [f for f in flags if not isinstance(f, str) or f.lower() not in FLAG_NAMES]
        if unknown:
            raise ValueError(f"unknown regex flag(s) {unknown}; known: {', '.join(sorted(set(FLAG_NAMES.values())))}")
        self.pattern = pattern
        self.mode = mode
        self.flags = tuple(FLAG_NAMES[f.lower()] for f in flags)
        self.matched_value = check_number(matched_value, "matched_value")
        self.unmatched_value = check_number(unmatched_value, "unmatched_value")
        self.regex_timeout = check_number(regex_timeout, "regex_timeout", low=1e-6)
        self._compiled = self._compile()

    def _compile(self) -> Any:
        import regex

        flag_bits = 0
        for name in self.flags:
            flag_bits |= getattr(regex, name)
        try:
            compiled = regex.compile(self.pattern, flag_bits)
        except regex.error as exc:
            raise ValueError(f"invalid regular expression {self.pattern!r}: {exc}") from None
        return getattr(compiled, self.mode)

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "_compiled"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._compiled = self._compile()

    def __repr__(self) -> str:
        return f"RegexReward({self.pattern!r}, mode={self.mode!r})"

    def __call__(self, text: str, **row: Any) -> tuple[float, str]:
        try:
            found = self._compiled(text, timeout=self.regex_timeout)
        except TimeoutError:
            return self.unmatched_value, REGEX_TIMEOUT
        if found is None:
            return self.unmatched_value, UNMATCHED
        return self.matched_value, MATCHED
