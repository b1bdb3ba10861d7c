"""math.accuracy and math.reasoning_accuracy on real completions: values, outcome labels, metrics."""

from __future__ import annotations

import pickle

import pytest

import grpo_rewards_math
from grpo_rewards import Reward, RewardError
from grpo_rewards.testing import assert_reward_contract, completions
from grpo_rewards_math import Accuracy, ReasoningAccuracy, make_accuracy, make_reasoning_accuracy
from grpo_rewards_math.correctness import OUTCOMES, clear_cache
from grpo_rewards_math.definitions import OPTIONS

GSM8K_GOLD = (
    "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n"
    "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.\n#### 72"
)
GSM8K_RIGHT = (
    "In April she sold 48 clips. In May she sold half as many, 48 / 2 = 24.\n"
    "Altogether 48 + 24 = 72.\n#### 72"
)
GSM8K_WRONG = "In May she sold 48 * 2 = 96 clips, so 48 + 96 = 144 in total.\nThe answer is 144."
MATH_GOLD = r"The two roots sum to $-\frac{b}{a} = \frac{3}{4}$, so the answer is $\boxed{\frac{3}{4}}$."
MATH_RIGHT = r"By Vieta's formulas the sum of the roots is $\frac{3}{4}$, i.e. \boxed{0.75}."
MATH_WRONG = r"By Vieta the sum is $-\frac{3}{4}$." "\n\n" r"Final Answer: The final answer is $-\frac{3}{4}$. I hope it is correct."


@pytest.mark.parametrize("fmt", ["standard", "conversational"])
def test_accuracy_scores_gsm8k_and_math_completions_in_both_formats(fmt):
    texts = [GSM8K_RIGHT, GSM8K_WRONG, MATH_RIGHT, MATH_WRONG]
    golds = [GSM8K_GOLD, GSM8K_GOLD, MATH_GOLD, MATH_GOLD]
    values = grpo_rewards_math.accuracy(prompts=["q"] * 4, completions=completions(texts, fmt), solution=golds)
    assert values == [1.0, 0.0, 1.0, 0.0]


def test_accuracy_is_none_when_the_gold_answer_cannot_be_parsed():
    reward = make_accuracy()
    values = reward(completions=[r"\boxed{4}", r"\boxed{4}", "4", "4"],
                    solution=[None, "", r"\frac{", "1 + = ]["])
    assert values == [None, None, None, None]
    assert reward.stats == {"no_gold": 2, "gold_unparsable": 2}  # (a missing or empty solution: no_gold)


def test_accuracy_is_zero_without_an_answer_or_for_unreadable_completions():
    reward = make_accuracy(fallback_last_number=False)
    values = reward(completions=["I am not sure.", None, [{"role": "user", "content": "4"}], "it is 4"],
                    solution=["4"] * 4)
    assert values == [0.0, 0.0, 0.0, 0.0]
    assert reward.stats == {"no_answer": 2, "unreadable": 2}


def test_a_sample_is_scored_with_its_label():
    assert Accuracy()(r"\boxed{12}", solution="12") == (1.0, "correct")
    assert Accuracy()(r"\boxed{13}", solution="12") == (0.0, "wrong")


def test_outcome_counts_are_logged_once_per_batch_by_the_core_and_kept_cumulatively(metric_log):
    reward = make_accuracy()
    batch = [r"\boxed{12}", r"\boxed{13}", "no idea", r"\boxed{12}"]
    golds = ["12", "12", "12", "]["]
    assert reward(completions=batch, solution=golds, log_metric=metric_log.log_metric) == [1.0, 0.0, 0.0, None]
    outcomes = [name for name, _ in metric_log.metrics if name.startswith("outcomes/")]
    assert len(outcomes) == len(set(outcomes))  # each label once per step (TRL would average duplicates)
    assert metric_log.values("outcomes/math.accuracy/") == {  # only the labels that occurred
        "correct": 1.0, "wrong": 1.0, "no_answer": 1.0, "gold_unparsable": 1.0,
    }
    reward(completions=[r"\boxed{12}"], solution=["12"])
    assert reward.stats == {"correct": 2, "wrong": 1, "no_answer": 1, "gold_unparsable": 1}


def test_the_math_reward_never_logs_outcomes_itself(metric_log):
    reward = Accuracy()
    reward(r"\boxed{12}", solution="12", log_metric=metric_log.log_metric)
    assert metric_log.metrics == []


def test_each_samples_label_goes_to_the_completions_table(metric_log):
    reward = make_accuracy()
    reward(completions=[r"\boxed{12}", "nothing"], solution=["12", "12"], log_extra=metric_log.log_extra)
    assert metric_log.extra == {"math.accuracy/outcome": ["correct", "no_answer"]}


def test_factory_reward_logs_under_its_own_name(metric_log):
    reward = make_accuracy(metric="acc_strict", fallback_last_number=False)
    assert reward(completions=["4"], solution=["4"], log_metric=metric_log.log_metric) == [0.0]
    assert metric_log.values("outcomes/acc_strict/")["no_answer"] == 1.0


def test_solution_column_names_the_gold_column():
    reward = make_accuracy(solution_column="answer")
    assert reward(completions=[r"\boxed{7}"], answer=["7"]) == [1.0]


def test_missing_gold_column_is_a_clear_error_that_names_the_parameter_to_set():
    with pytest.raises(RewardError) as info:
        grpo_rewards_math.accuracy(prompts=["q"], completions=["7"], answer=["7"])
    assert str(info.value) == (
        "reward 'math.accuracy': needs dataset column(s) 'solution'; the batch has: answer. To read another column, "
        "set solution_column (with: {solution_column: NAME} in a reward set, solution_column=NAME in Python)")


@pytest.mark.parametrize(("params", "message"), [
    ({"rel_tol": -1e-3}, "rel_tol must be a number in"), ({"rel_tol": 1}, "rel_tol must be below 1"),
    ({"solution_column": ""}, "solution_column must name a column"),
    ({"fallback_last_number": "yes"}, "fallback_last_number must be true or false"),
])
def test_bad_parameters_are_rejected(params, message):
    with pytest.raises(ValueError, match=message):
        Accuracy(**params)


def test_rel_tol_decides_close_numbers():
    assert make_accuracy(rel_tol=1e-2)(completions=[r"\boxed{3.14}"], solution=[r"3.1416"]) == [1.0]
    assert make_accuracy(rel_tol=1e-6)(completions=[r"\boxed{3.14}"], solution=[r"3.1416"]) == [0.0]


@pytest.mark.parametrize("fmt", ["standard", "conversational"])
def test_reasoning_accuracy_reads_only_after_the_delimiter(fmt):
    texts = [
        r"<think>7 + 5 is \boxed{13}? no</think> The answer is \boxed{12}.",
        r"<think>7 + 5 = 12 so \boxed{12}</think> Then \boxed{13}.",
        r"<think>7 + 5 = 12, \boxed{12}",
        r"\boxed{12}",
    ]
    values = grpo_rewards_math.reasoning_accuracy(completions=completions(texts, fmt), solution=["12"] * 4)
    assert values == [1.0, 0.0, 0.0, 0.0]


def test_reasoning_accuracy_delimiter_is_a_parameter():
    reward = make_reasoning_accuracy(delimiter="<|end_of_thought|>")
    assert reward(completions=[r"thinking 3<|end_of_thought|>\boxed{4}"], solution=["4"]) == [1.0]
    with pytest.raises(ValueError, match="delimiter"):
        ReasoningAccuracy(delimiter="")


def _symbolic_only(timeout: float, checker=None):
    from math_slow_checkers import SymbolicOnly

    reward = Reward(SymbolicOnly, metric="math.accuracy", columns=("solution",), options=OPTIONS.merged({"timeout": timeout}))
    if checker is not None:
        reward.scorer.checker = checker
    return reward


def test_symbolic_answers_are_decided_in_workers():
    clear_cache()
    reward = _symbolic_only(30)
    values = reward(completions=[r"\boxed{(x+1)^2}", r"\boxed{x^2 + 2x + 1}", r"\boxed{x^2+1}"],
                    solution=[r"x^2+2x+1", r"(1+x)^{2}", r"(x+1)^2"])
    assert values == [1.0, 1.0, 0.0]
    assert reward.stats == {"correct": 2, "wrong": 1}


def test_symbolic_check_over_the_cores_deadline_scores_zero_and_is_labelled_timeout(metric_log):
    from math_slow_checkers import SleepyCheck

    clear_cache()
    reward = _symbolic_only(0.5, SleepyCheck())
    values = reward(completions=[r"\boxed{sleepy}", "nothing here"], solution=["z + 3", "1"],
                    log_metric=metric_log.log_metric)
    assert values == [0.0, 0.0]
    assert reward.stats == {"timeout": 1, "no_answer": 1}
    assert metric_log.values("outcomes/math.accuracy/")["timeout"] == 1.0


def test_symbolic_check_that_fails_in_its_worker_scores_zero_and_is_labelled_error():
    from math_slow_checkers import RaisingCheck

    clear_cache()
    reward = _symbolic_only(30, RaisingCheck())
    assert reward(completions=[r"\boxed{y}"], solution=["y + 2"]) == [0.0]
    assert reward.stats == {"error": 1}


def test_module_level_rewards_have_stable_names_and_pickle_round_trip():
    for reward, name in ((grpo_rewards_math.accuracy, "math.accuracy"),
                         (grpo_rewards_math.reasoning_accuracy, "math.reasoning_accuracy")):
        clone = pickle.loads(pickle.dumps(reward))
        assert clone.__name__ == reward.__name__ == name
        assert clone(completions=[r"</think>\boxed{1/2}"], solution=["0.5"]) == [1.0]


def test_pickled_reward_keeps_its_parameters_and_options_and_starts_with_fresh_counts():
    reward = make_accuracy(rel_tol=1e-3, fallback_last_number=False, options={"timeout": 2.5})
    reward(completions=["x"], solution=["1"])
    clone = pickle.loads(pickle.dumps(reward))
    assert (clone.scorer.rel_tol, clone.options.timeout, clone.scorer.fallback_last_number) == (1e-3, 2.5, False)
    assert clone.stats == {}
    assert clone(completions=[r"\boxed{1}"], solution=["1"]) == [1.0]


def test_outcome_labels_are_the_documented_ones():
    assert OUTCOMES == ("correct", "wrong", "no_answer", "prompt_echo", "no_gold", "gold_unparsable", "undecided",
                        "timeout", "error")


def test_a_row_without_a_solution_is_none_labelled_no_gold_not_gold_unparsable():
    # (a dataset gives None for a row without the value: it was labelled gold_unparsable, as if the parser had failed)
    result = grpo_rewards_math.accuracy.score(prompts=["p"] * 4, completions=[r"\boxed{4}"] * 4,
                                              solution=[None, "", "  ", "not a math answer ]["])
    assert (result.values, result.labels) == ([None] * 4, ["no_gold"] * 3 + ["gold_unparsable"])


@pytest.mark.parametrize("reward", [grpo_rewards_math.accuracy, grpo_rewards_math.reasoning_accuracy])
def test_rewards_keep_the_reward_contract(reward):
    assert_reward_contract(reward, columns={"solution": "4"})


def test_symbolic_results_are_remembered_and_decided_in_process_next_time():
    from math_slow_checkers import SymbolicOnly

    clear_cache()
    score = SymbolicOnly()
    assert score.quick(r"\boxed{(w+1)^2}", solution="w^2+2w+1") is None  # the bounded checks do not decide
    assert score(r"\boxed{(w+1)^2}", solution="w^2+2w+1") == (1.0, "correct")
    assert score.quick(r"\boxed{(w+1)^2}", solution="w^2+2w+1") == (1.0, "correct")


def test_a_failing_quick_check_leaves_the_sample_to_the_symbolic_check(monkeypatch):
    import grpo_rewards_math.correctness as rewards

    calls = []

    def broken(gold, pred, conventions):  # what Accuracy.quick_equal calls
        calls.append((gold, pred))
        raise RuntimeError("bug in the quick checks")

    clear_cache()
    monkeypatch.setattr(rewards, "decide", broken)
    score = Accuracy()
    assert score.quick(r"\boxed{2/4}", solution="1/2") is None  # undecided here: the symbolic check decides
    assert score(r"\boxed{2/4}", solution="1/2") == (1.0, "correct")
    assert score(r"\boxed{3/4}", solution="1/2") == (0.0, "wrong")
    assert calls == [("1/2", "2/4"), ("1/2", "2/4"), ("1/2", "3/4")]


def test_prose_after_the_answer_is_phrase_falls_back_to_the_last_number():
    reward = Accuracy()
    completions = ["The answer is found by adding 7 and 5, which gives 12.", "The answer is twelve."]
    assert make_accuracy()(completions=completions, solution=["12", "12"]) == [1.0, 0.0]
    assert reward.extract(completions[0]) == "12"
    assert reward.extract(completions[1]) == "twelve"


def test_remembered_golds_keep_their_type_and_unhashable_golds_are_read():
    score = Accuracy()
    assert score("1", solution=1) == (1.0, "correct")
    assert score("1", solution=True) == (None, "gold_unparsable")  # not the remembered gold of 1
    assert score("1", solution=1.0) == (1.0, "correct")
    assert score("1", solution=["1"]) == (None, "gold_unparsable")  # a list: no gold, and no crash


def test_remembered_answers_follow_the_reward_parameters():
    text = "<think>so 3</think> It is 4"
    plain, reasoning, strict = Accuracy(), ReasoningAccuracy(), Accuracy(fallback_last_number=False)
    assert plain.extract(text) == "4"
    assert reasoning.extract("<think>so 3</think> \\boxed{5}") == "5"
    assert reasoning.extract(text) == "4" and strict.extract(text) is None
    clear_cache()
    assert strict.extract(text) is None and plain.extract(text) == "4"
