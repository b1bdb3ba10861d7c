"""``grpo-rewards compare`` between math.accuracy and math-verify on the mined outside suites (bench/peers).

Each case of ``bench/peers/cases.jsonl`` (a prediction, a gold answer and the verdict its project's
test expects) becomes one row of a compare file: the prediction as a model would end its answer
(``The answer is $\\boxed{pred}$.``; a prediction that already holds ``\\boxed``, ``$`` or several
lines is kept as it is), the gold as ``solution``, the expected verdict as ``label`` (cases whose test
expects no score are left out of the rates). Both rewards run with their defaults, as a user gets
them: ``math.accuracy`` and ``math_verify.accuracy`` (examples/math-verify-plugin: TRL's
``accuracy_reward``); the projects' per-test configurations are not applied. Prints the compare
report and a per-source table in Markdown.

    .venv/bin/python bench/bench_compare.py [--cases bench/peers/cases.jsonl] [--out /tmp/peers.disagreements.jsonl]
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "examples" / "math-verify-plugin" / "src"))


def as_completion(pred: Any) -> str:
    text = str(pred)
    return text if "\\boxed" in text or "$" in text or "\n" in text else f"The answer is $\\boxed{{{text}}}$."


def rows_of(cases: Path) -> list[dict[str, Any]]:
    out = []
    for line in cases.read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        out.append({"completion": as_completion(case["pred"]), "solution": str(case["gold"]),
                    "label": case["expected"], "project": case["project"]})
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=ROOT / "bench" / "peers" / "cases.jsonl")
    parser.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "peers.disagreements.jsonl"))
    args = parser.parse_args(argv)

    import grpo_rewards_math_verify.plugin as adapter

    from grpo_rewards.compare import Comparison, compare_file, rates
    from grpo_rewards.testing import plugin_registered

    rows = rows_of(args.cases)
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "peers.jsonl"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
        report = io.StringIO()
        started = time.perf_counter()
        with plugin_registered(adapter, "math_verify", installed=True) as registry:
            import grpo_rewards.compare as compare_module

            sides: list[Any] = []
            original = compare_module._sides

            def keep(*a: Any, **k: Any) -> Any:
                sides.extend(original(*a, **k))
                return sides

            compare_module._sides = keep  # to read each side's values for the per-source table below
            try:
                compare_file(str(data), ["math.accuracy", "math_verify.accuracy"], out=args.out, show=15,
                             stream=report, registry=registry, batch_size=64)
            finally:
                compare_module._sides = original
        seconds = time.perf_counter() - started
    print(report.getvalue())
    a, b = sides
    truth = compare_module.Side("label", column="label")
    truth.values = [compare_module.verdict(r["label"]) for r in rows]
    truth.labels = ["none" if v is None else "pays" if v else "does_not_pay" for v in truth.values]
    by_project: dict[str, list[int]] = defaultdict(list)
    for i, r in enumerate(rows):
        by_project[r["project"]].append(i)
    print(f"{len(rows)} cases in {seconds:.1f} s\n")
    print("| source | cases | agreement | disagree | math.accuracy P / R / FP rate / FN rate | "
          "math-verify P / R / FP rate / FN rate |")
    print("|---|---|---|---|---|---|")

    def sub(side: Any, idx: list[int]) -> Any:
        return compare_module.Side(side.name, values=[side.values[i] for i in idx],
                                   labels=[side.labels[i] for i in idx], column=side.column)

    def fmt(r: dict[str, Any]) -> str:
        return " / ".join("-" if r[k] is None else f"{r[k]:.2f}" for k in
                          ("precision", "recall", "false_positive_rate", "false_negative_rate"))

    for project, idx in [*sorted(by_project.items()), ("all", list(range(len(rows))))]:
        ca, cb, ct = sub(a, idx), sub(b, idx), sub(truth, idx)
        cmp = Comparison(ca, cb)
        table = cmp.table()
        scored = sum(table.values())
        agree = (table["both"] + table["neither"]) / scored if scored else float("nan")
        print(f"| {project} | {len(idx)} | {agree:.3f} | {table['only_a'] + table['only_b']} | "
              f"{fmt(rates(ca, ct, 0.5))} | {fmt(rates(cb, ct, 0.5))} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
