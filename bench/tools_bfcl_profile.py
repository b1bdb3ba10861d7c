"""Where ``tools.call_match``'s time goes on BFCL's text form, beside BFCL's decode + ``ast_checker``.

Same candidates and virtualenv as ``bench/tools_bfcl.py`` (its docstring says how the venv is made)::

    PYTHONPATH=packages/core/src:packages/rewards-tools/src /work/peers/bfcl/bin/python bench/tools_bfcl_profile.py [--repeat 3]

Per pass, alternating, each over every candidate: BFCL's decode + check; ``tools.call_match`` as
``bench/tools_bfcl.py`` times it (rows read once per row); then its parts on their own: ``ast.parse``
of the same texts (the part no reader of the pythonic form avoids), ``read_calls`` (parse included),
``read_row`` (once per row, 2,591 rows) and ``match`` (calls and gold read beforehand). Prints each
part's median time and its share of BFCL's.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import time
from typing import Any

from tools_bfcl import CATEGORIES, bfcl_verdict, candidates, load, metadata_for_sources


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3, help="passes (alternating)")
    args = parser.parse_args()

    from bfcl_eval.constants.enums import Language
    from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    from bfcl_eval.utils import is_empty_output

    metadata_for_sources()
    from grpo_rewards_tools.calls import read_calls
    from grpo_rewards_tools.matching import match
    from grpo_rewards_tools.rewards import CallMatch
    from grpo_rewards_tools.rows import read_row

    ours = CallMatch(mode="exact", strings="loose", numeric_strings=False, tolerance=0.0)
    rows: list[dict[str, Any]] = []
    inputs: list[tuple[str, dict[str, Any], str]] = []
    for category in CATEGORIES:
        for row in load(category):
            rows.append({"question": row["question"], "function": row["function"], "ground_truth": row["ground_truth"]})
            inputs += [(category, rows[-1], text) for _, text in candidates(row)]
    gold = {id(row): read_row(row).gold for row in rows}
    read = [read_calls(text) for _, _, text in inputs]

    def bfcl() -> None:
        for category, row, text in inputs:
            bfcl_verdict(ast_checker, default_decode_ast_prompting, is_empty_output, Language.PYTHON, row, category, text)

    def call_match() -> None:
        for _, row, text in inputs:
            ours(text, **row)

    def parse() -> None:
        for _, _, text in inputs:
            try:
                ast.parse(text.strip(), mode="eval")
            except SyntaxError:
                pass

    def reading() -> None:
        for _, _, text in inputs:
            read_calls(text)

    def rows_read() -> None:
        for row in rows:
            read_row(row)

    def matching() -> None:
        for (_, row, _), calls in zip(inputs, read):
            expected = gold[id(row)]
            if expected is not None:
                match(calls.calls, expected, len(calls.malformed), ours.rule, ours.max_calls)

    parts = {"BFCL decode + ast_checker": bfcl, "tools.call_match": call_match, "ast.parse alone": parse,
             "read_calls (parse included)": reading, "read_row (once per row)": rows_read, "match": matching}
    times: dict[str, list[float]] = {name: [] for name in parts}
    for _ in range(args.repeat):
        for name, part in parts.items():
            start = time.perf_counter()
            part()
            times[name].append(time.perf_counter() - start)
    base = statistics.median(times["BFCL decode + ast_checker"])
    print(f"{len(inputs)} candidates, {len(rows)} rows, median of {args.repeat} passes")
    for name, values in times.items():
        spent = statistics.median(values)
        print(f"{name:30s} {spent:6.2f} s  {spent / len(inputs) * 1e6:6.1f} us per candidate  {spent / base:5.2f} of BFCL's time")


if __name__ == "__main__":
    main()
