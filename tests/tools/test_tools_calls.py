"""Reading the calls a completion made: OpenAI tool_calls, Hermes/Qwen text, Glaive, JSON, pythonic, BFCL lists."""

from __future__ import annotations

import random
import re
import time

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


# -- linear time on adversarial text (the reward reads up to 200,000 characters, in the training process) --
_OLD_FUNCTIONCALL = re.compile(r"<functioncall>\s*(.*?)\s*(?:<\|endoftext\|>|</functioncall>|\Z)", re.S)
_OLD_HARMONY = re.compile(r"to=functions\.([^\s<]+)((?:(?!<\|start\|>).)*?)<\|message\|>(.*?)(?:<\|call\|>|<\|end\|>|\Z)",
                          re.S)
_OLD_LOOKS_PYTHONIC = re.compile(r"\A(?:\[\s*[A-Za-z_][\w. -]*|[A-Za-z_][\w.]*)\s*\(")


class _Reads:
    """Counts the characters that ``str.find`` and the module's searching patterns pass over (the same on
    any machine): a reply wrapped in :class:`_Reads.Text` counts its ``find`` calls, :meth:`pattern` wraps
    a compiled pattern's ``search``."""

    count = 0

    class Text(str):
        def find(self, sub, start=0, end=None):  # type: ignore[override]
            found = str.find(self, sub, start, end)
            _Reads.count += (len(self) if found < 0 else found) - start
            return found

    class pattern:
        def __init__(self, compiled):
            self.compiled = compiled

        def search(self, text, pos=0):
            found = self.compiled.search(text, pos)
            _Reads.count += (found.start() if found else len(text)) - pos
            return found


@pytest.mark.parametrize(("reply", "expected"), [
    # a body's whitespace run was read again from each of its characters (20,000 spaces: 9 s)
    ("<functioncall>a" + " " * 60_000 + "x", ["a" + " " * 60_000 + "x"]),
    ("<functioncall>{}" + " \n" * 30_000 + "x</functioncall>", ["{}" + " \n" * 30_000 + "x"]),
    # the name, backtracked, was read to the end again (8,000 letters: 1.2 s); each opening read to the end
    ("<|message|>to=functions." + "a" * 60_000, []),
    ("<|message|>" + "to=functions.a " * 4_000, []),
    ("to=functions.to=functions." * 2_000 + "<|message|>{}", [("to=functions." * 3_999, "{}")]),
    ("to=functions.f<|start|>" * 3_000 + "<|message|>{}", []),
], ids=["glaive_spaces", "glaive_newlines", "harmony_long_name", "harmony_openings", "harmony_nested",
        "harmony_starts"])
def test_glaive_and_harmony_calls_are_read_in_linear_time(monkeypatch, reply, expected):
    from grpo_rewards_tools import calls

    for name in ("_FUNCTIONCALL_END", "_HARMONY_NAME_END", "_HARMONY_END"):
        monkeypatch.setattr(calls, name, _Reads.pattern(getattr(calls, name)))
    _Reads.count = 0
    read = calls._functioncall_bodies if "<functioncall>" in reply else calls._harmony_calls
    assert read(_Reads.Text(reply)) == expected
    assert 0 < _Reads.count <= 3 * len(reply)  # each character read a few times at most
    assert read_calls(reply).made == len(expected)


def test_glaive_and_harmony_calls_are_the_regexes_matches():
    from grpo_rewards_tools import calls

    rnd = random.Random(3)
    glaive = ["<functioncall>", "</functioncall>", "<|endoftext|>", " ", "\n", "\u00a0", "a", "{}", "<", "|"]
    harmony = ["to=functions.", "to=functions", "<|message|>", "<|start|>", "<|call|>", "<|end|>", "<|channel|>", " ",
               "\t", "f", "g.h", "<", "json", "{}", "\u3000"]
    for _ in range(20_000):
        reply = "".join(rnd.choice(glaive) for _ in range(rnd.randint(0, 16)))
        assert calls._functioncall_bodies(reply) == [m.group(1).strip() for m in _OLD_FUNCTIONCALL.finditer(reply)], reply
        reply = "".join(rnd.choice(harmony) for _ in range(rnd.randint(0, 16)))
        assert calls._harmony_calls(reply) == [(m.group(1), m.group(3).strip()) for m in _OLD_HARMONY.finditer(reply)], \
            reply


def test_a_bracket_then_a_long_run_of_spaces_is_not_read_quadratically():
    from grpo_rewards_tools.calls import _LOOKS_PYTHONIC

    # backtracking into the name's [\w. -]*, \s* read the run of spaces again from each of its ends: "[a",
    # 20,000 spaces and "!" took 0.8 s (minutes at 200,000). A regex's steps cannot be counted from Python, so
    # this reads a million characters once: a few ms when linear, over an hour when quadratic; the bound (30 s)
    # is only a guard between the two, far from either on any machine
    long = "[a" + " " * 64_000 + "!"
    started = time.perf_counter()
    assert _LOOKS_PYTHONIC.match("[a" + " " * 1_000_000 + "!") is None
    assert time.perf_counter() - started < 30
    assert text_calls(long) == text_calls(long[:100] + "!") == ((), ())
    rnd = random.Random(5)
    parts = ["[", "]", "(", ")", " ", "\t", "\n", "a", "B", "_", ".", "-", "1", "\u00e9", ",", "\u00a0", "=", "!"]
    for _ in range(20_000):
        reply = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 12)))
        assert bool(_LOOKS_PYTHONIC.match(reply)) == bool(_OLD_LOOKS_PYTHONIC.match(reply)), reply
