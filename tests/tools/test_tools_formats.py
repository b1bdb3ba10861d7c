"""One normaliser for every row format, each on real rows: tools, gold calls, prompt, and scoring.

Sources: BFCL rows are copied from bfcl-eval 2026.3.23's data (tests/tools/data/bfcl_rows.json names
each file and id). XLAM_ROW is row 0 of Salesforce/xlam-function-calling-60k as its dataset card
quotes it (and as NVIDIA-NeMo/Gym resources_servers/xlam_fc/data/example.jsonl @07d6b0d converts
it). HERMES_ROW is written in the layout of NousResearch's hermes-function-calling rows
(Python-literal dicts in <tools> and <tool_call>), and TOOLACE_ROW in Team-ACE/ToolACE's (a system
prompt with a JSON list of tools, assistant turns in BFCL's list form, names with spaces); their
contents are ours, for parallel calls and spaced names. Verbatim Hermes, Glaive and ToolACE rows, each
with its project, path and commit, are in test_tools_real_rows.py.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_tools import CallMatch, SchemaValid, read_row
from grpo_rewards_tools.arguments import DictPattern
from grpo_rewards_tools.rows import RowFormatError, check_rows

BFCL = {entry["row"]["id"]: entry["row"] for entry in json.loads(
    (Path(__file__).parent / "data" / "bfcl_rows.json").read_text(encoding="utf-8"))}
XLAM_ROW = {
    "id": 0,
    "query": "Where can I find live giveaways for beta access and games?",
    "answers": "[{\"name\": \"live_giveaways_by_type\", \"arguments\": {\"type\": \"beta\"}}, "
               "{\"name\": \"live_giveaways_by_type\", \"arguments\": {\"type\": \"game\"}}]",
    "tools": "[{\"name\": \"live_giveaways_by_type\", \"description\": \"Retrieve live giveaways from the GamerPower API "
             "based on the specified type.\", \"parameters\": {\"type\": {\"description\": \"The type of giveaways to "
             "retrieve (e.g., game, loot, beta).\", \"type\": \"str\", \"default\": \"game\"}}}]",
}
HERMES_ROW = {"conversations": [
    {"from": "system", "value": "You are a function calling AI model. You are provided with function signatures within "
     "<tools></tools> XML tags.\n<tools>\n[{'type': 'function', 'function': {'name': 'get_stock_price', 'description': "
     "'Get the current stock price', 'parameters': {'type': 'object', 'properties': {'symbol': {'type': 'string'}}, "
     "'required': ['symbol']}}}]\n</tools>\nFor each function call return a json object with function name and arguments "
     "within <tool_call></tool_call> tags with the following schema:\n<tool_call>\n{'arguments': <args dict>, 'name': "
     "<function name>}\n</tool_call>\n"},
    {"from": "human", "value": "What are Apple's and Microsoft's share prices?"},
    {"from": "gpt", "value": "<tool_call>\n{'arguments': {'symbol': 'AAPL'}, 'name': 'get_stock_price'}\n</tool_call>\n"
                             "<tool_call>\n{'arguments': {'symbol': 'MSFT'}, 'name': 'get_stock_price'}\n</tool_call>"},
    {"from": "tool", "value": "<tool_response>\n{'symbol': 'AAPL', 'price': 189.3}\n</tool_response>"},
    {"from": "gpt", "value": "Apple trades at $189.30."}]}
TOOLACE_ROW = {
    "system": "You are an expert in composing functions. You are given a question and a set of possible functions.\n"
              "Here is a list of functions in JSON format that you can invoke:\n[{\"name\": \"Get Top Songs\", "
              "\"description\": \"The week's top songs of a country\", \"parameters\": {\"type\": \"dict\", "
              "\"properties\": {\"country\": {\"description\": \"ISO country code\", \"type\": \"string\"}, \"limit\": "
              "{\"description\": \"How many songs\", \"type\": \"integer\", \"default\": 10}}, \"required\": [\"country\"]}}]\n"
              "Should you decide to return the function call(s), put them in the format of [func1(params_name=params_value)].",
    "conversations": [{"from": "user", "value": "What are the top songs in France this week?"},
                      {"from": "assistant", "value": "[Get Top Songs(country=\"FR\")]"}]}


def test_native_rows_read_openai_tools_and_gold_calls():
    row = read_row({"prompt": [{"role": "user", "content": "Weather in Paris?"}],
                    "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {
                        "type": "object", "properties": {"city": {"type": "string"}}}}}],
                    "gold_calls": '[{"name": "get_weather", "arguments": "{\\"city\\": \\"Paris\\"}"}]'})
    assert (row.format, [t.name for t in row.tools], row.gold[0].accepted) == ("native", ["get_weather"], {"city": ("Paris",)})
    assert row.messages == ({"role": "user", "content": "Weather in Paris?"},)


def test_xlam_rows_read_python_type_names_defaults_and_parallel_answers():
    row = read_row(XLAM_ROW)
    (tool,) = row.tools
    assert row.format == "xlam" and tool.parameters == {"type": "object", "properties": {"type": {
        "description": "The type of giveaways to retrieve (e.g., game, loot, beta).", "type": "string", "default": "game"}},
        "required": []}
    assert [(g.name, g.accepted) for g in row.gold] == [("live_giveaways_by_type", {"type": ("beta",)}),
                                                        ("live_giveaways_by_type", {"type": ("game",)})]
    assert row.messages == ({"role": "user", "content": XLAM_ROW["query"]},)
    both = '[{"name": "live_giveaways_by_type", "arguments": {"type": "game"}}, {"name": "live_giveaways_by_type", "arguments": {"type": "beta"}}]'
    assert CallMatch()(both, **XLAM_ROW) == (1.0, "matched")
    assert CallMatch()('live_giveaways_by_type(type="beta")', **XLAM_ROW) == (2 / 3, "missing_call")
    assert SchemaValid()('live_giveaways_by_type(type=3)', **XLAM_ROW) == (0.0, "invalid_arguments")


def test_bfcl_rows_read_accepted_values_optional_arguments_and_bfcl_types():
    row = read_row(BFCL["simple_python_0"])
    assert row.format == "bfcl" and row.tools[0].parameters["type"] == "object"
    assert row.gold[0].accepted == {"base": (10,), "height": (5,), "unit": ("units", "")}
    assert row.gold[0].optional == {"unit"}
    score = CallMatch(mode="exact", strings="loose")
    assert score("[calculate_triangle_area(base=10, height=5)]", **BFCL["simple_python_0"]) == (1.0, "matched")
    assert score("[calculate_triangle_area(base=10, height=5, unit='Units')]", **BFCL["simple_python_0"]) == (1.0, "matched")
    assert score("[calculate_triangle_area(base=10, height=6)]", **BFCL["simple_python_0"]) == (0.0, "wrong_arguments")


def test_bfcl_object_arguments_are_patterns_with_accepted_values_per_key():
    row = read_row(BFCL["live_multiple_0-0-0"])
    (pattern,) = row.gold[0].accepted["new_preferences"]
    assert isinstance(pattern, DictPattern) and pattern.accepted["size"] == ("large",)
    good = ("[ChaDri.change_drink(drink_id='latte', new_preferences={'size': 'large', 'milk_type': 'coconut', "
            "'sweetness_level': 'extra', 'temperature': 'hot', 'special_instructions': 'boiling hot'})]")
    assert CallMatch(strings="loose")(good, **BFCL["live_multiple_0-0-0"]) == (1.0, "matched")
    assert CallMatch(strings="loose")(good.replace("'large'", "'small'"), **BFCL["live_multiple_0-0-0"]) == (
        0.0, "wrong_arguments")


def test_bfcl_parallel_rows_match_in_any_order_and_irrelevance_rows_expect_no_call():
    text = ("[waste_calculation.calculate(population={'adults': 0, 'children': 0, 'singles': 1}, location='New York'), "
            "waste_calculation.calculate(population={'adults': 2, 'children': 2, 'singles': 0}, location='LA')]")
    assert CallMatch(mode="exact")(text, **BFCL["parallel_29"]) == (1.0, "matched")
    assert read_row(BFCL["irrelevance_0"]).gold == ()
    assert CallMatch()("None of the functions can compute that.", **BFCL["irrelevance_0"]) == (1.0, "matched")


def test_hermes_rows_read_python_literal_tools_and_calls():
    row = read_row(HERMES_ROW)
    assert row.format == "hermes" and [t.name for t in row.tools] == ["get_stock_price"]
    assert [g.accepted for g in row.gold] == [{"symbol": ("AAPL",)}, {"symbol": ("MSFT",)}]
    assert [m["role"] for m in row.messages] == ["system", "user"]
    qwen = ('<tool_call>\n{"name": "get_stock_price", "arguments": {"symbol": "MSFT"}}\n</tool_call>\n'
            '<tool_call>\n{"name": "get_stock_price", "arguments": {"symbol": "AAPL"}}\n</tool_call>')
    assert CallMatch()(qwen, **HERMES_ROW) == (1.0, "matched")


def test_toolace_rows_read_tools_from_the_system_prompt_and_bfcl_list_calls():
    row = read_row(TOOLACE_ROW)
    assert row.format == "toolace" and [t.name for t in row.tools] == ["Get Top Songs"]
    assert row.gold[0].accepted == {"country": ("FR",), "limit": (10,)} and row.gold[0].optional == {"limit"}
    assert [m["role"] for m in row.messages] == ["system", "user"]
    assert SchemaValid()('<tool_call>{"name": "Get Top Songs", "arguments": {"country": "FR", "limit": 5}}</tool_call>',
                         **TOOLACE_ROW) == (1.0, "valid")


@pytest.mark.parametrize(("row", "problem"), [
    ({"query": "q", "tools": "[]", "answers": "[{\"arguments\": {}}]"}, "answers[0]: a call without a tool name"),
    ({"question": [], "function": [], "ground_truth": [{"f": {"x": 1}}]},
     "ground_truth[0] (f): 'x' is not a list of accepted values"),
    ({"conversations": [{"from": "human", "value": "hi"}]}, "conversations (toolace): no assistant turn to take the gold calls from"),
    ({"conversations": [{"from": "gpt", "value": "<tool_call>{'name': 'f', 'arguments': 3}</tool_call>"}]},
     "conversations (hermes), turn 0: <tool_call>: <tool_call>: arguments are int, not an object"),
    ({"system": "SYSTEM: none", "chat": "USER: hi"}, "chat (glaive): no assistant turn to take the gold calls from"),
    ({"tools": "{not json", "gold_calls": []}, "tools: not JSON (Expecting property name enclosed in double quotes: "
                                               "line 1 column 2 (char 1))"),
    # nested past Python's recursion limit: json raises RecursionError, which ended the training run
    ({"tools": "[" * 100_000, "gold_calls": []},
     "tools: not JSON (JSON nested too deeply to read (deeper than Python's recursion limit))"),
])
def test_a_malformed_row_is_an_error_naming_the_problem(row, problem):
    with pytest.raises(RowFormatError) as info:
        read_row(row)
    assert str(info.value) == problem
    assert check_rows([XLAM_ROW, row]) == [f"row 1: {problem}"]


def test_bfcl_rows_follow_the_functions_schema_as_bfcls_checker_does():
    # ground truths that name an argument the function does not declare, or omit one it requires, cannot be met
    function = [{"name": "f", "parameters": {"type": "dict", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                                             "required": ["a", "b"]}}]
    row = {"question": [], "function": function, "ground_truth": [{"f": {"a": [1], "b": [2, ""], "zz": ["", 3]}}]}
    assert read_row(row).gold[0].accepted == {"a": (1,), "b": (2, "")} and read_row(row).gold[0].optional == frozenset()
    assert CallMatch()("[f(a=1)]", **row) == (0.0, "wrong_arguments")
    assert CallMatch()("[f(a=1, b=2)]", **row) == (1.0, "matched")
    assert CallMatch()("[f(a=1, b=2, zz=3)]", **row) == (0.0, "wrong_arguments")
    unmeetable = {**row, "ground_truth": [{"f": {"a": [1], "zz": [3]}}]}
    assert read_row(unmeetable).gold[0].accepted == {"a": (1,), "zz": (), "b": ()}
