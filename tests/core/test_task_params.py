"""Task parameters: declared at registration (name, type, default), shown by `show`, unknown ones refused."""

from __future__ import annotations

import pytest

import grpo_rewards
from grpo_rewards.cli import main
from grpo_rewards.testing import plugin_registered
from grpo_rewards.train.data import DatasetError, _task_rows


def _count(n, seed, start: int = 0):
    return [{"prompt": f"Count from {start + i}:"} for i in range(n)]


def _passthrough(n, seed, **params):
    """Rows built by a generator whose parameters the plugin knows as data."""
    return [{"prompt": f"{sorted(params.items())} #{i}"} for i in range(n)]


def _bare(n, seed):
    return [{"prompt": str(i)} for i in range(n)]


class Plugin:
    @grpo_rewards.hookimpl
    def register_tasks(self, register):
        register("count", _count)
        register("gen", _passthrough, params={"min_terms": {"type": int, "default": 2},
                                              "style": {"type": "str | None", "default": None},
                                              "digits": {"type": "int"}})
        register("open", _passthrough)
        register("bare", _bare)


class BadPlugin:
    @grpo_rewards.hookimpl
    def register_tasks(self, register):
        register("gen", _passthrough, params={"min_terms": 2})


def test_declared_parameters_replace_the_factory_signature_with_type_and_default():
    with plugin_registered(Plugin(), "toy") as registry:
        params = registry.task("toy:gen").params
    assert [(p.name, p.type_name, p.required) for p in params.values()] == [
        ("min_terms", "int", False), ("style", "str | None", False), ("digits", "int", True)]
    assert params["min_terms"].default == 2


def test_show_lists_a_tasks_parameters_with_types_and_defaults(capsys):
    with plugin_registered(Plugin(), "toy"):
        assert main(["show", "toy:gen"]) == 0
        out = capsys.readouterr().out
        assert main(["show", "toy:bare"]) == 0
        bare = capsys.readouterr().out
    assert "parameters (dataset.params):\n  min_terms: int (default 2)\n  style: str | None (default null)\n" \
           "  digits: int (required)\n" in out
    assert "parameters (dataset.params):\n  (none)\n" in bare


def test_an_unknown_parameter_of_a_declared_task_is_refused_before_the_factory_runs():
    with plugin_registered(Plugin(), "toy") as registry:
        with pytest.raises(DatasetError, match=r"task toy:gen has no parameter\(s\) 'min_term'; its parameters: "
                                               r"min_terms, style, digits"):
            _task_rows({"task": "toy:gen", "params": {"min_term": 3}}, registry)
        assert _task_rows({"task": "toy:gen", "n": 1, "params": {"min_terms": 3}}, registry) == [
            {"prompt": "[('min_terms', 3)] #0"}]


def test_a_task_without_parameters_refuses_every_parameter():
    with plugin_registered(Plugin(), "toy") as registry:
        with pytest.raises(DatasetError, match=r"task toy:bare has no parameter\(s\) 'n_digits'; its parameters: none"):
            _task_rows({"task": "toy:bare", "params": {"n_digits": 3}}, registry)


def test_a_factory_taking_any_keyword_and_declaring_none_passes_parameters_through():
    with plugin_registered(Plugin(), "toy") as registry:
        assert registry.task("toy:open").open_params
        assert _task_rows({"task": "toy:open", "n": 1, "params": {"x": 1}}, registry) == [{"prompt": "[('x', 1)] #0"}]


def test_a_malformed_declaration_breaks_the_plugin_with_a_reason():
    with plugin_registered(BadPlugin(), "bad") as registry:
        record = registry.records["bad"]
    assert not record.ok
    assert "task bad:gen: parameter 'min_terms': expected {'type': ..., 'default': ...}, got 2" in record.error
