"""The checks of one ``register(...)`` call: what the core refuses to register, and why.

>>> for problem in registration_problems("demo", "demo.x.y", len, "sample", {}, (1, 0), "bytes", {}):
...     print(problem)
the name 'demo.x.y' has a dot; give the short name (the core adds 'demo.')
output_range must be (low, high) with low <= high, not (1, 0)
units must be one of chars, words, tokens, none, not 'bytes'
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

from .options import OPTION_NAMES, check_options
from .protocol import UNITS


def _keyword_names(obj: Any) -> set[str]:
    """The names a caller could pass by keyword to ``obj`` (a batch function's too)."""
    try:
        sig = inspect.signature(obj.__init__ if inspect.isclass(obj) else obj)
    except (TypeError, ValueError):
        return set()
    return {p.name for p in sig.parameters.values() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}


def registration_problems(plugin: str, name: str, obj: Any, form: str, params: Mapping[str, Any],
                           output_range: Any, units: Any, options: dict[str, Any]) -> list[str]:
    """What is wrong with one ``register(...)`` call (empty when nothing is)."""
    problems = []
    if "." in name.removeprefix(f"{plugin}."):
        problems.append(f"the name {name!r} has a dot; give the short name (the core adds {plugin + '.'!r})")
    if form not in ("sample", "batch"):
        problems.append(f"form must be 'sample' or 'batch', not {form!r}")
    if not callable(obj):
        problems.append(f"{obj!r} is not callable")
    clash = sorted((set(params) | _keyword_names(obj)) & set(OPTION_NAMES))
    if clash:
        problems.append(f"parameter(s) {', '.join(clash)} have the name of an execution option, which the core "
                        "owns (RewardOptions); rename them")
    if output_range is not None:
        ok = (isinstance(output_range, (list, tuple)) and len(output_range) == 2
              and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in output_range))
        if not ok or not output_range[0] <= output_range[1]:
            problems.append(f"output_range must be (low, high) with low <= high, not {output_range!r}")
    if units not in UNITS:
        problems.append(f"units must be one of {', '.join(UNITS)}, not {units!r}")
    problems += check_options(options)
    qualname = getattr(obj, "__qualname__", "")
    if options.get("timeout") is not None and ("<lambda>" in qualname or "<locals>" in qualname):
        problems.append(f"{qualname} cannot run in a worker process under the timeout (a lambda or a function "
                        "defined inside another cannot be pickled); define it at module level")
    return problems
