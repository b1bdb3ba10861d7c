"""The normaliser, tools.call_match and tools.schema_valid on verbatim rows of the datasets they read.

tests/tools/data/real_rows.json is written by ``python bench/tools_mine.py rows`` from mirrored public
repositories; each row keeps its project, path, commit and where in the file it is:

- Hermes function calling: the two rows quoted in NousResearch's hermes-function-calling-v1 dataset
  card (the copy committed in shiva-metageeks/dataset);
- Glaive: the two glaive-function-calling-v2 rows of axolotl's tool-evaluation test;
- ToolACE: Team-ACE/ToolACE rows as zaego123/ToolACE_data committed them in LLaMA-Factory's
  sharegpt roles (``function_call``, ``observation``); its conversion cut most tool names in the calls
  to their last word (``"Market Trends API"`` became ``"API"``), which the rewards must show.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_tools import CallMatch, SchemaValid, read_row
from grpo_rewards_tools.rows import RowFormatError, check_rows

SOURCES = json.loads((Path(__file__).parent / "data" / "real_rows.json").read_text(encoding="utf-8"))
ROWS = {entry["where"]: entry["row"] for entry in SOURCES}
HERMES = ROWS["the JSON block under '### Tool-use with API response:'"]
HERMES_EXTRACTION = ROWS["the JSON block under '### Structured extraction with function-calling:'"]
GLAIVE_CALL, GLAIVE_NO_CALL = ROWS["FN_AVAILABLE"], ROWS["NO_FN_AVAILABLE"]
TOOLACE_CUT, TOOLACE = ROWS["row 0"], ROWS["row 2"]


def test_every_row_names_its_project_path_and_commit():
    assert [(e["project"], e["format"]) for e in SOURCES] == [
        ("shiva-metageeks/dataset", "hermes"), ("shiva-metageeks/dataset", "hermes"),
        ("brianfitzgerald/axolotl", "glaive"), ("brianfitzgerald/axolotl", "glaive"),
        ("zaego123/ToolACE_data", "toolace"), ("zaego123/ToolACE_data", "toolace")]
    assert all(e["path"] and len(e["commit"]) == 40 for e in SOURCES)


def test_a_hermes_row_reads_its_python_literal_tools_gold_call_and_prompt():
    row = read_row(HERMES)
    (tool,) = row.tools
    assert (row.format, tool.name, tool.parameters["required"]) == (
        "hermes", "search_flights", ["departure_city", "destination_city", "departure_date", "return_date", "class"])
    assert tool.parameters["properties"]["class"]["enum"] == ["economy", "business", "first"]
    assert [(g.name, g.accepted, g.optional) for g in row.gold] == [("search_flights", {
        "departure_city": ("Los Angeles",), "destination_city": ("Auckland",), "departure_date": ("2023-07-10",),
        "return_date": ("2023-07-24",), "class": ("economy",), "flexible_cancellation": (True,)}, frozenset())]
    assert [m["role"] for m in row.messages] == ["system", "user"]
    assert row.messages[1]["content"].startswith("I'm planning a kayaking trip")


def test_a_hermes_rows_own_call_scores_full_and_its_variants_do_not():
    own = HERMES["conversations"][2]["value"]  # "<tool_call>\n{'arguments': {...}, 'name': 'search_flights'}\n</tool_call>\n"
    assert CallMatch()(own, **HERMES) == (1.0, "matched") and SchemaValid()(own, **HERMES) == (1.0, "valid")
    qwen = ('<tool_call>\n{"name": "search_flights", "arguments": {"class": "economy", "flexible_cancellation": true, '
            '"departure_city": "Los Angeles", "destination_city": "Auckland", "departure_date": "2023-07-10", '
            '"return_date": "2023-07-24"}}\n</tool_call>')
    assert CallMatch(mode="exact")(qwen, **HERMES) == (1.0, "matched")
    assert CallMatch()(own.replace("'economy'", "'business'"), **HERMES) == (0.0, "wrong_arguments")
    assert CallMatch()(own.replace(", 'flexible_cancellation': True", ""), **HERMES) == (0.0, "wrong_arguments")
    assert SchemaValid()(own.replace("'economy'", "'premium'"), **HERMES) == (0.0, "invalid_arguments")
    assert SchemaValid()(own.replace(", 'return_date': '2023-07-24'", ""), **HERMES) == (0.0, "invalid_arguments")
    assert SchemaValid()(own.replace(", 'flexible_cancellation': True", ""), **HERMES) == (1.0, "valid")


def test_the_cards_extraction_row_is_refused_with_the_turn_that_cannot_be_read():
    # its call text has the two characters backslash-n where newlines belong (as the card prints it), and the
    # tool's name inside the arguments: {"arguments": {"queries": [...], "name": "ExpertQAExtractor"}}
    problem = "conversations (hermes), turn 2: <tool_call>: not a JSON object: SyntaxError"
    with pytest.raises(RowFormatError, match="^" + problem.replace("(", r"\(").replace(")", r"\)") + "$"):
        read_row(HERMES_EXTRACTION)
    assert check_rows([HERMES, HERMES_EXTRACTION]) == [f"row 1: {problem}"]
    assert CallMatch()("<tool_call>{}</tool_call>", **HERMES_EXTRACTION) == (None, "bad_row")


def test_glaive_rows_read_the_functioncall_turn_and_a_plain_answer_row():
    row = read_row(GLAIVE_CALL)
    assert (row.format, [t.name for t in row.tools]) == ("glaive", ["calculate_loan_payment"])
    assert [(g.name, g.accepted) for g in row.gold] == [
        ("calculate_loan_payment", {"principal": (50000,), "interest_rate": (5,), "loan_term": (10,)})]
    assert [m["role"] for m in row.messages] == ["system", "user", "assistant", "user"]
    own = GLAIVE_CALL["chat"].split("ASSISTANT:")[2].split("<|endoftext|>")[0]  # arguments as a quoted JSON text
    assert own.strip().startswith('<functioncall> {"name": "calculate_loan_payment", "arguments": \'{')
    assert CallMatch()(own, **GLAIVE_CALL) == (1.0, "matched")
    assert SchemaValid()("calculate_loan_payment(principal=50000, interest_rate=5, loan_term=10.5)", **GLAIVE_CALL) == (
        0.0, "invalid_arguments")
    plain = read_row(GLAIVE_NO_CALL)
    assert (plain.gold, [t.name for t in plain.tools]) == ((), ["get_exchange_rate"])
    assert CallMatch()("I'm sorry, but I don't have the capability to book flights.", **GLAIVE_NO_CALL) == (1.0, "matched")
    assert CallMatch()('<functioncall> {"name": "get_exchange_rate", "arguments": {"base_currency": "USD", '
                       '"target_currency": "GBP"}}', **GLAIVE_NO_CALL) == (0.0, "unexpected_call")


def test_toolace_rows_read_tools_from_the_system_text_and_llama_factory_call_turns():
    row = read_row(TOOLACE)
    assert (row.format, [t.name for t in row.tools]) == (
        "toolace", ["GetCompetitions", "Get Manager Placeholder Image", "Search Competition API", "Get Category Image"])
    assert [(g.name, g.accepted) for g in row.gold] == [("GetCompetitions", {})]
    assert [m["role"] for m in row.messages] == ["system", "user"]
    assert CallMatch()("[GetCompetitions()]", **TOOLACE) == (1.0, "matched")
    assert CallMatch()(TOOLACE["conversations"][1]["value"], **TOOLACE) == (1.0, "matched")
    assert SchemaValid()('[GetCompetitions(country="PE")]', **TOOLACE) == (0.0, "invalid_arguments")
    assert SchemaValid()('[Get Category Image(slug="france"), Get Manager Placeholder Image(sport="football")]',
                         **TOOLACE) == (1.0, "valid")


def test_a_toolace_row_whose_conversion_cut_the_tool_name_is_caught_by_schema_valid():
    row = read_row(TOOLACE_CUT)
    assert [t.name for t in row.tools] == ["newAddress", "Market Trends API", "Get Futures Prices", "SEC Filings",
                                           "United States Away from Home Mobility API", "Calculate Sales Tax"]
    assert [(g.name, g.accepted) for g in row.gold] == [("API", {"trend_type": ("MARKET_INDEXES",), "country": ("us",)})]
    assert SchemaValid()(TOOLACE_CUT["conversations"][1]["value"], **TOOLACE_CUT) == (0.0, "unknown_tool")
    original = '[Market Trends API(trend_type="MARKET_INDEXES", country="us")]'  # ToolACE's own form of that call
    assert SchemaValid()(original, **TOOLACE_CUT) == (1.0, "valid")
    assert CallMatch()(original, **TOOLACE_CUT) == (0.0, "wrong_tool")
    assert SchemaValid()(original.replace("MARKET_INDEXES", "UP"), **TOOLACE_CUT) == (0.0, "invalid_arguments")
