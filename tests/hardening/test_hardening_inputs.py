"""User inputs around the rewards: reward-set specs and the files `grpo-rewards score` reads.

A reward set of any shape is either built or rejected with one ``RewardSetError`` listing its
problems (never a TypeError or AttributeError from deep inside); a file that is a folder or not
text is a one-line error (exit code 2), not a traceback.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_rewards import RewardSet, RewardSetError, load_registry, load_reward_set

REGISTRY = load_registry()
NAMES = [*sorted(REGISTRY.rewards), "nope.x", "math", "format.regex"]
KEYS = ["use", "weight", "with", "as", "inputs", "on_error", "error_value", "timeout", "timeout_value", "workers",
        "max_chars", "too_large_value", "invalid_value", "pattern", "max_length", "unit", "rewards", "target"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 600), st.floats(allow_nan=True), st.text(max_size=8),
                    st.sampled_from(NAMES))
values = st.recursive(scalars, lambda c: st.one_of(st.lists(c, max_size=3), st.dictionaries(st.sampled_from(KEYS), c,
                                                                                             max_size=4)), max_leaves=8)
entries = st.one_of(
    st.sampled_from(NAMES),
    st.fixed_dictionaries({"use": st.sampled_from(NAMES)}, optional={k: values for k in KEYS[1:10]}),
    values,
)
# top-level strings are paths: left to the explicit tests below
specs = st.one_of(st.lists(entries, max_size=4), st.fixed_dictionaries({"rewards": st.lists(entries, max_size=4)}),
                  values.filter(lambda v: not isinstance(v, str)))


@settings(max_examples=300, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(spec=specs)
def test_any_reward_set_spec_is_built_or_rejected_with_a_reward_set_error(spec):
    try:
        built = load_reward_set(spec, registry=REGISTRY, columns=["prompt", "solution", "correct"])
    except RewardSetError as exc:
        assert exc.problems and all(isinstance(p, str) and p for p in exc.problems)
    else:
        assert isinstance(built, RewardSet) and len(built) >= 1


@pytest.mark.parametrize("kind", ["empty-string", "folder", "binary"])
def test_a_reward_set_path_that_is_not_a_yaml_file_is_a_reward_set_error(tmp_path, kind):
    path = {"empty-string": "", "folder": str(tmp_path), "binary": str(tmp_path / "set.yaml")}[kind]
    (tmp_path / "set.yaml").write_bytes(b"\xb2\xff\x00rewards")
    with pytest.raises(RewardSetError):
        load_reward_set(path, registry=REGISTRY)


@pytest.mark.parametrize("which", ["rows-folder", "rewards-folder", "rewards-binary"])
def test_score_with_a_folder_or_binary_file_is_a_one_line_error(tmp_path, capsys, which):
    from grpo_rewards.cli import main

    rows, rewards = tmp_path / "rows.jsonl", tmp_path / "set.yaml"
    rows.write_text('{"completion": "\\\\boxed{4}"}\n')
    rewards.write_text("rewards:\n  - use: format.boxed\n")
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\xb2\xff\x00rewards")
    args = {"rows-folder": [str(tmp_path), "--rewards", str(rewards)],
            "rewards-folder": [str(rows), "--rewards", str(tmp_path)],
            "rewards-binary": [str(rows), "--rewards", str(binary)]}[which]
    assert main(["score", *args, "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("grpo-rewards: error: ") and "Traceback" not in err


def test_score_reports_undecodable_and_non_json_lines_and_scores_the_rest(tmp_path, capsys):
    import io

    from grpo_rewards.scoring import score_file

    rows, rewards = tmp_path / "rows.jsonl", tmp_path / "set.yaml"
    rows.write_bytes(b'{"completion": "\\\\boxed{4}"}\n\xb2\xff\x00 not json\n{"completion": "no box"}\n[1, 2]\n')
    rewards.write_text("rewards:\n  - use: format.boxed\n")
    out, table = tmp_path / "scored.jsonl", io.StringIO()
    assert score_file(str(rows), str(rewards), out=str(out), progress=False, stream=table) == 1
    err = capsys.readouterr().err
    assert "bad row: line 2: not UTF-8 text" in err and "bad row: line 4: expected an object" in err
    assert table.getvalue().startswith(f"scored 2 rows from {rows}")
    assert [line.count('"format.boxed": 1.0') for line in out.read_text().splitlines()] == [1, 0]


def test_score_prints_its_table_to_the_current_stdout(tmp_path):
    import contextlib
    import io

    from grpo_rewards.cli import main

    rows, rewards = tmp_path / "rows.jsonl", tmp_path / "set.yaml"
    rows.write_text('{"completion": "\\\\boxed{4}"}\n')
    rewards.write_text("rewards:\n  - use: format.boxed\n")
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["score", str(rows), "--rewards", str(rewards), "--no-progress"]) == 0
    assert buffer.getvalue().startswith("scored 1 rows from")


def test_score_out_writes_rows_with_lone_surrogates(tmp_path):
    import io
    import json

    from grpo_rewards.scoring import score_file

    rows, rewards, out = tmp_path / "rows.jsonl", tmp_path / "set.yaml", tmp_path / "scored.jsonl"
    rows.write_text('{"completion": "\\ud800 \\\\boxed{4}"}\n{"completion": "\\\\boxed{4}"}\n')
    rewards.write_text("rewards:\n  - use: format.boxed\n")
    assert score_file(str(rows), str(rewards), out=str(out), progress=False, stream=io.StringIO()) == 0
    written = [json.loads(line) for line in out.read_text(encoding="utf-8", errors="surrogatepass").splitlines()]
    assert [(r["completion"], r["rewards"]["format.boxed"]) for r in written] == [
        ("\ud800 \\boxed{4}", 1.0), ("\\boxed{4}", 1.0)]


def test_score_table_counts_the_timeouts_of_a_batch_reward(tmp_path):
    """A sample that never finishes is a timeout in the table whatever the machine's speed: it blocks
    for good, and the deadline (5 s) is far beyond what the other sample needs."""
    import io
    import json

    from grpo_rewards.scoring import score_file

    rows, rewards = tmp_path / "rows.jsonl", tmp_path / "set.yaml"
    (tmp_path / "hangs.py").write_text(
        "import threading\n\n"
        "def hangs(text, **row):\n"
        "    if 'hang' in text:\n"
        "        threading.Event().wait()  # never set: only the deadline ends it\n"
        "    return 1.0\n")
    rows.write_text("".join(json.dumps({"completion": c}) + "\n" for c in ["please hang", "answer"]))
    rewards.write_text("rewards:\n  - use: hangs.py:hangs\n    timeout: 5.0\n    timeout_value: 0.0\n")
    table = io.StringIO()
    score_file(str(rows), str(rewards), progress=False, stream=table)
    lines = table.getvalue().splitlines()
    assert "outcomes of hangs: timeout 1" in lines, lines  # (an ordinary value has no label)
    row = next(line.split() for line in lines if line.startswith("hangs "))
    assert row[7] == "1", lines  # reward weight mean std min max None timeout errors seconds
