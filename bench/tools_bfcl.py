"""tools.call_match against BFCL's AST checker (bfcl-eval), side by side on BFCL's own rows.

Runs in a separate virtualenv that has bfcl-eval (never the project's), with this repository's
sources on the path::

    python3 -m venv /work/peers/bfcl
    /work/peers/bfcl/bin/pip install --no-deps bfcl-eval
    bash bench/tools_bfcl_venv.sh    # what the checker's import needs (not torch: its full dependency list pulls it in)
    PYTHONPATH=packages/core/src:packages/rewards-tools/src /work/peers/bfcl/bin/python bench/tools_bfcl.py [--per-category 200]

For every row of BFCL's Python AST categories (simple, multiple, parallel, parallel_multiple, their
live_ versions, irrelevance) it writes candidate completions in BFCL's prompting form
(``[f(a=1)]``): the gold (first accepted value of every argument), and perturbations of it (one
value changed, a required argument dropped, an unknown argument added, the wrong tool, a string's
case changed, an int written as a float or a string, parallel calls reordered, one call dropped or
repeated, a call where none is expected). Each is judged by BFCL (``default_decode_ast_prompting``
then ``ast_checker``; for irrelevance rows, BFCL's rule: no decodable call) and by
``tools.call_match`` with BFCL's conventions (``mode="exact", strings="loose",
numeric_strings=False, tolerance=0``); verdicts must agree (valid == 1.0). It prints the agreement
per category and perturbation, every disagreement, and the throughput of both on the same
candidates (each judged ``--repeat`` times, alternating, in this one process).
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import time
from collections import Counter, defaultdict
from importlib import resources
from typing import Any

CATEGORIES = ("simple_python", "multiple", "parallel", "parallel_multiple", "live_simple", "live_multiple",
              "live_parallel", "live_parallel_multiple", "irrelevance")
MODEL = "gpt-5-mini-2025-08-07"  # a prompting model whose names are not rewritten (underscore_to_dot is False)


def metadata_for_sources() -> None:
    """In the peer's venv this project is on sys.path as sources, not installed, and its packages read their
    ``__version__`` from distribution metadata: give each package that has none a temporary dist-info (name and
    version from its pyproject.toml), removed at exit."""
    import atexit
    import shutil
    import sys
    import tempfile
    from importlib import metadata
    from pathlib import Path

    import tomllib

    folder = Path(tempfile.mkdtemp(prefix="grpo-rewards-dist-info-"))
    atexit.register(shutil.rmtree, folder, True)
    for pyproject in sorted((Path(__file__).resolve().parent.parent / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        try:
            metadata.version(project["name"])
        except metadata.PackageNotFoundError:
            info = folder / f"{project['name'].replace('-', '_')}-{project['version']}.dist-info"
            info.mkdir()
            (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {project['name']}\n"
                                           f"Version: {project['version']}\n", encoding="utf-8")
    sys.path.append(str(folder))


def load(category: str) -> list[dict[str, Any]]:
    data = resources.files("bfcl_eval") / "data"
    rows = [json.loads(line) for line in (data / f"BFCL_v4_{category}.json").read_text().splitlines() if line.strip()]
    answers_path = data / "possible_answer" / f"BFCL_v4_{category}.json"
    if answers_path.is_file():
        answers = {a["id"]: a["ground_truth"] for a in map(json.loads, answers_path.read_text().splitlines()) if a}
        for row in rows:
            row["ground_truth"] = answers[row["id"]]
    else:  # irrelevance: no call is the answer
        for row in rows:
            row["ground_truth"] = []
    return rows


def render(calls: list[tuple[str, dict[str, Any]]]) -> str:
    return "[" + ", ".join(f"{name}(" + ", ".join(f"{k}={v!r}" for k, v in args.items()) + ")" for name, args in calls) + "]"


def _first(values: list[Any]) -> Any:
    """The first accepted value, with BFCL's object patterns ({key: [accepted values]}) filled in the same way."""
    value = next(v for v in values if v != "")
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        return {k: _first(v) for k, v in value.items() if any(x != "" for x in v)}
    if isinstance(value, list) and value and all(isinstance(v, dict) and v and all(isinstance(x, list) for x in v.values())
                                                 for v in value):
        return [{k: _first(x) for k, x in v.items() if any(y != "" for y in x)} for v in value]
    return value


def gold_calls(row: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    calls = []
    for item in row["ground_truth"]:
        ((name, params),) = item.items()
        args = {k: _first(values) for k, values in params.items() if any(v != "" for v in values)}
        calls.append((name, args))
    return calls


def _changed(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 7
    if isinstance(value, float):
        return value * 2 + 1.5
    if isinstance(value, str):
        return value + " zz"
    if isinstance(value, list):
        return value[:-1] if value else [1]
    if isinstance(value, dict):
        return {**value, "zz_extra": 1}
    return "zz"


def candidates(row: dict[str, Any]) -> list[tuple[str, str]]:
    """(perturbation, completion text) for one row."""
    gold = gold_calls(row)
    functions = {f["name"]: f for f in row["function"]}
    if not gold:
        name = row["function"][0]["name"]
        required = row["function"][0]["parameters"].get("required", [])
        return [("no_call", "I cannot answer that with the given functions."),
                ("call_anyway", render([(name, {k: 1 for k in required})]))]
    out = [("gold", render(gold))]
    first_name, first_args = gold[0]
    if first_args:
        key = sorted(first_args)[0]
        out.append(("value_changed", render([(first_name, {**first_args, key: _changed(first_args[key])}), *gold[1:]])))
        value = first_args[key]
        if isinstance(value, str) and value.upper() != value:
            out.append(("string_case", render([(first_name, {**first_args, key: value.upper()}), *gold[1:]])))
        if isinstance(value, int) and not isinstance(value, bool):
            out.append(("int_as_float", render([(first_name, {**first_args, key: float(value)}), *gold[1:]])))
            out.append(("int_as_string", render([(first_name, {**first_args, key: str(value)}), *gold[1:]])))
    required = functions.get(first_name, {}).get("parameters", {}).get("required", [])
    if required and required[0] in first_args:
        dropped = {k: v for k, v in first_args.items() if k != required[0]}
        out.append(("required_dropped", render([(first_name, dropped), *gold[1:]])))
    out.append(("unknown_argument", render([(first_name, {**first_args, "zz_unknown": 1}), *gold[1:]])))
    out.append(("wrong_tool", render([(first_name + "_zz", first_args), *gold[1:]])))
    if len(gold) > 1:
        out.append(("reordered", render(gold[::-1])))
        out.append(("one_dropped", render(gold[1:])))
    out.append(("repeated", render(gold + gold[:1])))
    return out


def trajectory(text: str) -> list[dict[str, Any]]:
    """The candidate as a tool loop's trajectory: its calls as OpenAI tool_calls (plain text stays content)."""
    import ast

    try:
        tree = ast.parse(text, mode="eval").body
        calls = tree.elts if isinstance(tree, ast.List) else None
    except SyntaxError:
        calls = None
    if not calls:
        return [{"role": "assistant", "content": text}]
    tool_calls = [{"type": "function", "function": {"name": ast.unparse(c.func), "arguments": json.dumps(
        {k.arg: ast.literal_eval(k.value) for k in c.keywords})}} for c in calls if isinstance(c, ast.Call)]
    return [{"role": "assistant", "content": "", "tool_calls": tool_calls}]


def bfcl_verdict(checker: Any, decode: Any, is_empty: Any, language: Any, row: dict[str, Any], category: str,
                 text: str) -> bool:
    if category == "irrelevance":
        try:
            return is_empty(decode(text))
        except Exception:
            return True
    try:
        decoded = decode(text)
    except Exception:
        return False
    return bool(checker(row["function"], decoded, row["ground_truth"], language, category, MODEL)["valid"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--per-category", type=int, default=0, help="rows per category (0: all)")
    parser.add_argument("--repeat", type=int, default=5, help="timing passes (alternating)")
    parser.add_argument("--show", type=int, default=30, help="disagreements to print")
    parser.add_argument("--categories", default=",".join(CATEGORIES), help="comma-separated BFCL categories")
    args = parser.parse_args()

    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    from bfcl_eval.utils import is_empty_output

    metadata_for_sources()
    from grpo_rewards_tools.rewards import CallMatch

    ours = CallMatch(mode="exact", strings="loose", numeric_strings=False, tolerance=0.0)
    cases = []  # (category, perturbation, row, text)
    for category in args.categories.split(","):
        rows = load(category)
        if args.per_category:
            rows = rows[:args.per_category]
        for row in rows:
            bfcl_row = {"question": row["question"], "function": row["function"], "ground_truth": row["ground_truth"]}
            for kind, text in candidates(row):
                cases.append((category, kind, bfcl_row, text))

    agree: Counter[tuple[str, str]] = Counter()
    total: Counter[tuple[str, str]] = Counter()
    disagreements = defaultdict(list)
    for category, kind, row, text in cases:
        theirs = bfcl_verdict(ast_checker, default_decode_ast_prompting, is_empty_output, Language.PYTHON,
                              copy.deepcopy(row), category, text)
        value, label = ours(text, **row)
        mine = value == 1.0
        total[category, kind] += 1
        if mine == theirs:
            agree[category, kind] += 1
        else:
            disagreements[kind].append((category, text[:160], theirs, value, label,
                                        json.dumps(row["ground_truth"])[:200]))

    n, same = sum(total.values()), sum(agree.values())
    print(f"cases {n}, same verdict {same} ({100 * same / n:.2f}%), rows {len({id(c[2]) for c in cases})}")
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (category, kind), count in total.items():
        by_kind[kind][0] += agree[category, kind]
        by_kind[kind][1] += count
    print("by perturbation:", ", ".join(f"{k} {a}/{t}" for k, (a, t) in sorted(by_kind.items())))
    by_cat: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for (category, kind), count in total.items():
        by_cat[category][0] += agree[category, kind]
        by_cat[category][1] += count
    print("by category:", ", ".join(f"{k} {a}/{t}" for k, (a, t) in by_cat.items()))
    shown = 0
    for kind, items in sorted(disagreements.items()):
        print(f"-- {kind}: {len(items)} disagreements")
        for item in items[:max(0, min(5, args.show - shown))]:
            print("   ", item)
            shown += 1

    # the same candidates as TRL's tool loop hands them over: a trajectory whose assistant message carries
    # OpenAI tool_calls (arguments as JSON text); ours must give the same value as on the text
    trajectories = [trajectory(text) for _, _, _, text in cases]
    same_form = sum(ours(None, completion=t, **row) == ours(text, **row) for t, (_, _, row, text) in zip(trajectories, cases))
    print(f"trajectory form scored like the text form: {same_form}/{len(cases)}")

    # throughput: the same candidates, each judged once per pass by both, passes alternating
    inputs = [(c, row, text) for c, _, row, text in cases]
    bfcl_times, our_times, our_cold, our_traj = [], [], [], []
    for _ in range(args.repeat):
        start = time.perf_counter()
        for category, row, text in inputs:
            bfcl_verdict(ast_checker, default_decode_ast_prompting, is_empty_output, Language.PYTHON, row, category, text)
        bfcl_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _category, row, text in inputs:
            ours(text, **row)
        our_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        for _category, row, text in inputs:
            ours._rows.rows.clear()  # every call reads its row afresh
            ours(text, **row)
        our_cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        for (_category, row, _text), completion in zip(inputs, trajectories):
            ours(None, completion=completion, **row)
        our_traj.append(time.perf_counter() - start)
    b, o, oc = statistics.median(bfcl_times), statistics.median(our_times), statistics.median(our_cold)
    ot = statistics.median(our_traj)
    print(f"throughput over {len(inputs)} candidates, median of {args.repeat} passes: "
          f"BFCL decode+ast_checker {len(inputs) / b:,.0f}/s; tools.call_match {len(inputs) / o:,.0f}/s "
          f"(rows read once per row, as TRL's repeated rows are) = {b / o:.1f}x; "
          f"every row read afresh {len(inputs) / oc:,.0f}/s = {b / oc:.1f}x; the same calls as tool_calls "
          f"trajectories {len(inputs) / ot:,.0f}/s = {b / ot:.1f}x")


if __name__ == "__main__":
    main()
