"""``format.xml_fields``: an expected list of XML-like fields, present, in order, nothing outside."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .text_utils import check_number, check_tag_names, is_blank, mask_code, tag_tokens


class XmlFields:
    """Share of the expected ``<field>…</field>`` blocks present, halved for disorder and for stray text.

    Unit: none (a share). The text is read as a sequence of top-level fields (a field's content
    may contain other tags; tags inside fenced code blocks are ignored). A field is *present*
    when it occurs exactly once at top level with non-blank content. Formula::

        score = present / len(fields)
                * (1 if the present fields appear in the expected order else penalty)
                * (1 if only whitespace lies outside the fields else penalty)

    An unclosed field (truncated output) is not present and its text counts as outside text.

    >>> score = XmlFields()
    >>> score("<think>2 + 2 = 4</think>\\n<answer>4</answer>")
    1.0
    >>> score("<think>2 + 2 = 4</think> The answer: <answer>4</answer>")
    0.5
    >>> score("<answer>4</answer><think>2 + 2 = 4</think>")
    0.5
    >>> XmlFields(fields=["reasoning", "answer"])("<reasoning>2 + 2 = 4</reasoning>")
    0.5
    """

    def __init__(self, fields: Sequence[str] = ("think", "answer"), penalty: float = 0.5) -> None:
        self.fields = check_tag_names(fields, "fields")
        self.penalty = check_number(penalty, "penalty", 0.0, 1.0)

    def __call__(self, text: str, **row: Any) -> float:
        found: dict[str, list[str]] = {f: [] for f in self.fields}
        first_seen: list[str] = []
        clean = True
        inside: str | None = None
        content_start = 0
        last_end = 0
        for start, end, name, is_closing in tag_tokens(mask_code(text), self.fields):
            if inside is None:
                if is_closing:
                    continue  # a stray closing tag: part of the outside text checked below
                if not is_blank(text[last_end:start]):
                    clean = False
                inside, content_start = name, end
            elif is_closing and name == inside:
                found[name].append(text[content_start:start])
                if name not in first_seen:
                    first_seen.append(name)
                inside, last_end = None, end
        if inside is not None or not is_blank(text[last_end:]):
            clean = False
        present = [f for f in first_seen if len(found[f]) == 1 and not is_blank(found[f][0])]
        if not present:
            return 0.0
        score = len(present) / len(self.fields)
        order = [self.fields.index(f) for f in present]
        if order != sorted(order):
            score *= self.penalty
        if not clean:
            score *= self.penalty
        return score
