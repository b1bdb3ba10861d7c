"""gym.accuracy: the row's own scorer, answer tags first, labels through the core, workers, contract, hacks."""

from __future__ import annotations

import pickle

import pytest

from grpo_rewards import get_reward, load_registry
from grpo_rewards.cli import main
from grpo_rewards.testing import assert_no_overpaid_hacks, assert_reward_contract
from grpo_rewards_gym import OUTCOMES, Accuracy, accuracy, extract_answer, make_rows
from grpo_rewards_gym.scoring import cached_datasets


@pytest.fixture(scope="module")
def rows():
    return {name: make_rows(name, 2, seed=0) for name in ("leg_counting", "prime_factorization", "basic_arithmetic")}


def _columns(rows):
    return {key: [r[key] for r in rows] for key in rows[0] if key != "prompt"}


def test_the_answer_block_comes_first_and_a_box_second():
    assert extract_answer(r"\boxed{3} ... <answer>4</answer>") == ("4", None)
    assert extract_answer(r"no tags, so the box: \boxed{\{1, 2\}}") == (r"\{1, 2\}", None)
    assert extract_answer(r"\boxed{3}", boxed=False) == (None, "no_answer")
    assert extract_answer("<answer>4</answer> again <answer> 4 </answer>") == ("4", None)
    assert extract_answer("<answer>a<answer>b</answer>") == ("b", None)


def test_the_gold_answer_is_correct_and_reasoning_gyms_partial_credit_is_kept(rows):
    row = rows["leg_counting"][0]
    score = Accuracy()
    assert score(f"<think>count</think><answer>{row['answer']}</answer>", **row) == (1.0, "correct")
    assert score(rf"\boxed{{{row['answer']}}}", **row) == (1.0, "correct")
    # reasoning-gym's default scorer: the gold inside a longer answer earns len(gold) / len(answer)
    value, label = score(f"<answer>{row['answer']} legs</answer>", **row)
    assert label == "partial" and value == pytest.approx(len(row["answer"]) / len(row["answer"] + " legs"))
    assert score("<answer>seven</answer>", **row) == (0.0, "wrong")


def test_no_answer_several_answers_and_a_dunder_are_labelled_zero(rows):
    row, score = rows["leg_counting"][0], Accuracy()
    assert score(f"the answer is {row['answer']}", **row) == (0.0, "no_answer")
    assert score(f"<answer>1</answer><answer>{row['answer']}</answer>", **row) == (0.0, "several_answers")
    assert score("<answer>__import__('os')</answer>", **row) == (0.0, "refused")


def test_a_scorer_that_raises_on_free_text_gives_unscorable(rows):
    row = rows["prime_factorization"][0]
    assert Accuracy()("<answer>two times something</answer>", **row) == (0.0, "unscorable")
    assert Accuracy()(f"<answer>{row['answer']}</answer>", **row) == (1.0, "correct")


def test_a_row_without_gym_metadata_is_not_applicable_and_a_corrupt_one_says_so(rows):
    assert Accuracy()("<answer>4</answer>", solution="4") == (None, "no_gym_metadata")
    assert Accuracy()("<answer>4</answer>", gym_dataset=None, gym_config=None, gym_entry=None) == (None,
                                                                                                  "no_gym_metadata")
    broken = {**rows["leg_counting"][0], "gym_dataset": "no_such_dataset"}
    assert Accuracy()("<answer>4</answer>", **broken) == (None, "bad_gym_metadata")


def test_labels_are_counted_by_the_core_and_trl_gets_the_values(rows):
    leg = rows["leg_counting"]
    completions = [f"<answer>{leg[0]['answer']}</answer>", "nothing", f"<answer>{leg[1]['answer']}x</answer>"]
    batch = [leg[0], leg[0], leg[1]]
    logged: dict[str, float] = {}
    values = accuracy(prompts=[r["prompt"] for r in batch], completions=completions,
                      log_metric=logged.__setitem__, **_columns(batch))
    assert values[:2] == [1.0, 0.0] and 0.0 < values[2] < 1.0
    assert {k: v for k, v in logged.items() if k.startswith("outcomes/") and v} == {
        "outcomes/gym.accuracy/correct": 1.0, "outcomes/gym.accuracy/no_answer": 1.0,
        "outcomes/gym.accuracy/partial": 1.0}
    assert set(OUTCOMES) >= {"correct", "partial", "wrong", "no_answer", "unscorable", "no_gym_metadata"}


def test_registered_with_a_deadline_in_workers_and_scores_there(rows):
    info = load_registry().reward("gym.accuracy")
    assert (info.options.timeout, info.options.timeout_value, info.output_range) == (30.0, 0.0, (0.0, 1.0))
    assert info.columns == ("gym_dataset", "gym_config", "gym_entry")
    reward = get_reward("gym.accuracy", options={"workers": 1})
    batch = rows["basic_arithmetic"] + rows["leg_counting"]
    completions = [f"<answer>{r['answer']}</answer>" for r in batch]
    completions[1] = "<answer>-1</answer>"
    assert reward(prompts=[r["prompt"] for r in batch], completions=completions, **_columns(batch)) == [
        1.0, 0.0, 1.0, 1.0]


def test_the_scorer_is_picklable_and_rebuilds_one_dataset_per_config(rows):
    score = pickle.loads(pickle.dumps(Accuracy(boxed=False)))
    before = cached_datasets()
    fresh = make_rows("letter_counting", 20, seed=11)
    assert all(score(f"<answer>{r['answer']}</answer>", **r) == (1.0, "correct") for r in fresh)
    assert cached_datasets() == before + 1


def test_the_contract_checks_pass(rows):
    row = rows["leg_counting"][0]
    # the deadlines only catch a hang: a first sample in a fresh worker imports reasoning-gym and builds its
    # dataset, which took over the default 10 s on a loaded machine
    assert_reward_contract(accuracy, columns={k: v for k, v in row.items() if k != "prompt"}, deadline=120.0)
    assert main(["check", "gym.accuracy", "--deadline", "120"]) == 0


def test_the_hack_corpus_overpays_no_entry():
    assert_no_overpaid_hacks("gym.accuracy")


def test_the_docstrings_examples_run():
    import doctest

    import grpo_rewards_gym.catalog
    import grpo_rewards_gym.codec
    import grpo_rewards_gym.scoring
    import grpo_rewards_gym.tasks

    for module in (grpo_rewards_gym.catalog, grpo_rewards_gym.codec, grpo_rewards_gym.scoring, grpo_rewards_gym.tasks):
        assert doctest.testmod(module).failed == 0, module.__name__


@pytest.mark.parametrize("failure", ["import", "file"])
def test_a_scorer_that_cannot_import_or_read_what_it_needs_gives_none_with_a_warning_never_zero(rows, monkeypatch,
                                                                                                 failure):
    # a scorer importing an optional module this machine lacks (or reading a file it cannot) failed on every
    # answer: paid 0.0 (unscorable), as if the model were wrong; free text it cannot parse stays the answer's fault
    from reasoning_gym.arithmetic.leg_counting import LegCountingDataset

    def needs_a_missing_module(self, answer, entry):
        import grpo_rewards_no_such_module  # noqa: F401

    def needs_a_missing_file(self, answer, entry):
        with open("/nonexistent/grpo-rewards-word-list.txt"):
            pass

    row = rows["leg_counting"][0]
    monkeypatch.setattr(LegCountingDataset, "score_answer",
                        needs_a_missing_module if failure == "import" else needs_a_missing_file)
    cause = (r"ModuleNotFoundError: No module named 'grpo_rewards_no_such_module'" if failure == "import" else
             r"FileNotFoundError: \[Errno 2\] No such file or directory: '/nonexistent/grpo-rewards-word-list.txt'")
    with pytest.warns(RuntimeWarning, match=rf"leg_counting's scorer cannot run here \({cause}\); its samples get None"):
        assert Accuracy()(f"<answer>{row['answer']}</answer>", **row) == (None, "scorer_error")
    assert Accuracy()("<answer>two and a half</answer>", **rows["prime_factorization"][0]) == (0.0, "unscorable")
