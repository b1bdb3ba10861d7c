"""tools.call_match and tools.schema_valid: exact values for every mode, label and comparison rule."""

from __future__ import annotations

import pytest

import grpo_rewards_tools as tools
from grpo_rewards import RewardError, get_reward
from grpo_rewards_tools import CallMatch, SchemaValid

WEATHER_TOOL = {"type": "function", "function": {"name": "get_weather", "parameters": {
    "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"},
                                     "unit": {"type": "string", "enum": ["C", "F"], "default": "C"}},
    "required": ["city"]}}}
TIME_TOOL = {"type": "function", "function": {"name": "get_time", "parameters": {
    "type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}
TWO = {"tools": [WEATHER_TOOL, TIME_TOOL], "gold_calls": [
    {"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}, {"name": "get_time", "arguments": {"zone": "CET"}}]}


def hermes(*calls: str) -> str:
    return "".join(f"<tool_call>{c}</tool_call>" for c in calls)


W = '{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}'
T = '{"name": "get_time", "arguments": {"zone": "CET"}}'
BAD_T = '{"name": "get_time", "arguments": {"zone": "PST"}}'


@pytest.mark.parametrize(("completion", "f1", "fraction", "exact", "label"), [
    (hermes(W, T), 1.0, 1.0, 1.0, "matched"),
    (hermes(T, W), 1.0, 1.0, 1.0, "matched"),
    (hermes(W), 2 / 3, 0.5, 0.0, "missing_call"),
    (hermes(W, T, T), 0.8, 2 / 3, 0.0, "extra_call"),
    (hermes(W, BAD_T), 0.5, 0.5, 0.0, "partial"),
    (hermes(BAD_T), 0.0, 0.0, 0.0, "wrong_arguments"),
    (hermes('{"name": "get_news", "arguments": {}}'), 0.0, 0.0, 0.0, "wrong_tool"),
    (hermes(W, T, '{"name": "x", "arguments": [}'), 0.8, 2 / 3, 0.0, "malformed_call"),
    (hermes('{"name": "x", "arguments": [}'), 0.0, 0.0, 0.0, "malformed_call"),
    ("It is sunny and 12:00.", 0.0, 0.0, 0.0, "no_call"),
])
def test_every_mode_pays_its_formula_with_its_label(completion, f1, fraction, exact, label):
    for mode, value in (("f1", f1), ("fraction", fraction), ("exact", exact)):
        assert CallMatch(mode=mode)(completion, **TWO) == (value, label)


def test_a_gold_without_calls_expects_a_plain_answer():
    row = {"gold_calls": []}
    assert CallMatch()("I cannot help with that.", **row) == (1.0, "matched")
    assert CallMatch()('get_weather(city="Paris")', **row) == (0.0, "unexpected_call")
    assert CallMatch()('<tool_call>{"name": </tool_call>', **row) == (0.0, "unexpected_call")


def test_parallel_calls_are_paired_by_maximum_matching_not_greedily():
    # the first call fits both gold calls; a greedy pairing that gives it the first gold leaves the second call unmatched
    row = {"ground_truth": [{"f": {"x": [1, 2]}}, {"f": {"x": [1]}}], "function": [{"name": "f", "parameters": {}}]}
    assert CallMatch(mode="exact")("[f(x=2), f(x=1)]", **row) == (1.0, "matched")
    assert CallMatch(mode="exact")("[f(x=1), f(x=2)]", **row) == (1.0, "matched")


@pytest.mark.parametrize(("gold", "given", "params", "expected"), [
    ({"n": 5}, {"n": "5"}, {}, 1.0),
    ({"n": 5}, {"n": "5"}, {"numeric_strings": False}, 0.0),
    ({"x": 0.1}, {"x": 0.1000001}, {}, 1.0),
    ({"x": 0.1}, {"x": 0.1001}, {}, 0.0),
    ({"x": 0.1}, {"x": 0.1001}, {"tolerance": 0.01}, 1.0),
    ({"n": 5}, {"n": 5.0}, {"numeric_strings": False}, 1.0),
    ({"b": True}, {"b": 1}, {}, 0.0),
    ({"s": "New York"}, {"s": "  New   York "}, {}, 1.0),
    ({"s": "New York"}, {"s": "  New   York "}, {"strings": "exact"}, 0.0),
    ({"s": "New York"}, {"s": "new york"}, {}, 0.0),
    ({"s": "New York"}, {"s": "new york"}, {"strings": "casefold"}, 1.0),
    ({"s": "New York, NY"}, {"s": "newyork ny"}, {"strings": "loose"}, 1.0),
    ({"d": {"a": 1, "b": [1, 2]}}, {"d": {"b": [1, 2], "a": 1}}, {}, 1.0),
    ({"d": {"a": 1, "b": [1, 2]}}, {"d": {"b": [2, 1], "a": 1}}, {}, 0.0),
    ({"d": {"a": 1}}, {"d": {"a": 1, "z": None}}, {}, 0.0),
    ({"n": 5}, {"n": 5, "extra": 1}, {}, 0.0),
    ({"n": 5, "m": 1}, {"n": 5}, {}, 0.0),
])
def test_arguments_are_compared_as_json_with_the_conventions_as_parameters(gold, given, params, expected):
    row = {"gold_calls": [{"name": "f", "arguments": gold}]}
    completion = [{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": given}}]}]
    assert CallMatch(mode="exact", **params)(None, completion=completion, **row)[0] == expected


def test_an_argument_left_out_may_be_given_with_its_schema_default():
    row = {"tools": [WEATHER_TOOL], "gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
    assert [CallMatch()(c, **row)[0] for c in ('get_weather(city="Paris")', 'get_weather(city="Paris", unit="C")',
                                                 'get_weather(city="Paris", unit="F")')] == [1.0, 1.0, 0.0]


def test_bfcl_dotted_names_match_openai_underscored_names():
    row = {"ground_truth": [{"math.factorial": {"number": [5]}}], "function": [{"name": "math.factorial", "parameters": {}}]}
    assert CallMatch()("math_factorial(number=5)", **row) == (1.0, "matched")
    assert CallMatch()("[math.factorial(number=5)]", **row) == (1.0, "matched")


def test_calls_past_max_calls_count_as_unmatched():
    row = {"gold_calls": [{"name": "f", "arguments": {}}]}
    assert CallMatch(max_calls=1)("[g(), f()]", **row) == (0.0, "wrong_tool")
    assert CallMatch(max_calls=2)("[g(), f()]", **row) == (2 / 3, "extra_call")


def test_a_row_without_readable_gold_scores_none_and_check_rows_names_it():
    assert CallMatch()("f()", gold_calls="{not json") == (None, "bad_row")
    assert CallMatch.check_rows([TWO, {"gold_calls": [{"arguments": {}}]}, {"question": "hi"}]) == [
        "row 1: gold_calls[0]: a call without a tool name"]


def test_a_row_without_gold_is_another_tasks_row_none_labelled_no_gold_and_training_takes_it():
    # before: bad_row, and training refused the dataset: a mix of tool-call rows and other tasks' rows could not train
    assert CallMatch()("f()", tools=[WEATHER_TOOL]) == (None, "no_gold")
    assert CallMatch()("f()", gold_calls=None, answers=None, conversations=None, solution="4") == (None, "no_gold")
    assert SchemaValid()("f()", gold_calls=None, tools=None) == (None, "no_tools")
    mixed = [TWO, {"gold_calls": None, "tools": None, "solution": "4"}, {"question": "hi"}]
    assert (CallMatch.check_rows(mixed), SchemaValid.check_rows([{"tools": [WEATHER_TOOL]}, mixed[1]])) == ([], [])
    assert CallMatch.check_rows(mixed[1:]) == [
        "every row is one the reward does not score (row 0: no tool-call columns: expected gold_calls (native), "
        "query/tools/answers (xLAM), question/function/ground_truth (BFCL), conversations (Hermes, ToolACE) or "
        "system/chat (Glaive)): it applies to none of the 2 rows"]


def test_an_empty_text_gold_is_a_bad_row_not_a_row_that_expects_no_call():
    # a missing cell of a CSV or spreadsheet reads as "": it paid a plain answer 1.0 and every call 0.0
    for gold in ("", "  \n"):
        assert CallMatch()("The weather is sunny.", gold_calls=gold) == (None, "bad_row")
        assert CallMatch()("f()", query="q", tools=[WEATHER_TOOL], answers=gold) == (None, "bad_row")
    assert CallMatch.check_rows([{"gold_calls": ""}, {"gold_calls": "[]"}]) == [
        "row 0: gold_calls is empty text: write [] for a row whose answer is no call"]
    assert CallMatch()("The weather is sunny.", gold_calls="[]") == (1.0, "matched")


@pytest.mark.parametrize(("completion", "all_value", "fraction", "label"), [
    ('get_weather(city="Paris", days=3)', 1.0, 1.0, "valid"),
    ('[get_weather(city="Paris"), get_time(zone="CET")]', 1.0, 1.0, "valid"),
    ('get_weather(days=3)', 0.0, 0.0, "invalid_arguments"),
    ('get_weather(city="Paris", days="3")', 0.0, 0.0, "invalid_arguments"),
    ('get_weather(city="Paris", unit="K")', 0.0, 0.0, "invalid_arguments"),
    ('get_weather(city="Paris", verbose=True)', 0.0, 0.0, "invalid_arguments"),
    ('[get_weather(city="Paris"), get_news()]', 0.0, 0.5, "unknown_tool"),
    (hermes(W, '{"name": "get_time", "arguments": 5}'), 0.0, 0.5, "malformed_call"),
    ("Sunny.", None, None, "no_call"),
])
def test_schema_valid_checks_every_call_against_its_tool_schema(completion, all_value, fraction, label):
    assert SchemaValid()(completion, **TWO) == (all_value, label)
    assert SchemaValid(mode="fraction")(completion, **TWO) == (fraction, label)


def test_schema_valid_allows_extra_arguments_when_asked_or_when_the_schema_does():
    open_tool = {"name": "f", "parameters": {"type": "object", "properties": {}, "additionalProperties": True}}
    assert SchemaValid()("get_weather(city='Paris', verbose=True)", tools=[WEATHER_TOOL]) == (0.0, "invalid_arguments")
    assert SchemaValid(allow_extra_arguments=True)("get_weather(city='Paris', verbose=True)", tools=[WEATHER_TOOL]) == (
        1.0, "valid")
    assert SchemaValid()("f(anything=1)", tools=[open_tool]) == (1.0, "valid")


def test_schema_valid_reports_a_tool_whose_parameters_are_not_a_json_schema():
    bad = {"name": "f", "parameters": {"type": "object", "properties": {"x": {"type": "integer", "minimum": "low"}}}}
    assert SchemaValid()("f(x=1)", tools=[bad]) == (None, "bad_row")
    assert SchemaValid.check_rows([{"tools": [bad]}]) == [  # (text.json's words for it: one reading, the core's)
        "row 0: tool 'f': its parameters: not a valid Draft202012 schema at $.properties.x.minimum: 'low' is not of "
        "type 'number'"]


@pytest.mark.parametrize("parameters", [
    {"type": "object", "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
     "properties": {"x": {"$ref": "#/$defs/a"}}},  # a $ref cycle that consumes no input
    {"type": "object", "properties": {"x": {"$ref": "#/nowhere"}}},
    {"type": "object", "properties": {"x": {"$ref": "http://127.0.0.1:9/schema.json"}}},  # remote: never fetched
], ids=["cycle", "nowhere", "remote"])
def test_schema_valid_reports_a_tool_whose_refs_do_not_resolve_as_a_bad_row_not_an_error(parameters):
    # before: RecursionError or referencing's Unresolvable out of jsonschema, a RewardError out of the reward for the
    # whole batch (text.json already read these schemas as bad_schema)
    tool = {"name": "f", "parameters": parameters}
    assert SchemaValid()("f(x=1)", tools=[tool]) == (None, "bad_row")
    assert SchemaValid()("g(x=1)", tools=[tool]) == (0.0, "unknown_tool")  # calls that never reach the $ref:
    remote = "127.0.0.1" in str(parameters)  # refused with the schema (and before training), as text.json does
    assert SchemaValid()("f(y=1)", tools=[tool]) == ((None, "bad_row") if remote else (0.0, "invalid_arguments"))
    assert tools.schema_valid(prompts=[None] * 2, completions=["f(x=1)", "f(y=2)"], tools=[[tool]] * 2) == [
        None, None if remote else 0.0]
    assert (SchemaValid.check_rows([{"tools": [tool]}]) != []) == remote


@pytest.mark.parametrize("depth", [300, 5000])
def test_schema_valid_reports_a_tool_whose_parameters_are_nested_too_deeply(depth):
    # jsonschema's schema check (300 levels, JSON text a dataset may hold) or json.dumps (5000 levels of Python
    # objects) raised RecursionError: out of check_rows, and out of the reward as a RewardError
    items = '{"type": "array", "items": ' * depth + '{"type": "array"}' + "}" * depth
    tool = '{"name": "f", "parameters": {"type": "object", "properties": {"x": ' + items + "}}}"
    if depth > 1000:  # deeper than the JSON reader goes: the column holds the objects themselves
        deep: dict = {"type": "array"}
        for _ in range(depth):
            deep = {"type": "array", "items": deep}
        tool = {"name": "f", "parameters": {"type": "object", "properties": {"x": deep}}}
    assert SchemaValid()("f(x=[1])", tools=[tool]) == (None, "bad_row")
    in_process = get_reward("tools.schema_valid", options={"timeout": None})
    assert in_process(prompts=[None], completions=["f(x=[1])"], tools=[[tool]]) == [None]
    if depth > 1000:  # under its registered deadline the row goes to a worker process, and pickle cannot send it
        with pytest.raises(RewardError, match="cannot send the sample to a worker: maximum recursion depth exceeded"):
            tools.schema_valid(prompts=[None], completions=["f(x=[1])"], tools=[[tool]])
    else:
        assert tools.schema_valid(prompts=[None], completions=["f(x=[1])"], tools=[[tool]]) == [None]
    assert SchemaValid.check_rows([{"tools": [tool]}]) == ["row 0: tool 'f': its parameters: the schema is nested too deep"]


def test_the_batch_call_reads_the_trajectory_not_only_the_final_answer():
    trajectory = [
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": "get_weather", "arguments": '{"city": "Paris", "days": 3}'}}]},
        {"role": "tool", "content": "sunny"},
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": "get_time", "arguments": '{"zone": "CET"}'}}]},
        {"role": "tool", "content": "12:00"},
        {"role": "assistant", "content": "Sunny, 12:00."}]
    result = tools.call_match.score(prompts=[None, None], completions=[trajectory, trajectory[:2]],
                                    tools=[TWO["tools"]] * 2, gold_calls=[TWO["gold_calls"]] * 2)
    assert (result.values, result.labels) == ([1.0, 2 / 3], ["matched", "missing_call"])


@pytest.mark.parametrize(("gold", "given"), [({"d": {"a": 1}}, {"d": {"a": True}}), ({"l": [1, 0]}, {"l": [True, False]}),
                                             ({"b": False}, {"b": 0})])
def test_booleans_are_never_numbers_even_nested(gold, given):
    row = {"gold_calls": [{"name": "f", "arguments": gold}]}
    completion = [{"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "f", "arguments": given}}]}]
    assert CallMatch()(None, completion=completion, **row) == (0.0, "wrong_arguments")


@pytest.mark.parametrize(("completion", "expected"), [
    ("<tool_call>" * 20_000, (0.0, "malformed_call")),
    ("<think>" * 20_000 + "f()", (0.0, "no_call")),
    ("[" + "get_weather(city='Paris', days=3), " * 5_000 + "]", (2 / 5001, "extra_call")),
    ('<tool_call>{"name": "get_weather", "arguments": {"city": "' + "x" * 150_000 + '"}}</tool_call>',
     (0.0, "wrong_arguments")),
])
def test_large_and_pathological_completions_get_a_defined_value(completion, expected):
    row = {"gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}]}
    assert CallMatch()(completion, **row) == expected


BIG = "9" * 4000  # a JSON integer of 4,000 digits: Python reads it (its limit is 4,300), a float cannot hold it


def test_an_integer_past_a_floats_range_is_compared_exactly_not_raised_out_of_the_reward():
    # float() of it raised OverflowError out of tools.call_match: one completion ended the training run
    call = f'<tool_call>{{"name": "f", "arguments": {{"x": {BIG}}}}}</tool_call>'
    assert CallMatch()(call, gold_calls=[{"name": "f", "arguments": {"x": int(BIG)}}]) == (1.0, "matched")
    assert CallMatch()(call, gold_calls=[{"name": "f", "arguments": {"x": 10 ** 4000}}]) == (1.0, "matched")  # 1e-6
    assert CallMatch(tolerance=0)(call, gold_calls=[{"name": "f", "arguments": {"x": 10 ** 4000}}]) == (
        0.0, "wrong_arguments")
    for gold in (1.5, float("inf"), [int(BIG)]):
        assert CallMatch()(call, gold_calls=[{"name": "f", "arguments": {"x": gold}}]) == (0.0, "wrong_arguments")


@pytest.mark.parametrize(("argument", "schema", "label"), [
    ("1e999", {"type": "number", "multipleOf": 0.01}, "invalid_arguments"),  # inf: OverflowError out of jsonschema
    ("NaN", {"type": "number"}, "invalid_arguments"),  # no JSON number (Python's reader takes it)
    ("[1e999]", {"type": "array"}, "invalid_arguments"),
    (BIG, {"type": "number", "multipleOf": 0.01}, "invalid_arguments"),  # jsonschema's float division overflows
    (BIG, {"type": "integer", "multipleOf": 3}, "valid"),
    ("5.0", {"type": "number", "multipleOf": 0.01}, "valid"),
])
def test_numbers_json_schema_cannot_check_are_invalid_arguments_not_an_exception(argument, schema, label):
    tool = [{"name": "f", "parameters": {"type": "object", "properties": {"x": schema}}}]
    call = f'<tool_call>{{"name": "f", "arguments": {{"x": {argument}}}}}</tool_call>'
    assert SchemaValid()(call, tools=tool) == (1.0 if label == "valid" else 0.0, label)
