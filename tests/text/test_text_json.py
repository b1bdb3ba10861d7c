"""text.json: extraction, parsing, validation equal to jsonschema's, partial credit as documented, bad input."""

from __future__ import annotations

import json
import random
import re
import time

import jsonschema
import pytest

from grpo_rewards.jsonschemas import validator
from grpo_rewards_text import Json
from grpo_rewards_text.parsing import find_data
from grpo_rewards_text.schema import credit

PERSON = {"type": "object", "required": ["name", "age"], "additionalProperties": False,
          "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0},
                         "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3}}}
INSTANCES = [
    {"name": "Ada", "age": 36}, {"name": "Ada", "age": 36, "tags": ["x", "y"]}, {"name": "", "age": 36},
    {"name": "Ada", "age": -1}, {"name": "Ada", "age": 3.5}, {"name": "Ada"}, {}, [], "Ada", 36, None,
    {"name": "Ada", "age": 36, "tags": ["a", "b", "c", "d"]}, {"name": "Ada", "age": 36, "tags": [1]},
    {"name": "Ada", "age": 36, "extra": True}, {"name": "Ada", "age": True}, {"name": "Zoë 🙂", "age": 0},
]
SCHEMAS = [
    PERSON,
    {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "minItems": 2},
    {"$defs": {"pos": {"type": "integer", "exclusiveMinimum": 0}}, "type": "object",
     "properties": {"age": {"$ref": "#/$defs/pos"}}, "required": ["age"]},
    {"anyOf": [{"type": "string", "maxLength": 3}, {"type": "integer"}]},
    {"$schema": "http://json-schema.org/draft-07/schema#", "type": "array", "items": [{"type": "string"}],
     "additionalItems": False},
    {"type": "object", "allOf": [{"required": ["name"]}, {"properties": {"name": {"enum": ["Ada", "Alan"]}}}]},
]


@pytest.mark.parametrize("schema", SCHEMAS, ids=["person", "prefix_items", "ref", "any_of", "draft7_tuple", "all_of"])
@pytest.mark.parametrize("instance", INSTANCES, ids=[json.dumps(i, ensure_ascii=True)[:30] for i in INSTANCES])
def test_validity_is_jsonschemas_and_partial_credit_is_one_exactly_when_valid(schema, instance):
    valid = jsonschema.validators.validator_for(schema)(schema).is_valid(instance)
    reply = json.dumps(instance, ensure_ascii=False)
    binary = Json(schema=schema)(reply)
    partial = Json(schema=schema, credit="partial")(reply)
    assert binary == ((1.0, "valid") if valid else (0.0, "invalid"))
    assert partial[1] == binary[1]
    assert (partial[0] == 1.0) == valid and 0.0 <= partial[0] <= 1.0


@pytest.mark.parametrize(("instance", "expected"), [
    ({"name": "Ada", "age": 36}, (8, 8)),                    # type, required x2, additionalProperties, name x2, age x2
    ({"name": "Ada", "age": -1}, (7, 8)),                    # minimum fails
    ({"name": "", "age": 3.5}, (6, 8)),                      # minLength and type fail
    ({"name": "Ada"}, (5, 8)),                               # required age fails, and its 2 constraints count as failed
    ({}, (2, 8)),                                            # only type and additionalProperties hold
    ({"name": "Ada", "age": 36, "tags": ["a", 1]}, (11, 12)),  # tags: type, maxItems, 2 x items.type (one fails)
    ({"name": "Ada", "age": 36, "x": 1}, (7, 8)),            # additionalProperties: false fails once
    ("Ada", (0, 1)),                                         # type fails; properties/required do not apply to a string
])
def test_partial_credit_counts_constraints_as_documented(instance, expected):
    assert credit(validator(PERSON), instance) == expected


def test_a_fenced_block_is_read_and_the_last_one_wins():
    score = Json(schema=PERSON)
    assert score('Here:\n```json\n{"name": "Ada", "age": 36}\n```\nDone.') == (1.0, "valid")
    assert score('```json\n{"name": "Ada", "age": 36}\n```\n```\n{"age": 1}\n```') == (0.0, "invalid")
    assert score('```python\nprint(1)\n```') == (0.0, "unparsable")  # a Python block is not the data: whole reply
    assert Json(schema=PERSON, source="fenced")('{"name": "Ada", "age": 36}') == (0.0, "no_json")


def test_json_inside_prose_is_unparsable_and_an_empty_reply_has_no_json():
    assert Json(schema=PERSON)('Sure! {"name": "Ada", "age": 36}') == (0.0, "unparsable")
    assert Json(schema=PERSON)("   ") == (0.0, "no_json")


def test_yaml_and_toml_are_read_as_the_format_parameter_says():
    assert Json(schema=PERSON, format="yaml")("name: Ada\nage: 36\n") == (1.0, "valid")
    assert Json(schema=PERSON, format="yaml")("```yaml\nname: Ada\nage: -2\n```") == (0.0, "invalid")
    assert Json(schema=PERSON, format="toml")('name = "Ada"\nage = 36\n') == (1.0, "valid")
    assert Json(schema=PERSON, format="toml")('name = "Ada"\nage = ') == (0.0, "unparsable")
    dated = {"type": "object", "properties": {"born": {"type": "string"}}}
    assert Json(schema=dated, format="yaml")("born: 1815-12-10\n") == (1.0, "valid")  # a YAML date is an ISO string


def test_the_schema_comes_from_the_row_as_a_dict_or_json_text():
    score = Json()
    assert score('{"name": "Ada", "age": 36}', schema=PERSON) == (1.0, "valid")
    assert score('{"name": "Ada", "age": 36}', schema=json.dumps(PERSON)) == (1.0, "valid")
    assert score('{"name": "Ada"}', schema=json.dumps(PERSON)) == (0.0, "invalid")
    assert score('{"name": "Ada"}') == (None, "no_schema")
    assert Json(schema_column="spec")('{"name": "Ada", "age": 1}', spec=PERSON) == (1.0, "valid")


def test_the_first_failing_path_is_in_the_outcome_details():
    details = Json(schema=PERSON, credit="partial").explain('{"name": "Ada", "age": 36, "tags": ["a", 7]}')
    assert details == {"value": 11 / 12, "label": "invalid", "path": "$.tags[1]", "error": "7 is not of type 'string'",
                       "constraints": "11/12"}


def test_fields_are_compared_with_the_reference_object():
    score = Json(schema=PERSON, reference_column="reference")
    gold = {"name": "Ada Lovelace", "age": 36}
    assert score('{"name": "Ada Lovelace", "age": 36}', reference=gold) == (1.0, "valid")
    assert score('{"name": "Ada", "age": 36}', reference=gold) == (0.5, "valid")
    assert score('{"name": "Ada Lovelace", "age": 36.0}', reference=json.dumps(gold)) == (1.0, "valid")  # 36.0 == 36
    assert score('{"name": "Ada Lovelace", "age": "36"}', reference=gold) == (0.0, "invalid")
    f1 = Json(schema=PERSON, reference_column="reference", field_match="f1")
    assert f1('{"name": "Ada", "age": 36}', reference=gold) == ((2 / 3 + 1) / 2, "valid")
    assert score('{"name": "Ada", "age": 36}', reference="not json") == (None, "no_reference")


def test_a_bad_schema_parameter_is_refused_when_the_reward_is_built():
    with pytest.raises(ValueError, match="not a valid Draft202012 schema"):
        Json(schema={"type": "strin"})
    with pytest.raises(ValueError, match=r"remote \$ref 'https://example.com/person.json' is never fetched"):
        Json(schema={"$ref": "https://example.com/person.json"})


def test_a_remote_ref_in_a_row_schema_is_never_fetched():
    started = time.perf_counter()
    result = Json().evaluate('{"a": 1}', schema={"properties": {"a": {"$ref": "http://10.255.255.1/s.json"}}})
    assert result["label"] == "bad_schema" and result["value"] is None
    assert "never fetched" in result["error"]
    assert time.perf_counter() - started < 5.0  # no connection was tried (a real fetch of that address hangs)


def test_a_schema_nested_past_the_recursion_limit_is_a_bad_schema():
    result = Json().evaluate('{"x": 1}', schema="[" * 100_000)
    assert (result["value"], result["label"]) == (None, "bad_schema")
    assert result["error"] == "the schema is not JSON: JSON nested too deeply to read (deeper than Python's recursion limit)"


def test_a_ref_cycle_is_a_bad_schema_not_a_hang():
    cycle = {"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}
    assert Json()('{"x": 1}', schema=cycle) == (None, "bad_schema")
    assert Json(credit="partial")('{"x": 1}', schema={"$ref": "#"}) == (None, "bad_schema")


def test_a_recursive_schema_that_consumes_input_still_validates():
    tree = {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#"}}}}
    reply = json.dumps({"children": [{"children": [{"children": []}]}]})
    assert Json(schema=tree, credit="partial")(reply) == (1.0, "valid")


@pytest.mark.parametrize(("reply", "fmt"), [
    ("[" * 100_000 + "]" * 100_000, "json"),
    ('{"a": ' * 70 + "1" + "}" * 70, "json"),                          # parses, but deeper than 64 levels
    ("[" * 50_000, "yaml"),
    ("a = " + "[" * 50_000 + "]" * 50_000, "toml"),
    ("\n".join(["a: &a [x, x, x, x, x, x, x, x, x]"] + [f"{c}: &{c} [{', '.join(['*' + p] * 9)}]"
                                                       for p, c in zip("abcdefgh", "bcdefghi")]), "yaml"),
    ('{"a": NaN}', "json"), ('{"a": Infinity}', "json"), ("{1: 2}", "yaml"),
])
def test_bombs_and_non_json_values_are_unparsable(reply, fmt):
    started = time.perf_counter()
    assert Json(schema=True, format=fmt)(reply) == (0.0, "unparsable")
    assert time.perf_counter() - started < 30.0  # bounded: the alias bomb would expand to 387 million values


def test_invalid_utf8_is_read_with_replacement_characters():
    assert Json(schema={"type": "object"})('{"name": "caf\udce9"}') == (1.0, "valid")


def test_a_one_megabyte_reply_is_not_read_through_the_registered_reward():
    from grpo_rewards_text import json as json_reward

    huge = '{"name": "' + "a" * 1_000_000 + '", "age": 1}'
    assert json_reward.score(prompts=[None], completions=[huge], schema=[PERSON]).labels == ["too_large"]


def test_brackets_inside_strings_do_not_count_as_nesting():
    reply = json.dumps({"name": "[" * 100 + '\\"{' * 100, "age": 1})
    assert Json(schema=PERSON)(reply) == (1.0, "valid")


#: The fence regex find_data used before fenced_blocks (the reference for its values).
_FENCE_REGEX = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)[^\n]*\n(.*?)```", re.DOTALL)


class _CountedFinds(str):
    """A reply that counts the characters its ``find`` calls pass over (the same on any machine)."""

    read = 0

    def find(self, sub, start=0, end=None):  # type: ignore[override]
        found = str.find(self, sub, start, end)
        _CountedFinds.read += (len(self) if found < 0 else found) - start
        return found


def test_a_reply_of_unclosed_fences_is_read_in_linear_time():
    # ``` repeated with no newline after it: the fence regex read on to the end from every ``` (about a
    # minute at the 200,000 characters text.json reads); the scan now reads each character about once,
    # through str.find (0 reads through find was the regex's own scan)
    reply = "```" * 66_000 + "\n[1]"
    _CountedFinds.read = 0
    assert find_data(_CountedFinds(reply), "json", "auto") == reply
    assert 0 < _CountedFinds.read <= 2 * len(reply)
    assert Json(schema={"type": "array"})(reply) == (0.0, "unparsable")


@pytest.mark.parametrize("unit", ["```", "```a", "``` ```\n", "```\n```json\n", "```\n"])
def test_fenced_blocks_are_found_reading_each_character_about_once(unit):
    from grpo_rewards_text.parsing import fenced_blocks

    # the fence regex retried every ``` of a line without a newline after it (or of an opening without
    # a closing after it), each time reading on to the end: ``` repeated over the 200,000 characters
    # text.json reads took about a minute, in the training process
    for n in (1_000, 2_000, 4_000, 66_000):
        reply = _CountedFinds(unit * n + "a")
        _CountedFinds.read = 0
        blocks = fenced_blocks(reply)
        if n < 10_000:  # the regex itself takes seconds past that
            assert blocks == [(m.group(1), m.group(2)) for m in _FENCE_REGEX.finditer(reply)]
        assert 0 < _CountedFinds.read <= 2 * len(reply)


def test_fenced_blocks_are_the_fence_regexs_matches():
    from grpo_rewards_text.parsing import fenced_blocks

    rnd = random.Random(7)
    parts = ["`", "``", "```", "\n", "\r\n", "a", " ", "\t", "json", "YAML", "x-1.y+", "{}", "é", "```json\n", "\n```"]
    for _ in range(20_000):
        reply = "".join(rnd.choice(parts) for _ in range(rnd.randint(0, 24)))
        assert fenced_blocks(reply) == [(m.group(1), m.group(2)) for m in _FENCE_REGEX.finditer(reply)], reply


def test_an_integer_json_schema_cannot_divide_is_an_invalid_reply_not_a_bad_schema_or_an_exception():
    # jsonschema's multipleOf divides by the float 0.01 and overflows: it was labelled bad_schema (None, the row's
    # fault), and with partial credit the walk raised OverflowError out of the reward
    from grpo_rewards_text.structured import Json

    schema = {"type": "object", "properties": {"x": {"type": "number", "multipleOf": 0.01}, "y": {"type": "string"}}}
    reply = '{"x": ' + "9" * 4000 + ', "y": "a"}'
    assert Json()(reply, schema=schema) == (0.0, "invalid")
    assert Json(credit="partial")(reply, schema=schema) == (0.75, "invalid")
    assert Json().evaluate(reply, schema=schema)["error"] == (
        "a number the schema's checks cannot compute with (an integer past a float's range)")
