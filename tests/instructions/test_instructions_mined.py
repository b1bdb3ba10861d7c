"""IFEval's checkers against labelled cases other projects wrote (tests/instructions/data/mined_tests.jsonl).

The cases are mined by ``bench/instructions/mine.py`` from google-research's
``instruction_following_eval/instructions_test.py`` and allenai/IFBench's ``instructions_test.py``
(each row keeps its project, path, commit and test); nothing in the file is typed by hand. Every case
whose constraint id this package implements must get the project's expected verdict; the cases of
ids it does not implement (IFBench's out-of-distribution set, google's unregistered checkers) are
counted, so a new id shows up here.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_instructions.constraints import IFBENCH_IDS, IFEVAL_IDS, SPECS, make_constraint

DATA = Path(__file__).parent / "data" / "mined_tests.jsonl"
CASES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
IMPLEMENTED = [c for c in CASES if c["id"] in SPECS]


def test_every_case_names_its_source():
    assert all(c["project"] and c["path"] and len(c["commit"]) == 40 and c["test"] for c in CASES)
    assert {c["project"] for c in IMPLEMENTED} == {"google-research/google-research", "allenai/IFBench"}


#: IFBench ids its own tests do not cover (checked in test_instructions_ifbench.py instead).
NOT_IN_IFBENCHS_TESTS = frozenset({"count:words_japanese", "count:keywords_multiple", "repeat:repeat_simple",
                                   "repeat:repeat_span", "format:output_template", "format:no_whitespace"})


def test_every_ifeval_id_and_every_ifbench_id_implemented_has_a_mined_case():
    assert {c["id"] for c in IMPLEMENTED} == IFEVAL_IDS | (IFBENCH_IDS - NOT_IN_IFBENCHS_TESTS)
    assert not NOT_IN_IFBENCHS_TESTS & {c["id"] for c in CASES}


def test_cases_of_ids_not_implemented_are_the_ifbench_set_and_googles_unregistered_checkers():
    other = [c for c in CASES if c["id"] not in SPECS]
    assert (len(IMPLEMENTED), len(other)) == (253, 15)
    assert {c["class"] for c in other if c["id"] is None} == {
        "ConstrainedStartChecker", "KeySentenceChecker", "RephraseChecker", "RephraseParagraph"}


@pytest.mark.parametrize("case", IMPLEMENTED, ids=[f"{c['project'].split('/')[1]}:{c['test']}:{i}"
                                                    for i, c in enumerate(IMPLEMENTED)])
def test_checker_gives_the_projects_verdict(case):
    assert make_constraint(case["id"], case["kwargs"]).check(case["response"]) is case["expected"]


GPT4 = [json.loads(line) for line in (Path(__file__).parent / "data" / "ifeval_gpt4.jsonl").read_text(
    encoding="utf-8").splitlines()]
#: IFEval rows whose letter_frequency letter is "#" or "!": the original counts a random letter there
RANDOM_LETTER_KEYS = {1122, 1129}


def test_the_gpt4_replies_name_their_source():
    assert len(GPT4) == 541
    assert {(r["project"], r["commit"]) for r in GPT4} == {
        ("CN-Steve-Lee/instruction_following_at_scale", "9d3792766b7104c8e00e8ecd5e28845c57954f3c")}


@pytest.mark.parametrize("mode", ["strict", "loose"])
def test_every_recorded_verdict_of_the_original_on_gpt4_replies_is_reproduced(mode):
    from grpo_rewards_instructions.constraints import read_row
    from grpo_rewards_instructions.rewards import follows

    different = []
    for row in GPT4:
        if row["key"] in RANDOM_LETTER_KEYS:
            continue
        for constraint, expected in zip(read_row(row), row[mode]):
            if follows(row["response"], constraint, mode) is not expected:
                different.append((row["key"], constraint.id))
    assert different == []
