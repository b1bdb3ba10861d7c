"""tools.call_match beside two more projects' tool-call graders, on the cases their tests label.

tests/tools/data/mined_toolrl_axolotl.json is written by ``python bench/tools_mine.py cases`` from
mirrored repositories (each case keeps its project, path, commit, test name, the asserted value and
the verdict it means): ToolRL's reward (``compute_score``'s ``reward_correct``, in the port
sungyubkim/datatrove tests) and axolotl's ``FunctionCallAccuracy`` (brianfitzgerald/axolotl). The
NeMo Gym cases are in test_tools_mined.py; BFCL's checker runs side by side in bench/tools_bfcl.py.

Ours is ``tools.call_match`` with ``mode: exact``; the gold is the ground truth's calls as our reader
reads them (ToolRL) or the reference turn of a Glaive row (axolotl). Verdicts: ``correct`` (1.0),
``no_call`` (0.0 with no readable call), ``incorrect`` (0.0 otherwise), ``not_applicable`` (the
ground truth calls nothing), ``bad_row`` (the ground truth cannot be read). Where the conventions
differ the case is listed in DIFFERENT with the reason, and must still differ.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_tools import CallMatch, read_row
from grpo_rewards_tools.calls import read_calls
from grpo_rewards_tools.rows import RowFormatError

CASES = json.loads((Path(__file__).parent / "data" / "mined_toolrl_axolotl.json").read_text(encoding="utf-8"))
DIFFERENT = {
    "test_no_fn_available":
        "axolotl scores 0 when neither the reference nor the reply calls a function; ours rewards the expected plain answer",
    "test_wrong_fn":
        "the reference turn is not JSON ('\"arguments\":  \"arguments\": ...'); axolotl scores 0, ours refuses the row (None, bad_row)",
}


def ours(case: dict) -> str:
    """Our verdict on a mined case."""
    if "solution" in case:  # ToolRL: the ground truth is a completion text too
        completion = case["solution"]
        row = {"gold_calls": [{"name": c.name, "arguments": c.arguments} for c in read_calls(case["ground_truth"]).calls]}
    else:  # axolotl: the reference is the last turn of a Glaive chat with the same system prompt
        completion = case["chat"].split("ASSISTANT:")[-1].replace("<|endoftext|>", "").strip()
        row = {"system": case["system"], "chat": case["expected"]}
    try:
        if not read_row(row).gold:
            return "not_applicable"
    except RowFormatError:
        return "bad_row"
    value, label = CallMatch(mode="exact")(completion, **row)
    if value == 1.0:
        return "correct"
    return "no_call" if label in ("no_call", "malformed_call") else "incorrect"


def agrees(theirs: str, mine: str) -> bool:
    return theirs == mine or (theirs == "incorrect" and mine == "no_call") or (
        theirs == "either" and mine in ("correct", "incorrect", "no_call"))


def test_the_cases_name_their_source_and_how_many_agree():
    assert len(CASES) == 16 and {c["project"] for c in CASES} == {"sungyubkim/datatrove", "brianfitzgerald/axolotl"}
    assert all(c["path"] and len(c["commit"]) == 40 and c["test"] and c["asserted"] for c in CASES)
    assert sum(agrees(c["verdict"], ours(c)) for c in CASES) == 14
    assert set(DIFFERENT) <= {c["test"] for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_a_mined_case_gets_its_graders_verdict_where_the_conventions_agree(case):
    mine = ours(case)
    if case["test"] in DIFFERENT:
        assert not agrees(case["verdict"], mine), DIFFERENT[case["test"]]
    else:
        assert agrees(case["verdict"], mine), (case["verdict"], mine)


def test_the_verdicts_that_differ_are_the_ones_stated():
    assert {c["test"]: ours(c) for c in CASES if c["test"] in DIFFERENT} == {
        "test_no_fn_available": "not_applicable",
        "test_wrong_fn": "bad_row",
    }
