"""Every code block in README.md and docs/*.md runs (or is validated) as written.

- ``python``: each block runs alone, as a user who copies it would run it: in a fresh interpreter,
  in an empty folder, with the installed plugins and no name from another block; a block that
  raises fails with its file and line.
- ``yaml``: parsed; a reward set (``rewards:``) is validated against the installed plugins, a
  training config (``model:``/``dataset:``) with ``grpo-rewards train --dry-run``.
- ``toml``: parsed.
- ``bash``: run with ``bash -e`` in an empty folder, the venv's scripts first on ``PATH``.
- ``text`` (or no language): output, layouts and usage; nothing to run.

A block that cannot run here (it installs packages, trains for minutes, needs a model) is
preceded by ``<!-- not run: why -->``; the reason is shown as the skip reason.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NOT_RUN = re.compile(r"<!--\s*not run:\s*(.*?)\s*-->")
FENCE = re.compile(r"^(\s*)```(\S*)\s*$")
INSTALLS = re.compile(r"\b(pip install|install\.sh|twine|uv pip|conda install)\b")


@dataclass
class Block:
    file: Path
    line: int  # of the opening fence, 1-based
    language: str
    code: str
    not_run: str | None  # the reason, when marked

    @property
    def id(self) -> str:
        return f"{self.file.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    i = 0
    while i < len(lines):
        match = FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, language = match.group(1), match.group(2) or "text"
        body = []
        j = i + 1
        while j < len(lines) and lines[j].strip() != "```":
            body.append(lines[j][len(indent):] if lines[j].startswith(indent) else lines[j])
            j += 1
        previous = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
        marker = NOT_RUN.search(previous)
        found.append(Block(path, i + 1, language, "\n".join(body) + "\n", marker.group(1) if marker else None))
        i = j + 1
    return found


ALL = [b for f in FILES for b in blocks_of(f)]


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    """The model cache the blocks share (``model_path("tiny")`` writes the tiny model there once)."""
    return tmp_path_factory.mktemp("cache")


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("GRPO_REWARDS_PLUGINS", None)
    env["GRPO_REWARDS_CACHE"] = str(cache)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_every_block_has_a_known_language_and_every_skip_a_reason():
    assert ALL, "no code blocks found"
    for block in ALL:
        assert block.language in ("python", "yaml", "toml", "bash", "text"), block.id
        assert block.not_run is None or block.not_run.strip(), f"{block.id}: 'not run:' needs a reason"


PYTHON = [b for b in ALL if b.language == "python" and b.not_run is None]


def test_there_are_python_blocks_to_run():
    assert PYTHON, "no python block to run"


@pytest.mark.parametrize("block", PYTHON, ids=lambda b: b.id)
def test_a_python_block_runs_alone(block, tmp_path, cache):
    script = tmp_path / f"block_at_line_{block.line}.py"
    script.write_text(block.code, encoding="utf-8")
    run = subprocess.run([sys.executable, script.name], cwd=tmp_path, env=_env(cache), capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, f"{block.id} does not run alone:\n{run.stderr[-4000:]}"


TRAINS = re.compile(r"\b(grpo-rewards train|trl grpo)\b")


def _lane(block: Block) -> Any:
    """The block as a test parameter: ``slow`` when it trains, or is a training config (``train --dry-run``
    imports TRL)."""
    trains = block.not_run is None and (
        (block.language == "bash" and TRAINS.search(block.code))
        or (block.language == "yaml" and re.search(r"^(model|dataset):", block.code, re.M)))
    return pytest.param(block, marks=pytest.mark.slow if trains else (), id=block.id)


@pytest.mark.parametrize("block", [_lane(b) for b in ALL if b.language in ("yaml", "toml", "bash")])
def test_a_block_runs_or_validates(block, tmp_path, cache, monkeypatch, capsys):
    if block.not_run is not None:
        pytest.skip(f"not run: {block.not_run}")
    if block.language == "toml":
        tomllib = pytest.importorskip("tomllib")  # Python 3.11+
        tomllib.loads(block.code)
    elif block.language == "yaml":
        data = yaml.safe_load(block.code)
        if isinstance(data, dict) and ("model" in data or "dataset" in data):
            from grpo_rewards.cli import main

            config = tmp_path / "run.yaml"
            config.write_text(block.code)
            # in this process, in the block's folder with the blocks' environment (a process of its own spent ~4 s
            # of CPU importing torch and TRL again for each config)
            monkeypatch.chdir(tmp_path)
            env = _env(cache)
            for name in set(os.environ) - set(env):
                monkeypatch.delenv(name)
            for name, value in env.items():
                if os.environ.get(name) != value:
                    monkeypatch.setenv(name, value)
            code = main(["train", str(config), "--dry-run", "--output-dir", str(tmp_path / "run")])
            out = capsys.readouterr()
            assert code == 0, out.out + out.err
        elif isinstance(data, dict) and "rewards" in data:
            from grpo_rewards import load_reward_set

            load_reward_set(data)
    else:
        # never run a block that would change the environment: it must say why it is not run
        assert not INSTALLS.search(block.code), f"{block.id} installs or publishes: mark it <!-- not run: why -->"
        (tmp_path / "examples").symlink_to(ROOT / "examples")  # the bundled example files, by their paths
        run = subprocess.run(["bash", "-e", "-c", block.code], cwd=tmp_path, env=_env(cache), capture_output=True,
                             text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
