"""Mine real tool-call rows and labelled grader cases from mirrored public repositories (data only).

Reads files out of git mirrors made with the ``fetch`` tool (``/work/.mirror/<owner>+<name>/repo``,
bare git directories; nothing is checked out, built or run) and writes them, each with its project,
path and commit, into ``tests/tools/data``::

    python bench/tools_mine.py rows    # -> tests/tools/data/real_rows.json
    python bench/tools_mine.py cases   # -> tests/tools/data/mined_toolrl_axolotl.json

``rows``: verbatim dataset rows in the layouts the normaliser reads:

- Hermes function calling: the two ``conversations`` rows quoted in the NousResearch
  hermes-function-calling-v1 dataset card (a copy committed in shiva-metageeks/dataset);
- Glaive: the two glaive-function-calling-v2 rows of axolotl's tool-evaluation test (a fork,
  brianfitzgerald/axolotl);
- ToolACE: rows of Team-ACE/ToolACE as committed by zaego123/ToolACE_data after its conversion to
  LLaMA-Factory's sharegpt roles (``function_call``/``observation``; the ``system`` text is
  ToolACE's own): row 0, and the first row whose gold call names one of its tools.

``cases``: labelled verdicts of two other projects' tool-call graders, read from their tests with
:mod:`ast` (the string constants and the asserted values; nothing is executed):

- ToolRL's reward (``compute_score``, as ported to datatrove by sungyubkim/datatrove): each test
  that asserts on ``reward_correct``; its verdict is ``correct`` (the maximum, 3, or 1 under
  ``CORRECTMAX1``), ``no_call`` (the minimum: no readable call), ``not_applicable`` (0 where the
  ground truth calls no tool), ``incorrect`` (an assertion that rules the maximum out), or ``either``;
- axolotl's ``FunctionCallAccuracy`` (brianfitzgerald/axolotl): each ``_assert_conversation(metric,
  CASE, score)``; verdict ``correct`` for score 1, ``incorrect`` for 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import subprocess
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent.parent / "tests" / "tools" / "data"
HERMES = ("shiva-metageeks/dataset", "public/README.md", "90ee01db834a27246dc81f7090bcaf77cd865977")
GLAIVE = ("brianfitzgerald/axolotl", "tests/test_tool_eval.py", "061c5d8f215ab824e62298c6890f5b070a7fc422")
TOOLACE = ("zaego123/ToolACE_data", "sharegpt_func_fixed.json", "5f6a01de7fef49add7be213a7f19b07832452b0f")
TOOLRL = ("sungyubkim/datatrove", "tests/utils/reward_score/test_toolrl_comprehensive.py",
          "65c658b50b5d7529fa7cd9becc0ce8bb58beaf0b")
AXOLOTL = ("brianfitzgerald/axolotl", "tests/test_tool_eval.py", "e74a11779ca8e2ac5b96c3c3d935bd13f9a6363c")


def show(mirrors: Path, source: tuple[str, str, str]) -> str:
    project, path, commit = source
    git_dir = mirrors / project.replace("/", "+") / "repo"
    return subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{commit}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def _where(source: tuple[str, str, str], **more: Any) -> dict[str, Any]:
    return {"project": source[0], "path": source[1], "commit": source[2], **more}


def _module_strings(text: str) -> dict[str, Any]:
    """The module-level ``NAME = {...}`` literals of a Python file."""
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                out[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return out


def mine_rows(mirrors: Path) -> list[dict[str, Any]]:
    rows = []
    card = show(mirrors, HERMES)
    for heading in ("### Tool-use with API response:", "### Structured extraction with function-calling:"):
        block = re.search(re.escape(heading) + r"\s*```json\n(.*?)\n```", card, re.S)
        assert block, heading
        rows.append(_where(HERMES, format="hermes", where=f"the JSON block under {heading!r}",
                           row=json.loads(block.group(1))))
    glaive = _module_strings(show(mirrors, GLAIVE))
    for name in ("NO_FN_AVAILABLE", "FN_AVAILABLE"):
        rows.append(_where(GLAIVE, format="glaive", where=name, row=glaive[name]))
    toolace = json.loads(show(mirrors, TOOLACE))
    picked = [0]
    for index, row in enumerate(toolace):
        calls = [t["value"] for t in row["conversations"] if t["from"] == "function_call"]
        names = re.findall(r'"name": "([^"]+)"', calls[0]) if calls else []
        if names and all(f'"name": "{n}"' in row["system"] for n in names):
            picked.append(index)
            break
    for index in picked:
        rows.append(_where(TOOLACE, format="toolace", where=f"row {index}", row=toolace[index]))
    return rows


def _value(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return names[node.id]
    return ast.literal_eval(node)


def _toolrl_verdict(op: str, value: Any, maximum: float, gold_calls: bool) -> str | None:
    if op == "==" and value == maximum:
        return "correct"
    if op == "==" and value == -maximum:
        return "no_call"
    if op == "==" and value == 0.0 and not gold_calls:
        return "not_applicable"
    if op == "in" and maximum in value and -maximum in value:
        return "either"
    if (op == "<" and value <= maximum) or (op == "<=" and value < maximum) or (op == "==" and value != maximum):
        return "incorrect"
    return None  # an assertion that does not settle a verdict (a bound the maximum satisfies)


def mine_toolrl(mirrors: Path) -> tuple[list[dict[str, Any]], list[str]]:
    cases, skipped = [], []
    ops = {ast.Eq: "==", ast.Lt: "<", ast.LtE: "<=", ast.In: "in", ast.Gt: ">", ast.GtE: ">="}
    for cls in ast.parse(show(mirrors, TOOLRL)).body:
        if not isinstance(cls, ast.ClassDef):
            continue
        for test in cls.body:
            if not isinstance(test, ast.FunctionDef) or not test.name.startswith("test_"):
                continue
            name = f"{cls.name}.{test.name}"
            names: dict[str, Any] = {}
            env: dict[str, str] = {}
            call: dict[str, Any] | None = None
            asserts = []
            for stmt in test.body:
                if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                    target = stmt.targets[0]
                    if isinstance(target, ast.Subscript) and ast.unparse(target.value) == "os.environ":
                        env[ast.literal_eval(target.slice)] = ast.literal_eval(stmt.value)
                    elif isinstance(target, ast.Name) and isinstance(stmt.value, ast.Call) \
                            and ast.unparse(stmt.value.func) == "compute_score" and target.id == "result":
                        try:
                            args = [_value(a, names) for a in stmt.value.args]
                        except (ValueError, KeyError):
                            call = {"built": True}
                            break
                        call = {"solution": args[0], "ground_truth": args[1],
                                "kwargs": {k.arg: _value(k.value, names) for k in stmt.value.keywords}}
                    elif isinstance(target, ast.Name):
                        try:
                            names[target.id] = _value(stmt.value, names)
                        except (ValueError, KeyError):
                            pass
                elif isinstance(stmt, ast.Assert) and isinstance(stmt.test, ast.Compare) \
                        and ast.unparse(stmt.test.left) == "result['reward_correct']":
                    asserts.append((ops[type(stmt.test.ops[0])], ast.literal_eval(stmt.test.comparators[0])))
            if call is not None and call.get("built"):
                skipped.append(f"{name}: its completion is built by code, not a literal")
                continue
            if call is None or not asserts:
                skipped.append(f"{name}: no single compute_score call with an assertion on reward_correct")
                continue
            maximum = 1.0 if env.get("CORRECTMAX1") == "1" else 3.0
            gold_calls = "<tool_call>" in call["ground_truth"] or "to=functions." in call["ground_truth"]
            verdicts = {_toolrl_verdict(op, value, maximum, gold_calls) for op, value in asserts} - {None}
            if len(verdicts) != 1:
                skipped.append(f"{name}: the assertions {asserts} settle no verdict")
                continue
            cases.append(_where(TOOLRL, grader="ToolRL compute_score (reward_correct)", test=name, env=env,
                                asserted=[f"reward_correct {op} {value!r}" for op, value in asserts],
                                verdict=verdicts.pop(), **call))
    return cases, skipped


def mine_axolotl(mirrors: Path) -> list[dict[str, Any]]:
    text = show(mirrors, AXOLOTL)
    literals = _module_strings(text)
    cases = []
    for test in ast.parse(text).body:
        if not isinstance(test, ast.FunctionDef):
            continue
        for node in ast.walk(test):
            if isinstance(node, ast.Call) and ast.unparse(node.func) == "_assert_conversation":
                case, score = node.args[1].id, ast.literal_eval(node.args[2])  # type: ignore[attr-defined]
                cases.append(_where(AXOLOTL, grader="axolotl FunctionCallAccuracy (score)", test=test.name,
                                    case=case, **literals[case], asserted=[f"score == {score!r}"],
                                    verdict="correct" if score == 1 else "incorrect"))
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("what", choices=("rows", "cases"))
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    if args.what == "rows":
        out, data = DATA / "real_rows.json", mine_rows(args.mirrors)
    else:
        toolrl, skipped = mine_toolrl(args.mirrors)
        out, data = DATA / "mined_toolrl_axolotl.json", toolrl + mine_axolotl(args.mirrors)
        for line in skipped:
            print("skipped", line)
    out.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(data)} -> {out}")


if __name__ == "__main__":
    main()
