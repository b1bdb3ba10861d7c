"""The plugin author's kit: an opt-in pytest plugin for testing reward plugins.

Turn it on in your ``tests/conftest.py`` (it is never loaded into a test suite on its own)::

    pytest_plugins = ["grpo_rewards.testing"]

Then, in a test::

    from grpo_rewards.testing import assert_reward_contract

    def test_shout_keeps_the_reward_contract():
        assert_reward_contract(grpo_rewards_shout.shout)

    def test_shout_is_registered(registered_plugin):
        with registered_plugin(grpo_rewards_shout.plugin, "shout") as registry:
            assert "shout.shout" in registry.rewards

Fixtures: ``plugins`` (an isolated :class:`~grpo_rewards.Plugins` with no installed plugins),
``registered_plugin`` (a context manager that registers a plugin object for one test),
``make_completions`` (builds completions in both formats: tests that use it run twice), and
``pathological_completions`` (the inputs every reward must survive). ``assert_no_overpaid_hacks(name)``
runs a registered reward's hack corpus (``register(..., hacks=...)``) and names every overpaid entry.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from .contract import PATHOLOGICAL_INPUTS, run_contract
from .hacks import run_hacks
from .plugin.manager import Plugins, get_plugins
from .registry import Registry, use_registry

FORMATS = ("standard", "conversational")


def standard(*texts: str) -> list[str]:
    """Completions of a standard (plain text) dataset.

    >>> standard("4", "five")
    ['4', 'five']
    """
    return list(texts)


def conversational(*texts: str) -> list[list[dict[str, str]]]:
    """Completions of a conversational dataset: one assistant message each.

    >>> conversational("4")
    [[{'role': 'assistant', 'content': '4'}]]
    """
    return [[{"role": "assistant", "content": text}] for text in texts]


def completions(texts: Sequence[str], format: str = "standard") -> list[Any]:
    """``texts`` as completions in ``format`` (``"standard"`` or ``"conversational"``)."""
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {format!r}")
    return standard(*texts) if format == "standard" else conversational(*texts)


def assert_reward_contract(reward: Any, **options: Any) -> None:
    """Raise ``AssertionError`` listing every contract point ``reward`` breaks, one line each.

    ``reward``: a TRL reward callable, a ``grpo_rewards.Reward``, or a registered name like
    ``"math.accuracy"`` (with ``params={...}``). Options (see ``grpo_rewards.contract.run_contract``):
    ``columns={"solution": "4"}`` sample values for the dataset columns it reads, ``units``,
    ``output_range``, ``deadline`` (seconds per call, default 10), ``pathological=False`` to skip
    the pathological inputs.
    """
    __tracebackhide__ = True
    result = run_contract(reward, **options)
    if result.problems:
        lines = "\n".join(f"  - {p}" for p in result.problems)
        raise AssertionError(f"reward {result.name!r} breaks the reward contract:\n{lines}")
    for warning in result.warnings:
        warnings.warn(f"reward {result.name!r}: {warning}", UserWarning, stacklevel=2)


def assert_no_overpaid_hacks(name: str, *, params: dict[str, Any] | None = None, registry: Any = None,
                             require_corpus: bool = True) -> None:
    """Raise ``AssertionError`` naming every entry of reward ``name``'s hack corpus that it overpays.

    Runs what ``grpo-rewards check NAME --hacks`` runs (see :mod:`grpo_rewards.hacks`) for a
    registered reward: inside ``registered_plugin(...)`` it sees your plugin. With
    ``require_corpus`` (the default) a reward registered without ``hacks=`` fails too.
    """
    __tracebackhide__ = True
    report = run_hacks(name, params=params, registry=registry)
    if report.corpus is None and require_corpus:
        raise AssertionError(f"reward {name!r} ships no hack corpus: register it with hacks=[...] "
                             "(or hacks=() when no exploit is known)")
    if report.overpaid:
        lines = "\n".join(f"  - {r.line()}" for r in report.overpaid)
        raise AssertionError(f"reward {name!r} overpays {len(report.overpaid)} hack(s):\n{lines}")


@contextlib.contextmanager
def plugin_registered(plugin: object, name: str, *, installed: bool = False) -> Iterator[Registry]:
    """Register ``plugin`` under namespace ``name`` for the duration of the ``with`` block.

    Yields the registry holding it, put in use (:func:`grpo_rewards.registry.use_registry`) so that
    inside the block ``load_registry()``, ``get_reward()``, ``load_reward_set()`` and
    ``grpo_rewards.cli.main([...])`` see it too; functions that take ``registry=`` can be given it
    directly. With ``installed=False`` (the default) the installed plugins are left out, so the test
    sees only ``plugin``.
    """
    plugins = get_plugins(load_entry_points=installed)
    plugins.add(plugin, name)
    with use_registry(Registry(plugins)) as registry:
        yield registry


@pytest.fixture
def plugins() -> Plugins:
    """A fresh :class:`~grpo_rewards.Plugins` with the hookspecs and no installed plugins."""
    return get_plugins(load_entry_points=False)


@pytest.fixture
def registered_plugin() -> Any:
    """``registered_plugin(plugin, name, installed=False)``: a context manager yielding the registry."""
    return plugin_registered


@pytest.fixture(params=FORMATS)
def completion_format(request: pytest.FixtureRequest) -> str:
    """``"standard"`` then ``"conversational"``: a test using it runs once per format."""
    return str(request.param)


@pytest.fixture
def make_completions(completion_format: str) -> Any:
    """``make_completions(["4", "five"])``: the texts as completions, in each format in turn."""

    def make(texts: Sequence[str]) -> list[Any]:
        return completions(texts, completion_format)

    return make


@pytest.fixture
def pathological_completions() -> list[tuple[str, Any]]:
    """``(label, completion)`` pairs no reward may raise or hang on: None, a number, no assistant, ..."""
    return list(PATHOLOGICAL_INPUTS)


@pytest.fixture(name="assert_reward_contract")
def assert_reward_contract_fixture() -> Any:
    """``assert_reward_contract`` as a fixture under its own name (the guide's name; it is also
    importable: ``from grpo_rewards.testing import assert_reward_contract``)."""
    return assert_reward_contract


@pytest.fixture
def reward_contract() -> Any:
    """``assert_reward_contract`` as a fixture (the earlier name, kept as an alias)."""
    return assert_reward_contract
