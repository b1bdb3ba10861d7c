r"""The code a completion asks to run: the last fenced block of the language, else the last fenced block.

Nothing outside a closed fence is ever run: a completion without one is ``no_code``. A block tagged with
another programming language (``java``, or ``cpp`` where the row asks for Python) is not run as the row's
language: :func:`choose_code` says which language its tag names.

>>> extract_code("Here:\n```python\nprint(1)\n```\nand\n```\nprint(2)\n```", "python")
'print(1)\n'
>>> extract_code("```cpp\nint main(){}\n```\n```text\nout\n```", "python")
'out\n'
>>> extract_code("print(1)", "python") is None
True
"""

from __future__ import annotations

import re

from grpo_rewards.patterns import atomic

from .languages import LANGUAGES

#: fence tags that name each language the sandbox runs (lower case)
TAGS = {name: language.tags for name, language in LANGUAGES.items()}
#: fence tags of programming languages the sandbox does not run (a block so tagged is another language's code)
OTHER_LANGUAGES = frozenset({
    "typescript", "ts", "go", "golang", "ruby", "rb", "kotlin", "kt",
    "swift", "php", "scala", "haskell", "hs", "csharp", "cs", "c#", "perl", "lua", "r", "julia", "bash", "sh",
    "shell", "pascal", "fortran", "ocaml", "elixir", "clojure", "dart", "zig", "nim", "d",
})
#: A fence: a line's ```, its tag, the rest of the line (no backtick), then the body up to a line that starts with ```.
#: Its blanks and its tag are atomic groups (:func:`grpo_rewards.patterns.atomic`): backtracking into them, the rest of
#: the line was read again from each of their characters (```` ``` ```` then 20,000 letters, or blanks, with no newline
#: took 2 s, minutes at the 200,000 characters read). A shorter tag or run of blanks never matches where the whole one
#: does not (the line's end is the same), so the blocks are the same.
_FENCE = re.compile(r"^[ \t]*```" + atomic(r"[ \t]*", "blanks") + atomic(r"[^\s`]*", "tag") + r"[^\n`]*\n(?P<body>.*?)"
                    r"^[ \t]*```", re.DOTALL | re.MULTILINE)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """Every closed fenced block as ``(tag, body)``, in order (the tag lower-cased, ``""`` when none)."""
    return [(m.group("tag").lower(), m.group("body")) for m in _FENCE.finditer(text)]


def language_of_tag(tag: str) -> str | None:
    """The sandbox's name of the language a fence tag (or a row's language) names (``python``, ``cpp``, ``java``,
    ``javascript``, ``rust``), or None."""
    return next((language for language, tags in TAGS.items() if tag in tags), None)


def choose_code(text: str, language: str = "python") -> tuple[str | None, str | None]:
    r"""``(code, other)``: the body of the last block tagged with ``language``, else of the last block (``None``
    when there is none); ``other`` names the block's language when its tag is another programming language's.

    >>> choose_code("```java\nclass A {}\n```", "python"), choose_code("```\nprint(1)\n```", "cpp")
    (('class A {}\n', 'java'), ('print(1)\n', None))
    """
    blocks = fenced_blocks(text)
    tagged = [body for tag, body in blocks if tag in TAGS.get(language, (language,))]
    if tagged:
        return tagged[-1], None
    if not blocks:
        return None, None
    tag, body = blocks[-1]
    other = language_of_tag(tag) or (tag if tag in OTHER_LANGUAGES else None)
    return body, other


def extract_code(text: str, language: str = "python") -> str | None:
    """The body of the last block tagged with ``language``, else of the last block; ``None`` when there is none."""
    return choose_code(text, language)[0]
