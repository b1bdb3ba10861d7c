"""Lifting per-sample scorers into TRL's call, with validation, error policy and metrics."""

from __future__ import annotations

import inspect
import math
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards import Reward, RewardError, RewardResult


def shout(text, *, bonus: float = 0.0, **row):
    return (1.0 if text.isupper() else 0.0) + bonus


def matches(text, *, solution, **row):
    return 1.0 if text == solution else 0.0


def echo_row(text, **row):
    return float(len(row["prompt"]) + len(row["completion_ids"] or []))


def returns(text, **row):
    return {"int": 3, "str": "1.0", "nan": math.nan, "none": None, "bool": True}[text]


def raises_on_b(text, **row):
    if text == "b":
        raise ZeroDivisionError("division by zero")
    return 1.0


def group_mean(prompts, completions, completion_ids=None, **kwargs):
    return [float(len(prompts))] * len(completions)


def test_sample_scorer_scores_both_completion_formats():
    reward = Reward(shout, metric="shout")
    completions = ["HI", [{"role": "assistant", "content": "hi"}], [{"role": "assistant", "content": "OK"}]]
    assert reward(prompts=["p"] * 3, completions=completions) == [1.0, 0.0, 1.0]


def test_parameters_are_bound_once():
    assert Reward(shout, metric="shout", params={"bonus": 0.5})(prompts=["p"], completions=["A"]) == [1.5]


def test_each_row_gets_its_own_columns_prompt_and_completion_ids():
    reward = Reward(matches, metric="m", columns=("solution",))
    assert reward(prompts=["a", "b"], completions=["4", "5"], solution=["4", "4"]) == [1.0, 0.0]
    echo = Reward(echo_row, metric="echo")
    assert echo(prompts=["abc", "d"], completions=["x", "y"], completion_ids=[[1, 2], [3]]) == [5.0, 2.0]


def test_a_missing_column_names_the_reward_and_what_the_batch_has():
    reward = Reward(matches, metric="m", columns=("solution",))
    with pytest.raises(RewardError) as err:
        reward(prompts=["a"], completions=["4"], answer=["4"])
    assert str(err.value) == "reward 'm': needs dataset column(s) 'solution'; the batch has: answer"


def matches_column(text, *, solution_column: str = "solution", **row):
    return 1.0 if text == row[solution_column] else 0.0


class MatchesColumn:
    def __init__(self, solution_column: str = "solution"):
        self.solution_column = solution_column

    def __call__(self, text, **row):
        return 1.0 if text == row[self.solution_column] else 0.0


@pytest.mark.parametrize("scorer", [matches_column, MatchesColumn])
def test_a_missing_column_named_by_a_default_column_parameter_says_which_parameter_to_set(scorer):
    reward = Reward(scorer, metric="m", columns=("solution",))
    with pytest.raises(RewardError) as err:
        reward(prompts=["a"], completions=["4"], answer=["4"])
    assert str(err.value) == ("reward 'm': needs dataset column(s) 'solution'; the batch has: answer. To read another "
                              "column, set solution_column (with: {solution_column: NAME} in a reward set, "
                              "solution_column=NAME in Python)")
    assert reward.column_params == {"solution": "solution_column"}
    given = Reward(scorer, metric="m", params={"solution_column": "gold"}, columns=("gold",))
    assert given.column_params == {"gold": "solution_column"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("str", "reward 'r' on sample 1: returned str '1.0', expected a float or None"),
        ("nan", "reward 'r' on sample 1: returned nan, expected a finite float or None"),
        ("bool", "reward 'r' on sample 1: returned bool True, expected a float or None"),
    ],
)
def test_values_outside_the_contract_are_errors_naming_reward_and_sample(text, message):
    with pytest.raises(RewardError) as err:
        Reward(returns, metric="r")(prompts=["p", "p"], completions=["int", text])
    assert str(err.value) == message


def test_ints_become_floats_and_none_stays_none():
    assert Reward(returns, metric="r")(prompts=["p", "p"], completions=["int", "none"]) == [3.0, None]


def test_a_raising_sample_is_an_error_with_its_index_by_default():
    with pytest.raises(RewardError) as err:
        Reward(raises_on_b, metric="r")(prompts=["p"] * 3, completions=["a", "b", "c"])
    assert str(err.value) == "reward 'r' on sample 1: raised ZeroDivisionError: division by zero"
    assert isinstance(err.value.__cause__, ZeroDivisionError)


def test_error_policy_none_gives_the_error_value_and_counts_it():
    reward = Reward(raises_on_b, metric="r", on_error="none")
    logged = {}
    values = reward(prompts=["p"] * 3, completions=["a", "b", "c"], log_metric=logged.__setitem__)
    assert values == [1.0, None, 1.0]
    assert logged["outcomes/r/error"] == 1.0
    assert logged["timing/r"] >= 0.0
    assert reward.stats["error"] == 1 and reward.stats["ok"] == 2


def test_unreadable_completions_get_the_invalid_value_without_calling_the_scorer():
    reward = Reward(shout, metric="s", invalid_value=0.0)
    assert reward(prompts=["p"] * 3, completions=[None, [{"role": "user", "content": "X"}], "X"]) == [0.0, 0.0, 1.0]
    assert reward.stats["unreadable"] == 2


def test_completions_over_the_size_guard_are_not_parsed():
    reward = Reward(raises_on_b, metric="r", max_chars=10, too_large_value=-1.0)
    assert reward(prompts=["p", "p"], completions=["b" * 11, "a"]) == [-1.0, 1.0]
    assert reward.stats["too_large"] == 1


def test_wrong_number_of_values_from_a_batch_reward_is_an_error():
    def short(prompts, completions, **kwargs):
        return [1.0]

    with pytest.raises(RewardError) as err:
        Reward(short, metric="short", form="batch")(prompts=["a", "b"], completions=["x", "y"])
    assert str(err.value) == "reward 'short': returned 1 values for 2 completions"


def test_batch_reward_gets_the_whole_batch():
    reward = Reward(group_mean, metric="g", form="batch")
    assert reward(prompts=["a", "a", "b"], completions=["x", "y", "z"]) == [3.0, 3.0, 3.0]


def test_reward_pickles_with_its_name_and_parameters():
    reward = Reward(shout, metric="loud", params={"bonus": 1.0})
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == "loud"
    assert clone(prompts=["p"], completions=["A"]) == [2.0]


def test_trl_uses_the_metric_name():
    from trl.trainer.utils import get_callable_name

    assert get_callable_name(Reward(shout, metric="format_when_loud")) == "format_when_loud"


def test_a_batch_rewards_timeout_bounds_the_whole_call_in_a_worker(plugins):
    from grpo_rewards_fixture_good import slow_batch

    reward = Reward(slow_batch, metric="slow", form="batch", timeout=1.0, timeout_value=-1.0)
    logged = {}
    assert reward(prompts=["p"] * 2, completions=["ab", "abc"]) == [2.0, 3.0]
    assert reward(prompts=["p"] * 2, completions=["ab", "sleep"], log_metric=logged.__setitem__) == [-1.0, -1.0]
    assert logged["outcomes/slow/timeout"] == 2.0
    assert logged["timing/slow"] < 10


def test_a_batch_reward_that_fails_in_its_worker_follows_the_error_policy(plugins):
    from grpo_rewards_fixture_good import slow_batch

    with pytest.raises(RewardError, match="error: ValueError: bad batch"):
        Reward(slow_batch, metric="slow", form="batch", timeout=5.0)(prompts=["p"], completions=["raise"])
    lenient = Reward(slow_batch, metric="slow", form="batch", timeout=5.0, on_error="none", error_value=0.0)
    assert lenient(prompts=["p"], completions=["raise"]) == [0.0]
    assert lenient.stats == {"error": 1}


def test_a_failing_batch_reward_under_on_error_none_counts_each_sample_once():
    def fails(prompts, completions, **kwargs):
        raise ValueError("no")

    logged = {}
    reward = Reward(fails, metric="f", form="batch", on_error="none")
    assert reward(prompts=["p"] * 2, completions=["a", "b"], log_metric=logged.__setitem__) == [None, None]
    assert reward.stats == {"error": 2}
    assert logged == {"timing/f": logged["timing/f"], "outcomes/f/error": 2.0}


def labelled(text, **row):
    return (1.0, "loud") if text.isupper() else (0.0, "quiet")


def test_a_per_sample_label_is_counted_and_logged_by_the_core_with_zeros_after_first_seen():
    logged = []
    reward = Reward(labelled, metric="lab")
    assert reward(prompts=["p"] * 3, completions=["A", "b", "C"], log_metric=lambda k, v: logged.append((k, v))) == [
        1.0, 0.0, 1.0]
    assert dict(logged)["outcomes/lab/loud"] == 2.0 and dict(logged)["outcomes/lab/quiet"] == 1.0
    logged.clear()
    reward(prompts=["p"], completions=["x"], log_metric=lambda k, v: logged.append((k, v)))
    assert dict(logged)["outcomes/lab/loud"] == 0.0
    assert len(logged) == len(dict(logged))  # every metric once per call
    assert reward.stats == {"loud": 2, "quiet": 2}


def test_a_label_is_logged_from_the_call_it_first_occurs_on_and_then_on_every_call():
    calls: list[dict[str, float]] = []

    def call(*completions):
        calls.append({})
        reward(prompts=["p"] * len(completions), completions=list(completions), log_metric=calls[-1].__setitem__)
        return {k: v for k, v in calls[-1].items() if k.startswith("outcomes/")}

    reward = Reward(labelled, metric="lab", max_chars=3)
    assert call("A", "B") == {"outcomes/lab/loud": 2.0}  # no zeros for labels that never occurred
    assert call("b", "long text") == {"outcomes/lab/loud": 0.0, "outcomes/lab/quiet": 1.0,
                                      "outcomes/lab/too_large": 1.0}
    assert call("C") == {"outcomes/lab/loud": 1.0, "outcomes/lab/quiet": 0.0, "outcomes/lab/too_large": 0.0}
    assert all("timing/lab" in logged for logged in calls)


def test_a_batch_reward_reports_labels_with_a_reward_result():
    def graded(prompts, completions, **kwargs):
        return RewardResult(values=[1.0, None], labels=["pass", "skipped"])

    logged = {}
    reward = Reward(graded, metric="g", form="batch")
    assert reward(prompts=["p"] * 2, completions=["a", "b"], log_metric=logged.__setitem__) == [1.0, None]
    assert (logged["outcomes/g/pass"], logged["outcomes/g/skipped"]) == (1.0, 1.0)


@pytest.mark.parametrize("bad", [(1.0, ""), (1.0, "has space"), (1.0, "a/b"), (1.0, 2), (1.0, "x", "y")])
def test_a_malformed_label_is_a_contract_error(bad):
    with pytest.raises(RewardError, match="on sample 0"):
        Reward(lambda text, **row: bad, metric="bad")(prompts=["p"], completions=["a"])


_LOUD = (1.0, "loud")
_HALF_INT = (1, "half")
_BAD_LABEL = (1.0, "two words")


def constant_results(text, **row):
    return {"loud": _LOUD, "none": None, "int": _HALF_INT, "bad": _BAD_LABEL}[text]


def test_a_result_object_returned_again_is_taken_as_accepted_and_nothing_else_is():
    reward = Reward(constant_results, metric="c", on_error="none")
    for _ in range(3):  # the same objects on every call: values, labels and counts as the first time
        result = reward.score(prompts=["p"] * 4, completions=["loud", "none", "int", "bad"])
        assert result.values == [1.0, None, 1.0, None]
        assert result.labels == ["loud", "none", "half", "error"]
        assert type(result.values[2]) is float  # the int became a float each time, never taken as it came
    assert reward.stats == {"loud": 3, "none": 3, "half": 3, "error": 3}
    assert list(reward._accepted.values()) == [_LOUD]  # only the pair accepted as it was
    assert pickle.loads(pickle.dumps(reward))._accepted == {}  # ids belong to the process that saw them


_OUTCOMES = [_LOUD, _HALF_INT, _BAD_LABEL, None, (0.0, "quiet"), (None, "skip"), (math.inf, "inf"), 2, (1.0,)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, len(_OUTCOMES) - 1), min_size=1, max_size=12), st.integers(1, 4))
def test_a_remembered_result_object_scores_exactly_as_a_fresh_copy_of_it(picks, calls):
    def same_objects(text, **row):
        return _OUTCOMES[int(text)]

    def fresh_copies(text, **row):
        out = _OUTCOMES[int(text)]
        return tuple(list(out)) if isinstance(out, tuple) else out  # equal, never the same object

    shared, fresh = Reward(same_objects, metric="s", on_error="none"), Reward(fresh_copies, metric="f", on_error="none")
    completions = [str(p) for p in picks]
    for _ in range(calls):
        a = shared.score(prompts=["p"] * len(picks), completions=completions)
        b = fresh.score(prompts=["p"] * len(picks), completions=completions)
        assert (a.values, a.labels) == (b.values, b.labels)
        assert [type(v) for v in a.values] == [type(v) for v in b.values]
    assert shared.stats == fresh.stats


def test_a_keyword_named_like_a_row_field_never_replaces_the_rows_own_value():
    def fields(text, **row):
        return float(len(row["prompt"]) * 100 + len(row["completion"]) * 10 + len(row["completion_ids"]))

    reward = Reward(fields, metric="f")
    assert reward(prompts=["pp"], completions=["ccc"], completion_ids=[[1]],
                  prompt=["x" * 9], completion=["y" * 9]) == [231.0]


def test_an_inputs_dependency_is_timed_by_itself_not_again_by_its_user():
    import time

    def slow(text, **row):
        time.sleep(0.2)
        return 1.0

    def uses(text, *, dep, **row):
        return dep

    logged = {}
    dependency = Reward(slow, metric="dep")
    reward = Reward(uses, metric="uses", columns=("dep",), inputs={"dep": dependency})
    assert reward(prompts=["p"], completions=["a"], log_metric=logged.__setitem__) == [1.0]
    assert logged["timing/dep"] >= 0.2
    assert logged["timing/uses"] < 0.1


def ratio(text, *, min_ratio: float = 0.5, **row):
    return 1.0 if sum(c.isupper() for c in text) / len(text) >= min_ratio else 0.0


def ratios(prompts, completions, *, min_ratio: float = 0.5, **kwargs):
    return [ratio(c, min_ratio=min_ratio) for c in completions]


def test_a_dataset_column_never_overrides_a_parameter():
    reward = Reward(ratio, metric="r", params={"min_ratio": 0.9})
    assert reward(prompts=["p"], completions=["ABc"], min_ratio=[0.1]) == [0.0]
    assert Reward(ratio, metric="r")(prompts=["p"], completions=["Abc"], min_ratio=[0.1]) == [0.0]
    batch = Reward(ratios, metric="b", form="batch", params={"min_ratio": 0.9})
    assert batch(prompts=["p"], completions=["ABc"], min_ratio=[0.1]) == [0.0]


def test_identical_samples_go_to_a_worker_once(plugins, tmp_path):
    from grpo_rewards_fixture_good import logged_length

    log = tmp_path / "calls.txt"
    reward = Reward(logged_length, metric="logged", columns=("log_file",), timeout=30.0)
    texts = ["same", "same", "other", "same"]
    assert reward(prompts=["p"] * 4, completions=texts, log_file=[str(log)] * 4) == [4.0, 4.0, 5.0, 4.0]
    assert sorted(log.read_text().split()) == ["other", "same"]
    assert reward.stats == {"ok": 4}


def test_no_first_party_reward_logs_outcomes_or_timing_itself():
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "packages"
    sources = [p for p in root.glob("rewards-*/src/**/*.py")]
    assert len(sources) > 10
    assert [str(p.relative_to(root)) for p in sources if "log_metric(" in p.read_text(encoding="utf-8")] == []


def test_each_samples_label_goes_to_the_completions_table_only_for_a_reward_that_reports_labels():
    extra = {}
    Reward(labelled, metric="lab")(prompts=["p"] * 2, completions=["A", "b"], log_extra=extra.__setitem__)
    Reward(shout, metric="plain")(prompts=["p"] * 2, completions=["A", None], log_extra=extra.__setitem__)
    assert extra == {"lab/outcome": ["loud", "quiet"]}


class Scaled:
    def __init__(self, scale: float = 1.0) -> None:
        self.scale = scale

    def __call__(self, text, **row):
        return self.scale * len(text) + len(row.get("solution", ""))


def test_columns_named_like_the_scorers_text_or_self_are_left_out_with_one_warning():
    reward = Reward(Scaled, metric="scaled", params={"scale": 2.0})
    trl_kwargs = {"trainer_state": None, "log_metric": lambda *a: None, "log_extra": lambda *a: None}
    columns = {"text": ["zzzzzz", "zzzzzz"], "self": [0, 1], "solution": ["ab", ""]}
    with pytest.warns(UserWarning) as caught:
        first_line = inspect.currentframe().f_lineno + 1
        first = reward(prompts=["p", "p"], completions=["abc", "x"], completion_ids=[[1], [2]], **columns, **trl_kwargs)
    assert first == [8.0, 2.0]
    assert [str(w.message) for w in caught] == [
        "reward 'scaled': dataset column(s) 'self', 'text' have the name of the scorer's own argument and are not "
        "passed to it (rename the column to use it)"
    ]
    assert [(w.filename, w.lineno) for w in caught] == [(__file__, first_line)]  # the caller's line, not the core's
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second call does not warn again
        assert reward(prompts=["p"], completions=["abcd"], text=["t"], self=[3]) == [8.0]
    assert Reward(shout, metric="f")(prompts=["p"], completions=["A"], self=["x"]) == [1.0]  # a function has no self


class GroupSize:
    def __call__(self, prompts, completions, completion_ids=None, **columns):
        return [float(len(completions) + len(columns.get("text", [])))] * len(completions)


def test_a_batch_reward_gets_a_text_column_and_loses_only_a_self_column():
    reward = Reward(GroupSize(), metric="group", form="batch")
    with pytest.warns(UserWarning, match=r"column\(s\) 'self' have the name of the scorer's own argument"):
        assert reward(prompts=["p", "q"], completions=["a", "b"], text=["x", "y"], self=[1, 2]) == [4.0, 4.0]


def counted(prompts, completions, **kwargs):
    return RewardResult(values=[1.0] * len(completions), metrics={"api_tokens": 5 * len(completions)})


def test_a_batch_rewards_metrics_are_in_its_result_and_logged_under_the_metric_name():
    logged: dict[str, float] = {}
    result = Reward(counted, metric="costly", form="batch").score(
        prompts=["p", "p"], completions=["a", "b"], log_metric=logged.__setitem__)
    assert result.metrics == {"api_tokens": 10.0} and logged["api_tokens/costly"] == 10.0


@pytest.mark.parametrize("metrics", [{"a/b": 1.0}, {"n": math.nan}, {"n": None}, {"": 1.0}, {"n": True}, {"n": 10 ** 400}])
def test_a_bad_metric_is_a_reward_error(metrics):
    def bad(prompts, completions, **kwargs):
        return RewardResult(values=[1.0] * len(completions), metrics=metrics)

    with pytest.raises(RewardError, match="metric"):
        Reward(bad, metric="bad", form="batch")(prompts=["p"], completions=["a"])


def test_calls_from_many_threads_are_each_counted_once_in_stats_and_seconds():
    import threading

    reward = Reward(labelled, metric="lab")
    start = threading.Barrier(8)
    results: list[RewardResult] = []

    def calls() -> None:
        start.wait()
        for _ in range(50):
            results.append(reward.score(prompts=["p"] * 3, completions=["A", "b", "C"]))

    threads = [threading.Thread(target=calls) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert reward.stats == {"loud": 800, "quiet": 400}
    assert reward.seconds == pytest.approx(sum(r.seconds for r in results))
    assert reward.labels_seen == {"loud", "quiet"}


def test_the_calls_a_reward_has_not_counted_yet_stay_few_and_a_changed_record_does_not_change_the_count():
    reward = Reward(labelled, metric="lab")
    for _ in range(100):
        result = reward.score(prompts=["p"], completions=["A"])
        result.labels[0] = "changed by the caller"
        assert len(reward.outcomes.pending) <= 33  # added up every 33 calls, not kept for the whole run
    assert reward.outcomes.pending  # the last call, not counted yet: a copy counts it in its seconds
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.stats == {} and clone.seconds == reward.seconds > 0
    assert reward.stats == {"loud": 100}
    assert not reward.outcomes.pending


ODD_BATCHES = '''def as_dict(prompts, completions, **kwargs):
    return {i: 1.0 for i in range(len(completions))}


def as_generator(prompts, completions, **kwargs):
    return (1.0 for _ in completions)


def as_tuple(prompts, completions, **kwargs):
    return tuple(0.5 for _ in completions)
'''


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "in-a-worker"])
def test_a_batch_result_that_is_a_dict_or_a_generator_is_refused_the_same_way_on_both_paths(tmp_path, timeout):
    from grpo_rewards.local import load_object

    (tmp_path / "odd.py").write_text(ODD_BATCHES)
    for name, kind in [("as_dict", "dict"), ("as_generator", "generator")]:
        reward = Reward(load_object(f"{tmp_path / 'odd.py'}:{name}"), metric=name, form="batch", timeout=timeout)
        with pytest.raises(RewardError) as err:
            reward(prompts=["p", "p"], completions=["x", "y"])
        assert str(err.value) == f"reward {name!r}: returned {kind}, expected a list of floats (one per completion)"
    fine = Reward(load_object(f"{tmp_path / 'odd.py'}:as_tuple"), metric="t", form="batch", timeout=timeout)
    assert fine(prompts=["p", "p"], completions=["x", "y"]) == [0.5, 0.5]


OPTION_BATCHES = '''
def limited(prompts, completions, *, reward_options=None, **columns):
    limit = reward_options.max_chars
    return [reward_options.too_large_value if len(c) > limit else float(len(c)) for c in completions]


def plain(prompts, completions, **columns):
    return [float("reward_options" in columns)] * len(completions)


class Limited:
    def __init__(self, scale=1.0):
        self.scale = scale

    def __call__(self, prompts, completions, completion_ids=None, reward_options=None, **columns):
        return [self.scale * reward_options.max_chars + len(columns)] * len(completions)
'''


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "in-a-worker"])
def test_a_batch_reward_that_declares_reward_options_gets_the_rewards_effective_options(tmp_path, timeout):
    from grpo_rewards import RewardOptions
    from grpo_rewards.local import load_object

    (tmp_path / "opts.py").write_text(OPTION_BATCHES)
    registered = RewardOptions(max_chars=3, too_large_value=-1.0, timeout=timeout)
    column = {"reward_options": ["a column", "a column"]}  # never passed to a scorer that takes the options
    limited = Reward(load_object(f"{tmp_path / 'opts.py'}:limited"), metric="limited", form="batch",
                     options=registered)
    assert limited(prompts=["p", "p"], completions=["abc", "abcd"], **column) == [3.0, -1.0]
    limited.options = registered.replace(max_chars=4)  # what it gets is what it runs with now
    assert limited(prompts=["p", "p"], completions=["abc", "abcd"]) == [3.0, 4.0]
    built = Reward(load_object(f"{tmp_path / 'opts.py'}:Limited"), metric="cls", form="batch", params={"scale": 2.0},
                   options=registered.replace(max_chars=7))
    assert built(prompts=["p", "p"], completions=["a", "b"], **column, other=[1, 2]) == [15.0, 15.0]
    # a batch reward with only **columns asks for nothing: it gets a dataset column of that name as any other
    plain = Reward(load_object(f"{tmp_path / 'opts.py'}:plain"), metric="plain", form="batch", options=registered)
    assert plain(prompts=["p", "p"], completions=["a", "b"], **column) == [1.0, 1.0]
    assert plain(prompts=["p", "p"], completions=["a", "b"]) == [0.0, 0.0]


CURRICULUM = '''
def curriculum(prompts, completions, trainer_state=None, **columns):
    if trainer_state is None:
        return [None] * len(completions)
    return [trainer_state.global_step / trainer_state.max_steps + len(trainer_state.log_history)] * len(completions)
'''


@pytest.mark.parametrize("timeout", [None, 30.0], ids=["in-process", "in-a-worker"])
def test_a_batch_reward_reads_trls_trainer_state_in_a_worker_too(tmp_path, timeout):
    # before: a batch reward with a timeout got no trainer_state (a curriculum on the step got None in a worker)
    from transformers import TrainerState

    from grpo_rewards.local import load_object

    (tmp_path / "cur.py").write_text(CURRICULUM)
    reward = Reward(load_object(f"{tmp_path / 'cur.py'}:curriculum"), metric="cur", form="batch", timeout=timeout)
    state = TrainerState(global_step=10, max_steps=40, log_history=[{"loss": 1.0}] * 3)
    # in a worker the state comes without its log_history (every step logged so far, sent again with each call)
    expected = 0.25 + (3 if timeout is None else 0)
    assert reward(prompts=["p", "p"], completions=["a", "b"], trainer_state=state) == [expected, expected]
    assert state.log_history == [{"loss": 1.0}] * 3  # the trainer's own state is untouched


@pytest.mark.parametrize(("values", "labels", "problem"), [
    ([0.5, math.nan, None], None, "on sample 1: returned nan, expected a finite float or None"),
    ([None, 1.0, -math.inf], None, "on sample 2: returned -inf, expected a finite float or None"),
    ([math.inf, -math.inf], None, "on sample 0: returned inf, expected a finite float or None"),
    ([0.5, True], None, "on sample 1: returned bool True, expected a float or None"),
    ([0.5, 0.5], ["ok", "two words"], "on sample 1: returned the outcome label 'two words'"),
    ([0.5, 0.5], ["ok", None], "on sample 1: returned the outcome label None"),
])
def test_a_batch_results_values_and_labels_are_each_checked(values, labels, problem):
    # the check without a call per value (a sum of floats) refuses what the one-by-one check refuses
    from grpo_rewards.execution.calls import checked_batch

    raw = RewardResult(values, labels) if labels else values
    with pytest.raises(RewardError) as err:
        checked_batch("r", raw, len(values))
    assert str(err.value).startswith(f"reward 'r' {problem}")


def test_a_batch_results_large_finite_values_and_numpy_floats_are_accepted_as_floats():
    import numpy as np

    from grpo_rewards.execution.calls import checked_batch

    big = [1e308, 1e308, None]  # their sum overflows: each is still a finite float
    assert checked_batch("r", big, 3) == (big, ["ok", "ok", "none"], {})
    values, labels, _ = checked_batch("r", RewardResult([np.float64(0.25), 2, None], ["a", "b", "c"]), 3)
    assert values == [0.25, 2.0, None] and [type(v) for v in values] == [float, float, type(None)]
    assert labels == ["a", "b", "c"]


def test_a_batch_reward_may_return_a_numpy_float_array_and_trl_gets_python_floats():
    import numpy as np

    from grpo_rewards.execution.calls import checked_batch

    def halves(prompts, completions, **kwargs):
        return np.array([len(c) / 2 for c in completions], dtype=np.float32)

    reward = Reward(halves, metric="halves", form="batch")
    values = reward(prompts=["p", "p", "p"], completions=["a", "abc", ""])
    assert values == [0.5, 1.5, 0.0] and [type(v) for v in values] == [float, float, float]
    result = reward.score(["p"], ["abcd"])
    assert result.values == [2.0] and type(result.values) is list and result.labels == ["ok"]
    # checked as a list is: a nan names its sample, a wrong length is refused, other arrays go value by value
    with pytest.raises(RewardError, match="on sample 1: returned nan, expected a finite float or None"):
        checked_batch("r", RewardResult(np.array([0.5, np.nan]), ["a", "b"]), 2)
    with pytest.raises(RewardError, match="returned 2 values for 3 completions"):
        checked_batch("r", np.array([0.5, 1.0]), 3)
    assert checked_batch("r", np.array([1, 2]), 2)[0] == [1.0, 2.0]  # integers: one at a time, as floats
    masked = np.ma.array([0.5, 0.7], mask=[False, True])
    with pytest.raises(RewardError, match="on sample 1: returned MaskedConstant"):
        checked_batch("r", masked, 2)
    with pytest.raises(RewardError, match="on sample 0: returned ndarray"):
        checked_batch("r", np.zeros((2, 2)), 2)


def test_a_batch_reward_may_return_a_torch_tensor_as_trl_accepts_one():
    import torch

    from grpo_rewards.execution.calls import checked_batch

    def quarters(prompts, completions, **kwargs):
        return torch.tensor([len(c) / 4 for c in completions], requires_grad=True)

    values = Reward(quarters, metric="quarters", form="batch")(prompts=["p", "p"], completions=["ab", "abcde"])
    assert values == [0.5, 1.25] and [type(v) for v in values] == [float, float]
    with pytest.raises(RewardError, match="on sample 1: returned inf, expected a finite float or None"):
        checked_batch("r", torch.tensor([0.5, float("inf")]), 2)
    assert checked_batch("r", torch.tensor([1, 2]), 2)[0] == [1.0, 2.0]  # integers: one at a time, as floats
    with pytest.raises(RewardError, match="on sample 0: returned bool True, expected a float or None"):
        checked_batch("r", torch.tensor([True, False]), 2)
    # a per-sample scorer's 0-dimensional tensor or array is its item, as TRL takes it
    import numpy as np

    each = Reward(lambda text, **row: torch.tensor(len(text) / 2) if text else np.array(0.25), metric="each")
    assert each(prompts=["p", "p"], completions=["abc", ""]) == [1.5, 0.25]
    with pytest.raises(RewardError, match="on sample 0: returned nan, expected a finite float or None"):
        Reward(lambda text, **row: torch.tensor(float("nan")), metric="nan", on_error="raise")(
            prompts=["p"], completions=["a"])


def test_only_the_builder_calls_reward_in_the_core():
    """One way in: every public constructor of a registered reward goes through ``building.build``
    (docs/architecture.md, "Building a reward: one way"); no other core module calls ``Reward(...)``."""
    import ast
    from pathlib import Path

    import grpo_rewards

    core = Path(grpo_rewards.__file__).parent
    callers = sorted(str(path.relative_to(core)) for path in core.rglob("*.py")
                     for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                     if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Reward")
    assert callers == ["building.py"]
