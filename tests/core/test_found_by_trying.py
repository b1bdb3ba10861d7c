"""Inputs found by trying the core, each with the defined answer it now gives (each failed before)."""

from __future__ import annotations

import pytest

from grpo_rewards import Reward, RewardError, RewardSetError, get_plugins, hookimpl, load_reward_set
from grpo_rewards.execution.pool import capped_workers, usable_cpus
from grpo_rewards.plugin.allowlist import read_allow_list
from grpo_rewards.registry import Registry


def huge_integer(text: str, **row: object) -> int:
    return 10**400


def test_an_integer_too_large_for_a_float_is_an_invalid_value_under_on_error_none():
    reward = Reward(huge_integer, metric="huge", on_error="none", error_value=-1.0)
    result = reward.score(prompts=["p"], completions=["x"])
    assert (result.values, result.labels) == ([-1.0], ["error"])


def test_an_integer_too_large_for_a_float_names_the_reward_and_sample_under_raise():
    with pytest.raises(RewardError) as err:
        Reward(huge_integer, metric="huge")(prompts=["p"], completions=["x"])
    assert (err.value.reward, err.value.index) == ("huge", 0)
    assert err.value.message.endswith("too large for a float; expected a finite float or None")
    assert len(str(err.value)) < 200


class _Shout:
    @hookimpl
    def register_rewards(self, register):
        register("shout", shout)


def shout(text: str, **row: object) -> float:
    return float(text.isupper())


def _registry() -> Registry:
    plugins = get_plugins(load_entry_points=False)
    plugins.add(_Shout(), "demo")
    return Registry(plugins)


def test_ten_thousand_entries_sharing_a_metric_name_give_a_short_message():
    with pytest.raises(RewardSetError) as err:
        load_reward_set([{"use": "demo.shout"}] * 10_000, registry=_registry())
    assert err.value.problems == ["metric name 'demo.shout' is used by 10000 entries (entry 1 (demo.shout), "
                                  "entry 2 (demo.shout), entry 3 (demo.shout) and 9997 more); give each an 'as:' name"]


def test_a_long_plugin_allow_list_gives_a_short_warning():
    value = ",".join(f"plugin{i}" for i in range(30_000))
    warning = read_allow_list(value, ["format", "math"]).warning()
    assert warning is not None and len(warning) < 1000
    assert warning.startswith("GRPO_REWARDS_PLUGINS='plugin0,plugin1,plugin2,")
    assert warning.endswith(" and 29995 more; understood as: load no plugin")


def test_an_unknown_top_level_key_of_a_reward_set_is_refused_with_the_allowed_keys():
    with pytest.raises(RewardSetError) as err:
        load_reward_set({"rewards": [{"use": "demo.shout"}], "bogus": 1}, registry=_registry())
    assert err.value.problems == ["unknown top-level key(s) 'bogus' (allowed: rewards, execution, concurrent)"]
    with pytest.raises(RewardSetError) as err:  # concurrent is a key now (issue 23), and it is checked
        load_reward_set({"rewards": [{"use": "demo.shout"}], "concurrent": 1}, registry=_registry())
    assert err.value.problems == ["concurrent must be true or false, got 1"]


def test_workers_are_capped_at_twice_the_usable_cpus_with_a_warning():
    cap = 2 * usable_cpus()
    with pytest.warns(RuntimeWarning, match=f"workers={cap + 40} is more than twice"):
        assert capped_workers(cap + 40) == cap
    assert capped_workers(cap) == cap and capped_workers(1) == 1


def test_a_nested_report_to_is_a_config_problem():
    from grpo_rewards.train.checks import integration_problems

    assert integration_problems({"report_to": [["none"]]}) == [
        "grpo.report_to: expected tracker names (text), got ['none']"]
    assert integration_problems({"report_to": {"a": 1}}) == [
        "grpo.report_to: expected a tracker name or a list of them, got {'a': 1}"]


def make_rows(n: int, seed: int) -> list[dict[str, object]]:
    """Rows of a demo task."""
    return [{"prompt": "p"}] * n


class _ManyTasks:
    @hookimpl
    def register_tasks(self, register):
        for i in range(8):
            register(f"t{i}", make_rows, description=f"task number {i}")


def test_list_shows_a_count_and_the_first_tasks_and_every_task_with_tasks_or_json(capsys):
    import json

    from grpo_rewards.cli import main
    from grpo_rewards.registry import use_registry

    plugins = get_plugins(load_entry_points=False)
    plugins.add(_ManyTasks(), "many")
    with use_registry(Registry(plugins)):
        assert main(["list"]) == 0
        short = capsys.readouterr().out.splitlines()
        assert main(["list", "--tasks"]) == 0
        every = capsys.readouterr().out.splitlines()
        assert main(["list", "--json"]) == 0
        listing = json.loads(capsys.readouterr().out)
    assert short[1:] == ["  8 tasks: many:t0, many:t1, many:t2, many:t3, many:t4, ... (3 more; grpo-rewards list "
                         "--tasks shows all)"]
    assert every[1:] == [f"  {f'many:t{i}':<28} (task) task number {i}" for i in range(8)]
    assert [t["name"] for t in listing["plugins"][0]["tasks"]] == [f"many:t{i}" for i in range(8)]


def _solution_matches(text: str, solution: str, **row: object) -> tuple[float, str]:
    return (1.0, "right") if text == str(solution) else (0.0, "wrong")


def _column_kinds() -> list[tuple[str, object]]:
    """The containers a user has a column in: ``dataset["x"]`` (a datasets ``Column``), numpy, pandas, torch."""
    datasets = pytest.importorskip("datasets")
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    torch = pytest.importorskip("torch")
    ds = datasets.Dataset.from_dict({"completion": ["4", "7", "8"], "solution": ["4", "7", "9"], "n": [4, 7, 9]})
    return [("datasets.Column", (ds["completion"], ds["solution"])),
            ("numpy", (np.array(["4", "7", "8"]), np.array(["4", "7", "9"]))),
            ("pandas", (pd.Series(["4", "7", "8"], index=[9, 8, 7]), pd.Series(["4", "7", "9"], index=[2, 1, 0]))),
            ("torch", (["4", "7", "8"], torch.tensor([4, 7, 9])))]


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in process", "in workers"])
def test_columns_given_as_a_dataset_column_numpy_pandas_or_torch_score_as_lists(timeout):
    # dataset["solution"] is a datasets.Column, not a list: it was passed whole to every sample (a "needs
    # dataset column 'solution'; the batch has: none" error, or None with bad_row for a reward without
    # declared columns) instead of one item per sample
    reward = Reward(_solution_matches, metric="m", timeout=timeout)
    for kind, (completions, solutions) in _column_kinds():
        result = reward.score(prompts=None, completions=completions, solution=solutions)
        assert (result.values, result.labels) == ([1.0, 1.0, 0.0], ["right", "right", "wrong"]), kind


def test_a_batch_reward_gets_lists_for_columns_given_in_other_containers():
    seen: list[tuple[str, str]] = []

    def batch(prompts, completions, solution, **kwargs):
        seen.append((type(completions).__name__, type(solution).__name__))
        return [float(c == str(s)) for c, s in zip(completions, solution)]

    reward = Reward(batch, metric="b", form="batch")
    for kind, (completions, solutions) in _column_kinds():
        assert reward(prompts=None, completions=completions, solution=solutions) == [1.0, 1.0, 0.0], kind
    assert seen == [("list", "list")] * 4


def test_what_is_not_a_column_is_passed_on_as_it_is():
    from grpo_rewards.protocol import as_column, batch_columns

    np = pytest.importorskip("numpy")
    assert [as_column(v) for v in ("abc", b"ab", {"a": 1}, 3, None, np.float64(2.0), np.array(2.0))] == [None] * 7
    other = np.array([1, 2, 3])  # not one item per completion: not a column of this batch
    assert batch_columns(None, ["a", "b"], {"k": other})[2]["k"] is other
    calls = ["a", "b"], {"s": ["x", "y"]}
    assert batch_columns(None, *calls) == (None, *calls) and batch_columns(None, *calls)[2] is calls[1]


def test_every_kind_of_column_gives_back_the_items_it_was_built_from():
    # the family of the fix above: any items of the types columns hold, in each container a user has them in
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from lanes import examples

    from grpo_rewards.protocol import as_column, batch_columns

    datasets = pytest.importorskip("datasets")
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    torch = pytest.importorskip("torch")
    texts = st.lists(st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",))), min_size=1)
    ints = st.lists(st.integers(-(2 ** 62), 2 ** 62), min_size=1)

    @settings(max_examples=examples(25, thorough=500), deadline=None)
    @given(st.one_of(texts, ints))
    def check(items):
        holders = [datasets.Dataset.from_dict({"x": items})["x"], pd.Series(items, index=range(len(items), 0, -1)),
                   np.array(items)]  # (numpy drops a text's trailing NULs itself: none are drawn)
        holders += [torch.tensor(items)] if not isinstance(items[0], str) else []
        for holder in holders:
            assert as_column(holder) == items, type(holder)
            assert batch_columns(None, ["c"] * len(items), {"x": holder})[2]["x"] == items, type(holder)

    check()


def test_json_nested_past_the_recursion_limit_is_a_value_error_as_other_unreadable_json():
    # json.loads raises RecursionError for "[[[[...": a reward package reading a row's JSON column through
    # jsontext.loads catches ValueError (marking the row bad) and stays away from the training run's end
    from grpo_rewards import jsontext

    assert jsontext.loads('{"a": [1, 2]}') == {"a": [1, 2]}
    nested: list = []
    for _ in range(799):
        nested = [nested]
    assert jsontext.loads("[" * 800 + "]" * 800) == nested  # nested, within the limit
    with pytest.raises(ValueError) as err:
        jsontext.loads("[" * 100_000)
    assert str(err.value) == "JSON nested too deeply to read (deeper than Python's recursion limit)"
    with pytest.raises(ValueError, match="Expecting value"):
        jsontext.loads("[")


def exact(text: str, *, solution: str, **row: object) -> float:
    return float(text == solution)


@pytest.mark.parametrize(("call", "message"), [
    ({"prompts": ["p"] * 3, "completions": ["1", "2", "3"], "solution": ["1", "2"]},
     "column 'solution' holds 2 values for 3 completions"),
    ({"prompts": ["p"] * 3, "completions": ["1", "2", "3"], "solution": "1"},
     "column 'solution' holds a str, '1', for 3 completions"),
    ({"prompts": ["p"] * 2, "completions": ["1", "2", "3"], "solution": ["1", "2", "3"]},
     "prompts holds 2 values for 3 completions"),
    ({"prompts": ["p"] * 3, "completions": ["1", "2", "3"], "solution": ["1", "2", "3"], "completion_ids": [[1]]},
     "completion_ids holds 1 value for 3 completions"),
])
def test_inputs_not_one_per_completion_are_an_error_saying_so(call, message):
    # a column of another length was "missing" ("the batch has: none"), fewer prompts an IndexError, fewer
    # completion_ids silently None for the completions past them (a tokens reward measured nothing)
    with pytest.raises(RewardError) as err:
        Reward(exact, metric="exact", columns=["solution"])(**call)  # (as a plugin's registration declares it)
    assert str(err.value) == (f"reward 'exact': {message}: one value per completion is expected, as TRL passes them")


def test_a_list_of_another_length_is_an_error_for_a_reward_that_declares_no_columns():
    # (it was left out of the rows: the scorer's default took its place, or a TypeError named the argument)
    with pytest.raises(RewardError) as err:
        Reward(exact, metric="exact")(prompts=["p"] * 3, completions=["1", "2", "3"], solution=("1", "2"))
    assert str(err.value) == ("reward 'exact': column 'solution' holds 2 values for 3 completions: one value per "
                              "completion is expected, as TRL passes them")


def test_a_list_of_another_length_is_an_error_for_a_batch_reward_too():
    # (a batch scorer got it as it was: instructions paid None to every completion, text.fuzzy said "the batch has:
    # none")
    rewards = load_reward_set({"rewards": [{"use": "length.group_relative"}]})
    with pytest.raises(RewardError) as err:
        rewards.reward_funcs[0](prompts=["p"] * 3, completions=["a", "bb", "ccc"], correct=[True, False])
    assert str(err.value) == ("reward 'length.group_relative': column 'correct' holds 2 values for 3 completions: one "
                              "value per completion is expected, as TRL passes them")


def test_json_nested_to_any_depth_reads_or_is_a_value_error():
    # the family of the "[[[[..." rows: any mix of arrays and objects at any depth, closed or cut short, is its value
    # or a ValueError, never RecursionError (json's own limit is the interpreter's recursion limit, ~1,000 here)
    from hypothesis import given, settings
    from hypothesis import strategies as st
    from lanes import examples

    from grpo_rewards import jsontext

    pairs = [("[", "]"), ('{"k": ', "}"), ("[1, ", "]"), ('{"a": [', "]}")]

    @settings(max_examples=examples(60, thorough=1000), deadline=None)
    @given(st.lists(st.sampled_from(pairs), min_size=1, max_size=4), st.integers(1, 60_000), st.booleans())
    def check(kinds, depth, closed):
        chosen = [kinds[i % len(kinds)] for i in range(depth)]
        text = "".join(o for o, _ in chosen) + ("1" + "".join(c for _, c in reversed(chosen)) if closed else "")
        try:
            value = jsontext.loads(text)
        except ValueError:
            assert not closed or depth > 200  # (valid and shallow: it must read)
            return
        assert closed
        for opener, _ in chosen:  # the value has the shape written
            value = value[-1] if opener.startswith("[") else value[next(iter(value))]
            if opener == '{"a": [':
                value = value[-1]
        assert value == 1

    check()
