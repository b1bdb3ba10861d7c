"""tools.call_match on labelled cases mined from another project's tests (NVIDIA-NeMo/Gym's tool-call graders).

tests/tools/data/mined_nemo_gym.json keeps, per case, the project, the test file's path and commit,
the test's name, the gold calls, what the model did (calls, a malformed call, or a plain message),
the mode of ours that means what theirs means, and their value. Where the conventions differ, the
case says why and must still differ (so a change of either convention shows here). BFCL's checker
is compared side by side on BFCL's own rows in bench/tools_bfcl.py (recorded in bench/tools.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_tools import CallMatch

CASES = json.loads((Path(__file__).parent / "data" / "mined_nemo_gym.json").read_text(encoding="utf-8"))


def _completion(made):
    if isinstance(made, str):
        return [{"role": "assistant", "content": made}]
    calls = []
    for call in made:
        if isinstance(call, str):  # MALFORMED:<arguments text that is not JSON>
            calls.append({"type": "function", "function": {"name": "send", "arguments": call.split(":", 1)[1]}})
        else:
            calls.append({"type": "function", "function": {"name": call["name"], "arguments": json.dumps(call["arguments"])}})
    return [{"role": "assistant", "content": "", "tool_calls": calls}]


def test_the_cases_name_their_source_and_most_agree():
    assert len(CASES) == 40 and sum(c["agree"] for c in CASES) == 37
    assert all(c["project"] and c["path"] and len(c["commit"]) == 40 and c["test"] for c in CASES)
    assert all(c.get("why") for c in CASES if not c["agree"])


@pytest.mark.parametrize("case", CASES, ids=[c["test"] for c in CASES])
def test_a_mined_case_scores_as_its_project_says_where_the_conventions_agree(case):
    value, _label = CallMatch(mode=case["mode"], **case.get("params", {}))(
        None, completion=_completion(case["made"]), gold_calls=case["gold"])
    if case["agree"]:
        assert value == pytest.approx(case["expected"], abs=1e-12)
    else:
        assert value != pytest.approx(case["expected"], abs=1e-12), case["why"]
