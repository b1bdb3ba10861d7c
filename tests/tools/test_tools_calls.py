"""Reading the calls a completion made: OpenAI tool_calls, Hermes/Qwen text, Glaive, JSON, pythonic, BFCL lists."""

from __future__ import annotations

import pytest

from grpo_rewards_tools.calls import Call, python_calls, read_calls, strip_think, text_calls

WEATHER = Call("get_weather", {"city": "Paris"})


def test_openai_tool_calls_with_json_text_arguments_are_read():
    completion = [{"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}},
        {"id": "c2", "type": "function", "function": {"name": "get_time", "arguments": {"zone": "CET"}}}]}]
    assert read_calls(completion).calls == (WEATHER, Call("get_time", {"zone": "CET"}))


def test_every_assistant_turn_of_a_trajectory_counts_and_tool_results_do_not():
    completion = [
        {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {
            "name": "get_weather", "arguments": {"city": "Paris"}}}]},
        {"role": "tool", "name": "get_weather", "content": '<tool_call>{"name": "x", "arguments": {}}</tool_call>'},
        {"role": "assistant", "content": "", "tool_calls": [{"name": "get_time", "arguments": {}}]},
        {"role": "tool", "name": "get_time", "content": "12:00"},
        {"role": "assistant", "content": "Sunny, and it is noon."}]
    assert read_calls(completion).calls == (WEATHER, Call("get_time", {}))


def test_in_a_parsed_trajectory_call_text_in_the_answer_is_not_a_call():
    completion = [{"role": "assistant", "content": "", "tool_calls": [{"name": "get_time", "arguments": {}}]},
                  {"role": "tool", "content": "12:00"},
                  {"role": "assistant", "content": 'get_weather(city="Paris")'}]
    assert read_calls(completion).calls == (Call("get_time", {}),)


def test_unparsed_assistant_messages_are_read_as_text():
    assert read_calls([{"role": "assistant", "content": 'get_weather(city="Paris")'}]).calls == (WEATHER,)


def test_hermes_blocks_with_text_around_and_python_literal_dicts_are_read():
    text = ("Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>\n"
            "<tool_call>\n{'name': 'get_time', 'arguments': {'zone': 'CET', 'dst': True}}\n</tool_call>")
    assert text_calls(text).calls == (WEATHER, Call("get_time", {"zone": "CET", "dst": True}))


def test_an_unreadable_hermes_block_is_one_malformed_call_beside_the_readable_ones():
    read = text_calls('<tool_call>{"name": "f", "arguments": {</tool_call><tool_call>{"name": "g"}</tool_call>')
    assert (read.calls, len(read.malformed), read.made) == ((Call("g", {}),), 1, 2)


def test_glaive_functioncall_with_quoted_json_arguments_is_read():
    text = "<functioncall> {\"name\": \"get_weather\", \"arguments\": '{\"city\": \"Paris\"}'} <|endoftext|>"
    assert text_calls(text).calls == (WEATHER,)


def test_a_json_list_of_calls_and_a_fenced_json_call_are_read():
    assert text_calls('[{"name": "get_weather", "arguments": {"city": "Paris"}}]').calls == (WEATHER,)
    assert text_calls('```json\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n```').calls == (WEATHER,)


def test_bfcl_list_form_with_dotted_names_and_nested_literals_is_read():
    calls = python_calls("[math.hypot(x=4, y=-5.5), f(items=[1, (2, 3)], opts={'a': None, 'b': true})]")
    assert calls == [Call("math.hypot", {"x": 4, "y": -5.5}), Call("f", {"items": [1, [2, 3]], "opts": {"a": None, "b": True}})]


@pytest.mark.parametrize("text", ['get_weather("Paris")', "get_weather(city=open('x').read())", "get_weather(**kw)",
                                  "get_weather(city=1+2)", "[get_weather(city='Paris'), 5]", "get_weather(city='Paris'"])
def test_pythonic_calls_that_are_not_named_literals_are_malformed(text):
    read = text_calls(text)
    assert (read.calls, len(read.malformed)) == ((), 1)


@pytest.mark.parametrize("text", ["The weather is nice.", "42", '{"answer": 4}', "[1, 2, 3]", "",
                                  'I would call get_weather(city="Paris") here.'])
def test_plain_answers_are_no_calls(text):
    assert text_calls(text).made == 0


def test_think_blocks_are_not_read_even_unclosed_or_opened_in_the_prompt():
    assert strip_think("<think>a</think>b<think>c</think>d") == "bd"
    assert strip_think("reasoning</think>answer") == "answer"
    assert strip_think("x<think>never closed") == "x"
    assert text_calls('<think>get_weather(city="Rome")</think>get_weather(city="Paris")').calls == (WEATHER,)


def test_openai_calls_without_a_name_or_with_non_object_arguments_are_malformed():
    read = read_calls([{"role": "assistant", "tool_calls": [
        {"function": {"arguments": "{}"}}, {"function": {"name": "f", "arguments": "[1]"}},
        {"function": {"name": "g", "arguments": "{not json"}}, "h"]}])
    assert (read.calls, len(read.malformed)) == ((), 4)


def test_completions_that_are_not_text_or_messages_have_no_calls():
    assert [read_calls(c).made for c in (None, 7, [], [{"role": "user", "content": "f(a=1)"}])] == [0, 0, 0, 0]


def test_gpt_oss_harmony_messages_to_a_function_are_calls():
    text = ('<|start|>assistant<|channel|>analysis<|message|>Weather first.<|end|>'
            '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>'
            '<|channel|>commentary to=functions.get_time <|constrain|>json<|message|>{}<|call|>'
            '<|start|>assistant to=functions.f<|channel|>commentary json<|message|>{"a": <|call|>')
    found = read_calls(text)
    assert found.calls == (WEATHER, Call("get_time", {}))
    assert found.malformed == ("harmony: arguments are not JSON (Expecting value: line 1 column 6 (char 5))",)
    assert read_calls("<|start|>assistant<|channel|>final<|message|>to=functions.x is a tool.<|return|>").calls == ()
