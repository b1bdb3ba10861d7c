"""Rows survive Arrow (datasets), Parquet and JSONL round trips, and are still scored right afterwards."""

from __future__ import annotations

import json

import pytest
from lanes import needs

from grpo_rewards_gym import Accuracy, codec, make_mix, make_rows
from grpo_rewards_gym.scoring import scorer_dataset

pytestmark = needs("datasets")


def _golds_score(rows):
    score = Accuracy()
    return [score(f"<answer>{r['answer']}</answer>", **r)[0] for r in rows]


@pytest.fixture(scope="module")
def arc_rows():
    return make_rows("arc_agi", 3, seed=0) + make_rows("rearc", 3, seed=0)


def test_arc_golds_score_one_after_arrow_and_jsonl_round_trips(tmp_path, arc_rows):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in arc_rows))
    import datasets

    from_file = datasets.load_dataset("json", data_files=str(path), split="train").to_list()
    from_arrow = datasets.Dataset.from_list(arc_rows).to_list()
    assert from_file == arc_rows and from_arrow == arc_rows
    assert _golds_score(from_file) == [1.0] * 6


def test_a_plain_json_round_trip_of_the_metadata_is_what_broke_arc_scoring(arc_rows):
    row = arc_rows[0]
    entry = codec.loads(row["gym_entry"])
    dataset = scorer_dataset(row["gym_dataset"], row["gym_config"])
    assert dataset.score_answer(row["answer"], json.loads(json.dumps(entry))) == 0.05  # tuples came back as lists
    assert dataset.score_answer(row["answer"], entry) == 1.0


def test_rows_of_many_datasets_share_one_arrow_table_and_a_parquet_file(tmp_path):
    rows = make_mix(60, seed=4, tasks=["graph_color", "knights_knaves", "arc_1d", "leg_counting", "boxnet"])
    import datasets

    table = datasets.Dataset.from_list(rows)
    assert table.column_names == ["prompt", "answer", "gym_dataset", "gym_config", "gym_entry"]
    table.to_parquet(str(tmp_path / "rows.parquet"))
    back = datasets.load_dataset("parquet", data_files=str(tmp_path / "rows.parquet"), split="train").to_list()
    assert back == rows
    golds = [r for r in back if r["answer"] is not None]
    assert golds and _golds_score(golds) == [1.0] * len(golds)
