"""Fixture plugin distributions, built and installed with pip into private target folders."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def _pip_install(target: Path, *projects: str) -> None:
    """Install the fixture ``projects`` into ``target``, each built from a copy beside it: setuptools writes
    ``build/`` and ``*.egg-info`` next to the sources it builds, and the repository's folders are not the tests' to
    write (two test runs, or two xdist workers, building one folder at once would race)."""
    sources = target.parent / f"{target.name}-sources"
    for project in projects:
        shutil.copytree(FIXTURES / project, sources / project,
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
         "--no-index", "--target", str(target), *[str(sources / p) for p in projects]],
        check=True, capture_output=True, text=True,
    )


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the installed good, broken and hookfail fixture plugins."""
    target = tmp_path_factory.mktemp("site")
    _pip_install(target, "good", "broken", "hookfail")
    return target


@pytest.fixture(scope="session")
def dupe_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a second distribution that claims the 'fixture' plugin name."""
    target = tmp_path_factory.mktemp("dupe-site")
    _pip_install(target, "dupe")
    return target


@pytest.fixture
def plugins(fixture_site: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Only the fixture plugins are discoverable (first-party packages are filtered out)."""
    monkeypatch.syspath_prepend(str(fixture_site))
    monkeypatch.setenv("GRPO_REWARDS_PLUGINS", "fixture,broken,hookfail")
    return fixture_site


@pytest.fixture
def registry(plugins: Path):
    from grpo_rewards import load_registry

    return load_registry()
