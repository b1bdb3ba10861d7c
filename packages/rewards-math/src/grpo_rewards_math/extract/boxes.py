r"""``\boxed{…}`` / ``\fbox{…}`` answers: the last box, joined with the boxes right before it when
only separators stand between them (``\boxed{2}, \boxed{5}`` is the one answer ``2, 5``).

>>> boxed_answer(r"so \boxed{1} or rather \boxed{\frac{1}{2}}.")
'\\frac{1}{2}'
>>> boxed_answer(r"$\boxed{(1, 3)}$ and $\boxed{(4, 0)}$")
'(1, 3), (4, 0)'
"""

from __future__ import annotations

from ..latex_lexer import braced_group
from .spans import MAX_ANSWER_CHARS, MAX_JOINED, join_run, only_separators

#: Candidate ``\boxed`` commands tried (from the last) before giving up.
MAX_BOX_CANDIDATES = 16

#: the box commands read (``\boxed{…}``, ``\fbox{…}``)
BOX_COMMANDS = ("\\boxed", "\\fbox")


def _has_box_command(text: str) -> bool:
    """Whether ``text`` holds one of :data:`BOX_COMMANDS` (a text without one has no box: no scan)."""
    return "\\boxed" in text or "\\fbox" in text


def _box_content(text: str, at: int, command: str) -> tuple[str, int] | None:
    """The content of the box command at ``text[at]`` and the index after it."""
    i = at + len(command)
    if i < len(text) and text[i].isalpha():
        return None  # another command, e.g. \boxedtext
    while i < len(text) and text[i] in " \t":
        i += 1
    if i < len(text) and text[i] == "{":
        return braced_group(text, i, limit=MAX_ANSWER_CHARS + 2)
    j = i  # \boxed 5: one token
    while j < len(text) and j - i <= MAX_ANSWER_CHARS and not text[j].isspace() and text[j] != "$":
        j += 1
    return (text[i:j], j) if j > i else None


def _unwrap(inner: str) -> str:
    r"""``\boxed{\boxed{5}}`` -> ``5``."""
    while inner.startswith(BOX_COMMANDS):
        nested = "\\boxed" if inner.startswith("\\boxed") else "\\fbox"
        again = _box_content(inner, 0, nested)
        if again is None or again[1] != len(inner) or not again[0].strip():
            return inner
        inner = again[0].strip()
    return inner


def boxes(text: str, limit: int = MAX_BOX_CANDIDATES) -> list[tuple[int, int, str]]:
    """The last ``limit`` complete, non-empty boxes as ``(start, end, content)``, left to right."""
    found: list[tuple[int, int, str]] = []
    end = len(text)
    for _ in range(limit):
        at, command = text.rfind("\\boxed", 0, end), "\\boxed"
        fbox = text.rfind("\\fbox", 0, end)
        if fbox > at:
            at, command = fbox, "\\fbox"
        if at < 0:
            break
        got = _box_content(text, at, command)
        if got is not None and got[0].strip() and (not found or got[1] <= found[-1][0]):
            found.append((at, got[1], _unwrap(got[0].strip())))
        end = at
    found.reverse()
    return found


def last_boxed(text: str) -> str | None:
    r"""The content of the last complete ``\boxed{…}`` or ``\fbox{…}`` (nested boxes unwrapped).

    An empty or cut-off last box is skipped for the one before it.

    >>> last_boxed(r"\boxed{3} and then \boxed{4")
    '3'
    >>> last_boxed(r"\boxed{\boxed{5}}")
    '5'
    """
    found = boxes(text)
    return found[-1][2] if found else None


def boxed_answer(text: str) -> str | None:
    """The last box joined with the boxes before it that only separators divide from it."""
    found = boxed_answer_at(text)
    return found[0] if found else None


def boxed_answer_at(text: str) -> tuple[str, int] | None:
    """:func:`boxed_answer` and the index after its last box (``None`` when there is no answer)."""
    if not _has_box_command(text):  # (most texts): no list to make
        return None
    found = boxes(text, MAX_BOX_CANDIDATES)[-MAX_JOINED:]
    if not found:
        return None
    if len(found) == 1:  # one box: what join_run gives a single piece
        answer: str | None = found[0][2] if len(found[0][2]) <= MAX_ANSWER_CHARS else None
    else:
        answer = join_run(text, [(s, e) for s, e, _ in found], [c for _, _, c in found])
    return (answer, found[-1][1]) if answer else None


def first_boxed_answer(text: str) -> str | None:
    r"""The first box joined with the boxes right after it that only separators divide from it
    (``answer_position: first``): the first group of joined boxes.

    >>> first_boxed_answer(r"\boxed{2}, \boxed{5}, then again \boxed{7}")
    '2, 5'
    """
    found: list[tuple[int, int, str]] = []
    start = 0
    for _ in range(MAX_BOX_CANDIDATES):
        hits = [(at, c) for c in BOX_COMMANDS if (at := text.find(c, start)) >= 0]
        if not hits:
            break
        at, command = min(hits)
        got = _box_content(text, at, command)
        start = at + len(command)
        if got is None or not got[0].strip():
            continue
        if found and not only_separators(text[found[-1][1]:at]):
            break
        found.append((at, got[1], _unwrap(got[0].strip())))
        start = got[1]
        if len(found) >= MAX_JOINED:
            break
    if not found:
        return None
    answer = ", ".join(c for _, _, c in found)
    return answer if len(answer) <= MAX_ANSWER_CHARS else None


def open_box(text: str) -> str | None:
    r"""The content of a last ``\boxed{`` left open to the end of the text, or ``None``: a gold answer
    whose closing brace was lost (read for golds only; a cut-off completion earns nothing).

    >>> open_box(r"\boxed{W(n) = 1 \text{ and } W(n) = -1"), open_box(r"\boxed{3}")
    ('W(n) = 1 \\text{ and } W(n) = -1', None)
    """
    if not _has_box_command(text):
        return None
    at, command = max((text.rfind(c), c) for c in BOX_COMMANDS)
    if at < 0:
        return None
    i = at + len(command)
    while i < len(text) and text[i] in " \t":
        i += 1
    if i >= len(text) or text[i] != "{" or braced_group(text, i) is not None:
        return None
    inner = text[i + 1:].strip().rstrip("$").strip()
    return inner if inner and len(inner) <= MAX_ANSWER_CHARS else None
