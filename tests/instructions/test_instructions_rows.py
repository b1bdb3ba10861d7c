"""The one normaliser: the three column shapes, and clear errors naming the row before training."""

from __future__ import annotations

import json
import re

import pytest

from grpo_rewards_instructions.constraints import SPECS, Constraint, ConstraintError, check_rows, read_row

NO_COMMA = Constraint("punctuation:no_comma", {})
WORDS = Constraint("length_constraints:number_words", {"num_words": 10, "relation": "less than"})


def test_ifeval_rows_drop_the_keys_the_dataset_stores_as_none():
    row = {"instruction_id_list": ["punctuation:no_comma", "length_constraints:number_words"],
           "kwargs": [{"num_words": None, "relation": None}, {"num_words": 10, "relation": "less than",
                                                               "keywords": None}]}
    assert read_row(row) == (NO_COMMA, WORDS)


def test_kwargs_may_be_a_json_string():
    row = {"instruction_id_list": ["length_constraints:number_words"],
           "kwargs": json.dumps([{"num_words": 10, "relation": "less than"}])}
    assert read_row(row) == (WORDS,)


def test_open_instruct_ground_truth_is_a_json_list_of_one_dict():
    truth = json.dumps([{"instruction_id": ["punctuation:no_comma", "length_constraints:number_words"],
                         "kwargs": [None, {"num_words": 10, "relation": "less than"}]}])
    assert read_row({"ground_truth": truth}) == (NO_COMMA, WORDS)


def test_open_instruct_ground_truth_may_be_a_python_literal_holding_a_json_string():
    inner = json.dumps({"instruction_id": ["punctuation:no_comma"], "kwargs": [{}]})
    assert read_row({"ground_truth": repr([inner])}) == (NO_COMMA,)


def test_a_constraints_column_is_read_as_given():
    assert read_row({"constraints": [{"id": "punctuation:no_comma"}]}) == (NO_COMMA,)


def test_the_letter_of_letter_frequency_may_be_any_one_character_as_ifeval_asks_for_hash():
    row = {"instruction_id_list": ["keywords:letter_frequency"],
           "kwargs": [{"letter": "#", "let_frequency": 4, "let_relation": "at least"}]}
    (constraint,) = read_row(row)
    assert (constraint.check("# # # #"), constraint.check("# # #")) == (True, False)


@pytest.mark.parametrize(("row", "message"), [
    ({"instruction_id_list": ["punctuation:no_semicolon"], "kwargs": [{}]},
     "row 7: unknown constraint id 'punctuation:no_semicolon' (known: IFEval's 25, IFEvalG's 29 "
     "and 57 of IFBench's; grpo_rewards_instructions.constraints.SPECS lists them)"),
    ({"instruction_id_list": ["length_constraints:number_words"], "kwargs": [{"num_words": 10}]},
     "row 7: length_constraints:number_words: argument 'relation' is missing"),
    ({"instruction_id_list": ["length_constraints:number_words"], "kwargs": [{"num_words": -1, "relation": "at least"}]},
     "row 7: length_constraints:number_words: num_words must be a whole number >= 0, got -1"),
    ({"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{"comma": True}]},
     "row 7: punctuation:no_comma: unknown argument(s) 'comma' (it takes none)"),
    ({"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}, {}]},
     "row 7: 1 constraint ids but kwargs is 2: one dict per id expected"),
    ({"instruction_id_list": [], "kwargs": []}, "row 7: the row has no constraints"),
    ({"instruction_id_list": [["punctuation:no_comma"]], "kwargs": [{}]},
     "row 7: unknown constraint id ['punctuation:no_comma'] (known: IFEval's 25, IFEvalG's 29 "
     "and 57 of IFBench's; grpo_rewards_instructions.constraints.SPECS lists them)"),
    ({"ground_truth": '{"func_name": "validate_lowercase"}'},
     "row 7: ground_truth must hold 'instruction_id' and 'kwargs' (open-instruct's IFEvalG format), got ['func_name']"),
    ({"ground_truth": "[{"}, "row 7: ground_truth is neither JSON nor a Python literal: '[{'"),
    ({"instruction_id_list": ["punctuation:no_comma"], "kwargs": "[" * 100_000},  # (json: RecursionError)
     "row 7: kwargs is neither JSON nor a Python literal: '" + "[" * 80 + "'"),
    ({"instruction_id_list": ["keywords:existence"], "kwargs": [{"keywords": "owl"}]},
     "row 7: keywords:existence: keywords must be a non-empty list of texts, got 'owl'"),
    ({"instruction_id_list": ["count:word_count_range"], "kwargs": [{"min_words": 9, "max_words": 5}]},
     "row 7: count:word_count_range: min_words (9) is above max_words (5)"),
    ({"instruction_id_list": ["format:options"], "kwargs": [{"options": " "}]},
     "row 7: format:options: options must be a non-empty text without NUL, got ' '"),
    ({"instruction_id_list": ["length_constraints:nth_paragraph_first_word"],
      "kwargs": [{"num_paragraphs": 2, "nth_paragraph": 3, "first_word": "owls"}]},
     "row 7: length_constraints:nth_paragraph_first_word: nth_paragraph (3) is past num_paragraphs (2)"),
])
def test_a_bad_row_is_an_error_naming_the_row(row, message):
    with pytest.raises(ConstraintError) as info:
        read_row(row, where="row 7")
    assert str(info.value) == message


@pytest.mark.parametrize(("kwargs", "shown"), [
    ([{"num_words": float("inf"), "relation": "less than"}], "inf"),
    ([{"num_words": float("nan"), "relation": "less than"}], "nan"),
    ('[{"num_words": Infinity, "relation": "less than"}]', "inf"),  # kwargs as a JSON string
])
def test_a_count_that_is_not_finite_is_a_bad_row_not_a_crash(kwargs, shown):
    # int(inf) raised OverflowError, past the rewards' bad-row handling: training stopped on the row
    row = {"instruction_id_list": ["length_constraints:number_words"], "kwargs": kwargs}
    message = f"length_constraints:number_words: num_words must be a whole number >= 0, got {shown}"
    with pytest.raises(ConstraintError) as info:
        read_row(row, where="row 3")
    assert str(info.value) == f"row 3: {message}"
    assert check_rows([row]) == [f"row 0: {message}"]
    whole = {"instruction_id_list": ["length_constraints:number_words"],
             "kwargs": [{"num_words": 3.0, "relation": "less than"}]}  # a whole float still counts
    assert read_row(whole)[0].args["num_words"] == 3


@pytest.mark.parametrize("language", [["en"], {"code": "en"}])
def test_a_language_that_is_not_a_text_is_a_bad_row_not_a_crash(language):
    # `value not in known` on a list raised TypeError (unhashable), past the bad-row handling
    row = {"instruction_id_list": ["language:response_language"], "kwargs": [{"language": language}]}
    with pytest.raises(ConstraintError, match=r"^row 0: language:response_language: language must be a language "
                                              r"code the detector knows \(af, ar, .*\), got " + re.escape(repr(language))):
        read_row(row, where="row 0")
    from grpo_rewards_instructions import followed

    with pytest.warns(UserWarning, match="the sample gets None"):
        result = followed.score(prompts=[None], completions=["hello there"], **{k: [v] for k, v in row.items()})
    assert (result.values, result.labels) == ([None], ["bad_row"])


def test_an_invalid_language_code_names_the_codes_the_detector_knows():
    with pytest.raises(ConstraintError, match=r"row 0: language:response_language: language must be a language "
                                              r"code the detector knows \(af, ar, .*\), got 'klingon'"):
        read_row({"instruction_id_list": ["language:response_language"], "kwargs": [{"language": "klingon"}]},
                 where="row 0")


def test_check_rows_reports_each_bad_row_by_index_and_stops_at_five():
    good = {"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]}
    bad = {"instruction_id_list": ["nope"], "kwargs": [{}]}
    assert check_rows([good, bad, good]) == ["row 1: unknown constraint id 'nope' (known: IFEval's 25, IFEvalG's 29 "
                                             "and 57 of IFBench's; grpo_rewards_instructions.constraints.SPECS lists them)"]
    assert len(check_rows([bad] * 9)) == 5


def test_every_ifeval_and_ifevalg_id_and_the_ifbench_ids_implemented_are_known():
    from grpo_rewards_instructions.constraints import IFBENCH_IDS, IFEVAL_IDS, IFEVALG_IDS

    assert (len(IFEVAL_IDS), len(IFEVALG_IDS), len(IFBENCH_IDS), len(SPECS)) == (25, 29, 57, 111)
