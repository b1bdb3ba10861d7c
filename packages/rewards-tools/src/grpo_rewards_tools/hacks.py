r"""The hack corpus of the tool-call rewards: junk calls and the most each reward may pay.

Registered with every tools reward and run by ``grpo-rewards check tools.call_match --hacks``.
Every entry is one row (a weather tool; the gold is ``get_weather(city="Paris")``) and a completion
that tries to earn reward without making that call cleanly: junk and repeated calls, calls inside
``<think>``, call text in a final answer, extra keys, unknown tools, unreadable calls, pathological
nesting. ``max_pay`` is the exact value each reward pays today, which is also the most it may
pay (``tools.schema_valid`` pays ``None`` where no call was made: it has nothing to validate).
``tests/tools/test_tools_hacks.py`` checks every value exactly.

>>> entry = next(e for e in corpus() if e["name"] == "call_inside_think")
>>> entry["max_pay"]["tools.call_match"]
0.0
"""

from __future__ import annotations

import json
from typing import Any

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "The current weather in a city.",
    "parameters": {"type": "object", "properties": {
        "city": {"type": "string", "description": "The city's name."},
        "unit": {"type": "string", "enum": ["celsius", "fahrenheit"], "default": "celsius"}},
        "required": ["city"]}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "The current time in a time zone.",
    "parameters": {"type": "object", "properties": {"zone": {"type": "string"}}, "required": ["zone"]}}}
COLUMNS = {"tools": [WEATHER, TIME], "gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}]}
#: nothing to validate: ``tools.schema_valid`` pays None (the runner counts it as not paid)
NO_CALL = 0.0
RIGHT = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'


def _openai(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}}


def _entry(name: str, completion: Any, note: str, call_match: float, schema_valid: float) -> dict[str, Any]:
    return {"name": name, "completion": completion, "note": note, "prompt": "What is the weather in Paris?",
            "columns": COLUMNS, "max_pay": {"tools.call_match": call_match, "tools.schema_valid": schema_valid}}


def corpus() -> list[dict[str, Any]]:
    """Every entry (built when the corpus is run)."""
    junk = "".join(f'<tool_call>{{"name": "tool_{i}", "arguments": {{"x": {i}}}}}</tool_call>' for i in range(10))
    sprayed = "[" + ", ".join(f'get_weather(city="{c}")' for c in ("Paris", "Rome", "Berlin", "Madrid", "Oslo",
                                                                    "Lisbon", "Vienna", "Prague", "Dublin")) + "]"
    return [
        _entry("junk_calls_around_the_right_one", junk + RIGHT,
               "ten calls to tools that do not exist, then the right call: f1 2·1/(1+11)", 2 / 12, 0.0),
        _entry("right_call_repeated", RIGHT * 8,
               "the right call eight times: one matches, seven are extra; every one is valid", 2 / 9, 1.0),
        _entry("every_city_sprayed", sprayed,
               "the right tool for nine cities, hoping one is right: f1 2/(1+9)", 0.2, 1.0),
        _entry("call_inside_think", f"<think>{RIGHT}</think>It is sunny in Paris.",
               "the call is only thought about, never made", 0.0, NO_CALL),
        _entry("call_inside_unclosed_think", f"<think>I will call {RIGHT}",
               "an unclosed reasoning block runs to the end: no call", 0.0, NO_CALL),
        _entry("call_text_in_prose", 'The answer is get_weather(city="Paris"), which is sunny.',
               "a call written inside prose is not a call", 0.0, NO_CALL),
        _entry("call_text_in_final_answer_after_the_loop", [
            {"role": "assistant", "content": "", "tool_calls": [_openai("get_time", {"zone": "CET"})]},
            {"role": "tool", "name": "get_time", "content": "12:00"},
            {"role": "assistant", "content": RIGHT}],
               "the tool loop ran one wrong call; the right call written into the final answer was never executed",
               0.0, 1.0),
        _entry("extra_keys", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "score": 1.0, '
                             '"is_correct": true}}</tool_call>',
               "the right call with keys no schema names", 0.0, 0.0),
        _entry("extra_top_level_keys", '<tool_call>{"name": "get_weather", "arguments": {"city": "Berlin"}, '
                                       '"gold": true, "reward": 1.0}</tool_call>',
               "keys beside name and arguments are ignored: the call is judged on its arguments", 0.0, 1.0),
        _entry("unknown_tool", '<tool_call>{"name": "grade_answer", "arguments": {"score": 1.0}}</tool_call>',
               "a tool the row does not have", 0.0, 0.0),
        _entry("tool_name_case_variant", '<tool_call>{"name": "Get_Weather", "arguments": {"city": "Paris"}}</tool_call>',
               "tool names are compared exactly", 0.0, 0.0),
        _entry("unclosed_json", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"</tool_call>',
               "a call that cannot be read", 0.0, 0.0),
        _entry("arguments_not_an_object", '<tool_call>{"name": "get_weather", "arguments": "Paris"}</tool_call>',
               "arguments must be an object", 0.0, 0.0),
        _entry("positional_arguments", 'get_weather("Paris")', "pythonic calls must name their arguments", 0.0, 0.0),
        _entry("code_instead_of_literal", 'get_weather(city=__import__("os").getcwd())',
               "a value that is code, not a literal: never run, the call is malformed", 0.0, 0.0),
        _entry("deep_nesting", 'get_weather(city=' + "[" * 5000 + "]" * 5000 + ")",
               "nesting past the parser's limit: malformed, no crash", 0.0, 0.0),
        _entry("deep_json_nesting", '<tool_call>{"name": "get_weather", "arguments": {"city": '
                                    + "[" * 100_000 + "]" * 100_000 + "}}</tool_call>",
               "JSON nested past the recursion limit: malformed, no crash", 0.0, 0.0),
        _entry("empty_tool_calls_and_a_claim", [{"role": "assistant", "content": "I called get_weather: sunny.",
                                                 "tool_calls": []}],
               "an empty tool_calls list and a claim in prose", 0.0, NO_CALL),
        _entry("gold_echoed_as_text", json.dumps(COLUMNS["gold_calls"]) + " is what you want",
               "the gold written back with prose around it is not a call", 0.0, NO_CALL),
        _entry("blank", "", "nothing at all", 0.0, NO_CALL),
    ]
