"""text.exact_match and text.f1 against SQuAD's official evaluation scripts (v1.1 and v2.0), on real SQuAD rows.

tests/text/data/squad_official.jsonl holds 1,407 questions of SQuAD v2.0's dev set (702
unanswerable) with 6,663 predictions and the values the official ``evaluate-v1.1.py`` and
``evaluate-v2.0.py`` gave each, recorded by ``bench/squad_official.py --write`` (which runs the
scripts side by side with the rewards; each line names the scripts' and the data's project, path
and commit). Nothing in the file is typed by hand.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from grpo_rewards_text import make_exact_match, make_f1

DATA = Path(__file__).parent / "data" / "squad_official.jsonl"
QUESTIONS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
ROWS = [(q["golds"], *p) for q in QUESTIONS for p in q["predictions"]]


def test_every_question_names_its_sources_and_the_set_is_whole():
    assert {(q["scripts"], q["data"]) for q in QUESTIONS} == {(
        "pavanchhatpar/question-generation@f00b7f3a176706d91086b003e54362814fa4b582:evaluate-v1.1.py,evaluate-v2.0.py",
        "VinACE/san_mrc@74f10c582d3fb1249ef9559967dc9cb6c989acbe:dev-v1.1.json")}
    assert (len(QUESTIONS), len(ROWS), sum(1 for q in QUESTIONS if not q["golds"])) == (1407, 6663, 702)
    # the predictions reach every outcome: exact, partial F1, no overlap
    assert {r[4] for r in ROWS} == {0.0, 1.0} and any(0.0 < r[5] < 1.0 for r in ROWS)


@pytest.mark.parametrize(("make", "v1", "v2"), [(make_exact_match, 2, 4), (make_f1, 3, 5)],
                         ids=["exact_match", "f1"])
def test_each_value_is_the_official_scripts(make, v1, v2):
    golds = [r[0] or [""] for r in ROWS]  # v2.0 reads an unanswerable question's golds as [""]
    values = make()(prompts=[None] * len(ROWS), completions=[r[1] for r in ROWS], reference=golds)
    assert [i for i, r in enumerate(ROWS) if values[i] != r[v2]] == []
    # v1.1 has no unanswerable question; on the others it agrees as well
    assert [i for i, r in enumerate(ROWS) if r[0] and values[i] != r[v1]] == []


@pytest.mark.parametrize(("make", "v2"), [(make_exact_match, 4), (make_f1, 5)], ids=["exact_match", "f1"])
def test_squads_own_answers_column_gives_the_official_values(make, v2):
    # the column as the SQuAD datasets carry it: {"text": [...], "answer_start": [...]}, empty when unanswerable
    answers = [{"text": r[0], "answer_start": [0] * len(r[0])} for r in ROWS]
    values = make(reference_column="answers")(prompts=[None] * len(ROWS), completions=[r[1] for r in ROWS],
                                              answers=answers)
    assert [i for i, r in enumerate(ROWS) if values[i] != r[v2]] == []


@pytest.mark.parametrize(("prediction", "golds", "exact", "f1"), [
    # v2.0 sets aside a gold that normalises to nothing when another does not ...
    (" ", ["The", "Paris"], 0.0, 0.0),
    ("the Paris", ["The", "Paris"], 1.0, 1.0),
    # ... and keeps them when all do; [""] is v2.0's unanswerable question
    ("a", ["The", "."], 1.0, 1.0),
    ("", [""], 1.0, 1.0),
    ("Paris", [""], 0.0, 0.0),
])
def test_golds_that_normalise_to_nothing_are_read_as_squad_v2_reads_them(prediction, golds, exact, f1):
    assert make_exact_match()(prompts=[None], completions=[prediction], reference=[golds]) == [exact]
    assert make_f1()(prompts=[None], completions=[prediction], reference=[golds]) == [f1]
