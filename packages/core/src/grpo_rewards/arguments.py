"""What a scorer's signature says about the names a dataset column may not be passed under.

>>> class Score:
...     def __call__(self, text, *, scale=1.0, **row):
...         return scale
>>> sorted(argument_names(Score(), "sample")), sorted(keyword_params(Score()))
(['self', 'text'], ['scale'])
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

__all__ = ["argument_names", "keyword_params"]


def keyword_params(scorer: Any) -> frozenset[str]:
    """The keyword parameters with defaults of a function scorer: a dataset column never sets them."""
    if inspect.isclass(scorer) or not callable(scorer):
        return frozenset()
    try:
        sig = inspect.signature(scorer)
    except (TypeError, ValueError):
        return frozenset()
    return frozenset(p.name for p in sig.parameters.values()
                     if p.kind is p.KEYWORD_ONLY and p.default is not inspect.Parameter.empty)


def _positional_names(func: Any) -> set[str]:
    """The names of ``func``'s leading positional-or-keyword parameters a row must not pass again.

    That is the one receiving the text (the first parameter ``inspect.signature`` shows) and, for
    a method or a callable instance, its ``self``.
    """
    func = func.func if isinstance(func, functools.partial) else func
    targets = [func]
    if inspect.ismethod(func):
        targets.append(func.__func__)
    elif not inspect.isroutine(func):  # a callable instance: its class's __call__ takes self first
        targets.append(type(func).__call__)
    names: set[str] = set()
    for target in targets:
        try:
            first = next(iter(inspect.signature(target).parameters.values()), None)
        except (TypeError, ValueError):
            continue
        if first is not None and first.kind is first.POSITIONAL_OR_KEYWORD:
            names.add(first.name)
    return names


def argument_names(impl: Any, form: str) -> frozenset[str]:
    """Names a dataset column cannot be passed under: the scorer's text argument and its ``self``.

    A per-sample scorer gets the text positionally, so a column called like that parameter (``text``)
    or like a method's ``self`` would arrive twice; a batch reward gets everything by keyword, so
    only ``self`` can collide.
    """
    names = _positional_names(impl)
    quick = getattr(impl, "quick", None)
    if form == "sample" and callable(quick):
        names |= _positional_names(quick)
    if form == "batch":
        names -= {"prompts"}
    return frozenset(names)
