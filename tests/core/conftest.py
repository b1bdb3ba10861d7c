"""Fixture plugin distributions, built and installed with pip into private target folders."""

from __future__ import annotations

from pathlib import Path

import pytest
from lanes import pip_install_copies

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the installed good, broken and hookfail fixture plugins."""
    target = tmp_path_factory.mktemp("site")
    pip_install_copies(target, *(FIXTURES / p for p in ("good", "broken", "hookfail")))
    return target


@pytest.fixture(scope="session")
def dupe_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a second distribution that claims the 'fixture' plugin name."""
    target = tmp_path_factory.mktemp("dupe-site")
    pip_install_copies(target, FIXTURES / "dupe")
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
