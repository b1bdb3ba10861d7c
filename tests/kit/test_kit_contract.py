"""Each contract point fails with its own message on a reward broken for it, and good rewards pass."""

from __future__ import annotations

import kit_rewards
import pytest

from grpo_rewards.contract import POINTS, contract_problems, run_contract
from grpo_rewards.testing import assert_reward_contract

GOOD = [
    (kit_rewards.mentions_four, {}),
    (kit_rewards.char_length, {}),
    (kit_rewards.solution_match, {"columns": {"solution": "4"}}),
    (kit_rewards.token_count, {"units": "tokens"}),
    (kit_rewards.last_bits_on_pickle, {}),  # a float32 model's last bits differ across processes: not a pickle fault
]

# (reward, options, the one problem line it must produce, prefix-exact)
BROKEN = [
    (kit_rewards.wrong_count, {}, "one value per completion: returned 1 values for 3 completions (three string completions)"),
    (kit_rewards.returns_strings, {}, "float or None: value 0 for three string completions is 'good' (str), expected a float or None"),
    (kit_rewards.strings_only, {}, "conversational completions: raised AttributeError: 'list' object has no attribute 'strip'"),
    (kit_rewards.messages_only, {}, "string completions: raised TypeError: string indices must be integers, not 'str'"),
    (kit_rewards.one_at_least, {}, "empty batch: returned [0.0] for no completions, expected []"),
    (kit_rewards.first_char, {}, "empty completion: raised IndexError: string index out of range"),
    (kit_rewards.refuses_huge, {}, "huge completion: raised MemoryError: too long"),
    (kit_rewards.strips_in_place, {}, "no mutation: changed its input completions (three string completions)"),
    (kit_rewards.unpicklable, {}, "pickle round trip: cannot be pickled (TypeError: cannot pickle '_thread.lock' object); TRL and worker processes need it"),
    (kit_rewards.forgets_on_pickle, {}, "pickle round trip: the unpickled copy gave [0.0, 0.0, 0.0] instead of [1.0, 1.0, 1.0]"),
    (kit_rewards.space_name, {}, "name: __name__ 'kit.char length' must be a non-empty string without spaces"),
    (kit_rewards.lambda_reward, {}, "name: __name__ '<lambda>' is a lambda; use a module-level function or a Reward"),
    (kit_rewards.reward, {}, "name: __name__ 'reward' is generic; TRL merges the metrics of rewards with the same name"),
    (kit_rewards.mentions_four, {"other_names": ["mentions_four"]}, "name: __name__ 'mentions_four' is not unique: another reward has it too"),
    (kit_rewards.noisy, {}, "determinism: the same inputs gave ["),
    (kit_rewards.reads_answer, {"columns": {"solution": "4"}}, "columns: reads column 'answer', which it does not declare (declared: solution): KeyError: 'answer'"),
    (kit_rewards.no_kwargs, {}, "columns: does not accept the keyword arguments TRL passes (trainer_state, log_metric, every dataset column); add **kwargs"),
    (kit_rewards.needs_ids, {}, "units: raised TypeError: 'NoneType' object is not iterable with completion_ids=None; a reward that reads completion_ids must declare units='tokens'"),
    (kit_rewards.mentions_four, {"units": "bytes"}, "units: declared units 'bytes', expected one of chars, words, tokens, none"),
    (kit_rewards.above_one, {"output_range": (0.0, 1.0)}, "output range: value 0 for three string completions is 2.0, outside the declared range [0.0, 1.0]"),
    (kit_rewards.chokes_on_none, {}, "pathological inputs: raised TypeError: 'NoneType' object is not subscriptable on 1 input(s): None"),
]


@pytest.mark.parametrize(("reward", "options"), GOOD, ids=[r.__name__ for r, _ in GOOD])
def test_good_reward_keeps_every_contract_point(reward, options):
    assert contract_problems(reward, **options) == []


@pytest.mark.parametrize(("reward", "options", "message"), BROKEN,
                         ids=[m.split(":")[0].replace(" ", "_") + "-" + getattr(r, "__name__", "?") for r, _, m in BROKEN])
def test_broken_reward_fails_its_point_with_a_precise_message(reward, options, message):
    problems = contract_problems(reward, pathological=message.startswith("pathological"), **options)
    assert any(p.startswith(message) for p in problems), problems


def test_every_contract_point_has_a_broken_reward_that_fails_it():
    covered = {message.split(":")[0] for _, _, message in BROKEN}
    assert covered == set(POINTS)


def test_a_reward_that_hangs_is_reported_as_hanging_per_input():
    problems = contract_problems(kit_rewards.hangs_on_braces, deadline=3)
    assert problems == ["pathological inputs: unbalanced braces: hangs (no result within 3 s)"]


def test_assert_reward_contract_lists_every_problem_in_its_message():
    with pytest.raises(AssertionError) as caught:
        assert_reward_contract(kit_rewards.wrong_count, pathological=False)
    assert str(caught.value) == (
        "reward 'wrong_count' breaks the reward contract:\n"
        "  - one value per completion: returned 1 values for 3 completions (three string completions)\n"
        "  - empty batch: returned [1.0] for no completions, expected []"
    )


def test_assert_reward_contract_passes_silently_on_a_good_reward():
    assert assert_reward_contract(kit_rewards.char_length) is None


def test_run_contract_reports_which_points_failed():
    result = run_contract(kit_rewards.one_at_least, pathological=False)
    assert result.name == "one_at_least"
    assert [p for p in result.points if result.failed(p)] == ["empty batch"]


def test_problems_are_typed_with_their_point():
    from grpo_rewards.contract import Problem

    result = run_contract(kit_rewards.one_at_least, pathological=False)
    assert result.problems == [Problem("empty batch", "returned [0.0] for no completions, expected []")]
    assert str(result.problems[0]) == "empty batch: returned [0.0] for no completions, expected []"


def test_a_run_reports_only_the_points_it_checked():
    without = run_contract(kit_rewards.char_length, pathological=False)
    assert "pathological inputs" not in without.points and "output range" not in without.points
    assert len(without.points) == 13
    full = run_contract(kit_rewards.char_length, output_range=(0.0, 1e9))
    assert full.points == list(POINTS)


def test_units_are_read_from_the_built_reward_not_the_registration():
    from grpo_rewards.testing import plugin_registered

    with plugin_registered(kit_rewards.UnitsPlugin(), "units") as registry:
        tokens = run_contract("units.measured", params={"unit": "tokens"}, registry=registry, pathological=False)
        chars = run_contract("units.measured", registry=registry, pathological=False)
    assert tokens.problems == [] and chars.problems == []
    assert "units" in tokens.points


def test_a_reward_that_returns_none_for_every_case_gets_a_warning_not_a_failure():
    with pytest.warns(UserWarning, match="returned None for every completion of every call"):
        assert_reward_contract(kit_rewards.Reward(kit_rewards.never_scores, metric="kit.never_scores"),
                               pathological=False)
    assert run_contract(kit_rewards.char_length, pathological=False).warnings == []


def test_sample_rows_are_given_to_the_completions_of_a_call_in_turn():
    from grpo_rewards.contract.cases import build_cases

    case = build_cases("chars", pathological=False)[0]  # three string completions
    _, _, _, kwargs, _ = case.arguments([{"solution": "4"}, {"solution": "12"}])
    assert kwargs["solution"] == ["4", "12", "4"]


def test_assert_reward_contract_takes_a_few_sample_rows_and_each_reaches_the_reward():
    assert contract_problems(kit_rewards.integer_gold, columns={"solution": "4"}, pathological=False) == []
    problems = contract_problems(kit_rewards.integer_gold, columns=[{"solution": "4"}, {"solution": "twelve"}],
                                 pathological=False)
    assert problems[0] == ("string completions: raised ValueError: invalid literal for int() with base 10: "
                           "'twelve'")
    assert_reward_contract(kit_rewards.integer_gold, columns=[{"solution": "4"}, {"solution": "12"}],
                           pathological=False)


@pytest.mark.parametrize("module", ["grpo_rewards.contract", "grpo_rewards.contract.cases",
                                    "grpo_rewards.contract.verdicts", "grpo_rewards.contract.runner"])
def test_contract_module_examples_run(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
