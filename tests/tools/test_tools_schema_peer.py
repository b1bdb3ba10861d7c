"""tools.schema_valid beside a second JSON Schema implementation, on real tool schemas and generated arguments.

tools.schema_valid validates with ``jsonschema`` itself, so its peer is fastjsonschema 2.22.3, run by
bench/tools_schema_peer.py in its own virtualenv (/work/peers/fastjsonschema). That script keeps, in
tests/tools/data/schema_peer_cases.json, the tools of the verbatim Hermes, Glaive and ToolACE rows
and the first 60 function documents of BFCL v4 (bfcl-eval 2026.3.23), each with its source, and per
tool one valid argument set and its mutations, with fastjsonschema's verdict on the schema
schema_valid builds (formats off, as jsonschema and the 2020-12 draft treat ``format``; and formats
asserted, fastjsonschema's default). Here ours is computed afresh and must give the recorded verdict.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from grpo_rewards_tools import SchemaValid
from grpo_rewards_tools.calls import Call
from grpo_rewards_tools.rows import ToolRow
from grpo_rewards_tools.schemas import read_tool
from grpo_rewards_tools.validation import call_label

TOOLS = json.loads((Path(__file__).parent / "data" / "schema_peer_cases.json").read_text(encoding="utf-8"))


def _ours(entry: dict, arguments: dict) -> bool:
    tool = read_tool(entry["tool"])
    return call_label(Call(tool.name, arguments), ToolRow("native", (tool,))) == "valid"


def test_the_cases_cover_real_tools_and_every_kind_of_mutation():
    sources = Counter(e["source"].split(" ")[0] for e in TOOLS)
    assert sources == {"bfcl-eval": 60, "shiva-metageeks/dataset": 1, "brianfitzgerald/axolotl": 2,
                       "zaego123/ToolACE_data": 10}
    verdicts = Counter((c["mutation"], c["fastjsonschema"]) for e in TOOLS for c in e["cases"])
    assert verdicts == {("valid", True): 73, ("unknown_argument", False): 73, ("required_dropped", False): 72,
                        ("wrong_type", False): 72, ("null_value", False): 72, ("int_as_float", True): 50,
                        ("int_as_string", False): 50, ("bool_for_int", False): 50, ("outside_enum", False): 4}


@pytest.mark.parametrize("entry", TOOLS, ids=[e["tool"]["name"] for e in TOOLS])
def test_schema_valid_gives_fastjsonschemas_verdict_on_every_case(entry):
    assert [_ours(entry, c["arguments"]) for c in entry["cases"]] == [c["fastjsonschema"] for c in entry["cases"]]


def test_the_only_difference_with_formats_asserted_is_a_format_annotation():
    differ = [(e["tool"]["name"], c["mutation"], c["arguments"]) for e in TOOLS for c in e["cases"]
              if _ours(e, c["arguments"]) != c["fastjsonschema_formats"]]
    assert differ == [("search_flights", "valid", {"departure_city": "abc", "destination_city": "Paris",
                                                   "departure_date": "economy", "return_date": "x y", "class": "business"})]
    # "departure_date": {"type": "string", "format": "date"}: an annotation for jsonschema (and ours), asserted by fastjsonschema
    assert read_tool(TOOLS[0]["tool"]).parameters["properties"]["departure_date"]["format"] == "date"


def test_the_reward_gives_the_same_verdict_through_a_row():
    entry = next(e for e in TOOLS if e["tool"]["name"] == "calculate_loan_payment")
    row = {"tools": [entry["tool"]]}
    for case in entry["cases"]:
        call = json.dumps({"name": "calculate_loan_payment", "arguments": case["arguments"]})
        assert SchemaValid()(f"<tool_call>{call}</tool_call>", **row) == (
            (1.0, "valid") if case["fastjsonschema"] else (0.0, "invalid_arguments")), case["mutation"]
