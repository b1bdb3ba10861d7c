"""`grpo-rewards score` scores as training would: groups, bad rows, reward errors, columns, --out."""

from __future__ import annotations

import json
import os
import sys

import pytest

from grpo_rewards.cli import main


def _write_rows(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def _set(tmp_path, text):
    path = tmp_path / "set.yaml"
    path.write_text(text)
    return path


def _score(tmp_path, rows, rewards, *extra):
    data = rows if not isinstance(rows, list) else _write_rows(tmp_path / "rows.jsonl", rows)
    out = tmp_path / "scored.jsonl"
    code = main(["score", str(data), "--rewards", str(rewards), "--out", str(out), "--no-progress", *extra])
    scored = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return code, scored


GROUP = "rewards:\n  - use: fixture.group_size\n"


def test_a_prompts_rows_share_one_call_even_past_the_batch_size(plugins, tmp_path):
    rows = [{"prompt": p, "completion": c} for p, c in [("a", "x"), ("b", "y"), ("a", "z"), ("a", "w"), ("b", "v")]]
    code, scored = _score(tmp_path, rows, _set(tmp_path, GROUP), "--batch-size", "2")
    assert code == 0
    assert [s["rewards"]["fixture.group_size"] for s in scored] == [3.0, 2.0, 3.0, 3.0, 2.0]


def test_a_malformed_row_is_left_out_and_its_prompts_other_rows_stay_one_group(plugins, tmp_path, capsys):
    rows = [{"prompt": "a", "completion": "x"}, {"prompt": "a", "completion": 5},
            {"prompt": "a", "completion": "z"}, {"prompt": "a", "completion": "w"}]
    code, scored = _score(tmp_path, rows, _set(tmp_path, GROUP))
    assert code == 1
    assert [(s["completion"], s["rewards"]["fixture.group_size"]) for s in scored] == [("x", 3.0), ("z", 3.0),
                                                                                        ("w", 3.0)]
    assert capsys.readouterr().err.splitlines() == [
        "bad row: line 2: 'completion' must be a string or a list of messages, not int"]


def test_reward_errors_are_reported_apart_from_bad_rows(plugins, tmp_path, capsys):
    rows = ["not json", {"completion": "abc"}, {"completion": "raise"}, {"completion": "de"}]
    code, scored = _score(tmp_path, rows, _set(tmp_path, "rewards:\n  - use: fixture.sleepy\n    timeout: 20\n"))
    assert code == 1
    assert [s["rewards"]["fixture.sleepy"] for s in scored] == [3.0, None, 2.0]
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        "bad row: line 1: not JSON (Expecting value)",
        "reward error: fixture.sleepy failed on 1 row(s) (lines 3): error: ValueError: bad sample",
    ]
    row = next(line.split() for line in captured.out.splitlines() if line.startswith("fixture.sleepy "))
    assert row[6:9] == ["1", "0", "1"]  # None, timeouts, errors


def test_rows_without_a_column_a_reward_reads_are_reported_by_line(plugins, tmp_path, capsys):
    rows = [{"completion": "4", "solution": "4"}, {"completion": "4"}, {"completion": "5", "solution": "4"},
            {"completion": "4"}]
    code, scored = _score(tmp_path, rows, _set(tmp_path, "rewards:\n  - use: fixture.matches\n"))
    assert code == 1
    assert [s["rewards"]["fixture.matches"] for s in scored] == [1.0, None, 0.0, None]
    assert capsys.readouterr().err.splitlines() == [
        "missing column: fixture.matches reads 'solution', which 2 row(s) lack (scored None): lines 2, 4"]


def test_a_byte_order_mark_is_skipped(plugins, tmp_path):
    data = tmp_path / "rows.jsonl"
    data.write_bytes(b'\xef\xbb\xbf{"completion": "HI"}\n{"completion": "hi"}\n')
    code, scored = _score(tmp_path, data, _set(tmp_path, "rewards:\n  - use: fixture.shout\n"))
    assert code == 0
    assert [s["rewards"]["fixture.shout"] for s in scored] == [1.0, 0.0]


def test_invalid_utf8_is_a_reported_bad_row_not_replaced_text(plugins, tmp_path, capsys):
    data = tmp_path / "rows.jsonl"
    data.write_bytes(b'{"completion": "HI"}\n{"completion": "caf\xe9"}\n')
    code, scored = _score(tmp_path, data, _set(tmp_path, "rewards:\n  - use: fixture.shout\n"))
    assert code == 1
    assert [s["completion"] for s in scored] == ["HI"]
    assert capsys.readouterr().err == "bad row: line 2: not UTF-8 text (byte 0xe9 at column 20)\n"


def test_a_row_key_named_self_is_not_passed_to_rewards(plugins, tmp_path, capsys):
    rows = [{"completion": "HI", "self": 1, "text": "x"}, {"completion": "hi"}]
    rewards = _set(tmp_path, "rewards:\n  - use: fixture.shout\n  - use: fixture.group_size\n  - use: fixture.offset\n")
    code, scored = _score(tmp_path, rows, rewards)
    assert code == 0
    assert [s["rewards"] for s in scored] == [
        {"fixture.shout": 1.0, "fixture.group_size": 2.0, "fixture.offset": 2.0},
        {"fixture.shout": 0.0, "fixture.group_size": 2.0, "fixture.offset": 2.0},
    ]
    assert "note: column(s) 'self', 'text' not passed to the rewards" in capsys.readouterr().err


def test_a_deeply_nested_line_is_one_bad_row(plugins, tmp_path, capsys):
    data = tmp_path / "rows.jsonl"
    data.write_text('{"completion": "HI"}\n' + "[" * 100_000 + "]" * 100_000 + '\n{"completion": "A"}\n')
    code, scored = _score(tmp_path, data, _set(tmp_path, "rewards:\n  - use: fixture.shout\n"))
    assert code == 1
    assert [s["completion"] for s in scored] == ["HI", "A"]
    assert capsys.readouterr().err == "bad row: line 2: not read: JSON nested too deeply\n"


@pytest.mark.parametrize("size", ["0", "-1", "two"])
def test_a_batch_size_below_one_is_a_usage_error(plugins, tmp_path, capsys, size):
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}])
    with pytest.raises(SystemExit) as exc:
        main(["score", str(rows), "--rewards", str(_set(tmp_path, GROUP)), "--batch-size", size])
    assert exc.value.code == 2
    assert "argument --batch-size:" in capsys.readouterr().err


def test_each_call_gets_only_the_columns_its_rows_hold(plugins, tmp_path):
    from grpo_rewards.scoring import arguments

    rows = [{"completion": "x", f"key{i}": i} for i in range(500)]
    kwargs = arguments(rows[:2], {"solution"})
    assert sorted(kwargs) == ["completion_ids", "completions", "key0", "key1", "prompts", "solution"]
    assert kwargs["solution"] == [None, None]


def test_out_may_not_be_the_input_file(plugins, tmp_path, capsys):
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}, "bad"])
    before = rows.read_text()
    assert main(["score", str(rows), "--rewards", str(_set(tmp_path, GROUP)), "--out", str(rows)]) == 2
    assert rows.read_text() == before
    err = capsys.readouterr().err
    assert err == f"grpo-rewards: error: --out {rows} is the input file; choose another file (it would be overwritten)\n"


def test_out_may_not_be_the_reward_set_file(plugins, tmp_path, capsys):
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}])
    rewards = _set(tmp_path, GROUP)
    assert main(["score", str(rows), "--rewards", str(rewards), "--out", str(rewards)]) == 2
    assert rewards.read_text() == GROUP
    assert "is the reward-set file" in capsys.readouterr().err


@pytest.mark.parametrize("where", ["folder", "missing-folder", "unwritable"])
def test_an_unusable_out_path_is_refused_before_scoring(plugins, tmp_path, capsys, where):
    if where == "unwritable" and (sys.platform == "win32" or os.geteuid() == 0):
        pytest.skip("permissions are not enforced for this user")
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}])
    locked = tmp_path / "locked"
    locked.mkdir()
    out = {"folder": tmp_path, "missing-folder": tmp_path / "nope" / "o.jsonl", "unwritable": locked / "o.jsonl"}[where]
    locked.chmod(0o500)
    try:
        assert main(["score", str(rows), "--rewards", str(_set(tmp_path, GROUP)), "--out", str(out)]) == 2
    finally:
        locked.chmod(0o700)
    captured = capsys.readouterr()
    assert captured.out == ""  # nothing was scored
    assert captured.err.startswith(f"grpo-rewards: error: --out {out}") and "Traceback" not in captured.err


def test_out_is_written_through_a_temporary_file(plugins, tmp_path, monkeypatch):
    from grpo_rewards import scoring

    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}, {"completion": "hi"}])
    out = tmp_path / "scored.jsonl"
    previous = '{"completion": "HI", "rewards": {"fixture.group_size": 2.0}, "labels": {}, "reward": 2.0}\n'
    out.write_text(previous)  # (a file score wrote: replaced only once the new one is whole)
    calls = []

    def failing_dump(row):
        calls.append(row)
        if len(calls) == 2:
            raise OSError("disk full")
        return json.dumps(row)

    monkeypatch.setattr(scoring, "dump_row", failing_dump)
    with pytest.raises(OSError):
        scoring.score_file(str(rows), str(_set(tmp_path, GROUP)), out=str(out), progress=False)
    assert out.read_text() == previous
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl", "scored.jsonl", "set.yaml"]


def test_tokenizer_makes_completion_ids_ending_in_eos(plugins, tmp_path):
    pytest.importorskip("transformers")
    from transformers import AutoTokenizer

    from grpo_rewards.train.tiny import make_tiny_model

    model = make_tiny_model(tmp_path / "tiny")
    tok = AutoTokenizer.from_pretrained(model)
    rows = [{"completion": "The answer is 7."}, {"completion": [{"role": "assistant", "content": "Hello"}]},
            {"completion": "cut off", "truncated": True}, {"completion": "kept", "completion_ids": [5, 6]}]
    code, scored = _score(tmp_path, rows, _set(tmp_path, GROUP), "--tokenizer", str(model))
    assert code == 0
    assert [s["completion_ids"] for s in scored] == [
        tok("The answer is 7.", add_special_tokens=False)["input_ids"] + [tok.eos_token_id],
        tok("Hello", add_special_tokens=False)["input_ids"] + [tok.eos_token_id],
        tok("cut off", add_special_tokens=False)["input_ids"],
        [5, 6],
    ]


def test_an_unknown_tokenizer_is_one_line(plugins, tmp_path, capsys):
    pytest.importorskip("transformers")
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "HI"}])
    code = main(["score", str(rows), "--rewards", str(_set(tmp_path, GROUP)), "--tokenizer", str(tmp_path / "nope")])
    assert code == 2
    # (a missing folder was transformers' "Repo id must use alphanumeric chars ...")
    assert capsys.readouterr().err == (f"grpo-rewards: error: --tokenizer '{tmp_path / 'nope'}': no such folder (give a "
                                       "Hugging Face id, or a local folder holding a tokenizer)\n")
    (tmp_path / "empty").mkdir()  # a folder without a tokenizer: transformers' own reason, on one line
    code = main(["score", str(rows), "--rewards", str(_set(tmp_path, GROUP)), "--tokenizer", str(tmp_path / "empty")])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"grpo-rewards: error: cannot load tokenizer '{tmp_path / 'empty'}'") and err.count("\n") == 1


def test_outcome_counts_are_counted_once_when_an_entry_that_reads_another_fails(tmp_path, capsys, monkeypatch):
    """The README's set offline without token ids: length.cosine fails on every row and is retried,
    which recomputes math.accuracy for it; the outcome labels still add up to one per row."""
    pytest.importorskip("grpo_rewards_math")
    pytest.importorskip("grpo_rewards_length")
    monkeypatch.delenv("GRPO_REWARDS_PLUGINS", raising=False)
    rows = [{"prompt": f"What is 2+{p}?", "completion": c, "solution": str(2 + p)}
            for p in (2, 3) for c in ["\\boxed{4}", "It is \\boxed{5}", "no idea", "\\boxed{4} since 2+2"]]
    rewards = _set(tmp_path, "rewards:\n  - use: length.cosine\n    inputs: {correct: math.accuracy}\n"
                             "  - use: math.accuracy\n")
    code, scored = _score(tmp_path, rows, rewards)
    assert code == 1
    captured = capsys.readouterr()
    assert "outcomes of math.accuracy: correct 3, no_answer 2, wrong 3" in captured.out.splitlines()
    assert [s["rewards"]["math.accuracy"] for s in scored] == [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0]
    assert captured.err.splitlines()[0].startswith(
        "reward error: length.cosine failed on 8 row(s) (lines 1-8): raised ValueError: length.cosine measures "
        "tokens and needs completion_ids")
    assert "bad row" not in captured.err


def test_a_row_column_named_like_a_class_rewards_parameter_is_warned_about(plugins, tmp_path):
    with pytest.warns(UserWarning, match=r"set.yaml: entry 1 \(fixture.offset\): dataset column\(s\) 'offset' "
                                         r"have the name of a parameter of fixture.offset; this reward uses the "
                                         r"parameter's value, not the column"):
        code, scored = _score(tmp_path, [{"prompt": "p", "completion": "abc", "offset": 5}],
                              _set(tmp_path, "rewards:\n  - use: fixture.offset\n"))
    assert code == 0 and scored[0]["rewards"] == {"fixture.offset": 3.0}  # the parameter (0) wins over the column


GRADER = '''class Grader:
    """1.0 when the completion is the solution (labelled), with what it compared."""

    def __call__(self, text: str, *, solution: str, **row):
        return (1.0, "correct") if text == solution else (0.0, "wrong")

    def explain(self, completion, *, solution, **row):
        return {"read": completion, "gold": solution}
'''


def test_out_rows_carry_each_rewards_label_and_explain_carries_a_scorers_explanation(plugins, tmp_path, capsys):
    (tmp_path / "grader.py").write_text(GRADER)
    rewards = _set(tmp_path, "rewards:\n  - use: grader.py:Grader\n  - use: fixture.shout\n    weight: 0.5\n")
    rows = [{"prompt": "p", "completion": "42", "solution": "42"}, {"prompt": "p", "completion": "4", "solution": "42"}]
    code, scored = _score(tmp_path, rows, rewards, "--explain")
    assert code == 0
    assert [(s["rewards"], s["labels"], s.get("explain")) for s in scored] == [
        ({"Grader": 1.0, "fixture.shout": 0.0}, {"Grader": "correct", "fixture.shout": "ok"},
         {"Grader": {"read": "42", "gold": "42"}}),
        ({"Grader": 0.0, "fixture.shout": 0.0}, {"Grader": "wrong", "fixture.shout": "ok"},
         {"Grader": {"read": "4", "gold": "42"}})]
    assert capsys.readouterr().out.splitlines()[-1] == f"done: scored 2 rows, wrote {tmp_path / 'scored.jsonl'}"
    code, scored = _score(tmp_path, rows, rewards)
    assert "explain" not in scored[0]
    with pytest.raises(SystemExit) as exit_:
        main(["score", str(tmp_path / "rows.jsonl"), "--rewards", str(rewards), "--explain"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.endswith("error: --explain writes into the --out rows: give --out FILE\n")


def test_rewards_may_name_one_reward_instead_of_a_set_file(plugins, tmp_path, capsys):
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "LOUD"}, {"completion": "quiet"}])
    out = tmp_path / "scored.jsonl"
    assert main(["score", str(rows), "--rewards", "fixture.shout", "--out", str(out), "--no-progress"]) == 0
    assert [json.loads(line)["rewards"] for line in out.read_text().splitlines()] == [
        {"fixture.shout": 1.0}, {"fixture.shout": 0.0}]
    assert main(["score", str(rows), "--rewards", "fixture.shuot", "--no-progress"]) == 2
    assert "unknown reward 'fixture.shuot' (did you mean 'fixture.shout'?)" in capsys.readouterr().err


def test_the_last_line_says_done_and_counts_the_troubles_reported_above(plugins, tmp_path, capsys):
    rows = _write_rows(tmp_path / "rows.jsonl", [{"completion": "A"}, "not json", {"completion": "b"}])
    assert main(["score", str(rows), "--rewards", "fixture.shout", "--no-progress"]) == 1
    out, err = capsys.readouterr()
    assert out.splitlines()[-1] == "done: scored 2 rows; 1 bad rows (above)"
    assert err.startswith("bad row: line 2: not JSON")


TOOL_ROWS = [
    {"prompt": "Weather in Paris?", "gold_calls": [{"name": "get_weather", "arguments": {"city": "Paris"}}],
     "completion": [{"role": "assistant", "content": "", "tool_calls": [
         {"type": "function", "function": {"name": "get_weather", "arguments": {"city": "Paris"}}}]}]},
    {"prompt": "Add 2 and 3", "gold_calls": [{"name": "add", "arguments": {"a": 2, "b": 3}}],
     "completion": [{"role": "assistant", "content": "", "tool_calls": [
         {"type": "function", "function": {"name": "add", "arguments": {"a": 2, "b": 4}}}]},
         {"role": "tool", "name": "add", "content": "6"}, {"role": "assistant", "content": "6"}]},
]


def _scored_file(path, rewards, capsys):
    out = path.parent / "scored.jsonl"
    code = main(["score", str(path), "--rewards", rewards, "--out", str(out), "--no-progress"])
    return code, [(s["rewards"], s["labels"]) for s in map(json.loads, out.read_text().splitlines())], capsys.readouterr()


def test_parquet_and_save_to_disk_folders_of_trajectories_score_like_their_jsonl(tmp_path, capsys):
    # datasets stores a message list with differently shaped tool calls as JSON text in Parquet: read as a
    # plain Arrow table, every completion would be a list of strings (a bad row)
    pytest.importorskip("grpo_rewards_tools")
    datasets = pytest.importorskip("datasets")
    jsonl = _write_rows(tmp_path / "rows.jsonl", TOOL_ROWS)
    expected = _scored_file(jsonl, "tools.call_match", capsys)[1]
    assert [r["tools.call_match"] for r, _ in expected] == [1.0, 0.0]
    dataset = datasets.Dataset.from_list(TOOL_ROWS)
    dataset.to_parquet(str(tmp_path / "rows.parquet"))
    dataset.save_to_disk(str(tmp_path / "saved"))
    for path in (tmp_path / "rows.parquet", tmp_path / "saved"):
        code, scored, _ = _scored_file(path, "tools.call_match", capsys)
        assert (code, scored) == (0, expected), path.name


def test_csv_and_json_array_rows_are_read_and_their_bad_rows_named_by_row_number(tmp_path, capsys):
    (tmp_path / "rows.csv").write_text("\ufeffprompt,completion,solution\n2+2?,\\boxed{4},4\n3+4?,\\boxed{8},7\n"
                                       "5+5?,\\boxed{10},10,extra\n", encoding="utf-8")  # as Excel writes it: a BOM
    code, scored, captured = _scored_file(tmp_path / "rows.csv", "math.accuracy", capsys)
    assert (code, [r["math.accuracy"] for r, _ in scored]) == (1, [1.0, 0.0])
    assert captured.err.splitlines() == ["bad row: row 3: more fields than the header line"]
    (tmp_path / "rows.json").write_text(json.dumps([{"completion": "\\boxed{4}", "solution": "4"}, {"completion": 5},
                                                    ["not a row"]]))  # pandas' to_json(orient="records")
    code, scored, captured = _scored_file(tmp_path / "rows.json", "math.accuracy", capsys)
    assert (code, [r["math.accuracy"] for r, _ in scored]) == (1, [1.0])
    assert captured.err.splitlines() == [
        "bad row: row 2: 'completion' must be a string or a list of messages, not int",
        "bad row: row 3: expected an object with a 'completion' field"]




def test_rows_no_reward_of_the_set_scores_are_named_as_trl_would_warn_of_them(tmp_path, capsys):
    # a mixed dataset's task whose reward is not in the set: TRL counts such a row 0.0 and warns; score said nothing
    rows = [{"completion": "\\boxed{4}", "solution": "4"}, {"completion": "Paris", "solution": None},
            {"completion": "x", "solution": None}, {"completion": "\\boxed{5}", "solution": "5"}]
    path = _write_rows(tmp_path / "rows.jsonl", rows)
    assert main(["score", str(path), "--rewards", "math.accuracy", "--no-progress"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "note: 2 row(s) got None from every reward (lines 2-3): TRL counts them 0.0 and warns; is the reward for "
        "their task missing from the set?"]

def test_a_csvs_empty_cell_is_scored_as_training_reads_it_missing_and_a_written_none_is_text(tmp_path, capsys):
    # before: an empty cell was "" (text.exact_match compared with it: no_match, 0.0) where training reads None
    pytest.importorskip("grpo_rewards_text")
    (tmp_path / "rows.csv").write_text("completion,reference\nParis,Paris\nParis,\nNone,None\nNA,NA\n")
    code, scored, _ = _scored_file(tmp_path / "rows.csv", "text.exact_match", capsys)
    assert (code, scored) == (0, [({"text.exact_match": 1.0}, {"text.exact_match": "match"}),
                                  ({"text.exact_match": None}, {"text.exact_match": "no_reference"}),
                                  ({"text.exact_match": 1.0}, {"text.exact_match": "match"}),
                                  ({"text.exact_match": 1.0}, {"text.exact_match": "match"})])

def test_a_file_without_a_row_to_score_says_so_instead_of_blaming_the_reward_set(tmp_path, capsys):
    # before: "entry 1 (math.accuracy): needs dataset column(s) 'solution'; the dataset has: prompt"
    datasets = pytest.importorskip("datasets")
    (tmp_path / "text.jsonl").write_text("What is 2 + 2?\n4\n")
    (tmp_path / "empty.jsonl").write_text("\n")
    (tmp_path / "bad.parquet").write_text("not parquet")
    datasets.DatasetDict({"train": datasets.Dataset.from_dict({"completion": ["4"]}),
                          "test": datasets.Dataset.from_dict({"completion": ["5"]})}).save_to_disk(str(tmp_path / "dd"))
    capsys.readouterr()  # datasets' progress bars
    (tmp_path / "folder").mkdir()
    for name in ("text.jsonl", "empty.jsonl", "bad.parquet", "dd", "folder"):
        assert main(["score", str(tmp_path / name), "--rewards", "math.accuracy", "--no-progress"]) == 2
    err = capsys.readouterr().err.replace(str(tmp_path) + os.sep, "")
    assert err.splitlines() == [
        "grpo-rewards: error: no row of text.jsonl can be scored (2 bad: line 1: not JSON (Expecting value); line 2: "
        "expected an object with a 'completion' field); expected JSONL, Parquet, CSV, a JSON array, or a folder "
        "written by datasets' save_to_disk, each row with a 'completion'",
        "grpo-rewards: error: no row of empty.jsonl can be scored (it is empty)",
        "grpo-rewards: error: cannot read bad.parquet as Parquet: Could not open Parquet input source "
        "'bad.parquet': Parquet magic bytes not found in footer. Either the file is corrupted or this is not a "
        "parquet file.",
        "grpo-rewards: error: dd holds the splits train, test: give one of their folders (dd/train)",
        "grpo-rewards: error: not a file: folder (expected JSONL, Parquet, CSV, a JSON array, or a folder written by "
        "datasets' save_to_disk)"]
