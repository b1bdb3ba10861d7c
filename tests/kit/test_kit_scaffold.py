"""``grpo-rewards new-plugin``: the package it writes installs, is discovered, and passes its own tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from grpo_rewards.cli import main
from grpo_rewards.scaffold import plugin_names


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """(package folder written by ``grpo-rewards new-plugin demo_kit``, where it is installed, its files)."""
    tmp = tmp_path_factory.mktemp("scaffold")
    assert main(["new-plugin", "demo_kit", "--dir", str(tmp)]) == 0
    root = tmp / "grpo-rewards-demo-kit"
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    site = tmp / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
         "--target", str(site), str(root)],
        check=True, capture_output=True, text=True,
    )
    return root, site, files


def _env(site: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    env.pop("GRPO_REWARDS_PLUGINS", None)
    return env


def test_new_plugin_writes_a_complete_package(scaffolded):
    root, _, files = scaffolded
    assert files == ["README.md", "pyproject.toml", "src/grpo_rewards_demo_kit/__init__.py",
                     "src/grpo_rewards_demo_kit/plugin.py", "tests/conftest.py", "tests/test_demo_kit.py"]
    pyproject = (root / "pyproject.toml").read_text()
    assert '[project.entry-points.grpo_rewards]\ndemo_kit = "grpo_rewards_demo_kit.plugin"' in pyproject
    assert 'dependencies = ["grpo-rewards>=0.1,<0.2"]' in pyproject


def test_generated_tests_pass_as_generated(scaffolded):
    root, site, _ = scaffolded
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root, env=_env(site), capture_output=True, text=True, timeout=300,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "11 passed" in run.stdout


def test_the_scaffold_ships_a_hack_entry_and_its_test_fails_when_the_reward_pays_it(scaffolded, tmp_path):
    import shutil

    root, site, _ = scaffolded
    module = root / "src" / "grpo_rewards_demo_kit" / "__init__.py"
    assert module.read_text().count('"max_pay": {"demo_kit.mentions": 0.0}') == 1
    broken = tmp_path / "broken"  # the same package, with a reward that reads through the zero-width space
    shutil.copytree(root, broken)
    source = (broken / module.relative_to(root)).read_text()
    source = source.replace("        haystack = text if", '        text = text.replace("\\u200b", "")\n        haystack = text if')
    assert source.count('text = text.replace("\\u200b", "")') == 1
    (broken / module.relative_to(root)).write_text(source)
    env = _env(site)
    env["PYTHONPATH"] = os.pathsep.join([str(broken / "src"), env["PYTHONPATH"]])
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-k", "hack"]
    passed = subprocess.run(args, cwd=root, env=_env(site), capture_output=True, text=True, timeout=300)
    assert passed.returncode == 0 and "1 passed" in passed.stdout, passed.stdout + passed.stderr
    failed = subprocess.run(args, cwd=broken, env=env, capture_output=True, text=True, timeout=300)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "overpays 1 hack(s)" in failed.stdout and "word_split_by_a_zero_width_space" in failed.stdout


def test_installed_scaffold_shows_up_in_grpo_rewards_list(scaffolded):
    _, site, _ = scaffolded
    run = subprocess.run([sys.executable, "-m", "grpo_rewards.cli", "list"], env=_env(site),
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "demo_kit (grpo-rewards-demo-kit 0.1.0)" in run.stdout
    assert "demo_kit.mentions" in run.stdout


def test_generated_code_is_ruff_clean(scaffolded):
    root, _, _ = scaffolded
    ruff = Path(sys.executable).with_name("ruff")
    if not ruff.exists():
        pytest.skip("ruff is not installed next to this Python")
    rules = ["--isolated", "--select", "E,F,W,I,B,UP,RUF", "--line-length", "110", "--target-version", "py310"]
    run = subprocess.run([str(ruff), "check", *rules, "src", "tests"], cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout


def test_plugin_names_strip_the_distribution_prefix():
    assert plugin_names("grpo-rewards-json-check") == {
        "namespace": "json_check",
        "module": "grpo_rewards_json_check",
        "distribution": "grpo-rewards-json-check",
        "title": "Json Check",
        "core_requirement": "grpo-rewards>=0.1,<0.2",
    }


@pytest.mark.parametrize(("name", "why"), [("Shout", "must be lower case letters"), ("2fast", "must be lower case"),
                                         ("a b", "must be lower case"), ("math.accuracy", "must be lower case"),
                                         ("class", "is a Python keyword")])  # ('class' was told: lower case letters)
def test_new_plugin_rejects_a_name_that_cannot_be_a_namespace(name, why, tmp_path, capsys):
    assert main(["new-plugin", name, "--dir", str(tmp_path)]) == 2
    assert f"plugin name {name!r} {why}" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_new_plugin_refuses_to_overwrite_a_folder(tmp_path, capsys):
    (tmp_path / "grpo-rewards-shout").mkdir()
    (tmp_path / "grpo-rewards-shout" / "keep.txt").write_text("mine")
    assert main(["new-plugin", "shout", "--dir", str(tmp_path)]) == 2
    assert "already exists and is not empty" in capsys.readouterr().err
    assert (tmp_path / "grpo-rewards-shout" / "keep.txt").read_text() == "mine"


# -- names that are taken, and the --batch variant (issue 14) -------------------------------------
@pytest.mark.parametrize("name", ["math", "grpo-rewards-length", "format"])
def test_new_plugin_refuses_the_name_of_a_first_party_plugin(name, tmp_path, capsys):
    assert main(["new-plugin", name, "--dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is taken by the first-party package grpo-rewards-" in err and "choose another name" in err
    assert list(tmp_path.iterdir()) == []


def test_new_plugin_refuses_the_name_of_an_installed_plugin(tmp_path, capsys, monkeypatch):
    from importlib import metadata

    installed = metadata.EntryPoint(name="shout", value="grpo_rewards_shout.plugin", group="grpo_rewards")
    real = metadata.entry_points
    monkeypatch.setattr(metadata, "entry_points",
                        lambda **kw: [installed] if kw.get("group") == "grpo_rewards" else real(**kw))
    assert main(["new-plugin", "shout", "--dir", str(tmp_path)]) == 2
    assert "plugin name 'shout' is taken by grpo_rewards_shout.plugin" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_new_plugin_says_which_rewards_it_wrote_and_to_activate_the_environment(tmp_path, capsys):
    assert main(["new-plugin", "shout", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "It registers shout.mentions. Next, with your virtual environment active" in out
    assert out.rstrip().endswith("grpo-rewards check shout.mentions")


def test_the_batch_variant_passes_its_tests_and_is_ruff_clean(tmp_path):
    assert main(["new-plugin", "demo_batch", "--dir", str(tmp_path), "--batch"]) == 0
    root = tmp_path / "grpo-rewards-demo-batch"
    module = (root / "src/grpo_rewards_demo_batch/__init__.py").read_text()
    assert 'form="batch",\n    columns=["keyword"],' in module and "def __init__(self, repeat_value: float" in module
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(root)], check=True, capture_output=True, text=True)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                         env=_env(site), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "14 passed" in run.stdout
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        rules = ["--isolated", "--select", "E,F,W,I,B,UP,RUF", "--line-length", "110", "--target-version", "py310"]
        lint = subprocess.run([str(ruff), "check", *rules, "src", "tests"], cwd=root, capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout


def test_the_scaffolds_export_carries_its_registered_options(tmp_path, monkeypatch):
    assert main(["new-plugin", "demo_opts", "--dir", str(tmp_path)]) == 0
    module = tmp_path / "grpo-rewards-demo-opts/src/grpo_rewards_demo_opts/__init__.py"
    text = module.read_text().replace('    units="none",\n', '    units="none",\n    timeout=4.0,\n', 1)
    module.write_text(text.replace('metadata.version("grpo-rewards-demo-opts")', '"0.1.0"'))
    monkeypatch.syspath_prepend(str(module.parent.parent))
    import grpo_rewards_demo_opts

    assert grpo_rewards_demo_opts.mentions.options.timeout == 4.0
    assert grpo_rewards_demo_opts.MENTIONS.info().options.timeout == 4.0


def test_the_environment_variant_passes_its_tests_and_is_ruff_clean(tmp_path):
    assert main(["new-plugin", "demo_env", "--dir", str(tmp_path), "--environment"]) == 0
    root = tmp_path / "grpo-rewards-demo-env"
    plugin_py = (root / "src/grpo_rewards_demo_env/plugin.py").read_text()
    assert 'register("counter", "grpo_rewards_demo_env:Counter")' in plugin_py
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--no-index", "--target", str(site), str(root)], check=True, capture_output=True, text=True)
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=root,
                         env=_env(site), capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "13 passed" in run.stdout
    ruff = Path(sys.executable).with_name("ruff")
    if ruff.exists():
        rules = ["--isolated", "--select", "E,F,W,I,B,UP,RUF", "--line-length", "110", "--target-version", "py310"]
        lint = subprocess.run([str(ruff), "check", *rules, "src", "tests"], cwd=root, capture_output=True, text=True)
        assert lint.returncode == 0, lint.stdout
