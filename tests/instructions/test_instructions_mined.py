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

from grpo_rewards_instructions.constraints import SPECS, make_constraint

DATA = Path(__file__).parent / "data" / "mined_tests.jsonl"
CASES = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
IMPLEMENTED = [c for c in CASES if c["id"] in SPECS]


def test_every_case_names_its_source():
    assert all(c["project"] and c["path"] and len(c["commit"]) == 40 and c["test"] for c in CASES)
    assert {c["project"] for c in IMPLEMENTED} == {"google-research/google-research", "allenai/IFBench"}


def test_every_ifeval_id_has_a_mined_case():
    assert {c["id"] for c in IMPLEMENTED} == set(SPECS)


def test_cases_of_ids_not_implemented_are_the_ifbench_set_and_googles_unregistered_checkers():
    other = [c for c in CASES if c["id"] not in SPECS]
    assert (len(IMPLEMENTED), len(other)) == (93, 175)
    assert {c["class"] for c in other if c["id"] is None} == {
        "ConstrainedStartChecker", "KeySentenceChecker", "RephraseChecker", "RephraseParagraph"}


@pytest.mark.parametrize("case", IMPLEMENTED, ids=[f"{c['project'].split('/')[1]}:{c['test']}:{i}"
                                                    for i, c in enumerate(IMPLEMENTED)])
def test_checker_gives_the_projects_verdict(case):
    assert make_constraint(case["id"], case["kwargs"]).check(case["response"]) is case["expected"]
