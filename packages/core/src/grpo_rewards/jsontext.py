"""JSON text from a dataset column, read so that every way it can fail is a ``ValueError``.

``json.loads`` raises ``json.JSONDecodeError`` (a ``ValueError``) for malformed text and ``ValueError`` for an
integer past Python's digit limit, but ``RecursionError`` for arrays or objects nested deeper than the
interpreter's recursion limit: a row whose column holds ``"[[[[..."`` would get past a reader that catches
``ValueError`` (and so marks the row bad) and end the training run. The reward packages read JSON columns
through :func:`loads`.

>>> loads('{"a": [1, 2]}')
{'a': [1, 2]}
>>> loads("[" * 100_000)
Traceback (most recent call last):
...
ValueError: JSON nested too deeply to read (deeper than Python's recursion limit)
"""

from __future__ import annotations

import json
from typing import Any


def loads(text: str | bytes, **options: Any) -> Any:
    """``json.loads(text, **options)``, raising ``ValueError`` where it would raise ``RecursionError``."""
    try:
        return json.loads(text, **options)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read (deeper than Python's recursion limit)") from None
