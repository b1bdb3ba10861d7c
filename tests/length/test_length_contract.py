"""Every length reward: bad input, pickling, names, docstring examples, the core's contract."""

import doctest
import importlib
import pickle

import pytest

import grpo_rewards_length

#: reward -> extra keyword arguments every call needs
CALLS = {
    "target": {},
    "soft_overlong": {},
    "cosine": {"correct": True},
    "group_relative": {"correct": True},
    "truncated": {},
}


def _call(name, completions, ids=None, reward=None):
    reward = reward or getattr(grpo_rewards_length, name)
    n = len(completions)
    extra = {k: [v] * n for k, v in CALLS[name].items()}
    if ids is None:
        ids = [[7] * (len(c) if isinstance(c, str) else 1) for c in completions]
    return reward(prompts=[f"q{i}" for i in range(n)], completions=completions, completion_ids=ids, **extra)


@pytest.mark.parametrize("name", list(CALLS))
def test_unreadable_completions_get_none(name):
    completions = [None, 42, [{"role": "user", "content": "hi"}], {"content": "no role"}]
    assert _call(name, completions, ids=[[1]] * 4) == [None, None, None, None]


@pytest.mark.parametrize(
    ("name", "expected"),
    [("target", -20.0), ("soft_overlong", 0.0), ("cosine", 1.0), ("group_relative", 0.0), ("truncated", 0.0)],
)
def test_empty_completion_is_length_zero(name, expected):
    # the core reads an assistant message whose content is None as empty text
    completions = ["", [{"role": "assistant", "content": ""}], [{"role": "assistant", "content": None}]]
    assert _call(name, completions, ids=[[], [], []]) == [expected] * 3


@pytest.mark.parametrize(
    ("name", "expected"),
    [("target", -999980.0), ("soft_overlong", -1.0), ("cosine", 0.5), ("group_relative", 0.0), ("truncated", -1.0)],
)
def test_one_megabyte_completion_gets_its_long_value(name, expected):
    assert _call(name, ["a" * 1_000_000]) == [expected]


@pytest.mark.parametrize("name", list(CALLS))
def test_pickle_round_trip_keeps_name_and_values(name):
    reward = getattr(grpo_rewards_length, name)
    twin = pickle.loads(pickle.dumps(reward))
    assert twin.__name__ == reward.__name__ == f"length.{name}"
    completions = ["ab", "abcdef" * 100, [{"role": "assistant", "content": "xyz"}]]
    assert _call(name, completions, reward=twin) == _call(name, completions, reward=reward)


@pytest.mark.parametrize(
    ("factory", "params"),
    [
        ("make_target", {"target": 5, "unit": "words", "tolerance": 1, "normalise": True}),
        ("make_soft_overlong", {"max_length": 10, "buffer": 5}),
        ("make_cosine", {"max_length": 10, "max_value_correct": 2.0}),
        ("make_group_relative", {"unit": "chars"}),
        ("make_truncated", {"max_length": 3, "eos_token_ids": [7], "penalty": -0.5}),
    ],
)
def test_factory_rewards_with_parameters_pickle(factory, params):
    reward = getattr(grpo_rewards_length, factory)(**params)
    twin = pickle.loads(pickle.dumps(reward))
    assert twin.params == params
    name = factory.removeprefix("make_")
    completions = ["a b c", "a" * 12, [{"role": "assistant", "content": "xyz"}]]
    assert _call(name, completions, reward=twin) == _call(name, completions, reward=reward)


def test_factories_take_a_metric_name_so_two_variants_can_coexist():
    short = grpo_rewards_length.make_target(target=10, metric="length_short")
    long = grpo_rewards_length.make_target(target=100, metric="length_long")
    assert (short.__name__, long.__name__) == ("length_short", "length_long")
    assert short.name == long.name == "length.target"


@pytest.mark.parametrize("module", ["target_length", "overlong", "cosine_length", "group", "truncation", "hacks", "__init__"])
def test_docstring_examples_run(module):
    mod = importlib.import_module("grpo_rewards_length" if module == "__init__" else f"grpo_rewards_length.{module}")
    result = doctest.testmod(mod)
    assert result.attempted > 0
    assert result.failed == 0


#: reward -> (units, output range, sample column values) for the core's contract check
CONTRACT = {
    "target": ("chars", None, {}),
    "soft_overlong": ("tokens", (-1.0, 0.0), {}),
    "cosine": ("tokens", (-1.0, 1.0), {"correct": 1.0}),
    "group_relative": ("tokens", (-0.5, 0.5), {"correct": 0.0}),
    "truncated": ("tokens", (-1.0, 0.0), {}),
}


@pytest.mark.parametrize("name", list(CONTRACT))
def test_module_level_reward_keeps_the_core_contract(name):
    from grpo_rewards.testing import assert_reward_contract

    units, output_range, columns = CONTRACT[name]
    assert_reward_contract(getattr(grpo_rewards_length, name), units=units, output_range=output_range,
                           columns=columns)


@pytest.mark.parametrize("name", list(CONTRACT))
def test_registered_reward_keeps_the_core_contract_with_its_declared_units_and_range(name):
    from grpo_rewards.testing import assert_reward_contract

    assert_reward_contract(f"length.{name}", columns=CONTRACT[name][2], pathological=False)
