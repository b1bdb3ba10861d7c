"""The packages say ``requires-python = ">=3.10"``: no pattern compiled by the standard ``re`` module may use what
only Python 3.11's ``re`` reads (possessive quantifiers ``*+ ++ ?+ {m,n}+`` and atomic groups ``(?>...)``), or the
module that compiles it fails to import on 3.10 ("multiple repeat"). CI runs 3.11 only, so this reads every
``re.Pattern`` each package module holds (module globals, and what their containers and the package's own objects
hold) with 3.11's parser and looks for those two constructs; ``(?=(?P<x>...))(?P=x)`` is the 3.10 way to say
"atomic" (a lookahead is never re-entered)."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(sys.version_info < (3, 11), reason="reads patterns with Python 3.11's re parser")


def _modules() -> list[str]:
    names = []
    for path in sorted(ROOT.glob("packages/*/src/**/*.py")):
        parts = path.relative_to(ROOT).parts
        name = ".".join(Path(*parts[parts.index("src") + 1:]).with_suffix("").parts).removesuffix(".__init__")
        if ".egg-info" not in str(path) and "/build/" not in str(path) and not name.endswith("__main__"):
            names.append(name)
    return names


def _patterns(value: Any, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns(item, depth + 1)
    elif depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            yield from _patterns(item, depth + 1)
    elif depth < 1 and not isinstance(value, type) and type(value).__module__.startswith("grpo_rewards") \
            and hasattr(value, "__dict__"):
        for item in vars(value).values():
            yield from _patterns(item, depth + 1)


def needs_python_311(pattern: str, flags: int = 0) -> bool:
    """Whether ``pattern`` uses a construct only Python 3.11's ``re`` reads."""
    from re import _constants, _parser  # type: ignore[attr-defined]

    def walk(items: Any) -> bool:
        for op, arguments in items:
            if op in (_constants.POSSESSIVE_REPEAT, _constants.ATOMIC_GROUP):
                return True
            for argument in arguments if isinstance(arguments, (list, tuple)) else [arguments]:
                for sub in argument if isinstance(argument, (list, tuple)) else [argument]:
                    if isinstance(sub, _parser.SubPattern) and walk(sub.data):
                        return True
        return False

    return walk(_parser.parse(pattern, flags).data)


def test_no_stdlib_pattern_of_any_package_needs_python_3_11():
    found = []
    for name in _modules():
        module = importlib.import_module(name)
        for attribute, value in vars(module).items():
            found += [(name, attribute, p) for p in _patterns(value)]
    assert len(found) > 100  # the walk reaches the packages' patterns (160 at this writing)
    assert [(m, a, p.pattern[:80]) for m, a, p in found if needs_python_311(p.pattern, p.flags)] == []


@pytest.mark.parametrize(("pattern", "needs"), [
    (r"\d++", True), (r"(?:a|b)*+", True), (r"x?+", True), (r"a{2,3}+", True), (r"(?>a|b)c", True),
    (r"[+*]+|(?=(a|b)+)", False), (r"\*+", False), (r"(?=(?P<x>\s+))(?P=x)", False),
    (r"(?:(?=(?P<y>\d+))(?P=y)|(?>z))", True),
])
def test_the_check_reads_possessive_quantifiers_and_atomic_groups_wherever_they_are(pattern, needs):
    assert needs_python_311(pattern) is needs
