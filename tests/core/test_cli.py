"""The grpo-rewards command, run in-process and as a real subprocess."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys

import pytest

from grpo_rewards.cli import main
from grpo_rewards.errors import quote


def test_list_shows_plugins_versions_rewards_tasks_and_broken_plugins(plugins, capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "broken (grpo-rewards-fixture-broken 1.2.0) — BROKEN: ModuleNotFoundError: "
        "No module named 'grpo_rewards_this_module_does_not_exist'"
    )
    assert out[1] == "fixture (grpo-rewards-fixture-good 1.2.3)"
    assert out[2].split() == ["fixture.group_size", "Batch", "form:", "how", "many", "completions", "share", "this",
                              "completion's", "prompt."]
    assert out[7] == "  1 task: fixture:count"
    assert out[8] == (
        "hookfail (grpo-rewards-fixture-hookfail 1.2.0) — BROKEN: RuntimeError in register_rewards: "
        "database of rewards is unreachable"
    )


def test_list_json_is_machine_readable(plugins, capsys):
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in data["plugins"]] == ["fixture"]
    assert [b["name"] for b in data["broken"]] == ["broken", "hookfail"]
    rewards = {r["name"]: r for r in data["plugins"][0]["rewards"]}
    assert rewards["fixture.shout"]["params"] == {"bonus": {"type": "float", "required": False, "default": 0.0}}
    assert rewards["fixture.matches"]["params"] == {}
    assert rewards["fixture.matches"]["columns"] == ["solution"]


def test_show_prints_parameters_columns_range_and_units(plugins, capsys):
    assert main(["show", "fixture.shout"]) == 0
    out = capsys.readouterr().out
    assert "fixture.shout  (from plugin fixture, grpo-rewards-fixture-good 1.2.3)" in out
    assert "range:     [0.0, 1.0]" in out
    assert "  bonus: float (default 0.0)" in out
    assert "example:   HELLO -> 1.0" in out


def test_show_unknown_reward_is_one_clear_error(plugins, capsys):
    assert main(["show", "fixture.shuot"]) == 2
    assert capsys.readouterr().err == (
        "grpo-rewards: error: unknown reward 'fixture.shuot' (did you mean 'fixture.shout'?).\n"
    )


def test_score_reports_bad_rows_by_line_and_scores_the_rest(plugins, tmp_path, capsys):
    data = tmp_path / "c.jsonl"
    data.write_text(
        '{"prompt": "p", "completion": "HI", "solution": "HI"}\n'
        "this is not json\n"
        '{"prompt": "p", "completion": [{"role": "assistant", "content": "hi"}], "solution": "HI"}\n'
        '{"prompt": "p", "answer": 3}\n'
        '{"prompt": "p", "completion": "HI", "solution": null}\n'
    )
    rs = tmp_path / "set.yaml"
    rs.write_text("rewards:\n  - use: fixture.shout\n  - use: fixture.matches\n    weight: 2\n")
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(data), "--rewards", str(rs), "--out", str(out)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "bad row: line 2: not JSON (Expecting value)",
        "bad row: line 4: expected an object with a 'completion' field",
    ]
    lines = captured.out.splitlines()
    assert lines[0].startswith("scored 3 rows from")
    assert lines[2].split()[:8] == ["fixture.shout", "1", "0.6667", "0.4714", "0.0000", "1.0000", "0", "0"]
    assert lines[3].split()[:8] == ["fixture.matches", "2", "0.5000", "0.5000", "0.0000", "1.0000", "1", "0"]
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [s["rewards"] for s in scored] == [
        {"fixture.shout": 1.0, "fixture.matches": 1.0},
        {"fixture.shout": 0.0, "fixture.matches": 0.0},
        {"fixture.shout": 1.0, "fixture.matches": None},
    ]
    assert [s["reward"] for s in scored] == [3.0, 0.0, 1.0]


@pytest.mark.parametrize("argv", [
    ["score", "{data}", "--rewards", "{rs}", "--rewards", "fixture.shout"],
    ["score", "{data}", "--rewards", "fixture.shout", "--out", "{data}.a", "--out", "{data}.b"],
    ["compare", "{data}", "--rewards", "fixture.shout", "--rewards", "label", "--threshold", "0.5", "--threshold", "2"],
])
def test_an_option_of_one_value_given_twice_is_an_error_not_the_last_kept(plugins, tmp_path, capsys, argv):
    # argparse keeps the last value: `score --rewards set.yaml --rewards fixture.shout` scored fixture.shout alone
    data = tmp_path / "c.jsonl"
    data.write_text('{"prompt": "p", "completion": "HI", "label": true}\n')
    rs = tmp_path / "set.yaml"
    rs.write_text("rewards:\n  - use: fixture.shout\n  - use: fixture.shout\n    as: twice\n")
    argv = [a.format(data=data, rs=rs) for a in argv]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    option, first, second = argv[-4], argv[-3], argv[-1]
    if option == "--threshold":  # the values as the option's type read them
        first, second = float(first), float(second)
    assert exit_.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"grpo-rewards {argv[0]}: error: argument {option}: given twice ({first!r}, then {second!r}); "
        "it takes one value")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "set.yaml"]  # nothing scored, nothing written


def test_score_with_an_invalid_set_fails_before_scoring(plugins, tmp_path, capsys):
    data = tmp_path / "c.jsonl"
    data.write_text('{"prompt": "p", "completion": "HI"}\n')
    rs = tmp_path / "set.yaml"
    rs.write_text("rewards:\n  - use: fixture.matches\n")
    assert main(["score", str(data), "--rewards", str(rs)]) == 2
    assert capsys.readouterr().err == (
        f"grpo-rewards: error: {rs}: entry 1 (fixture.matches): needs dataset column(s) 'solution'; "
        "the dataset has: completion, prompt. 'grpo-rewards show fixture.matches' describes the columns it reads\n"
    )


HEAVY = ('torch', 'transformers', 'trl', 'sympy', 'datasets', 'reasoning_gym', 'ray', 'httpx')


def test_list_does_not_import_heavy_libraries(plugins):
    """With every installed plugin (first-party ones included), listing stays light."""
    code = (
        "import sys; from grpo_rewards.cli import main; main(['list']); main(['list', '--tasks']); "
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("GRPO_REWARDS_PLUGINS")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines()[-1] == "[]"


def test_list_and_show_load_no_code_of_a_reward_registered_by_reference(plugins):
    """Every first-party reward is registered as ``module:attribute``: listing them (``--json`` too,
    which shows every parameter) imports none of their scorers, nor the core's reward and execution
    layer; only the plugin modules, the definitions and the hack corpora (which are data)."""
    code = (
        "import sys; from grpo_rewards.cli import main; main(['list']); main(['list', '--json']); "
        "main(['show', 'length.soft_overlong']); main(['show', 'judge.rubric']); "
        "print(sorted(m for m in sys.modules if m.startswith('grpo_rewards_') and '.' in m)); "
        "print(sorted(m for m in ('grpo_rewards.reward', 'grpo_rewards.rewardset', 'grpo_rewards.execution') "
        "if m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("GRPO_REWARDS_PLUGINS")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    *_, modules, core = out.stdout.splitlines()
    assert core == "[]"
    assert ast.literal_eval(modules) == [
        "grpo_rewards_code.definitions", "grpo_rewards_code.hacks", "grpo_rewards_code.plugin", "grpo_rewards_code.sql_hacks",
        "grpo_rewards_code.sql_tasks", "grpo_rewards_code.tasks",
        "grpo_rewards_format.definitions", "grpo_rewards_format.hacks", "grpo_rewards_format.plugin",
        "grpo_rewards_gym.catalog", "grpo_rewards_gym.codec", "grpo_rewards_gym.definitions", "grpo_rewards_gym.hacks",
        "grpo_rewards_gym.plugin", "grpo_rewards_gym.tasks",
        "grpo_rewards_instructions.definitions", "grpo_rewards_instructions.hacks",
        "grpo_rewards_instructions.plugin", "grpo_rewards_instructions.tasks",
        "grpo_rewards_judge.definitions", "grpo_rewards_judge.hacks", "grpo_rewards_judge.plugin",
        "grpo_rewards_length.definitions", "grpo_rewards_length.hacks", "grpo_rewards_length.plugin",
        "grpo_rewards_math.definitions", "grpo_rewards_math.hacks", "grpo_rewards_math.plugin",
        "grpo_rewards_math.tasks",
        "grpo_rewards_text.definitions", "grpo_rewards_text.hacks", "grpo_rewards_text.plugin",
        "grpo_rewards_text.tasks",
        "grpo_rewards_tools.definitions",
        # environments are registered by reference: their classes (and tool schemas) load only for show
        "grpo_rewards_tools.environments", "grpo_rewards_tools.environments.hacks",
        "grpo_rewards_tools.environments.registration", "grpo_rewards_tools.environments.tasks",
        "grpo_rewards_tools.hacks", "grpo_rewards_tools.plugin",
    ]


def test_the_console_script_is_installed():
    from pathlib import Path

    script = Path(sys.executable).parent / "grpo-rewards"  # the venv's, whether or not it is on PATH
    out = subprocess.run([str(script), "--version"], capture_output=True, text=True, check=True)
    from importlib import metadata

    assert out.stdout == f"grpo-rewards {metadata.version('grpo-rewards')}\n"  # read from pyproject.toml's one literal


# -- list and show tell the truth (issue 14) ---------------------------------------------------------
def _first_party(monkeypatch, allow="format,length,math"):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", allow)


def test_list_json_gives_types_json_defaults_and_literal_choices(monkeypatch, capsys):
    _first_party(monkeypatch, "format")
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rewards = {r["name"]: r for p in data["plugins"] for r in p["rewards"]}
    params = rewards["format.regex"]["params"]
    assert params["pattern"] == {"type": "str", "required": True, "default": None}
    assert params["mode"] == {"type": "one of 'search', 'match', 'fullmatch'", "required": False,
                              "default": "search", "choices": ["search", "match", "fullmatch"]}
    assert params["regex_timeout"] == {"type": "float", "required": False, "default": 0.1}
    assert rewards["format.boxed"]["params"]["last_chars"] == {"type": "int | None", "required": False,
                                                               "default": None}


def test_show_and_list_name_the_columns_a_reward_reads_through_its_column_parameters(monkeypatch, capsys):
    _first_party(monkeypatch, "length")
    assert main(["show", "length.cosine"]) == 0
    assert "columns:   correct\n" in capsys.readouterr().out
    assert main(["list", "--json"]) == 0
    rewards = {r["name"]: r for p in json.loads(capsys.readouterr().out)["plugins"] for r in p["rewards"]}
    assert rewards["length.cosine"]["columns"] == ["correct"]
    assert rewards["length.target"]["columns"] == []
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "math")
    assert main(["show", "math.accuracy"]) == 0
    assert "columns:   solution\n" in capsys.readouterr().out


def test_show_lists_a_literal_parameters_allowed_values(monkeypatch, capsys):
    _first_party(monkeypatch, "format")
    assert main(["show", "format.regex"]) == 0
    out = capsys.readouterr().out
    assert "  mode: one of 'search', 'match', 'fullmatch' (default \"search\")" in out
    assert "  pattern: str (required)" in out


def test_a_reward_filtered_out_by_the_allow_list_says_so_not_pip_install(monkeypatch, capsys):
    _first_party(monkeypatch, "format")
    assert main(["show", "length.cosine"]) == 2
    assert capsys.readouterr().err == (
        "grpo-rewards: error: unknown reward 'length.cosine'. The plugin 'length' is installed but filtered out "
        "by GRPO_REWARDS_PLUGINS='format' (add 'length' to it, or unset it to load every plugin)\n")
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "")
    assert main(["show", "length.cosine"]) == 2
    assert "filtered out by GRPO_REWARDS_PLUGINS=''" in capsys.readouterr().err


def test_list_names_the_plugins_the_allow_list_filters_out(monkeypatch, capsys):
    _first_party(monkeypatch, "format")
    assert main(["list"]) == 0
    captured = capsys.readouterr()
    assert captured.out.splitlines()[-1] == "filtered out by GRPO_REWARDS_PLUGINS='format': code, gym, instructions, judge, length, math, text, tools"
    assert captured.err == ""


def test_an_allow_list_naming_no_installed_plugin_is_not_no_plugins_installed(monkeypatch, capsys):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "nosuch")
    assert main(["list"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("No plugin loaded: GRPO_REWARDS_PLUGINS='nosuch' filters out every installed "
                                   "plugin (")
    assert captured.err.startswith("grpo-rewards: warning: GRPO_REWARDS_PLUGINS='nosuch': 'nosuch' names no "
                                   "installed plugin (installed: ")
    assert captured.err.endswith("; understood as: load no plugin\n")


@pytest.mark.parametrize(("value", "problem", "understood"), [
    ("MATH,format", "'MATH' names no installed plugin (names are case-sensitive: 'math'?)", "load only format"),
    ("math;format", "'math;format' is not a plugin name (separate names with commas)", "load no plugin"),
    ("*", "'*' is not a wildcard (unset GRPO_REWARDS_PLUGINS to load every plugin)", "load no plugin"),
    (" format , nosuch ", "'nosuch' names no installed plugin (installed: ", "load only format"),
])
def test_a_malformed_allow_list_gets_a_warning_saying_what_was_understood(monkeypatch, capsys, value, problem,
                                                                            understood):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", value)
    assert main(["list"]) == 0
    err = capsys.readouterr().err
    assert err.startswith(f"grpo-rewards: warning: GRPO_REWARDS_PLUGINS={value!r}: {problem}")
    assert err.endswith(f"; understood as: {understood}\n")


def test_list_shows_both_distributions_that_claim_one_namespace(plugins, dupe_site, monkeypatch, capsys):
    monkeypatch.syspath_prepend(str(dupe_site))
    assert main(["list"]) == 0
    out = capsys.readouterr().out.splitlines()
    at = out.index("fixture — CONFLICT: claimed by 2 distributions; none of its rewards can be used until one "
                   "is uninstalled")
    assert sorted(out[at + 1:at + 3]) == [
        "  grpo-rewards-fixture-dupe 1.2.0 (grpo_rewards_fixture_dupe)",
        "  grpo-rewards-fixture-good 1.2.3 (grpo_rewards_fixture_good)",
    ]
    assert not any(line.startswith("fixture (") for line in out)
    assert main(["list", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in data["conflicts"]] == ["fixture"]
    assert sorted(c["distribution"] for c in data["conflicts"][0]["claimants"]) == [
        "grpo-rewards-fixture-dupe", "grpo-rewards-fixture-good"]


def test_check_with_bad_parameters_speaks_of_the_reward_not_of_a_reward_set(plugins, capsys):
    assert main(["check", "fixture.shout", "--with", "bonus=loud", "--with", "volume=3"]) == 2
    assert capsys.readouterr().err == (
        "grpo-rewards: error: fixture.shout has 2 problems:\n"
        "  - parameter 'bonus' must be float, got 'loud'\n"
        "  - unknown parameter 'volume' (parameters: bonus)\n")
    assert main(["check", "fixture.offset", "--with", "offset=-1"]) == 2
    assert capsys.readouterr().err == "grpo-rewards: error: fixture.offset: ValueError: offset must be >= 0, got -1\n"


def test_every_command_warns_about_a_doubtful_allow_list(monkeypatch, capsys):
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "format,LENGTH")
    assert main(["show", "format.boxed"]) == 0
    assert capsys.readouterr().err == (
        "grpo-rewards: warning: GRPO_REWARDS_PLUGINS='format,LENGTH': 'LENGTH' names no installed plugin (names "
        "are case-sensitive: 'length'?); understood as: load only format\n")
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "format, length")
    assert main(["show", "format.boxed"]) == 0
    assert capsys.readouterr().err == ""


def test_every_command_is_defined_once_by_the_module_the_table_names():
    import importlib
    import pkgutil

    import grpo_rewards.cli as cli

    defined = {}
    for info in pkgutil.iter_modules(cli.__path__):
        if info.name == "__main__":  # python -m grpo_rewards.cli: it runs the command line
            continue
        module = importlib.import_module(f"grpo_rewards.cli.{info.name}")
        for command in getattr(module, "COMMANDS", ()):
            assert command.name not in defined, command.name
            defined[command.name] = info.name
    assert defined == {name: module for name, (module, _) in cli.COMMANDS.items()}
    assert [cli.command(name).name for name in cli.COMMANDS] == list(cli.COMMANDS)


def test_list_imports_only_the_listing_command_module(plugins):
    code = ("import sys; from grpo_rewards.cli import main; main(['list']); "
            "print(sorted(m for m in sys.modules if m.startswith('grpo_rewards.cli.')))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.splitlines()[-1] == "['grpo_rewards.cli.command', 'grpo_rewards.cli.listing']"


# -- output a newcomer reads (issue 24) ----------------------------------------------------------------
def _closed_stdout_run(args, tmp_path):
    """Run the console script with a stdout whose reader has already gone (``grpo-rewards list | head``)."""
    from pathlib import Path

    script = Path(sys.executable).parent / "grpo-rewards"
    env = {**os.environ, "GRPO_REWARDS_CACHE": str(tmp_path / "cache")}
    env.pop("GRPO_REWARDS_PLUGINS", None)
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return subprocess.run([str(script), *args], stdout=write_end, stderr=subprocess.PIPE, text=True, env=env,
                              cwd=tmp_path, timeout=300)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", [["list"], ["list", "--json"], ["show", "math.accuracy"], ["--version"],
                                  pytest.param(["train", "--print-config"], marks=pytest.mark.slow),  # see below
                                  ["score", "rows.jsonl", "--rewards", "set.yaml"],
                                  pytest.param(["model", "tiny"], marks=pytest.mark.slow)],  # builds the model
                         ids=lambda a: " ".join(a))
def test_a_closed_stdout_ends_a_printing_command_quietly_as_sigpipe_would(args, tmp_path, monkeypatch):
    (tmp_path / "rows.jsonl").write_text('{"prompt": "2+2?", "completion": "\\\\boxed{4}", "solution": "4"}\n')
    (tmp_path / "set.yaml").write_text("rewards:\n  - use: math.accuracy\n")
    if args == ["model", "tiny"]:  # written here, where torch is loaded once; the command prints its folder
        from grpo_rewards.train.model import ensure_tiny  # (test_model.py: the command that writes it first)

        ensure_tiny(tmp_path / "cache")
    if args == ["train", "--print-config"]:  # GRPOConfig's field names read here, where TRL is loaded once;
        from grpo_rewards.train.config import grpo_field_names  # the command reads them (test_config.py)

        monkeypatch.setenv("GRPO_REWARDS_CACHE", str(tmp_path / "cache"))
        grpo_field_names()
    run = _closed_stdout_run(args, tmp_path)
    assert run.returncode == 141, run.stderr  # 128 + SIGPIPE, what a shell reports for a tool a pipe ended
    assert "Traceback" not in run.stderr and "BrokenPipeError" not in run.stderr, run.stderr


def test_a_plugin_name_too_long_for_a_file_name_is_one_line(tmp_path, capsys):
    assert main(["new-plugin", "a" * 300, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grpo-rewards new-plugin: error: plugin name 'aaaa")
    assert err.endswith("' is 300 characters long; give at most 64 (it names the package's folders and files, and "
                        "every reward as NAME.reward)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_jsonl_integer_past_pythons_digit_limit_is_a_bad_row_not_a_traceback(plugins, tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"completion": "ab", "n": ' + "9" * 5000 + '}\n{"completion": "abc"}\n')
    rewards = tmp_path / "set.yaml"
    rewards.write_text("rewards:\n  - use: fixture.shout\n")
    assert main(["score", str(rows), "--rewards", str(rewards), "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"scored 1 rows from {rows}")
    assert err == "bad row: line 1: not read: an integer of 5000 digits (Python reads at most 4300)\n"


@pytest.mark.parametrize(("text", "problem"), [
    ("    with: " + "{a: " * 5000 + "1" + "}" * 5000, "not read: nested too deeply"),
    ("    weight: " + "5" * 5000, "not read: an integer of 5000 digits (Python reads at most 4300)"),
    ("    weight: 1" + "0" * 400, f"entry 1 (fixture.shout): weight must be a finite number, got {quote(10 ** 400)}"),
])
def test_a_reward_set_too_deep_or_too_large_to_read_is_one_line(plugins, tmp_path, capsys, text, problem):
    rows = tmp_path / "rows.jsonl"
    rows.write_text('{"completion": "ab"}\n')
    rewards = tmp_path / "set.yaml"
    rewards.write_text("rewards:\n  - use: fixture.shout\n" + text + "\n")
    assert main(["score", str(rows), "--rewards", str(rewards), "--no-progress"]) == 2
    assert capsys.readouterr().err == f"grpo-rewards: error: {rewards}: {problem}\n"


def test_show_prints_plain_text_without_sphinx_roles_or_double_back_quotes(capsys):
    assert main(["show", "math.accuracy"]) == 0
    out = capsys.readouterr().out
    assert ":mod:" not in out and "``" not in out
    assert "(details: grpo_rewards_math.conventions\nand grpo_rewards_math.extract): answer_format \"any\"" in out


def test_plain_text_keeps_a_roles_name_and_a_literals_text():
    from grpo_rewards.cli.listing import plain_text

    assert plain_text(":class:`~grpo_rewards.Reward`, :func:`the loader <grpo_rewards.load_rewards>`, "
                      ":py:meth:`Reward.score`, ``x = 1``") == "Reward, the loader, Reward.score, x = 1"
