"""grpo-rewards-tools: tool-call rewards for agentic GRPO training with TRL.

``call_match`` (the calls a completion made against the row's gold calls) and ``schema_valid``
(every call's arguments valid under its tool's JSON Schema) are plain TRL reward functions with
default parameters; ``make_call_match(...)``/``make_schema_valid(...)`` take parameters. The same
scorers are registered under the ``tools`` namespace (``tools.call_match``, ``tools.schema_valid``).
Rows may be in the native, xLAM/APIGen, BFCL, Hermes, ToolACE or Glaive format
(:mod:`grpo_rewards_tools.rows`); ``prepare_row`` renders a row's own tools into its prompt.
Importing this package is light: each name is imported from its module on first use.

>>> from grpo_rewards_tools import call_match
>>> call_match(prompts=[None], completions=['get_weather(city="Paris")'],
...            gold_calls=[[{"name": "get_weather", "arguments": {"city": "Paris"}}]])
[1.0]
>>> call_match.__name__
'tools.call_match'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "Call": "calls",
    "CallMatch": "rewards",
    "Comparison": "arguments",
    "GoldCall": "rows",
    "ReadCalls": "calls",
    "RowFormatError": "rows",
    "SchemaValid": "rewards",
    "Tool": "schemas",
    "ToolRow": "rows",
    "check_rows": "rows",
    "make_call_match": "definitions",
    "make_schema_valid": "definitions",
    "prepare_row": "prepare",
    "read_calls": "calls",
    "read_row": "rows",
    "read_tools": "schemas",
}
#: the ready-made rewards with default parameters, built once on first use
_BUILT = {
    "call_match": "definitions:make_call_match",
    "schema_valid": "definitions:make_schema_valid",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-tools")

__all__ = [
    "Call",
    "CallMatch",
    "Comparison",
    "GoldCall",
    "ReadCalls",
    "RowFormatError",
    "SchemaValid",
    "Tool",
    "ToolRow",
    "call_match",
    "check_rows",
    "make_call_match",
    "make_schema_valid",
    "prepare_row",
    "read_calls",
    "read_row",
    "read_tools",
    "schema_valid",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .arguments import Comparison
    from .calls import Call, ReadCalls, read_calls
    from .definitions import make_call_match, make_schema_valid
    from .prepare import prepare_row
    from .rewards import CallMatch, SchemaValid
    from .rows import GoldCall, RowFormatError, ToolRow, check_rows, read_row
    from .schemas import Tool, read_tools

    call_match: Reward
    schema_valid: Reward
