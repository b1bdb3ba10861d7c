"""Structure rewards: the think/answer blocks, a leading reasoning block, tag counts.

All checks are ``str.find``/``str.count`` passes (linear time, no regex). Tags are matched
exactly (ASCII ``<think>``), so look-alike tags (``＜think＞``, a Cyrillic ``і``) are not tags.
Tags inside fenced code blocks are quoted text, not structure (see :func:`mask_code`), except in
strict mode, where any text around the blocks already fails.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .text_utils import check_bool, check_tag_name, check_tag_names, closing, is_blank, mask_code, opening


class ThinkAnswer:
    r"""1.0 when the completion has one ``<think>`` block then one non-empty ``<answer>`` block, else 0.0.

    Unit: none (a 0/1 score). Formula: ``1.0`` if every condition holds, else ``0.0``:

    - each of ``<think>``, ``</think>``, ``<answer>``, ``</answer>`` occurs exactly once, in that
      order, and the answer (and, unless ``allow_empty_think``, the reasoning) is not blank;
    - ``strict=True``: the whole completion is the two blocks, with only whitespace between them
      and (when ``outer_whitespace``) around them; ``strict=False`` ("soft"): any text may
      surround them, and tags inside fenced code blocks are ignored;
    - ``newlines=True`` (both modes): Open-R1's layout ``<think>\n…\n</think>\n<answer>\n…\n</answer>``.

    Tag names are parameters (``think_tag``, ``answer_tag``).

    >>> score = ThinkAnswer()
    >>> score("<think>2 + 2 = 4</think>\n<answer>4</answer>")
    1.0
    >>> score("<think>a</think><answer>4</answer><think>b</think><answer>5</answer>")
    0.0
    >>> ThinkAnswer(strict=False)("Sure! <think>2 + 2 = 4</think> so <answer>4</answer> done")
    1.0
    """

    def __init__(
        self,
        strict: bool = True,
        think_tag: str = "think",
        answer_tag: str = "answer",
        newlines: bool = False,
        outer_whitespace: bool = True,
        allow_empty_think: bool = False,
    ) -> None:
        self.strict = check_bool(strict, "strict")
        self.think_tag = check_tag_name(think_tag, "think_tag")
        self.answer_tag = check_tag_name(answer_tag, "answer_tag")
        if think_tag == answer_tag:
            raise ValueError(f"think_tag and answer_tag must differ, both are {think_tag!r}")
        self.newlines = check_bool(newlines, "newlines")
        self.outer_whitespace = check_bool(outer_whitespace, "outer_whitespace")
        self.allow_empty_think = check_bool(allow_empty_think, "allow_empty_think")
        self._tags = (opening(think_tag), closing(think_tag), opening(answer_tag), closing(answer_tag))

    def __call__(self, text: str, **row: Any) -> float:
        o1, c1, o2, c2 = self._tags
        if self.strict:
            source = text.strip() if self.outer_whitespace else text
            scan = source
        else:
            source, scan = text, mask_code(text)
        if any(scan.count(tag) != 1 for tag in self._tags):
            return 0.0
        a, b, c, d = (scan.find(tag) for tag in self._tags)
        if not (a + len(o1) <= b and b + len(c1) <= c and c + len(o2) <= d):
            return 0.0
        think, between, answer = source[a + len(o1):b], source[b + len(c1):c], source[c + len(o2):d]
        if self.strict and (a != 0 or d + len(c2) != len(source) or not is_blank(between)):
            return 0.0
        if is_blank(answer) or (not self.allow_empty_think and is_blank(think)):
            return 0.0
        if self.newlines and not (
            think.startswith("\n") and think.endswith("\n") and answer.startswith("\n") and answer.endswith("\n")
            and (between == "\n" or not self.strict)
        ):
            return 0.0
        return 1.0


class Think:
    """1.0 when the completion opens with one reasoning block and answers after it, else 0.0.

    What TRL's ``think_format_reward`` checks, closed against its loopholes. Unit: none (0/1).
    Formula: ``1.0`` if the text starts (after whitespace, when ``leading_whitespace``) with
    ``<think>``, ``<think>`` and ``</think>`` each occur exactly once outside fenced code, the
    reasoning between them is not blank and (when ``require_answer``) the text after ``</think>``
    is not blank; else ``0.0``. With ``opening_in_prompt=True`` (chat templates that put
    ``<think>`` in the generation prompt) the completion must contain no ``<think>`` and exactly
    one ``</think>`` after non-blank reasoning.

    >>> score = Think()
    >>> score("<think>2 + 2 = 4</think>The answer is 4.")
    1.0
    >>> score("<think>2 + 2 = 4</think>")
    0.0
    >>> Think(opening_in_prompt=True)("2 + 2 = 4</think>The answer is 4.")
    1.0
    """

    def __init__(
        self,
        tag: str = "think",
        require_answer: bool = True,
        opening_in_prompt: bool = False,
        leading_whitespace: bool = True,
    ) -> None:
        self.tag = check_tag_name(tag, "tag")
        self.require_answer = check_bool(require_answer, "require_answer")
        self.opening_in_prompt = check_bool(opening_in_prompt, "opening_in_prompt")
        self.leading_whitespace = check_bool(leading_whitespace, "leading_whitespace")

    def __call__(self, text: str, **row: Any) -> float:
        o, c = opening(self.tag), closing(self.tag)
        scan = mask_code(text)
        if self.opening_in_prompt:
            if o in scan or scan.count(c) != 1:
                return 0.0
            start = 0
        else:
            lead = len(text) - len(text.lstrip()) if self.leading_whitespace else 0
            if not scan.startswith(o, lead) or scan.count(o) != 1 or scan.count(c) != 1:
                return 0.0
            start = lead + len(o)
        end = scan.find(c)
        if end < start or is_blank(text[start:end]):
            return 0.0
        if self.require_answer and is_blank(text[end + len(c):]):
            return 0.0
        return 1.0


class TagCount:
    """Partial credit for each expected tag that occurs exactly once, outside fenced code.

    Unit: none (a share). Formula: ``(number of strings among <t>, </t> for t in tags that occur
    exactly once) / (2 * len(tags))``. With the default ``tags=["think", "answer"]`` each tag is
    worth 0.25, so a repeated block scores less than one clean block. It counts tags and never reads
    what is between them (as Open-R1's ``tag_count_reward``): a blank block keeps its tags' credit,
    so pair it with ``format.think_answer`` or ``format.xml_fields``, which refuse blank blocks.

    >>> score = TagCount()
    >>> score("<think>x</think><answer>4</answer>")
    1.0
    >>> score("<think>x</think><think>y</think><answer>4</answer>")
    0.5
    """

    def __init__(self, tags: Sequence[str] = ("think", "answer")) -> None:
        self.tags = check_tag_names(tags, "tags")
        self._strings = [s for t in self.tags for s in (opening(t), closing(t))]

    def __call__(self, text: str, **row: Any) -> float:
        scan = mask_code(text)
        return sum(scan.count(s) == 1 for s in self._strings) / len(self._strings)
