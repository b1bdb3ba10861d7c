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


def test_a_users_own_reasoning_gym_dataset_is_scored_by_its_own_score_answer_after_arrow():
    import datasets
    import reasoning_gym

    from grpo_rewards_gym import rows_from

    data = reasoning_gym.create_dataset("arc_agi", size=3, seed=2)
    native = datasets.Dataset.from_list([data[i] for i in range(3)]).to_list()  # question, answer, metadata
    assert [data.score_answer(e["answer"], e) for e in native] == [0.05] * 3  # what Arrow did to the native rows
    rows = datasets.Dataset.from_list(rows_from(data)).to_list()
    assert [r["gym_dataset"] for r in rows] == ["arc_agi"] * 3
    assert [r["answer"] for r in rows] == [data[i]["answer"] for i in range(3)]
    assert _golds_score(rows) == [1.0] * 3
    assert Accuracy()("<answer>0</answer>", **rows[0]) == (data.score_answer("0", data[0]), "partial") == (0.05, "partial")


def test_the_reward_on_reasoning_gyms_own_rows_names_the_command_that_describes_its_columns():
    import reasoning_gym

    from grpo_rewards import RewardError, get_reward

    data = reasoning_gym.create_dataset("basic_arithmetic", size=2, seed=1)
    reward = get_reward("gym.accuracy")
    with pytest.raises(RewardError) as err:
        reward(prompts=["p", "p"], completions=["<answer>1</answer>"] * 2,
               **{key: [data[i][key] for i in range(2)] for key in ("question", "answer", "metadata")})
    assert str(err.value) == ("reward 'gym.accuracy': needs dataset column(s) 'gym_dataset', 'gym_config', "
                              "'gym_entry'; the batch has: answer, metadata, question. 'grpo-rewards show "
                              "gym.accuracy' describes the columns it reads")


def test_rows_from_keep_the_users_config_and_a_composites_entries_name_their_own_dataset():
    import reasoning_gym
    from reasoning_gym.composite import DatasetSpec

    from grpo_rewards_gym import rows_from

    specs = [DatasetSpec("complex_arithmetic", 1.0, {"operations": ("+",), "operations_weights": (1.0,)}),
             DatasetSpec("leg_counting", 1.0, {"min_animals": 2, "max_animals": 2})]
    data = reasoning_gym.create_dataset("composite", size=8, seed=3, datasets=specs)
    rows = rows_from(data, system_prompt=None)
    assert [r["gym_dataset"] for r in rows] == [data[i]["metadata"]["source_dataset"] for i in range(8)]
    assert {r["gym_dataset"] for r in rows} == {"complex_arithmetic", "leg_counting"}
    assert [r["prompt"] for r in rows] == [data[i]["question"] for i in range(8)]
    arithmetic = next(r for r in rows if r["gym_dataset"] == "complex_arithmetic")
    assert scorer_dataset("complex_arithmetic", arithmetic["gym_config"]).config.operations == ("+",)
    assert _golds_score(rows) == [data.score_answer(data[i]["answer"], data[i]) for i in range(8)] == [1.0] * 8


def test_rows_from_refuses_what_reasoning_gym_did_not_build():
    from grpo_rewards_gym import rows_from

    with pytest.raises(ValueError, match=r"rows_from takes a dataset reasoning-gym's create_dataset builds; a "
                                         r"builtins.list is not a registered reasoning-gym dataset"):
        rows_from([{"question": "1+1", "answer": "2", "metadata": {"source_dataset": "chain_sum"}}])
