r"""The code a completion asks to run: the last fenced block of the language, else the last fenced block.

Nothing outside a closed fence is ever run: a completion without one is ``no_code``.

>>> extract_code("Here:\n```python\nprint(1)\n```\nand\n```\nprint(2)\n```", "python")
'print(1)\n'
>>> extract_code("```cpp\nint main(){}\n```\n```text\nout\n```", "python")
'out\n'
>>> extract_code("print(1)", "python") is None
True
"""

from __future__ import annotations

import re

#: fence tags that name each language (lower case)
TAGS = {"python": ("python", "python3", "py", "py3"), "cpp": ("cpp", "c++", "cxx", "cc", "c")}
_FENCE = re.compile(r"^[ \t]*```[ \t]*([^\s`]*)[^\n`]*\n(.*?)^[ \t]*```", re.DOTALL | re.MULTILINE)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every closed fenced block as ``(tag, body)``, in order (the tag lower-cased, ``""`` when none)."""
    return [(m.group(1).lower(), m.group(2)) for m in _FENCE.finditer(text)]


def extract_code(text: str, language: str = "python") -> str | None:
    """The body of the last block tagged with ``language``, else of the last block; ``None`` when there is none."""
    blocks = fenced_blocks(text)
    tagged = [body for tag, body in blocks if tag in TAGS.get(language, (language,))]
    if tagged:
        return tagged[-1]
    return blocks[-1][1] if blocks else None
