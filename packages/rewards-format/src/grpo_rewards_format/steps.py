"""``format.reasoning_steps``: distinct step markers at line starts, capped."""

from __future__ import annotations

import time
from typing import Any

from .text_utils import BUILTIN_REGEX_TIMEOUT, check_int, check_number, is_blank, mask_code, visible_words

#: A line that starts with a step marker and has content after it: ``Step 1:``, ``1.``/``1)``,
#: a bullet (``-``, ``*``, ``•``) or a transition word with a comma (``First,`` … ``Finally,``).
STEP_LINE = (
    r"(?im)^[ \t]*"
    r"(?:step[ \t]*\d+[ \t]*[:.)]|\d+[.)]|[-*•]|(?:first|second|third|next|then|finally),)"
    r"[ \t]+(\S[^\n]*)"
)


class ReasoningSteps:
    """Credit for visible reasoning steps: distinct step lines, up to ``full_credit_steps``.

    Unit: none (a share). A step line starts (after indentation) with ``Step N:``, ``N.``,
    ``N)``, a bullet (``-``, ``*``, ``•``) or ``First,``/``Second,``/``Third,``/``Next,``/
    ``Then,``/``Finally,`` (any case) followed by text; lines inside fenced code blocks are not
    steps, a line whose text after the marker is blank (``1. \u3164``, see :func:`is_blank`) is not
    a step, and lines that read the same (see :func:`visible_words`: case, invisible characters
    and spacing aside) count once, so repeating one step earns nothing. Formula:
    ``min(distinct step lines, full_credit_steps) / full_credit_steps``.

    The scan stops as soon as ``full_credit_steps`` steps are found. It is linear but not free
    (about 1 s for 2 million repeated step lines): past ``scan_timeout`` seconds it gives up, and
    the sample scores 0.0 with the outcome label
    ``scan_timeout`` (logged by the core as ``outcomes/<metric>/scan_timeout``).

    >>> score = ReasoningSteps()
    >>> score("Step 1: add 2 and 2.\\nStep 2: get 4.\\nFinally, answer 4.")
    1.0
    >>> score("Step 1: add.\\nStep 1: add.\\nStep 1: add.")
    0.3333333333333333
    >>> ReasoningSteps(scan_timeout=1e-6)("1. add\\n" * 200_000)
    (0.0, 'scan_timeout')
    """

    def __init__(self, full_credit_steps: int = 3, scan_timeout: float = BUILTIN_REGEX_TIMEOUT) -> None:
        self.full_credit_steps = check_int(full_credit_steps, "full_credit_steps")
        self.scan_timeout = check_number(scan_timeout, "scan_timeout", low=1e-6)
        self._pattern: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_pattern": None}

    def __call__(self, text: str, **row: Any) -> float | tuple[float, str]:
        if self._pattern is None:
            import regex

            self._pattern = regex.compile(STEP_LINE)
        deadline = time.monotonic() + self.scan_timeout
        seen: set[str] = set()
        steps: set[tuple[str, ...]] = set()
        try:
            for i, m in enumerate(self._pattern.finditer(mask_code(text))):  # linear: each match is one line
                line = m.group()
                if not i % 1024 and time.monotonic() > deadline:
                    raise TimeoutError
                if line in seen:
                    continue
                seen.add(line)
                if not is_blank(m.group(1)):
                    steps.add(tuple(visible_words(line)))
                    if len(steps) >= self.full_credit_steps:
                        break
        except TimeoutError:
            return 0.0, "scan_timeout"
        return min(len(steps), self.full_credit_steps) / self.full_credit_steps
