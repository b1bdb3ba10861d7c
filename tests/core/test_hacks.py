"""Hack corpora: shipped through register(..., hacks=...), read through the registry, run by check --hacks."""

from __future__ import annotations

from pathlib import Path

import pytest

import grpo_rewards
from grpo_rewards.cli import main
from grpo_rewards.hacks import corpus_of, read_corpus, run_hacks
from grpo_rewards.registry import FIRST_PARTY
from grpo_rewards.testing import assert_no_overpaid_hacks, plugin_registered

FIRST_PARTY_REWARDS = sorted(n for n in grpo_rewards.load_registry().rewards if n.split(".")[0] in FIRST_PARTY)


#: the rewards whose corpus a test module of their own package runs, checking more than this test would: here only
#: that they ship one
RUN_ELSEWHERE = {
    # needs a judge server: run against a scripted judge, the exact pay per entry (and in bench/judge.md against
    # SmolLM2-135M served by transformers serve)
    "judge.rubric": "judge/test_judge_plugin.py",
    # real sandboxes, each entry's time and memory limits waited out (~6 s a corpus): there `grpo-rewards check
    # code.tests_passed --hacks` (every entry ok), every entry through code.all_passed (0.0, no process left),
    # `check code.sql_match --hacks` and each entry's own value
    "code.tests_passed": "code/test_code_hacks.py",
    "code.all_passed": "code/test_code_hacks.py",
    "code.sql_match": "code/test_code_sql_hacks.py",
}
TESTS = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("name", FIRST_PARTY_REWARDS)
def test_every_first_party_reward_ships_a_corpus_and_overpays_no_entry(name):
    if name in RUN_ELSEWHERE:
        corpus = corpus_of(grpo_rewards.load_registry().reward(name))
        assert corpus and any(name in hack.max_pay for hack in corpus), f"{name} ships no corpus that targets it"
        return
    assert_no_overpaid_hacks(name)


@pytest.mark.parametrize("name", sorted(RUN_ELSEWHERE))
def test_a_corpus_left_to_its_package_is_run_by_the_module_named(name):
    module = TESTS / RUN_ELSEWHERE[name]
    assert name in FIRST_PARTY_REWARDS and f'"{name}"' in module.read_text(encoding="utf-8")


def shout(text: str, **row) -> float:
    """1.0 when every letter is upper case. Example: shout("HI") -> 1.0"""
    letters = [c for c in text if c.isalpha()]
    return float(all(c.isupper() for c in letters))


def length_pay(text: str, **row) -> float:
    """The number of characters, over 100."""
    return len(text) / 100


def picky(text: str, **row) -> float:
    """Raises on a completion that holds a NUL."""
    if "\x00" in text:
        raise ValueError("a NUL")
    return 0.0


SHOUT_HACKS = [
    {"name": "no_letters", "completion": "!!!", "max_pay": {"shout.shout": 0.0}, "note": "no letters at all"},
    {"name": "one_capital", "completion": "A", "max_pay": {"shout.shout": 1.0}},
    {"name": "for_another_reward", "completion": "x", "max_pay": {"other.reward": 0.0}},
]


class ShoutPlugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("shout", shout, hacks=SHOUT_HACKS)
        register("length", length_pay, hacks=lambda: [
            {"name": "padding", "completion": "a" * 50, "reference": "b" * 50, "max_pay": {"shout.length": "reference"}},
        ])
        register("quiet", shout, hacks=())
        register("bare", shout)
        register("picky", picky, hacks=[{"name": "nul", "completion": "\x00", "max_pay": {"shout.picky": 0.0}}])


def test_a_plugin_ships_its_corpus_through_register_and_an_overpaid_entry_is_named(capsys):
    with plugin_registered(ShoutPlugin(), "shout") as registry:
        report = run_hacks("shout.shout", registry=registry)
        assert [(r.hack.name, r.paid, r.bound) for r in report.results] == [("no_letters", 1.0, 0.0),
                                                                             ("one_capital", 1.0, 1.0)]
        assert [r.hack.name for r in report.overpaid] == ["no_letters"]
        assert main(["check", "shout.shout", "--hacks"]) == 1
    out = capsys.readouterr().out
    assert "OVER  no_letters" in out and "(no letters at all)" in out and "1 overpaid" in out


def test_the_kit_assertion_names_the_overpaid_entry():
    with plugin_registered(ShoutPlugin(), "shout"), pytest.raises(AssertionError, match="no_letters"):
        assert_no_overpaid_hacks("shout.shout")


def test_a_reference_bound_is_what_the_reward_pays_a_real_answer_of_the_same_length():
    with plugin_registered(ShoutPlugin(), "shout") as registry:
        (result,) = run_hacks("shout.length", registry=registry).results
    assert (result.paid, result.bound, result.from_reference, result.overpaid) == (0.5, 0.5, True, False)


def test_an_explicitly_empty_corpus_and_a_missing_corpus_are_told_apart(capsys):
    with plugin_registered(ShoutPlugin(), "shout"):
        assert main(["check", "shout.quiet", "--hacks"]) == 0
        assert main(["check", "shout.bare", "--hacks"]) == 0
        with pytest.raises(AssertionError, match="ships no hack corpus"):
            assert_no_overpaid_hacks("shout.bare")
        assert_no_overpaid_hacks("shout.quiet")
    out = capsys.readouterr().out
    assert "shout.quiet: explicitly empty hack corpus (no known exploit)" in out
    assert "shout.bare: ships no hack corpus" in out


def test_a_reward_that_raises_on_an_entry_is_reported_as_an_error_line():
    with plugin_registered(ShoutPlugin(), "shout") as registry:
        (result,) = run_hacks("shout.picky", registry=registry).results
    assert result.overpaid and result.line().startswith("ERROR nul: RewardError")


def test_parameters_given_on_the_command_line_override_the_entries_own(capsys):
    assert main(["check", "format.boxed", "--hacks", "--with", "allow_empty=true"]) == 1
    assert "OVER  box_phantom" in capsys.readouterr().out


@pytest.mark.parametrize(("entry", "problem"), [
    ({"completion": "x", "max_pay": {"a.b": 0}}, "'name' must be a non-empty string"),
    ({"name": "n", "max_pay": {"a.b": 0}}, "'completion' is missing"),
    ({"name": "n", "completion": "x", "max_pay": {}}, "'max_pay' must be a non-empty dict"),
    ({"name": "n", "completion": "x", "max_pay": {"a.b": "reference"}}, "has no 'reference'"),
    ({"name": "n", "completion": "x", "max_pay": {"a.b": float("nan")}}, "must be a finite number"),
    ({"name": "n", "completion": "x", "max_pay": {"a.b": 0}, "colums": {}}, "unknown key 'colums'"),
])
def test_a_bad_corpus_entry_is_a_plugin_error_that_says_what_is_wrong(entry, problem):
    with pytest.raises(grpo_rewards.PluginError, match=problem):
        read_corpus([entry], "the hack corpus of x.y")


def test_two_entries_with_one_name_are_refused():
    entry = {"name": "n", "completion": "x", "max_pay": {"a.b": 0}}
    with pytest.raises(grpo_rewards.PluginError, match="the name is used by another entry"):
        read_corpus([entry, entry], "x")


def slow(text: str, **row) -> float:
    """Sleeps on 'slow'."""
    if text == "slow":
        import time

        time.sleep(5)
    return 0.0


class SlowPlugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("slow", slow, hacks=[{"name": "sleeper", "completion": "slow", "max_pay": {"s.slow": 0.0}},
                                      {"name": "quick", "completion": "x", "max_pay": {"s.slow": 0.0}}])


def test_an_entry_that_hangs_is_reported_and_the_run_goes_on():
    import time

    with plugin_registered(SlowPlugin(), "s") as registry:
        started = time.monotonic()
        report = run_hacks("s.slow", registry=registry, deadline=0.3)
    assert time.monotonic() - started < 3
    assert [r.line() for r in report.overpaid] == ["ERROR sleeper: TimeoutError: no result within 0.3 s"]
    assert report.results[1].paid == 0.0


def test_the_module_examples_run():
    import doctest

    import grpo_rewards.hacks

    assert doctest.testmod(grpo_rewards.hacks).failed == 0
