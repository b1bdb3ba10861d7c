"""``format.regex``: a user pattern from the config, compiled at set-up, run under a timeout.

A batch-form reward (TRL's call), so that it receives TRL's ``log_metric`` and can report its own
regex timeouts: a pattern that backtracks catastrophically gets ``timeout_value`` for that
sample after ``regex_timeout`` seconds, the timeout is counted (``self.timeouts``) and logged as
``outcomes/<metric_name>/regex_timeout`` once per batch, and training goes on.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from grpo_rewards import completion_text

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


class RegexReward:
    r"""``matched_value`` when the user pattern matches the completion, else ``unmatched_value``.

    Unit: none. Formula: ``matched_value if pattern.<mode>(text) else unmatched_value``, with
    ``mode`` one of ``search`` (anywhere), ``match`` (at the start), ``fullmatch`` (the whole
    text); ``timeout_value`` when the match runs past ``regex_timeout`` seconds; and
    ``unmatched_value`` for a completion with no readable text. ``flags`` are names
    (``ignorecase``, ``multiline``, ``dotall``, ``verbose``, ``ascii`` or their first letter).
    The pattern is compiled by ``__init__``: a bad pattern is a ``ValueError`` when the reward
    set is validated, not a crash during training.

    >>> reward = RegexReward(r"<answer>\s*\d+\s*</answer>\s*$")
    >>> reward(prompts=[None, None], completions=["<answer>4</answer>", [{"role": "assistant", "content": "4"}]])
    [1.0, 0.0]
    >>> RegexReward(r"(a|aa)+$", regex_timeout=0.05).score("a" * 60 + "b")  # catastrophic backtracking
    0.0
    """

    def __init__(
        self,
        pattern: str,
        mode: Literal["search", "match", "fullmatch"] = "search",
        flags: list[str] = (),  # type: ignore[assignment]
        matched_value: float = 1.0,
        unmatched_value: float = 0.0,
        timeout_value: float = 0.0,
        regex_timeout: float = 0.1,
        metric_name: str = "format.regex",
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
        self.timeout_value = check_number(timeout_value, "timeout_value")
        self.regex_timeout = check_number(regex_timeout, "regex_timeout", low=1e-6)
        if not isinstance(metric_name, str) or not metric_name:
            raise ValueError(f"metric_name must be a non-empty string, got {metric_name!r}")
        self.metric_name = metric_name
        self.timeouts = 0
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

    def _score(self, text: str | None) -> tuple[float, bool]:
        if text is None:
            return self.unmatched_value, False
        try:
            found = self._compiled(text, timeout=self.regex_timeout)
        except TimeoutError:
            return self.timeout_value, True
        return (self.matched_value if found is not None else self.unmatched_value), False

    def score(self, text: str | None) -> float:
        """The value for one text (``None``: no readable text); counts a timeout like a batch does."""
        value, timed_out = self._score(text)
        self.timeouts += timed_out
        return value

    def __call__(
        self,
        prompts: Sequence[Any] | None = None,
        completions: Sequence[Any] | None = None,
        completion_ids: Sequence[Sequence[int]] | None = None,
        **kwargs: Any,
    ) -> list[float]:
        values: list[float] = []
        timeouts = 0
        for completion in completions or ():
            value, timed_out = self._score(completion_text(completion))
            values.append(value)
            timeouts += timed_out
        self.timeouts += timeouts
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            log_metric(f"outcomes/{self.metric_name}/regex_timeout", float(timeouts))
        return values
