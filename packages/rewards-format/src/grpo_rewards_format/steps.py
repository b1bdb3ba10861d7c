"""``format.reasoning_steps``: distinct step markers at line starts, capped."""

from __future__ import annotations

from typing import Any

from .text_utils import BUILTIN_REGEX_TIMEOUT, check_int, mask_code

#: A line that starts with a step marker and has content after it: ``Step 1:``, ``1.``/``1)``,
#: a bullet (``-``, ``*``, ``•``) or a transition word with a comma (``First,`` … ``Finally,``).
STEP_LINE = (
    r"(?im)^[ \t]*"
    r"(?:step[ \t]*\d+[ \t]*[:.)]|\d+[.)]|[-*•]|(?:first|second|third|next|then|finally),)"
    r"[ \t]+\S[^\n]*"
)


class ReasoningSteps:
    """Credit for visible reasoning steps: distinct step lines, up to ``full_credit_steps``.

    Unit: none (a share). A step line starts (after indentation) with ``Step N:``, ``N.``,
    ``N)``, a bullet (``-``, ``*``, ``•``) or ``First,``/``Second,``/``Third,``/``Next,``/
    ``Then,``/``Finally,`` (any case) followed by text; lines inside fenced code blocks are not
    steps, and identical lines count once (so repeating one step earns nothing). Formula:
    ``min(distinct step lines, full_credit_steps) / full_credit_steps``.

    >>> score = ReasoningSteps()
    >>> score("Step 1: add 2 and 2.\\nStep 2: get 4.\\nFinally, answer 4.")
    1.0
    >>> score("Step 1: add.\\nStep 1: add.\\nStep 1: add.")
    0.3333333333333333
    """

    def __init__(self, full_credit_steps: int = 3) -> None:
        self.full_credit_steps = check_int(full_credit_steps, "full_credit_steps")
        self.regex_timeouts = 0
        self._pattern: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_pattern": None}

    def __call__(self, text: str, **row: Any) -> float:
        if self._pattern is None:
            import regex

            self._pattern = regex.compile(STEP_LINE)
        try:
            lines = {m.group().strip() for m in self._pattern.finditer(mask_code(text), timeout=BUILTIN_REGEX_TIMEOUT)}
        except TimeoutError:
            self.regex_timeouts += 1
            return 0.0
        return min(len(lines), self.full_credit_steps) / self.full_credit_steps
