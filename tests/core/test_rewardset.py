"""Reward sets: parsed from YAML or dicts, validated whole, resolved for GRPOConfig."""

from __future__ import annotations

import functools

import pytest

from grpo_rewards import RewardSetError, load_reward_set


def test_yaml_set_resolves_into_reward_funcs_and_weights(registry, tmp_path):
    path = tmp_path / "set.yaml"
    path.write_text(
        "rewards:\n"
        "  - use: fixture.shout\n"
        "    weight: 1.0\n"
        "  - use: fixture.offset\n"
        "    weight: 0.25\n"
        "    with: {offset: 2}\n"
        "    as: offset_len\n"
    )
    rs = load_reward_set(path, registry=registry)
    assert rs.metrics == ["fixture.shout", "offset_len"]
    assert rs.reward_weights == [1.0, 0.25]
    assert [f.__name__ for f in rs.reward_funcs] == ["fixture.shout", "offset_len"]
    assert rs.reward_funcs[1](prompts=["p"], completions=["abc"]) == [5.0]
    assert rs.total([1.0, 5.0]) == 2.25


def test_every_problem_is_reported_at_once(registry):
    spec = {"rewards": [
        {"use": "fixture.shuot"},
        {"use": "fixture.shout", "with": {"bonus": "high", "volume": 11}},
        {"use": "fixture.offset", "with": {"offset": -1}},
        {"use": "fixture.matches", "weight": "heavy", "colour": "red"},
        {"use": "fixture.shout", "on_error": "ignore"},
    ]}
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry, columns=["prompt"])
    assert err.value.problems == [
        "entry 1: unknown reward 'fixture.shuot' (did you mean 'fixture.shout'?).",
        "entry 2 (fixture.shout): parameter 'bonus' must be float, got 'high'",
        "entry 2 (fixture.shout): unknown parameter 'volume' (parameters: bonus)",
        "entry 3 (fixture.offset): ValueError: offset must be >= 0, got -1",
        "entry 4 (fixture.matches): unknown key(s) colour (allowed: as, error_value, execution, inputs, invalid_value, "
        "max_chars, max_memory, on_error, timeout, timeout_value, too_large_value, use, weight, with, workers)",
        "entry 4 (fixture.matches): weight must be a number, got 'heavy'",
        "entry 5 (fixture.shout): on_error must be one of raise, none, got 'ignore'",
        "metric name 'fixture.shout' is used by entry 2 (fixture.shout) and entry 5 (fixture.shout); "
        "give each an 'as:' name",
        "entry 4 (fixture.matches): needs dataset column(s) 'solution'; the dataset has: prompt. "
        "'grpo-rewards show fixture.matches' describes the columns it reads",
    ]


def test_a_parameter_value_the_factory_rejects_is_a_setup_error(registry):
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "fixture.offset", "with": {"offset": -1}}], registry=registry)
    assert err.value.problems == ["entry 1 (fixture.offset): ValueError: offset must be >= 0, got -1"]


def test_inputs_must_name_an_entry_and_must_not_cycle(registry):
    spec = [
        {"use": "fixture.shout", "as": "a", "inputs": {"x": "b"}},
        {"use": "fixture.shout", "as": "b", "inputs": {"y": "a"}},
        {"use": "fixture.shout", "as": "c", "inputs": {"z": "nope"}},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry)
    assert err.value.problems == [
        "entry 3 (fixture.shout): inputs.z names 'nope', not an entry of this set",
        "inputs form a cycle: a -> b -> a",
    ]


def test_a_reward_uses_another_rewards_result_without_computing_it_twice(registry, monkeypatch):
    import grpo_rewards_fixture_good as good

    calls = []
    original = good.shout

    def counting_shout(text, **row):
        calls.append(text)
        return original(text, **row)

    monkeypatch.setattr(registry.rewards["fixture.shout"], "_scorer", counting_shout)
    spec = [
        {"use": "fixture.matches", "as": "loud_match", "inputs": {"solution": "loud"}},
        {"use": "fixture.shout", "as": "loud"},
    ]
    rs = load_reward_set(spec, registry=registry, columns=["prompt"])
    prompts, completions = ["p", "p"], ["A", "b"]
    first = rs.reward_funcs[0](prompts=prompts, completions=completions)
    second = rs.reward_funcs[1](prompts=prompts, completions=completions)
    assert second == [1.0, 0.0]
    assert first == [0.0, 0.0]  # "A" != "1.0": the solution column holds loud's values
    assert calls == ["A", "b"]  # computed once, reused by the second call


def test_empty_or_malformed_sets_are_errors(registry, tmp_path):
    with pytest.raises(RewardSetError, match="non-empty list"):
        load_reward_set({"rewards": []}, registry=registry)
    bad = tmp_path / "bad.yaml"
    bad.write_text("rewards: [use: {\n")
    with pytest.raises(RewardSetError, match="not valid YAML"):
        load_reward_set(bad, registry=registry)
    with pytest.raises(RewardSetError, match="file not found"):
        load_reward_set(str(tmp_path / "missing.yaml"), registry=registry)


def test_manifest_records_resolved_parameters_and_plugin_versions(registry):
    rs = load_reward_set([{"use": "fixture.shout", "weight": 0.5}], registry=registry)
    assert rs.manifest() == [{
        "name": "fixture.shout", "use": "fixture.shout", "weight": 0.5, "params": {"bonus": 0.0},
        "inputs": {}, "options": {}, "plugin": "fixture", "distribution": "grpo-rewards-fixture-good",
        "version": "1.2.3",
    }]


def test_manifest_records_the_options_each_reward_runs_with(registry):
    rs = load_reward_set([{"use": "fixture.sleepy", "workers": 2}], registry=registry)
    assert rs.manifest()[0]["options"] == {"timeout": 0.5, "workers": 2}


def test_execution_options_reach_the_reward(registry):
    rs = load_reward_set([{"use": "fixture.sleepy", "timeout": 0.3, "timeout_value": -1.0}], registry=registry)
    assert rs.rewards[0](prompts=["p", "p"], completions=["spin", "ab"]) == [-1.0, 2.0]


def test_option_errors_are_found_in_the_same_pass_and_labelled_like_the_rest(registry):
    spec = [
        {"use": "fixture.shout", "max_chars": -1, "with": {"volume": 1}},
        {"use": "fixture.offset", "workers": -3, "as": "o"},
        {"use": "fixture.sleepy", "timeout": 0},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry)
    assert err.value.problems == [
        "entry 1 (fixture.shout): unknown parameter 'volume' (parameters: bonus)",
        "entry 1 (fixture.shout): max_chars must be an integer >= 1 or None, got -1",
        "entry 2 (fixture.offset): workers must be an integer >= 1 or None, got -3",
        "entry 3 (fixture.sleepy): timeout must be a positive number or None, got 0",
    ]


def test_a_timeout_on_a_reward_registered_worker_unsafe_is_refused_at_validation():
    from grpo_rewards import hookimpl
    from grpo_rewards.testing import plugin_registered

    class Plugin:
        @hookimpl
        def register_rewards(self, register):
            register("local", _length, worker_safe=False)

    with plugin_registered(Plugin(), "demo"), pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "demo.local", "timeout": 2}])
    assert err.value.problems == [
        "entry 1 (demo.local): timeout needs worker processes, and this reward is registered worker_safe=False "
        "(its code cannot run in one); remove the timeout"]


def _length(text, **row):
    return float(len(text))


def test_a_dataset_column_named_like_a_parameter_is_reported_and_the_parameter_wins(registry):
    spec = [{"use": "fixture.shout", "with": {"bonus": 0.5}}]
    with pytest.warns(UserWarning, match=r"entry 1 \(fixture.shout\): dataset column\(s\) 'bonus' have the name"):
        reward = load_reward_set(spec, registry=registry, columns=["prompt", "bonus"]).rewards[0]
    assert reward(prompts=["p"], completions=["HI"], bonus=[100.0]) == [1.5]


def test_a_failing_entry_used_by_anothers_inputs_is_reported_once(registry):
    spec = [
        {"use": "fixture.offset", "with": {"offset": -1}, "max_chars": -1, "as": "base"},
        {"use": "fixture.matches", "inputs": {"solution": "base"}},
        {"use": "fixture.shout", "inputs": {"base": "base"}},
    ]
    with pytest.raises(RewardSetError) as err:
        load_reward_set(spec, registry=registry, columns=["prompt"])
    assert err.value.problems == [
        "entry 1 (fixture.offset): max_chars must be an integer >= 1 or None, got -1",
        "entry 1 (fixture.offset): ValueError: offset must be >= 0, got -1",
    ]


def test_a_billion_laughs_file_gives_a_short_error_quickly(registry, tmp_path):
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = tmp_path / "laughs.yaml"
    path.write_text("\n".join(lines) + "\nrewards:\n  - *a9\n  - use: fixture.shout\n    weight: *a9\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(path, registry=registry)
    assert len(str(err.value)) < 600
    assert err.value.problems == ["unknown top-level key(s) 'a0', 'a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7', 'a8', "
                                  "'a9' (allowed: rewards, execution, concurrent)"]


def test_file_errors_are_one_line_naming_the_file(registry, tmp_path):
    folder = tmp_path / "sets"
    folder.mkdir()
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"rewards: [caf\xe9]")
    bad = tmp_path / "bad.yaml"
    bad.write_text("rewards: [a\n  - b: c")
    messages = {}
    for path in (tmp_path / "none.yaml", folder, latin, bad):
        with pytest.raises(RewardSetError) as err:
            load_reward_set(path, registry=registry)
        messages[path.name] = str(err.value)
    assert messages == {
        "none.yaml": f"{tmp_path / 'none.yaml'}: file not found",
        "sets": f"{folder}: not a file (expected a YAML file with a 'rewards:' list)",
        "latin.yaml": f"{latin}: not UTF-8 text: invalid continuation byte at byte 13",
        "bad.yaml": messages["bad.yaml"],
    }
    assert messages["bad.yaml"].startswith(f"{bad}: not valid YAML: ") and "\n" not in messages["bad.yaml"]


def test_a_dataset_column_named_like_a_parameter_is_a_warning_for_class_and_function_rewards(registry):
    with pytest.warns(UserWarning) as caught:
        rs = load_reward_set([{"use": "fixture.offset"}, {"use": "fixture.shout"}], registry=registry,
                             columns=["prompt", "offset", "bonus"])
    assert rs.metrics == ["fixture.offset", "fixture.shout"]  # a warning: another reward may read the column
    assert [str(w.message) for w in caught] == [
        f"reward set: entry {i} ({name}): dataset column(s) {column!r} have the name of a parameter of {name}; "
        "this reward uses the parameter's value, not the column (rename the column if it should read it)"
        for i, name, column in [(1, "fixture.offset", "offset"), (2, "fixture.shout", "bonus")]]


def longest(prompts, completions, completion_ids=None, **kwargs):
    """1.0 for the longest completion of the batch, else 0.0 (a plain TRL reward function)."""
    lengths = [len(c) for c in completions]
    return [float(n == max(lengths)) for n in lengths]


def test_with_functions_gives_the_sets_rewards_then_the_added_ones_with_their_weights(registry):
    rs = load_reward_set([{"use": "fixture.shout"}, {"use": "fixture.offset", "weight": 0.25}], registry=registry)
    funcs, weights = rs.with_functions(longest, weights=[2])
    assert (funcs, weights) == ([*rs.reward_funcs, longest], [1.0, 0.25, 2.0])
    assert rs.with_functions(longest)[1] == [1.0, 0.25, 1.0]
    with pytest.raises(ValueError, match=r"^weights: 2 weight\(s\) for 1 function\(s\)$"):
        rs.with_functions(longest, weights=[1.0, 2.0])


def test_with_functions_refuses_a_function_named_like_a_reward_of_the_set(registry):
    from grpo_rewards import get_reward

    rs = load_reward_set([{"use": "fixture.shout"}, {"use": "fixture.offset", "as": "longest"}], registry=registry)
    with pytest.raises(RewardSetError) as err:
        rs.with_functions(get_reward("fixture.shout", registry=registry), functools.partial(longest))
    assert err.value.problems == [
        f"the reward functions entry {i} ({use}) of the set and added function {j} are both named {name!r}: TRL "
        f"would log them as one rewards/{name}/* series and average their outcome counts; give one another name "
        "('as:' in a reward set, metric= when you make the function)"
        for i, use, j, name in [(1, "fixture.shout", 1, "fixture.shout"), (2, "fixture.offset", 2, "longest")]]


def test_with_functions_refuses_what_is_not_callable(registry):
    rs = load_reward_set([{"use": "fixture.shout"}], registry=registry)
    with pytest.raises(RewardSetError) as err:
        rs.with_functions([longest], "longest", weights=[1.0, float("inf")])
    assert err.value.problems == [
        f"added function 1 is a list ([{longest!r}]), not callable (pass the functions themselves: "
        "with_functions(*list))",
        "added function 2 is a str ('longest'), not callable",
        "weight 2 must be a finite number, got inf"]


@pytest.mark.parametrize("weight", [".nan", ".inf", "-.inf"])
def test_a_weight_that_is_not_finite_is_refused(registry, tmp_path, weight):
    path = tmp_path / "set.yaml"
    path.write_text(f"rewards:\n  - use: fixture.shout\n    weight: {weight}\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(str(path), registry=registry)
    value = {".nan": "nan", ".inf": "inf", "-.inf": "-inf"}[weight]
    assert err.value.problems == [f"entry 1 (fixture.shout): weight must be a finite number, got {value}"]


def test_an_unknown_parameter_suggests_the_closest_one(registry):
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "fixture.shout", "with": {"bonsu": 1.0}}], registry=registry)
    assert err.value.problems == [
        "entry 1 (fixture.shout): unknown parameter 'bonsu' (did you mean 'bonus'?) (parameters: bonus)"]


def test_a_missing_column_another_entry_can_fill_points_at_inputs_as_the_rewards_example_does():
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "length.cosine", "with": {"max_length": 64}}], columns=["prompt", "solution"])
    assert err.value.problems == [
        "entry 1 (length.cosine): needs dataset column(s) 'correct'; the dataset has: prompt, solution. To read "
        "another column, set correct_column (with: {correct_column: NAME} in a reward set, correct_column=NAME in "
        "Python); or fill it from another entry's values, as in inputs: {correct: math.accuracy}"]


def test_a_set_file_that_repeats_a_key_is_refused_naming_the_line(registry, tmp_path):
    # PyYAML keeps the last of two equal keys: this entry would have trained at weight 0
    path = tmp_path / "set.yaml"
    path.write_text("rewards:\n  - use: fixture.shout\n    weight: 1\n    weight: 0\n")
    with pytest.raises(RewardSetError) as err:
        load_reward_set(path, registry=registry)
    assert str(err.value) == f"{path}: not valid YAML: duplicate key 'weight' at line 4, column 5"
    path.write_text("rewards:\n  - use: fixture.shout\nrewards:\n  - use: fixture.offset\n")
    with pytest.raises(RewardSetError, match="duplicate key 'rewards' at line 3, column 1"):
        load_reward_set(path, registry=registry)


def test_a_number_with_an_exponent_is_a_number_in_a_set_file(registry, tmp_path):
    # YAML 1.1 (PyYAML) reads 5e-1 and 2.5e1 as text, and the weight check then refused a number
    path = tmp_path / "set.yaml"
    path.write_text("rewards:\n  - use: fixture.shout\n    weight: 5e-1\n"
                    "  - use: fixture.offset\n    weight: 2.5e1\n    with: {offset: 1}\n")
    assert load_reward_set(path, registry=registry).reward_weights == [0.5, 25.0]
    path.write_text("rewards:\n  - use: fixture.shout\n    weight: 1e400\n")
    with pytest.raises(RewardSetError, match="weight must be a finite number, got inf"):
        load_reward_set(path, registry=registry)
