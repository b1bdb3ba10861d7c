"""Discovery through entry points of really installed fixture distributions."""

from __future__ import annotations

import pytest

from grpo_rewards import PluginError, RewardNotFoundError, load_registry


def test_installed_plugin_is_found_with_its_distribution_and_version(registry):
    info = registry.reward("fixture.shout")
    assert (info.plugin, info.distribution, info.version) == ("fixture", "grpo-rewards-fixture-good", "1.2.3")
    assert info.description == "1.0 when the text is upper case, else 0.0, plus ``bonus``."
    assert sorted(n for n in registry.rewards if n.startswith("fixture.")) == [
        "fixture.group_size", "fixture.matches", "fixture.offset", "fixture.shout", "fixture.sleepy",
    ]


def test_signature_gives_parameters_and_required_columns(registry):
    shout = registry.reward("fixture.shout")
    assert list(shout.params) == ["bonus"]
    assert (shout.params["bonus"].annotation, shout.params["bonus"].default) == (float, 0.0)
    assert registry.reward("fixture.matches").columns == ("solution",)
    offset = registry.reward("fixture.offset")
    assert offset.is_factory and offset.params["offset"].default == 0


def test_plugin_that_fails_to_import_is_recorded_and_others_keep_working(registry):
    record = registry.records["broken"]
    assert record.error == "ModuleNotFoundError: No module named 'grpo_rewards_this_module_does_not_exist'"
    assert record.distribution == "grpo-rewards-fixture-broken"
    assert registry.reward("fixture.shout").name == "fixture.shout"


def test_asking_for_a_reward_of_a_broken_plugin_shows_the_cause(registry):
    with pytest.raises(RewardNotFoundError) as err:
        registry.reward("broken.anything")
    assert str(err.value) == (
        "unknown reward 'broken.anything'. It would come from plugin 'broken' (grpo-rewards-fixture-broken) "
        "failed to load: ModuleNotFoundError: No module named 'grpo_rewards_this_module_does_not_exist'"
    )


def test_plugin_whose_hook_raises_is_recorded_and_its_partial_rewards_dropped(registry):
    assert registry.records["hookfail"].error == (
        "RuntimeError in register_rewards: database of rewards is unreachable"
    )
    assert "hookfail.fine" not in registry.rewards
    with pytest.raises(RewardNotFoundError, match="database of rewards is unreachable"):
        registry.reward("hookfail.fine")


def test_allow_list_restricts_plugins(plugins, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "fixture")
    registry = load_registry()
    assert sorted(registry.records) == ["fixture"]


def test_empty_allow_list_loads_no_plugin(plugins, monkeypatch):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "")
    registry = load_registry()
    assert registry.records == {} and registry.rewards == {}


def test_unknown_name_suggests_the_closest_names(registry):
    with pytest.raises(RewardNotFoundError) as err:
        registry.reward("fixture.shuot")
    assert str(err.value) == "unknown reward 'fixture.shuot' (did you mean 'fixture.shout'?)."


def test_unknown_first_party_name_that_the_allow_list_filters_out_says_so(registry):
    with pytest.raises(RewardNotFoundError) as err:
        registry.reward("math.accuracy")  # grpo-rewards-math is installed; the fixture's allow-list leaves it out
    assert str(err.value) == (
        "unknown reward 'math.accuracy'. The plugin 'math' is installed but filtered out by "
        "GRPO_REWARDS_PLUGINS='fixture,broken,hookfail' (add 'math' to it, or unset it to load every plugin)"
    )


def test_two_distributions_claiming_one_plugin_name_is_an_error_naming_both(plugins, dupe_site, monkeypatch):
    monkeypatch.syspath_prepend(str(dupe_site))
    registry = load_registry()
    message = (
        "plugin name 'fixture' is claimed by both grpo-rewards-fixture-dupe (grpo_rewards_fixture_dupe) and "
        "grpo-rewards-fixture-good (grpo_rewards_fixture_good); uninstall one of them"
    )
    with pytest.raises(PluginError) as err:
        registry.reward("fixture.shout")
    assert str(err.value) == f"cannot use 'fixture.shout': {message}"
    assert registry.conflicts == {"fixture": message}


def test_tasks_are_registered_under_a_colon_namespace(registry):
    task = registry.task("fixture:count")
    assert task.factory(2, seed=5) == [
        {"prompt": "Count to 5", "solution": "5"}, {"prompt": "Count to 6", "solution": "6"},
    ]
    assert task.columns == ("prompt", "solution")


def test_misspelled_hook_makes_the_plugin_broken_not_the_process():
    from grpo_rewards import get_plugins, hookimpl

    class Typo:
        @hookimpl
        def register_reward(self, register):  # missing "s"
            pass

    plugins = get_plugins(load_entry_points=False)
    with pytest.raises(Exception, match="unknown hook 'register_reward'"):
        plugins.add(Typo(), "typo")
    assert plugins.records == {} and plugins.manager.get_plugins() == set()


def test_plugins_module_examples_run():
    import doctest

    from grpo_rewards.plugin import manager

    result = doctest.testmod(manager)
    assert (result.failed, result.attempted) == (0, 4)


def test_a_plugin_added_in_process_keeps_nothing_when_a_later_hook_raises():
    from grpo_rewards import get_plugins, hookimpl

    class Half:
        @hookimpl
        def register_rewards(self, register):
            register("fine", lambda text, **row: 1.0)

        @hookimpl
        def register_tasks(self, register):
            raise SystemExit("tasks are gone")

    plugins = get_plugins(load_entry_points=False)
    plugins.add(Half(), "half")
    registry = load_registry(plugins)
    assert registry.records["half"].error == "SystemExit in register_tasks: tasks are gone"
    assert registry.rewards == {} and registry.tasks == {}
    with pytest.raises(RewardNotFoundError, match=r"plugin 'half' .*failed to load: SystemExit in register_tasks"):
        registry.reward("half.fine")


def test_a_real_keyboard_interrupt_in_a_hook_is_not_swallowed():
    from grpo_rewards import get_plugins, hookimpl

    class Interrupted:
        @hookimpl
        def register_rewards(self, register):
            raise KeyboardInterrupt

    plugins = get_plugins(load_entry_points=False)
    plugins.add(Interrupted(), "ctrl_c")
    with pytest.raises(KeyboardInterrupt):
        load_registry(plugins)


def test_versions_come_from_the_installed_metadata_only():
    import importlib
    import re
    from importlib import metadata
    from pathlib import Path

    for dist in ("grpo-rewards", "grpo-rewards-code", "grpo-rewards-format", "grpo-rewards-gym",
                 "grpo-rewards-instructions", "grpo-rewards-judge", "grpo-rewards-length", "grpo-rewards-math",
                 "grpo-rewards-text", "grpo-rewards-tools"):
        module = importlib.import_module(dist.replace("-", "_"))
        assert module.__version__ == metadata.version(dist) and "__version__" in dir(module)
    packages = Path(__file__).resolve().parents[2] / "packages"
    literal = re.compile(r"""^\s*(__version__|version)\s*=\s*["']\d""", re.M)
    holders = sorted(str(p.relative_to(packages)) for p in packages.rglob("*")
                     if p.suffix in (".py", ".toml") and "egg-info" not in str(p) and "/build/" not in str(p)
                     and "templates" not in p.parts  # the pyproject.toml new-plugin writes has its own
                     and literal.search(p.read_text(encoding="utf-8")))
    assert holders == ["core/pyproject.toml", "rewards-code/pyproject.toml", "rewards-format/pyproject.toml",
                       "rewards-gym/pyproject.toml", "rewards-instructions/pyproject.toml",
                       "rewards-judge/pyproject.toml", "rewards-length/pyproject.toml",
                       "rewards-math/pyproject.toml", "rewards-text/pyproject.toml", "rewards-tools/pyproject.toml"]


def test_the_hooks_receive_the_public_register_types():
    import inspect

    from grpo_rewards import RegisterReward, RegisterTask, Registry, get_plugins, hookimpl
    from grpo_rewards.plugin import spec

    received = []

    class Both:
        @hookimpl
        def register_rewards(self, register):
            received.append(register)

        @hookimpl
        def register_tasks(self, register):
            received.append(register)

    plugins = get_plugins(load_entry_points=False)
    plugins.add(Both(), "x")
    Registry(plugins)
    assert [type(r) for r in received] == [RegisterReward, RegisterTask]
    assert [r.plugin for r in received] == ["x", "x"]
    assert inspect.signature(spec.register_rewards).parameters["register"].annotation == "RegisterReward"
    assert inspect.signature(spec.register_tasks).parameters["register"].annotation == "RegisterTask"


def test_plugins_hold_the_allow_list_they_loaded_with(plugins, monkeypatch):
    from grpo_rewards import get_plugins

    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "fixture, hookfail")
    loaded = get_plugins()
    assert loaded.allow is not None and loaded.allow.allowed == {"fixture", "hookfail"}
    assert sorted(loaded.records) == ["fixture", "hookfail"]
    assert {"broken", "fixture", "hookfail"} <= set(loaded.allow.installed)
    assert get_plugins(load_entry_points=False).allow is None
