"""Score the mined cases (``bench/peers/cases.jsonl``) with ``math.accuracy`` and with math-verify.

Run by hand, from the repository root in the project's venv (math-verify is benchmark-only)::

    python bench/peers/run.py                  # per-source table, overall, latency
    python bench/peers/run.py --failures       # also our wrong cases, grouped by rough category
    python bench/peers/run.py --project NeMo   # only the sources whose name contains NeMo
    python bench/peers/run.py --json out.json  # every case's results, for diffing two runs
    python bench/peers/run.py --compare out.json   # the cases whose verdict changed since that run

Ours is called as a user calls it: the public ``grpo_rewards_math.make_accuracy(**params)`` on one
completion per call (``completions=[pred], solution=[gold]``), with the row's configuration mapped
to the reward's parameters where it has an equivalent (``precision`` -> ``precision``,
math-verify's ``strict=False`` -> ``strict=False``, when the reward has those parameters). A row
whose configuration has no equivalent (math-verify's LaTeX-only or expression-only extraction
targets, a non-English language, ``allow_set_relation_comp``, a project's own answer format) is
scored with the defaults and reported apart. math-verify is called as its tests call it:
``verify(parse(gold, targets), parse(pred, targets), float_rounding=, strict=,
allow_set_relation_comp=)``, with the row's targets and options (defaults for other projects'
rows), ``parsing_timeout`` / ``timeout_seconds`` of ``--mv-timeout`` seconds.

A value is right when: expected True and the value is 1; expected False and the value is 0 or
``None`` (a gold the grader cannot read scores no sample, which is never a false positive);
expected ``None`` (the project's test wants "no score") and the value is ``None``. A false
positive is a 1 where False was expected; a false negative anything else where True was.
"""

from __future__ import annotations

import argparse
import inspect
import json
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
DEFAULT_TARGETS = (["latex", "expr"], ["expr", "latex"])


# -- configuration -------------------------------------------------------------------------------
def our_params(config: dict[str, Any], accepted: set[str]) -> tuple[dict[str, Any], str | None]:
    """The reward's parameters for a row's config, and why it has no equivalent (None: it has one)."""
    params: dict[str, Any] = {}
    apart: list[str] = []
    for key, value in config.items():
        if key == "match_types":
            if value not in DEFAULT_TARGETS:
                apart.append("targets " + "+".join(value))
        elif key == "language":
            if value != "ENGLISH":
                apart.append(f"language {value}")
        elif key == "precision":
            if value != 6:  # math-verify's default float_rounding; ours: rel_tol
                if "precision" in accepted:
                    params["precision"] = value
                else:
                    apart.append("precision")
        elif key == "strict":
            if value is False:
                if "strict" in accepted:
                    params["strict"] = False
                else:
                    apart.append("strict=False")
        elif key == "strict_box_verify":  # DAPO: only the last box, or only a Minerva "Answer:" line
            apart.append("DAPO strict box" if value else "DAPO Minerva 'Answer:' line")
        elif key == "allow_set_relation_comp":
            if value:
                apart.append("allow_set_relation_comp")
        else:
            apart.append(f"{key}={value}")
    return params, ", ".join(apart) or None


_REWARDS: dict[str, Any] = {}


def ours(pred: str, gold: Any, params: dict[str, Any]) -> tuple[float | None, str, float, float]:
    """(value, outcome label, wall seconds, in-process CPU seconds) of the public reward on one case."""
    import grpo_rewards_math

    key = json.dumps(params, sort_keys=True)
    if key not in _REWARDS:
        _REWARDS[key] = grpo_rewards_math.make_accuracy(metric="math.accuracy", **params)
    reward = _REWARDS[key]
    labels: dict[str, list[str]] = {}
    metrics: dict[str, float] = {}
    cpu, wall = time.process_time(), time.perf_counter()
    try:
        value = reward(prompts=[""], completions=[pred], solution=[gold],
                       log_extra=lambda c, v: labels.__setitem__(c, v),
                       log_metric=lambda k, v: metrics.__setitem__(k, v))[0]
    except Exception as exc:  # a reward that raises on a case: counted wrong, named in the label
        value, labels = None, {"/outcome": [f"raised {type(exc).__name__}"]}
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    # the outcome label: the per-sample column if logged, else the one outcome counted for this sample
    label = next((v[0] for k, v in labels.items() if k.endswith("/outcome")), None) or next(
        (k.rsplit("/", 1)[1] for k, v in metrics.items() if k.startswith("outcomes/") and v >= 1), "?")
    return value, label, wall, cpu


def _targets(config: dict[str, Any], project: str) -> list[Any]:
    from math_verify import ExprExtractionConfig, LatexExtractionConfig

    kinds = config.get("match_types") or ["latex", "expr"]
    out: list[Any] = []
    for kind in kinds:
        if kind == "latex":  # Math-Verify's own tests use boxed_match_priority=0
            out.append(LatexExtractionConfig(boxed_match_priority=0) if project.endswith("Math-Verify")
                       else LatexExtractionConfig())
        elif kind == "expr":
            out.append(ExprExtractionConfig())
    return out


def theirs(pred: str, gold: Any, config: dict[str, Any], project: str, timeout: int) -> tuple[float | None, float]:
    """(value, seconds) of math-verify: None when the gold parses to nothing (as TRL's reward)."""
    from math_verify import parse, verify

    started = time.perf_counter()
    targets = _targets(config, project)
    if not targets:  # an extraction target math-verify's parse has no config for here (letters)
        return None, time.perf_counter() - started
    try:
        gold_parsed = parse("" if gold is None else str(gold), targets, parsing_timeout=timeout)
        if not gold_parsed:
            return None, time.perf_counter() - started
        pred_parsed = parse(pred, targets, parsing_timeout=timeout)
        ok = verify(gold_parsed, pred_parsed, float_rounding=config.get("precision", 6),
                    strict=config.get("strict", True),
                    allow_set_relation_comp=config.get("allow_set_relation_comp", False), timeout_seconds=timeout)
    except Exception:  # math-verify raising on odd input: a zero, as its raise_on_error=False means
        ok = False
    return (1.0 if ok else 0.0), time.perf_counter() - started


def right(value: float | None, expected: bool | None) -> bool:
    if expected is None:
        return value is None
    if expected:
        return value == 1.0
    return value != 1.0


# -- failure categories ---------------------------------------------------------------------------
def category(row: dict[str, Any], value: float | None, label: str) -> str:
    """A rough category of one of our wrong cases (first rule that matches)."""
    pred, gold = row["pred"], "" if row["gold"] is None else str(row["gold"])
    both = pred + " " + gold
    if label == "gold_unparsable" and row["expected"] is not None:
        return "gold unparsable (ours None)"
    if label == "no_answer":
        return "no answer found in the prediction"
    if len(re.findall(r"\\boxed", pred)) >= 2 or len(re.findall(r"\\boxed", gold)) >= 2:
        return "several boxes"
    if row["config"].get("precision") not in (None, 6):
        return "precision"
    if re.search(r"pmatrix|bmatrix|\\begin\{array", both):
        return "matrix"
    if re.search(r"\\le|\\ge|<|>|\\cup|\\in\b|\\infty", both):
        return "relation / interval / set"
    if re.search(r"(^|[\s$(])[A-Za-z]{1,3}(_\{?\w+\}?)?\s*(=|:)", pred + "\n" + gold) or re.search(r"\\frac\{[A-Z]{2}", both):
        return "labelled answer (x = …, AB = …)"
    if re.search(r"=", pred) and not re.search(r"=", gold):
        return "equality chain (the answer after the last =)"
    if re.search(r"\d[ ,]\d{3}\b|\d,\d{1,2}\b|(^|\s)\.\d|\d:\d\d", both):
        return "number format (separators, decimal comma, time)"
    if re.search(r"\\%|%|\\circ|degree|\\text\{\s*[a-z]|\\\$|€|m²", both):
        return "units, percent, degrees"
    if len(pred) > 150 and not re.search(r"\\boxed|\$", pred):
        return "long unboxed response (plain text)"
    if len(pred) > 150:
        return "long response (last stated result)"
    if row["expected"] is False and value == 1.0:
        return "false positive (other)"
    return "other"


# -- run -----------------------------------------------------------------------------------------
def commit_of_repo() -> str:
    """The commit measured, and whether the math package has uncommitted edits on top of it."""
    try:
        head = subprocess.run(["git", "-C", str(ROOT), "log", "-1", "--format=%h"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "packages/rewards-math"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return head + (" + uncommitted edits in packages/rewards-math" if dirty else "")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=HERE / "cases.jsonl")
    parser.add_argument("--project", default="", help="only sources whose name contains this")
    parser.add_argument("--failures", action="store_true", help="print our wrong cases grouped by category")
    parser.add_argument("--mv-timeout", type=int, default=3, help="math-verify's parse/verify timeout (s)")
    parser.add_argument("--no-mv", action="store_true", help="skip math-verify (ours only, faster)")
    parser.add_argument("--json", type=Path, help="write every case's results here")
    parser.add_argument("--compare", type=Path, help="a --json file of an earlier run: list the cases that changed")
    args = parser.parse_args(argv)

    import grpo_rewards_math

    accepted = set(inspect.signature(grpo_rewards_math.Accuracy.__init__).parameters)
    rows = [json.loads(line) for line in args.cases.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if args.project.lower() in r["project"].lower()]
    # warm up both (imports, the worker pool) on inputs that are not cases
    ours(r"\boxed{x^2-1}", "(x-1)(x+1)", {})
    if not args.no_mv:
        theirs("$x^2-1$", "$(x-1)(x+1)$", {}, "", args.mv_timeout)

    results = []
    for row in rows:
        params, apart = our_params(row["config"], accepted)
        value, label, wall, cpu = ours(row["pred"], row["gold"], params)
        mv, mv_wall = (None, float("nan")) if args.no_mv else theirs(row["pred"], row["gold"], row["config"],
                                                                     row["project"], args.mv_timeout)
        results.append({**row, "apart": apart, "params": params, "ours": value, "label": label, "ours_s": wall,
                        "ours_cpu_s": cpu, "mv": mv, "mv_s": mv_wall,
                        "ours_right": right(value, row["expected"]) and not label.startswith("raised"),
                        "mv_right": right(mv, row["expected"])})

    print(f"Measured: grpo-rewards commit `{commit_of_repo()}`; {len(results)} cases from {args.cases.name}; "
          f"math-verify {'skipped' if args.no_mv else _mv_version()}.\n")
    print(table(results, apart=False))
    if any(r["apart"] for r in results):
        print("\nRows whose configuration has no equivalent in math.accuracy (scored with its defaults):\n")
        print(table(results, apart=True))
    print()
    print(latency(results, args.no_mv))
    if args.failures:
        print()
        print(failures(results))
    if args.compare:
        print()
        print(compare(json.loads(args.compare.read_text(encoding="utf-8")), results))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


def _mv_version() -> str:
    from importlib.metadata import version

    return version("math-verify")


def _counts(rs: list[dict[str, Any]], key: str) -> tuple[int, int, int]:
    good = sum(r[f"{key}_right"] for r in rs)
    fp = sum(1 for r in rs if r["expected"] is False and r[key] == 1.0)
    fn = sum(1 for r in rs if r["expected"] is True and r[key] != 1.0)
    return good, fp, fn


def table(results: list[dict[str, Any]], apart: bool) -> str:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        if bool(r["apart"]) == apart:
            name = r["project"] + (f" ({r['apart']})" if apart else "")
            groups[name].append(r)
    lines = ["| source | commit | cases | ours right | math-verify right | ours FP / FN | math-verify FP / FN |",
             "|---|---|---|---|---|---|---|"]
    everything: list[dict[str, Any]] = []
    for name in sorted(groups, key=lambda n: (-len(groups[n]), n)):
        rs = groups[name]
        everything += rs
        lines.append(_line(name, rs[0]["commit"][:10], rs))
    outside = [r for r in everything if not r["project"].endswith("/Math-Verify")]
    if len(outside) not in (0, len(everything)):
        lines.append(_line("**outside sources** (all but math-verify's own suite)", "", outside))
    if len(groups) > 1:
        lines.append(_line("**overall**", "", everything))
        unique = {json.dumps([r["pred"], r["gold"], r["expected"], r["params"]], sort_keys=True): r for r in everything}
        lines.append(_line("overall, distinct (pred, gold, expected, params)", "", list(unique.values())))
    return "\n".join(lines)


def _line(name: str, commit: str, rs: list[dict[str, Any]]) -> str:
    n = len(rs)
    og, ofp, ofn = _counts(rs, "ours")
    mg, mfp, mfn = _counts(rs, "mv")
    return f"| {name} | {commit} | {n} | {og} ({og / n:.3f}) | {mg} ({mg / n:.3f}) | {ofp} / {ofn} | {mfp} / {mfn} |"


def latency(results: list[dict[str, Any]], no_mv: bool) -> str:
    o = [r["ours_s"] for r in results]
    cpu = [r["ours_cpu_s"] for r in results]
    lines = ["| per case (s) | median | p99 | max |", "|---|---|---|---|",
             f"| math.accuracy (wall) | {statistics.median(o):.6f} | {pct(o, 0.99):.6f} | {max(o):.6f} |",
             f"| math.accuracy (CPU in the calling process) | {statistics.median(cpu):.6f} | {pct(cpu, 0.99):.6f} | "
             f"{max(cpu):.6f} |"]
    if not no_mv:
        m = [r["mv_s"] for r in results]
        lines.append(f"| math-verify (wall) | {statistics.median(m):.6f} | {pct(m, 0.99):.6f} | {max(m):.6f} |")
        lines.append(f"| ratio math-verify / ours | **{statistics.median(m) / statistics.median(o):.1f}x** | "
                     f"{pct(m, 0.99) / pct(o, 0.99):.1f}x | {max(m) / max(o):.1f}x |")
    over = [r for r in results if r["ours_cpu_s"] > 0.05]
    lines.append(f"\nCases over 50 ms of CPU in the calling process: {len(over)}"
                 + "".join(f"\n- {r['ours_cpu_s']:.3f} s: `{_short(r['pred'])}` vs `{_short(r['gold'])}`"
                           for r in sorted(over, key=lambda r: -r["ours_cpu_s"])[:10]))
    labels = Counter(r["label"] for r in results)
    lines.append(f"\nOutcome labels (ours): {dict(sorted(labels.items()))}")
    return "\n".join(lines)


def _short(text: Any, n: int = 90) -> str:
    text = repr(text)[1:-1] if isinstance(text, str) else repr(text)
    return (text[: n - 1] + "…" if len(text) > n else text).replace("|", "\\|").replace("`", "'")


def _key(r: dict[str, Any]) -> str:
    return json.dumps([r["project"], r["path"], r["line"], r["pred"], r["gold"], r["config"]], sort_keys=True)


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> str:
    """The cases whose verdict for ours changed since an earlier run (fixed, and newly wrong)."""
    old = {_key(r): r for r in before}
    fixed = [r for r in after if _key(r) in old and r["ours_right"] and not old[_key(r)]["ours_right"]]
    broken = [r for r in after if _key(r) in old and not r["ours_right"] and old[_key(r)]["ours_right"]]
    lines = [f"## Changed since the earlier run: {len(fixed)} now right, {len(broken)} now wrong"]
    for title, rs in (("now wrong", broken), ("now right", fixed)):
        if rs:
            lines.append(f"\n### {title}\n")
            lines += [f"- [{r['project'].split('/')[1]}:{r['line']}] expected {r['expected']}, ours {r['ours']} "
                      f"({r['label']}); pred `{_short(r['pred'], 160)}`, gold `{_short(r['gold'], 100)}`" for r in rs]
    return "\n".join(lines)


def failures(results: list[dict[str, Any]]) -> str:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in results:
        if not r["ours_right"]:
            groups[category(r, r["ours"], r["label"])].append(r)
    lines = [f"## Our wrong cases ({sum(map(len, groups.values()))}), by rough category"]
    for name in sorted(groups, key=lambda n: -len(groups[n])):
        lines.append(f"\n### {name} ({len(groups[name])})\n")
        for r in groups[name]:
            lines.append(f"- [{r['project'].split('/')[1]}:{r['line']}{' apart' if r['apart'] else ''}] "
                         f"expected {r['expected']}, ours {r['ours']} ({r['label']}), math-verify {r['mv']}, "
                         f"params {r['params']}\n  pred: `{_short(r['pred'], 300)}`\n  gold: `{_short(r['gold'], 200)}`")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
