"""The kit's fixtures and ``grpo-rewards check``: registering a plugin for one test, completion builders."""

from __future__ import annotations

import json

import kit_rewards
import pytest

from grpo_rewards import RewardSetError, get_reward
from grpo_rewards.cli import main
from grpo_rewards.testing import conversational, plugin_registered, standard


def test_registered_plugin_yields_a_registry_with_only_that_plugin(registered_plugin):
    with registered_plugin(kit_rewards.KitPlugin(), "kit") as registry:
        assert sorted(registry.rewards) == ["kit.char_length", "kit.first_char", "kit.scaled", "kit.solution_match"]
        assert registry.rewards["kit.solution_match"].columns == ("solution",)
        assert registry.rewards["kit.scaled"].params["factor"].default == 1.0


def test_registered_plugin_is_visible_to_get_reward_only_inside_the_block():
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        reward = get_reward("kit.scaled", factor=2.0)
        assert reward(prompts=["p"], completions=["abc"]) == [6.0]
    with pytest.raises(RewardSetError, match=r"unknown reward 'kit\.scaled'"):
        get_reward("kit.scaled", factor=2.0)


def test_registered_plugin_shows_up_in_grpo_rewards_list(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        assert main(["list", "--json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in listing["plugins"]] == ["kit"]
    assert [r["name"] for r in listing["plugins"][0]["rewards"]] == [
        "kit.char_length", "kit.solution_match", "kit.scaled", "kit.first_char"]


def test_plugins_fixture_has_the_hooks_and_no_plugins(plugins):
    assert plugins.records == {} and plugins.manager.get_plugins() == set()
    assert hasattr(plugins.manager.hook, "register_rewards")


def test_completion_builders_make_both_formats():
    assert standard("4", "five") == ["4", "five"]
    assert conversational("4") == [[{"role": "assistant", "content": "4"}]]


def test_make_completions_gives_the_same_scores_in_both_formats(make_completions, completion_format):
    assert completion_format in ("standard", "conversational")
    values = kit_rewards.char_length(prompts=["p", "p"], completions=make_completions(["abcd", "ab"]))
    assert values == [0.04, 0.02]


def test_pathological_completions_fixture_lists_the_inputs_the_contract_runs(pathological_completions):
    labels = [label for label, _ in pathological_completions]
    assert labels[:2] == ["None", "a number (42)"]
    assert "deep braces" in labels


def test_check_command_passes_a_good_registered_reward(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        code = main(["check", "kit.solution_match", "--column", "solution=4", "--deadline", "5"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0] == "kit.solution_match: 15 contract points"
    assert "  ok    pathological inputs" in out
    assert out.splitlines()[-1] == "all contract points pass"


def test_check_command_passes_parameters_given_with_with(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        assert main(["check", "kit.scaled", "--with", "factor=2.5"]) == 0
        assert main(["check", "kit.scaled", "--with", "factor=-1"]) == 2
    assert "factor must be positive" in capsys.readouterr().err


def test_check_command_fails_a_broken_reward_and_names_the_point(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        code = main(["check", "kit.first_char"])
    out = capsys.readouterr().out
    assert code == 1
    assert "  FAIL  empty completion\n          raised IndexError: string index out of range\n" in out
    assert "  ok    one value per completion\n" in out


def test_check_command_reports_an_unknown_reward_as_an_error(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        assert main(["check", "kit.char_lenght"]) == 2
    assert "(did you mean 'kit.char_length'?)" in capsys.readouterr().err


def test_registered_plugin_is_not_seen_from_another_thread():
    import threading

    from grpo_rewards import load_registry

    seen: dict[str, set[str]] = {}
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        thread = threading.Thread(target=lambda: seen.update(names=set(load_registry().rewards)))
        thread.start()
        thread.join()
        assert "kit.scaled" in load_registry().rewards
    assert "kit.scaled" not in seen["names"]


def test_registered_plugin_blocks_nest_and_restore_the_outer_registry():
    from grpo_rewards import load_registry

    with plugin_registered(kit_rewards.KitPlugin(), "kit") as outer:
        with plugin_registered(kit_rewards.KitPlugin(), "other") as inner:
            assert load_registry() is inner and sorted(inner.records) == ["other"]
        assert load_registry() is outer and sorted(outer.records) == ["kit"]


def test_check_command_reads_units_from_the_built_reward(capsys):
    with plugin_registered(kit_rewards.UnitsPlugin(), "units"):
        assert main(["check", "units.measured", "--with", "unit=tokens", "--deadline", "5"]) == 0
    out = capsys.readouterr().out
    assert "  ok    units\n" in out and out.splitlines()[-1] == "all contract points pass"


def test_check_command_lists_only_the_points_it_ran(capsys):
    with plugin_registered(kit_rewards.KitPlugin(), "kit"):
        assert main(["check", "kit.scaled", "--deadline", "5"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "kit.scaled: 14 contract points"  # no declared output range
    assert "output range" not in out


def test_check_command_warns_when_a_reward_returned_none_for_every_case(capsys):
    with plugin_registered(kit_rewards.UnitsPlugin(), "units"):
        assert main(["check", "units.never_scores", "--deadline", "5"]) == 0
    out = capsys.readouterr().out
    assert "\nwarning: returned None for every completion of every call (" in out
    assert out.splitlines()[-1] == "all contract points pass"
