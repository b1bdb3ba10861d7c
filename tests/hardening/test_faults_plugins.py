"""Plugin faults: one whose import fails, one that registers nothing, one whose hook lacks @hookimpl.

Installed as real distributions (a ``.dist-info`` with an entry point in a folder on ``sys.path``)
next to the first-party ones: the others keep working, batches complete, and the failure is
reported by the plugin's name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hardening_proc import zombies

from grpo_rewards import RewardSetError, load_registry, load_reward_set

PLUGINS = {
    "hbroken": "import not_a_module_xyz  # noqa: F401\n",
    "hempty": "import grpo_rewards\n\n@grpo_rewards.hookimpl\ndef register_rewards(register):\n    pass\n",
    "hnohook": "def register_rewards(register):  # no @hookimpl: pluggy never calls it\n"
               "    register('x', lambda text, **row: 1.0)\n",
}


def _install(site: Path, name: str, source: str) -> None:
    (site / f"{name}_plugin.py").write_text(source)
    info = site / f"{name}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[grpo_rewards]\n{name} = {name}_plugin\n")


@pytest.fixture
def faulty_plugins(tmp_path, monkeypatch):
    for name, source in PLUGINS.items():
        _install(tmp_path, name, source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "math,format,length," + ",".join(PLUGINS))
    return tmp_path


def _score_default_set() -> list:
    rewards = load_reward_set({"rewards": [{"use": "math.accuracy"}, {"use": "format.boxed"},
                                           {"use": "length.target", "with": {"target": 9}}]})
    completions = ["so \\boxed{4}", [{"role": "assistant", "content": "it is 5"}], None]
    return [r(prompts=["2+2?"] * 3, completions=completions, solution=["4"] * 3) for r in rewards.reward_funcs]


def test_broken_and_empty_plugins_do_not_stop_the_others_from_scoring(faulty_plugins):
    assert _score_default_set() == [[1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [-3.0, -2.0, None]]
    assert zombies() == []


def test_plugin_whose_import_fails_is_reported_by_name(faulty_plugins):
    registry = load_registry()
    assert sorted(registry.broken()) == ["hbroken"]
    assert registry.broken()["hbroken"].error == "ModuleNotFoundError: No module named 'not_a_module_xyz'"
    assert {"math.accuracy", "format.boxed", "length.target"} <= set(registry.rewards)


def test_list_shows_the_broken_plugin_with_its_error_and_the_others(faulty_plugins, capsys):
    from grpo_rewards.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "hbroken (hbroken 0.1) — BROKEN: ModuleNotFoundError: No module named 'not_a_module_xyz'" in out
    assert "math.accuracy" in out and "format.boxed" in out


def test_asking_for_a_reward_of_the_broken_plugin_names_the_plugin_and_its_error(faulty_plugins):
    with pytest.raises(RewardSetError) as caught:
        load_reward_set({"rewards": [{"use": "math.accuracy"}, {"use": "hbroken.score"}]})
    assert ("plugin 'hbroken' (hbroken) failed to load: ModuleNotFoundError: No module named 'not_a_module_xyz'"
            in str(caught.value))
    assert len(caught.value.problems) == 1


def test_plugin_that_registers_nothing_loads_without_error_and_without_rewards(faulty_plugins):
    registry = load_registry()
    assert registry.records["hempty"].ok and registry.records["hempty"].hooks == ["register_rewards"]
    assert not [r for r in registry.rewards.values() if r.plugin in ("hempty", "hnohook")]


def test_list_says_which_plugins_register_nothing(faulty_plugins, capsys):
    from grpo_rewards.cli import main

    main(["list"])
    lines = {line.split(" ", 1)[0]: line for line in capsys.readouterr().out.splitlines() if line[:1] != " "}
    assert "nothing" in lines["hempty"] or "no rewards" in lines["hempty"], lines["hempty"]
    assert "nothing" in lines["hnohook"] or "no rewards" in lines["hnohook"], lines["hnohook"]


def test_asking_for_a_reward_of_a_plugin_that_registered_nothing_names_the_plugin(faulty_plugins):
    with pytest.raises(RewardSetError) as caught:
        load_reward_set({"rewards": [{"use": "hempty.score"}]})
    assert "plugin 'hempty'" in str(caught.value)


def test_the_worker_pool_works_after_plugin_failures(faulty_plugins):
    import hardening_workers as hw

    from grpo_rewards import Reward
    from grpo_rewards.execution import get_pool

    load_registry()
    reward = Reward(hw.slow_length, metric="hardening.slow", timeout=30.0, workers=2)
    assert reward(completions=["a", "bb", "ccc"]) == [1.0, 2.0, 3.0]
    assert len(get_pool(2, reward.pool_owner).pids) == 2 and zombies() == []



ABRUPT = {
    "hexit": "import grpo_rewards\n\n@grpo_rewards.hookimpl\ndef register_rewards(register):\n"
             "    register('score', lambda text, **row: 1.0)\n    raise SystemExit(3)\n",
    "hexitimport": "import sys\nsys.exit('no GPU here')\n",
    "hbase": "import grpo_rewards\n\nclass Abort(BaseException):\n    pass\n\n"
             "@grpo_rewards.hookimpl\ndef register_tasks(register):\n    raise Abort('stop everything')\n",
    "hhalf": "import grpo_rewards\n\ndef rows(n, seed):\n    return [{'prompt': 'p'}] * n\n\n"
             "@grpo_rewards.hookimpl\ndef register_rewards(register):\n    raise RuntimeError('no rewards today')\n\n"
             "@grpo_rewards.hookimpl\ndef register_tasks(register):\n    register('rows', rows)\n",
    "hloud": "import grpo_rewards\nprint('hello from hloud at import')\n\ndef loud(text, **row):\n"
             "    return 1.0\n\n@grpo_rewards.hookimpl\ndef register_rewards(register):\n"
             "    print('hello from the hook')\n    register('loud', loud)\n",
}


@pytest.fixture
def abrupt_plugins(tmp_path, monkeypatch):
    for name, source in ABRUPT.items():
        _install(tmp_path, name, source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "length," + ",".join(ABRUPT))
    return tmp_path


def test_a_hook_raising_system_exit_is_a_broken_plugin_and_list_still_lists(abrupt_plugins, capsys):
    from grpo_rewards.cli import main

    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "hexit (hexit 0.1) — BROKEN: SystemExit in register_rewards: 3" in out
    assert "hexitimport (hexitimport 0.1) — BROKEN: SystemExit: no GPU here" in out
    assert "length.target" in out
    assert "hexit.score" not in out


def test_a_hook_raising_another_base_exception_is_a_broken_plugin(abrupt_plugins):
    registry = load_registry()
    assert registry.records["hbase"].error == "Abort in register_tasks: stop everything"
    assert "length.target" in registry.rewards


def test_a_plugin_whose_reward_hook_raises_keeps_none_of_its_tasks(abrupt_plugins):
    from grpo_rewards.errors import GrpoRewardsError

    registry = load_registry()
    assert registry.records["hhalf"].error == "RuntimeError in register_rewards: no rewards today"
    assert "hhalf:rows" not in registry.tasks
    with pytest.raises(GrpoRewardsError, match=r"plugin 'hhalf' .* failed to load: RuntimeError in register_rewards"):
        registry.task("hhalf:rows")


def test_a_plugin_that_prints_does_not_corrupt_list_json(abrupt_plugins, capsys):
    import json

    from grpo_rewards.cli import main

    assert main(["list", "--json"]) == 0
    captured = capsys.readouterr()
    listing = json.loads(captured.out)
    loud = next(p for p in listing["plugins"] if p["name"] == "hloud")
    assert [r["name"] for r in loud["rewards"]] == ["hloud.loud"]
    assert "hello from the hook\n" in captured.err  # the import's print: see the real-process test
    assert sorted(b["name"] for b in listing["broken"]) == ["hbase", "hexit", "hexitimport", "hhalf"]


def test_list_json_in_a_real_process_with_a_printing_plugin_and_an_exiting_hook(abrupt_plugins):
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "PYTHONPATH": str(abrupt_plugins)}
    run = subprocess.run([sys.executable, "-m", "grpo_rewards.cli", "list", "--json"], env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    listing = json.loads(run.stdout)
    assert "hloud" in [p["name"] for p in listing["plugins"]]
    assert "hello from hloud at import\nhello from the hook\n" in run.stderr
