"""grpo-rewards compare: two sides over one JSONL file, the tables, the rates, the disagreements."""

from __future__ import annotations

import json
import math
import re
import shlex
import shutil
from pathlib import Path

import pytest

import grpo_rewards
from grpo_rewards.cli import main
from grpo_rewards.compare import compare_file
from grpo_rewards.testing import plugin_registered

ROOT = Path(__file__).resolve().parents[2]


class LengthVerdicts:
    """1.0 for an even number of characters (labelled even/odd); raises on 'boom'."""

    def __init__(self, threshold: int = 0) -> None:
        self.threshold = threshold

    def __call__(self, text: str, **row):
        if text == "boom":
            raise ValueError("boom")
        return (1.0, "even") if len(text) % 2 == 0 else (0.0, "odd")

    def explain(self, completion, **row):
        return {"chars": len(completion), "gold": row.get("solution")}


def long_text(text: str, **row) -> float | None:
    """1.0 for more than 3 characters; None for an empty text."""
    return None if not text else float(len(text) > 3)


class Plugin:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("even", LengthVerdicts)
        register("long", long_text)


ROWS = [  # (completion, label): even = pays for even lengths, long = pays for more than 3 chars
    ("ab", True),       # even pays, long does not
    ("abcd", True),     # both pay
    ("abc", False),     # neither
    ("abcde", False),   # long only
    ("", True),         # long is None: left out of the pair; even pays
    ("abcdef", False),  # both pay
]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"prompt": f"p{i}", "completion": c, "label": label, "solution": "4"}) + "\n"
                            for i, (c, label) in enumerate(ROWS)))
    return path


def run(path, *sides, **options):
    with plugin_registered(Plugin(), "t") as registry:
        import io

        stream = io.StringIO()
        code = compare_file(str(path), list(sides), stream=stream, registry=registry, **options)
    return code, stream.getvalue()


def test_two_rewards_agreement_and_confusion_table(data):
    code, out = run(data, "t.even", "t.long")
    assert code == 0
    assert "agreement: 0.600 (3 of 5 rows; 1 left out: a side is None)" in out
    table = [line.split() for line in out.splitlines() if line.startswith("t.even ")]
    assert table == [["t.even", "pays", "2", "1"], ["t.even", "does", "not", "1", "1"]]


def test_the_table_per_outcome_label(data):
    _, out = run(data, "t.even", "t.long")
    rows = {line.split()[0]: line.split()[1:] for line in out.split("by outcome label of t.even:")[1].splitlines()[2:4]}
    assert rows == {"even": ["4", "2", "1", "0", "0"], "odd": ["2", "0", "0", "1", "1"]}


def test_a_label_column_gives_precision_recall_and_error_rates_of_each_reward(data):
    _, out = run(data, "t.even", "t.long")
    rates = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line.startswith("  t.")}
    # even vs label: TP ab, abcd, "" ; FP abcdef; FN none; TN abc, abcde
    assert rates["t.even"] == ["0.750", "1.000", "0.333", "0.000", "6"]
    # long vs label (5 rows): TP abcd; FP abcde, abcdef; FN ab; TN abc
    assert rates["t.long"] == ["0.333", "0.500", "0.667", "0.500", "5"]


def test_a_reward_against_the_label_column(data):
    code, out = run(data, "t.even", "label")
    assert code == 0
    assert "agreement: 0.833 (5 of 6 rows)" in out
    assert "1 disagreeing rows (first 1):" in out and "line 6: abcdef" in out


def test_a_label_column_named_but_absent_is_an_error_before_scoring(data, tmp_path):
    # the rates were left out without a word: --label verdit (a typo) read as "no label column"
    with pytest.raises(grpo_rewards.GrpoRewardsError) as err:
        run(data, "t.even", "t.long", label_column="verdit")
    assert str(err.value) == f"--label verdit: {data} has no column 'verdit' (its columns: label, solution)"
    assert not Path(f"{data}.disagreements.jsonl").exists()
    code, out = run(data, "t.even", "t.long", label_column="label")  # named and present: the rates
    assert code == 0 and "against the label column 'label':" in out


@pytest.mark.parametrize("column", ["solution", "label"])
def test_a_verdict_column_without_one_verdict_is_an_error_naming_a_value(data, column):
    # every row was left out ("a side is None") and the report read as a comparison of 0 rows
    if column == "label":  # the label column named for the rates, its values no verdicts
        data.write_text("".join(json.dumps({"completion": c, "label": "Y" if ok else "N"}) + "\n" for c, ok in ROWS))
        sides, kwargs, shown = ("t.even", "t.long"), {"label_column": "label"}, "'Y'"
    else:
        sides, kwargs, shown = ("t.even", "solution"), {}, "'4'"
    with pytest.raises(grpo_rewards.GrpoRewardsError) as err:
        run(data, *sides, **kwargs)
    assert str(err.value) == (f"column {column!r} holds no verdict (e.g. {shown}): a verdict is true/false, 1/0, "
                              "yes/no, correct/wrong or pass/fail, or a number")


def test_a_label_column_not_named_and_holding_no_verdict_leaves_the_rates_out_and_says_why(data):
    # a column merely called label may hold categories: compare still runs (there is no way to turn it off)
    data.write_text("".join(json.dumps({"completion": c, "label": "Y" if ok else "N"}) + "\n" for c, ok in ROWS))
    code, out = run(data, "t.even", "t.long")
    assert code == 0 and "against the label column" not in out
    assert ("\nno precision or recall: column 'label' holds no verdict (e.g. 'Y'): a verdict is true/false, 1/0, "
            "yes/no, correct/wrong or pass/fail, or a number (--label names the column of true verdicts)\n") in out


def test_disagreements_are_printed_with_explain_and_written_for_review(data, tmp_path):
    out_file = tmp_path / "review.jsonl"
    _, out = run(data, "t.even", "t.long", out=str(out_file))
    assert "t.even: 1.0 (even)  {'chars': 2, 'gold': '4'}" in out
    written = [json.loads(line) for line in out_file.read_text().splitlines()]
    assert [(r["completion"], r["compare"]["line"]) for r in written] == [("ab", 1), ("abcde", 4)]
    assert written[0]["compare"]["a"] == {"name": "t.even", "value": 1.0, "label": "even",
                                          "explain": {"chars": 2, "gold": "4"}}
    assert written[0]["compare"]["b"] == {"name": "t.long", "value": 0.0, "label": "ok"}


def test_two_entries_of_a_reward_set_are_the_two_sides(data, tmp_path):
    spec = tmp_path / "set.yaml"
    spec.write_text("rewards:\n  - use: t.even\n  - use: t.long\n    as: longer\n")
    _, out = run(data, str(spec))
    assert "A = t.even, B = longer" in out
    _, out = run(data, f"{spec}:longer", "label")
    assert "A = longer, B = label" in out


@pytest.mark.parametrize(("sides", "message"), [
    (["t.even"], "needs exactly two sides"),
    (["t.even", "t.long", "label"], "needs exactly two sides"),
    (["t.even", "t.even"], "both sides are 't.even'"),
    (["t.evn", "label"], "unknown reward 't.evn'"),
])
def test_the_sides_must_be_two_different_ones(data, sides, message):
    with pytest.raises(grpo_rewards.GrpoRewardsError, match=message):
        run(data, *sides)


def test_a_row_a_reward_fails_on_is_reported_and_the_others_are_compared(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps({"completion": c, "label": True}) + "\n" for c in ("ab", "boom", "abcd")))
    code, out = run(path, "t.even", "label")
    assert code == 1
    assert "agreement: 1.000 (2 of 3 rows" not in out and "(2 of 2 rows; 1 left out" in out


@pytest.mark.parametrize("threshold", [float("nan"), float("inf"), "0.5"])
def test_a_threshold_that_is_not_a_finite_number_is_refused(data, threshold):
    # (NaN was taken: nothing paid on either side, and the report said the two agreed on every row)
    with pytest.raises(grpo_rewards.GrpoRewardsError) as err:
        run(data, "t.even", "t.long", threshold=threshold)
    assert str(err.value) == f"threshold must be a finite number, got {threshold!r}"
    assert not Path(f"{data}.disagreements.jsonl").exists()


def test_the_default_output_file_is_never_one_compare_did_not_write(data):
    target = Path(f"{data}.disagreements.jsonl")
    target.write_text("my notes\n")
    with pytest.raises(grpo_rewards.GrpoRewardsError, match="was not written by compare"):
        run(data, "t.even", "t.long")
    assert target.read_text() == "my notes\n"
    target.unlink()
    run(data, "t.even", "t.long")
    run(data, "t.even", "t.long")  # its own earlier output is replaced
    assert len(target.read_text().splitlines()) == 2


def test_out_may_not_be_the_input_file(data):
    with pytest.raises(grpo_rewards.GrpoRewardsError, match="is the input file"):
        run(data, "t.even", "t.long", out=str(data))


def _readme_compare_commands() -> list[str]:
    text = (ROOT / "docs" / "commands.md").read_text(encoding="utf-8")  # the README's reference, moved there
    blocks = re.findall(r"```bash\n(.*?)```", text, flags=re.S)
    return [line for block in blocks for line in block.splitlines() if line.startswith("grpo-rewards compare")]


def test_the_readme_compare_example_runs_on_the_bundled_file(tmp_path, monkeypatch, capsys):
    commands = _readme_compare_commands()
    assert commands, "docs/commands.md shows a grpo-rewards compare command"
    (tmp_path / "examples" / "data").mkdir(parents=True)
    shutil.copy(ROOT / "examples" / "data" / "compare.jsonl", tmp_path / "examples" / "data" / "compare.jsonl")
    monkeypatch.chdir(tmp_path)
    for command in commands:
        assert main(shlex.split(command)[1:]) == 0, command
        out = capsys.readouterr().out
        assert "agreement:" in out and "disagreeing rows" in out


def test_the_math_verify_adapter_compares_with_math_accuracy_on_the_bundled_file(tmp_path, monkeypatch):
    pytest.importorskip("math_verify")
    monkeypatch.syspath_prepend(str(ROOT / "examples" / "math-verify-plugin" / "src"))
    import io

    import grpo_rewards_math_verify.plugin as adapter

    stream = io.StringIO()
    with plugin_registered(adapter, "math_verify", installed=True) as registry:
        code = compare_file(str(ROOT / "examples" / "data" / "compare.jsonl"), ["math.accuracy", "math_verify.accuracy"],
                            out=str(tmp_path / "d.jsonl"), stream=stream, registry=registry)
    out = stream.getvalue()
    assert code == 0
    assert "A = math.accuracy, B = math_verify.accuracy" in out
    assert "  math_verify.accuracy " in out  # its precision and recall against the file's label column
    assert "'gold': ['12']" in out  # math-verify's explanation beside a disagreement


def test_the_module_examples_run():
    import doctest

    import grpo_rewards.compare

    assert doctest.testmod(grpo_rewards.compare).failed == 0


def test_a_verdict_past_a_floats_range_is_beyond_any_threshold_not_an_overflow():
    # before: a label column holding a 400-digit integer raised OverflowError out of grpo-rewards compare
    from grpo_rewards.compare import verdict

    assert (verdict(10 ** 400), verdict(-(10 ** 400)), verdict(float("nan")), verdict(3)) == (
        math.inf, -math.inf, None, 3.0)
