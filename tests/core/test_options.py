"""One options type: RewardOptions is checked in one place and reaches every reward from Python."""

from __future__ import annotations

import pytest

from grpo_rewards import RewardOptions, RewardSetError, get_reward, hookimpl
from grpo_rewards.options import OPTION_NAMES, check_options
from grpo_rewards.testing import plugin_registered


def echo_length(text, **row):
    return float(len(text))


def with_option_name(text, *, timeout: float = 1.0, **row):
    return 1.0


def batch_with_option_name(prompts, completions, workers=2, **kwargs):
    return [1.0] * len(completions)


@pytest.mark.parametrize(("values", "message"), [
    ({"max_chars": -1}, "max_chars must be an integer >= 1 or None, got -1"),
    ({"workers": -3}, "workers must be an integer >= 1 or None, got -3"),
    ({"timeout": 0}, "timeout must be a positive number or None, got 0"),
    ({"on_error": "ignore"}, "on_error must be one of raise, none, got 'ignore'"),
    ({"timeout_value": "zero"}, "timeout_value must be a finite number or None, got 'zero'"),
    ({"worker_safe": "no"}, "worker_safe must be true or false, got 'no'"),
])
def test_an_option_out_of_range_is_refused_with_one_line(values, message):
    assert check_options(values) == [message]
    with pytest.raises(ValueError, match=message):
        RewardOptions(**values)


def test_a_timeout_on_a_reward_that_cannot_run_in_a_worker_is_refused_with_the_reason():
    with pytest.raises(ValueError, match=r"timeout needs worker processes, and this reward is registered "
                                         r"worker_safe=False \(its code cannot run in one\); remove the timeout"):
        RewardOptions(worker_safe=False).merged({"timeout": 2.0})


def test_options_merge_a_mapping_by_key_and_a_record_by_its_changed_fields():
    registered = RewardOptions(timeout=1.0, timeout_value=0.0)
    assert registered.merged(RewardOptions(workers=2)) == RewardOptions(timeout=1.0, timeout_value=0.0, workers=2)
    assert registered.merged({"timeout": None}).timeout is None
    assert registered.changed() == {"timeout": 1.0, "timeout_value": 0.0}


class Registering:
    """A plugin whose register_rewards registers what ``calls`` holds."""

    def __init__(self, *calls):
        self.calls = calls

    @hookimpl
    def register_rewards(self, register):
        for args, kwargs in self.calls:
            register(*args, **kwargs)


def _registration_error(*args, **kwargs) -> str:
    with plugin_registered(Registering((args, kwargs)), "demo") as registry:
        assert "demo.x" not in registry.rewards
        return registry.broken()["demo"].error


@pytest.mark.parametrize(("args", "kwargs", "message"), [
    (("x", with_option_name), {}, "parameter(s) timeout have the name of an execution option"),
    (("x", batch_with_option_name), {"form": "batch"}, "parameter(s) workers have the name of an execution option"),
    (("x", echo_length), {"output_range": (1, 0)}, "output_range must be (low, high) with low <= high, not (1, 0)"),
    (("x", echo_length), {"units": "bytes"}, "units must be one of chars, words, tokens, none, not 'bytes'"),
    (("x.y", echo_length), {}, "the name 'demo.x.y' has a dot; give the short name"),
    (("x", lambda text, **row: 1.0), {"timeout": 1.0}, "<lambda> cannot run in a worker process under the timeout"),
    (("x", echo_length), {"timeout": 1.0, "worker_safe": False}, "timeout needs worker processes"),
    (("x", echo_length), {"max_chars": -1}, "max_chars must be an integer >= 1 or None, got -1"),
])
def test_registration_refuses_what_the_core_cannot_honour(args, kwargs, message):
    assert message in _registration_error(*args, **kwargs)


def test_no_first_party_reward_has_a_parameter_named_like_an_option():
    from grpo_rewards import load_registry

    registry = load_registry()
    assert {"math.accuracy", "format.regex", "length.target"} <= set(registry.rewards)
    clashes = {name: sorted(set(info.params) & set(OPTION_NAMES)) for name, info in registry.rewards.items()}
    assert {name: c for name, c in clashes.items() if c} == {}


def test_registered_options_are_kept_as_one_record():
    plugin = Registering((("x", echo_length), {"options": RewardOptions(timeout=2.0), "max_chars": 10}))
    with plugin_registered(plugin, "demo") as registry:
        info = registry.reward("demo.x")
    assert info.options == RewardOptions(timeout=2.0, max_chars=10)
    assert (info.options.timeout, info.options.max_chars, info.options.worker_safe) == (2.0, 10, True)


def test_get_reward_reaches_every_option_and_keeps_registered_ones():
    plugin = Registering((("x", echo_length), {"timeout": 2.0}))
    with plugin_registered(plugin, "demo"):
        reward = get_reward("demo.x", options=RewardOptions(max_chars=3, too_large_value=-1.0))
        assert (reward.options.timeout, reward.options.max_chars) == (2.0, 3)
        assert reward(prompts=["p", "p"], completions=["ab", "abcd"]) == [2.0, -1.0]
        assert get_reward("demo.x", options={"timeout": None}).options.timeout is None
        with pytest.raises(RewardSetError, match=r"unknown option\(s\) worker_safe"):
            get_reward("demo.x", options={"worker_safe": False})
        with pytest.raises(RewardSetError, match="workers must be an integer >= 1 or None, got -3"):
            get_reward("demo.x", options={"workers": -3})


def test_show_prints_the_registered_options_and_what_the_deadline_bounds(capsys):
    from grpo_rewards.cli import main

    plugin = Registering((("x", echo_length), {"timeout": 2.0, "max_chars": 10}))
    with plugin_registered(plugin, "demo"):
        assert main(["show", "demo.x"]) == 0
    out = capsys.readouterr().out
    assert "workers:   yes (deadline 2 s per sample)\noptions:   timeout=2.0, max_chars=10\n" in out


def test_an_option_given_as_a_parameter_says_where_it_belongs(registry):
    with pytest.raises(RewardSetError) as err:
        get_reward("fixture.shout", registry=registry, timeout=2)
    assert [p.split(": ", 1)[-1] if p.startswith("entry") else p for p in err.value.problems] == [
        "'timeout' is an execution option, not a parameter: give it as the entry's "
        "'timeout:' key (from Python, get_reward(..., options={'timeout': ...}))"]
