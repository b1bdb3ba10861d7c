"""The typed JSON of a row's entry: every type reasoning-gym's metadata holds comes back as it was."""

from __future__ import annotations

import json

import pytest

from grpo_rewards_gym import codec


@pytest.mark.parametrize("value", [
    {"grid": ((1, 2), (3, 4)), "pairs": [(0, "a")]},
    {3: "int key", (1, 2): "tuple key", "s": {"x", "y"}, "f": frozenset({1})},
    {"__tuple__": [1, 2]},                      # a dict that looks like a marker stays a dict
    [None, True, 1.5, "ü", float("inf")],
])
def test_values_come_back_equal_and_of_the_same_types(value):
    back = codec.loads(codec.dumps(value))
    assert back == value and _types(back) == _types(value)


def _types(value):
    """The value's structure with every leaf and container replaced by its type (dict keys kept)."""
    if isinstance(value, dict):
        return (dict, sorted(((repr(k), type(k), _types(v)) for k, v in value.items()), key=repr))
    if isinstance(value, (list, tuple)):
        return (type(value), [_types(v) for v in value])
    if isinstance(value, (set, frozenset)):
        return (type(value), sorted(repr(_types(v)) for v in value))
    return type(value)


def test_tuples_inside_lists_stay_tuples_and_the_text_is_plain_json():
    text = codec.dumps({"g": [(1, 2)]})
    assert json.loads(text) == {"g": [{"__tuple__": [1, 2]}]}
    assert isinstance(codec.loads(text)["g"][0], tuple)


def test_numpy_scalars_and_arrays_become_plain_values():
    np = pytest.importorskip("numpy")
    back = codec.loads(codec.dumps({"name": np.str_("Ann"), "n": np.int64(3), "a": np.array([[1, 2]])}))
    assert back == {"name": "Ann", "n": 3, "a": [[1, 2]]} and type(back["name"]) is str and type(back["n"]) is int


def test_an_object_json_cannot_hold_is_a_clear_error():
    with pytest.raises(TypeError, match=r"cannot store a builtins.object in a gym row"):
        codec.dumps({"x": object()})
