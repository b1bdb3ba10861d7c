"""Training datasets: plugin tasks, local files, column mapping, system prompts."""

from __future__ import annotations

import json

import pytest
from lanes import needs

from grpo_rewards.train.data import DatasetError, load_dataset_from_config, with_system_prompt

pytestmark = needs("datasets")


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_task_is_built_by_its_plugin_with_n_seed_and_params(registry):
    dataset = load_dataset_from_config({"task": "toy:count", "n": 3, "params": {"start": 10}}, registry)
    assert dataset.to_list() == [
        {"prompt": "Count from 10:", "k": 10},
        {"prompt": "Count from 11:", "k": 11},
        {"prompt": "Count from 12:", "k": 12},
    ]



def test_a_task_asked_for_more_rows_than_a_run_could_read_is_an_error_before_any_is_made(registry):
    # before: dataset.n: 100000000 (a typo's zeros) generated rows for about an hour, past a 24 GB machine's memory
    with pytest.raises(DatasetError, match=r"^dataset.n: 100,000,000 rows asked of task toy:count; a task generates "
                                           r"at most 1,000,000 \(about 40 s on 2 CPU cores\)"):
        load_dataset_from_config({"task": "toy:count", "n": 100_000_000}, registry)
    assert len(load_dataset_from_config({"task": "toy:count", "n": 1_000}, registry)) == 1_000

def test_an_unknown_task_parameter_is_named_with_the_task_parameters(registry):
    with pytest.raises(DatasetError, match=r"task toy:count has no parameter\(s\) 'stop'; its parameters: start"):
        load_dataset_from_config({"task": "toy:count", "params": {"stop": 3}}, registry)


def test_an_unknown_task_suggests_the_known_one(registry):
    with pytest.raises(Exception, match=r"unknown task 'toy:cont' \(did you mean 'toy:count'\?\)\."):
        load_dataset_from_config({"task": "toy:cont"}, registry)


def test_a_jsonl_file_is_mapped_to_prompt_and_reward_columns_and_cut_to_n(tmp_path, registry):
    path = _jsonl(tmp_path / "d.jsonl", [{"question": f"q{i}", "answer": str(i)} for i in range(5)])
    dataset = load_dataset_from_config(
        {"path": str(path), "n": 2, "columns": {"prompt": "question", "solution": "answer"}}, registry)
    assert dataset.to_list() == [{"prompt": "q0", "solution": "0"}, {"prompt": "q1", "solution": "1"}]


def test_csv_and_parquet_files_load_like_jsonl(tmp_path, registry):
    import pandas as pd

    frame = pd.DataFrame({"prompt": ["a", "b"], "k": [1, 2]})
    frame.to_csv(tmp_path / "d.csv", index=False)
    frame.to_parquet(tmp_path / "d.parquet")
    for name in ("d.csv", "d.parquet"):
        dataset = load_dataset_from_config({"path": str(tmp_path / name)}, registry)
        assert dataset.to_list() == [{"prompt": "a", "k": 1}, {"prompt": "b", "k": 2}]



def test_a_csvs_empty_cell_is_missing_and_a_written_na_or_none_is_text(tmp_path, registry):
    # before: pandas' defaults read "NA" (sodium), "None" and "null" as missing: those rows' gold became None and
    # they were not scored, without a word
    (tmp_path / "d.csv").write_text("prompt,reference\nSymbol of sodium?,NA\nWhich is prime? a) 4 b) 6,None\n"
                                    "Say null.,null\nA row of another task,\n")
    dataset = load_dataset_from_config({"path": str(tmp_path / "d.csv")}, registry)
    assert dataset["reference"] == ["NA", "None", "null", None]

def test_a_system_prompt_makes_text_prompts_conversational(tmp_path, registry):
    path = _jsonl(tmp_path / "d.jsonl", [{"prompt": "What is 2 + 2?"}])
    dataset = load_dataset_from_config({"path": str(path), "system_prompt": "Be brief."}, registry)
    assert dataset[0]["prompt"] == [{"role": "system", "content": "Be brief."},
                                    {"role": "user", "content": "What is 2 + 2?"}]


def test_a_system_prompt_replaces_the_system_message_of_a_conversation():
    prompt = [{"role": "system", "content": "old"}, {"role": "user", "content": "hi"}]
    assert with_system_prompt(prompt, "new") == [{"role": "system", "content": "new"},
                                                 {"role": "user", "content": "hi"}]


def test_a_mapped_column_that_does_not_exist_is_named_with_the_columns_there_are(tmp_path, registry):
    path = _jsonl(tmp_path / "d.jsonl", [{"question": "q", "answer": "1"}])
    with pytest.raises(DatasetError, match=r"has no column\(s\) 'problem'; its columns: question, answer"):
        load_dataset_from_config({"path": str(path), "columns": {"prompt": "problem"}}, registry)


def test_a_dataset_without_a_prompt_column_says_how_to_map_one(tmp_path, registry):
    path = _jsonl(tmp_path / "d.jsonl", [{"question": "q"}])
    with pytest.raises(DatasetError, match=r"has no 'prompt' column; map one with dataset.columns, e.g. "
                                           r"columns: \{prompt: question\} \(its columns: question\)"):
        load_dataset_from_config({"path": str(path)}, registry)


def test_a_missing_file_and_an_unsupported_type_are_clear_errors(tmp_path, registry):
    with pytest.raises(DatasetError, match=r"dataset.path: file not found: .*nope.jsonl"):
        load_dataset_from_config({"path": str(tmp_path / "nope.jsonl")}, registry)
    (tmp_path / "d.txt").write_text("x")
    with pytest.raises(DatasetError, match=r"unsupported file type '.txt'; use one of .jsonl, .json, .parquet, .csv"):
        load_dataset_from_config({"path": str(tmp_path / "d.txt")}, registry)


def test_an_empty_file_is_a_dataset_without_rows(tmp_path, registry):
    (tmp_path / "d.jsonl").write_text("")
    with pytest.raises(DatasetError) as err:
        load_dataset_from_config({"path": str(tmp_path / "d.jsonl")}, registry)
    assert str(err.value) == f"dataset.path: {tmp_path / 'd.jsonl'} has no rows"


def test_rows_with_a_null_empty_or_blank_prompt_are_named_before_training(tmp_path, registry):
    rows = [{"prompt": "1 + 1"}, {"prompt": ""}, {"prompt": "2 + 2"}, {"prompt": None}, {"prompt": "  \n"}]
    path = _jsonl(tmp_path / "d.jsonl", rows)
    with pytest.raises(DatasetError) as err:
        load_dataset_from_config({"path": str(path)}, registry)
    assert str(err.value) == (f"file {path}: 3 of 5 rows have no prompt (null, empty or only spaces; rows 2, 4, 5): "
                              "remove them or fill them in")
    chats = _jsonl(tmp_path / "c.jsonl", [{"prompt": [{"role": "user", "content": "hi"}]},
                                          {"prompt": [{"role": "user", "content": ""}]}])
    with pytest.raises(DatasetError, match=r"1 of 2 rows have no prompt \(null, empty or only spaces; rows 2\)"):
        load_dataset_from_config({"path": str(chats)}, registry)


def test_a_folder_written_by_save_to_disk_is_read_and_a_split_folder_named(tmp_path, registry):
    # before: "dataset.path: file not found: data" for a folder that exists
    import datasets

    rows = [{"question": f"q{i}", "answer": str(i)} for i in range(3)]
    datasets.Dataset.from_list(rows).save_to_disk(str(tmp_path / "data"))
    datasets.DatasetDict({"train": datasets.Dataset.from_list(rows)}).save_to_disk(str(tmp_path / "splits"))
    (tmp_path / "plain").mkdir()
    dataset = load_dataset_from_config({"path": str(tmp_path / "data"), "columns": {"prompt": "question"}, "n": 2},
                                       registry)
    assert dataset.to_list() == [{"prompt": "q0", "answer": "0"}, {"prompt": "q1", "answer": "1"}]
    assert load_dataset_from_config({"path": str(tmp_path / "splits" / "train"), "columns": {"prompt": "question"}},
                                    registry)["prompt"] == ["q0", "q1", "q2"]
    with pytest.raises(DatasetError, match=r"^dataset.path: .*splits holds the splits train: give one of their "
                                           r"folders \(.*splits/train\)$"):
        load_dataset_from_config({"path": str(tmp_path / "splits")}, registry)
    with pytest.raises(DatasetError, match=r"^dataset.path: not a file: .*plain \(a file, or a folder written by "
                                           r"datasets' save_to_disk\)$"):
        load_dataset_from_config({"path": str(tmp_path / "plain")}, registry)
