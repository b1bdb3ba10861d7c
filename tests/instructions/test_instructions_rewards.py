"""instructions.followed / all_followed: values, labels, per-constraint metrics, modes, bad input."""

from __future__ import annotations

import pickle
import warnings

import pytest

import grpo_rewards_instructions as ins
from grpo_rewards_instructions.rewards import loose_variants

IDS = [["punctuation:no_comma", "keywords:existence"]]
KWARGS = [[{}, {"keywords": ["moon"]}]]


def test_followed_is_the_share_of_constraints_met_and_labels_it():
    result = ins.followed.score(prompts=[None] * 3, completions=["owls, moon", "owls and the moon", "owls"],
                                instruction_id_list=IDS * 3, kwargs=KWARGS * 3)
    assert result.values == [0.5, 1.0, 0.5]
    assert result.labels == ["partly_followed", "followed", "partly_followed"]


def test_all_followed_pays_only_when_every_constraint_holds():
    values = ins.all_followed(prompts=[None] * 3, completions=["owls, moon", "owls and the moon", "Owls, sun"],
                              instruction_id_list=IDS * 3, kwargs=KWARGS * 3)
    assert values == [0.0, 1.0, 0.0]


def test_per_constraint_counts_are_logged_through_the_cores_metrics():
    logged: dict[str, float] = {}
    ins.followed(prompts=[None] * 3, completions=["owls, moon", "owls and the moon", "Owls, sun"],
                 instruction_id_list=IDS * 3, kwargs=KWARGS * 3, log_metric=logged.__setitem__)
    mine = {k: v for k, v in logged.items() if k.startswith(("checked:", "followed:"))}
    assert mine == {"checked:keywords:existence/instructions.followed": 3.0,
                    "checked:punctuation:no_comma/instructions.followed": 3.0,
                    "followed:keywords:existence/instructions.followed": 2.0,
                    "followed:punctuation:no_comma/instructions.followed": 1.0}
    assert [logged[f"outcomes/instructions.followed/{label}"] for label in
            ("followed", "partly_followed", "not_followed")] == [1.0, 1.0, 1.0]


def test_loose_mode_accepts_a_reply_whose_first_line_breaks_the_rule():
    reply = "Sure, here it is:\nowls hunt at night"
    kwargs = {"prompts": [None], "completions": [reply], "instruction_id_list": [["punctuation:no_comma"]],
              "kwargs": [[{}]]}
    assert ins.followed(**kwargs) == [0.0]
    assert ins.make_followed(mode="loose")(**kwargs) == [1.0]


def test_loose_mode_strips_markdown_emphasis():
    kwargs = {"prompts": [None], "completions": ['"*Owls* hunt."'], "instruction_id_list": [["startend:quotation"]],
              "kwargs": [[{}]]}
    assert ins.make_followed(mode="loose")(**kwargs) == [1.0]


def test_loose_variants_are_the_originals_eight_without_duplicates():
    assert loose_variants("a\nb\nc") == ["a\nb\nc", "b\nc", "a\nb", "b"]


def test_conversational_completions_and_open_instruct_rows_score_alike():
    truth = '[{"instruction_id": ["change_case:english_lowercase"], "kwargs": [{}]}]'
    values = ins.followed(prompts=[[{"role": "user", "content": "hi"}]] * 2,
                          completions=[[{"role": "assistant", "content": "owls are birds that hunt at night."}],
                                       [{"role": "assistant", "content": "Owls are birds that hunt at night."}]],
                          ground_truth=[truth, truth])
    assert values == [1.0, 0.0]


def test_a_row_without_constraints_columns_is_another_tasks_row_none_labelled_no_constraints_quietly():
    # before: bad_row with a warning, and training refused the dataset (a mix of tasks could not be trained)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = ins.followed.score(prompts=[None, None, None], completions=["x", "x", "x,"], solution=["4", None, None],
                                    instruction_id_list=[None, None, ["punctuation:no_comma"]], kwargs=[None, None, [{}]])
    assert (result.values, result.labels) == ([None, None, 0.0], ["no_constraints", "no_constraints", "not_followed"])
    assert ins.Followed.check_rows([{"solution": "4"}, {"instruction_id_list": ["punctuation:no_comma"]}]) == []
    assert ins.Followed.check_rows([{"solution": "4"}, {"instruction_id_list": None}]) == [
        "every row is one the reward does not score (row 0: no constraints: expected a column 'instruction_id_list', "
        "'ground_truth', 'constraints'): it applies to none of the 2 rows"]


def test_a_row_with_an_unknown_id_gets_none_and_the_warning_names_the_row():
    with pytest.warns(UserWarning, match="row 1: unknown constraint id 'nope'"):
        result = ins.all_followed.score(prompts=[None, None], completions=["a", "b"],
                                        instruction_id_list=[["punctuation:no_comma"], ["nope"]], kwargs=[[{}], [{}]])
    assert (result.values, result.labels) == ([1.0, None], ["followed", "bad_row"])


def _nested(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("column", ["instruction_id_list", "kwargs"])
def test_a_row_of_python_objects_nested_past_the_recursion_limit_is_a_bad_row_and_the_others_are_scored(column):
    # only a Python list can hold this (no dataset file nests 5,000 deep); it used to end the call with RecursionError
    columns = {"instruction_id_list": [["keywords:existence"]] * 2, "kwargs": [[{"keywords": ["owls"]}]] * 2}
    columns[column][1] = [_nested(5_000)] if column == "instruction_id_list" else [{"keywords": _nested(5_000)}]
    with pytest.warns(UserWarning, match=r"row 1: its constraint columns are nested too deeply to read; the sample "
                                         r"gets None \(label bad_row\)"):
        result = ins.followed.score(prompts=[None, None], completions=["owls", "owls"], **columns)
    assert (result.values, result.labels) == ([1.0, None], ["followed", "bad_row"])


def test_a_megabyte_reply_is_zero_and_labelled_too_large():
    result = ins.followed.score(prompts=[None], completions=["Owls hunt. " * 100_000],
                                instruction_id_list=[["punctuation:no_comma"]], kwargs=[[{}]])
    assert (result.values, result.labels) == ([0.0], ["too_large"])


def test_max_reply_chars_reads_longer_replies_when_raised():
    reward = ins.make_followed(max_reply_chars=2_000_000)
    assert reward(prompts=[None], completions=["Owls hunt. " * 100_000], instruction_id_list=[["punctuation:no_comma"]],
                  kwargs=[[{}]]) == [1.0]


def test_a_bad_mode_is_refused_at_construction():
    with pytest.raises(ValueError, match="mode must be one of strict, loose, got 'lenient'"):
        ins.make_followed(mode="lenient")


@pytest.mark.parametrize("reward", ["followed", "all_followed"])
def test_reward_survives_a_pickle_round_trip(reward):
    clone = pickle.loads(pickle.dumps(getattr(ins, reward)))
    assert clone.__name__ == f"instructions.{reward}"
    assert clone(prompts=[None], completions=["no commas"], instruction_id_list=[["punctuation:no_comma"]],
                 kwargs=[[{}]]) == [1.0]


def test_a_reply_is_split_into_sentences_once_for_all_its_constraints_and_nothing_is_kept_after_the_batch(monkeypatch):
    from grpo_rewards_instructions import text

    tokenizer = text._punkt()
    split = []

    def counted(value: str) -> list[str]:
        split.append(value)
        return type(tokenizer).tokenize(tokenizer, value)

    monkeypatch.setattr(tokenizer, "tokenize", counted)
    ids = [["length_constraints:number_sentences", "length_constraints:number_sentences",
            "change_case:capital_word_frequency"]]
    kwargs = [[{"relation": "less than", "num_sentences": 3}, {"relation": "at least", "num_sentences": 2},
               {"capital_relation": "at least", "capital_frequency": 1}]]
    replies = ["Owls hunt at night. They see WELL.", "One sentence only."]
    assert ins.followed.score(prompts=[None] * 2, completions=replies, instruction_id_list=ids * 2,
                              kwargs=kwargs * 2).values == [1.0, 1 / 3]
    assert split == replies
    assert text._sentences.cache_info().currsize == text._word_tokens.cache_info().currsize == 0
