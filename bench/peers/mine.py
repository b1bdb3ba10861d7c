"""Mine labelled (prediction, gold, expected) pairs from other projects' math-grading test suites.

Run by hand (reads git mirrors, writes ``bench/peers/cases.jsonl``)::

    python bench/peers/mine.py                       # mirrors under /work/.mirror
    python bench/peers/mine.py --mirrors DIR --out FILE

Each source is a public repository, mirrored as ``DIR/<owner>+<name>/repo`` (a bare git
directory, as the ``fetch`` tool or ``git clone --mirror`` leaves it); files are read with
``git show COMMIT:path`` at the mirror's ``HEAD``. Nothing is typed in by hand: every test file is
parsed with :mod:`ast`, and a case is a call of the project's grader (named per source below)
inside an ``assert`` / ``self.assertEqual`` whose expected value is 1/0, True/False or None,
with the call's arguments resolved from literals, ``pytest.mark.parametrize`` /
``parameterized.expand`` rows and the test's own literal assignments. A call whose arguments
are not literals (generated datasets, loops) is skipped and counted. Partial-credit expectations
(0.1, ``approx``, ``<``) are skipped too: only equal / not equal is a label.

Every row: ``project, path, commit, test, line, pred, gold, expected, config`` (``config``: the
test's grader options, e.g. math-verify's ``match_types``, ``precision``, ``strict``).
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent


@dataclass
class Source:
    """One project: which test files to read and how its grader calls name their arguments."""

    project: str
    files: list[str]
    #: grader call name (the callee as written: ``compare_strings``, ``self.verifier``) -> role of
    #: each positional argument (``gold``, ``pred``, a config key, or ``_`` to ignore)
    calls: dict[str, list[str]]
    #: keyword argument name -> role (``gold`` / ``pred`` / ``_``); any other keyword goes to config
    keywords: dict[str, str] = field(default_factory=dict)
    #: the grader calls that grade a batch (lists of completions / solutions) and return a list
    batch: frozenset[str] = frozenset()
    #: the project's own values for equal / not equal besides 1/0/True/False (DAPO scores -1)
    values: dict[Any, bool] = field(default_factory=dict)
    #: only mine the tests whose (``Class.``)name starts with one of these (None: all tests)
    tests: tuple[str, ...] | None = None
    #: a config added to every row of a call (e.g. a project-specific extraction); keywords override it
    call_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: a config added to every row of a file (a test file that exercises one grading mode)
    path_config: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the test parameter holding the gold, for graders that take it elsewhere (an environment's setup)
    gold_param: str | None = None


SOURCES = [
    Source("huggingface/Math-Verify",
           ["tests/test_all.py", "tests/test_boxed.py", "tests/test_numina_cases.py", "tests/test_open_thoughts.py",
            "tests/test_strict.py", "tests/test_yujianll.py"],
           calls={"compare_strings": ["gold", "pred"], "verify": ["gold", "pred"]}),
    Source("huggingface/lighteval", ["tests/unit/metrics/test_extractive_match.py"],
           calls={"compare_strings": ["gold", "pred", "language", "match_types", "precision"]}),
    Source("hendrycks/math", ["modeling/math_equivalence_test.py"], calls={"is_equiv": ["pred", "gold"]}),
    Source("NVIDIA/NeMo-Skills", ["tests/test_math_equal.py"], calls={"math_equal": ["gold", "pred"]}),
    Source("huggingface/trl", ["tests/test_rewards.py"], calls={"accuracy_reward": ["pred", "gold"]},
           batch=frozenset({"accuracy_reward"})),
    Source("huggingface/open-r1", ["tests/test_rewards.py"], calls={"accuracy_reward": ["pred", "gold"]},
           batch=frozenset({"accuracy_reward"})),
    Source("inclusionAI/AReaL", ["tests/test_math_verify_reward.py"],
           calls={"gsm8k_reward_fn": [], "geometry3k_reward_fn": []},
           keywords={"completions": "pred", "answer": "gold", "prompt": "_", "prompt_ids": "_", "completion_ids": "_"},
           call_config={"geometry3k_reward_fn": {"extraction": "brackets"}}),
    Source("allenai/open-instruct", ["open_instruct/test_ground_truth_utils.py"],
           calls={"self.verifier": ["_", "pred", "gold"]}, tests=("TestGSM8KVerifier.",)),
    Source("open-thought/reasoning-gym",  # the arithmetic datasets (the others grade puzzles and word games)
           ["tests/test_*arithmetic*.py", "tests/test_*chain_sum*.py", "tests/test_*fraction*.py", "tests/test_gsm*.py",
            "tests/test_products.py", "tests/test_power_function.py"],
           calls={"dataset.score_answer": ["pred", "entry"], "score_answer": ["pred", "entry"]},
           keywords={"answer": "pred", "entry": "entry"}),
    Source("Ascend/MindSpeed-RL", ["tests/ut/utils/test_grader.py", "tests/ut/models/test_math_dapo.py",
                                   "tests/ut/models/test_verifier.py"],
           calls={"math_equal": ["pred", "gold"], "is_correct_minerva": ["pred", "gold"], "verify": ["pred", "gold"],
                  "is_correct_strict_box": ["pred", "gold", "pause_tokens"], "compute_score": ["pred", "gold"],
                  "accuracy_reward": ["pred", "gold"], "base_model_accuracy_reward": ["pred", "gold"]},
           keywords={"timeout": "_", "pause_tokens_index": "pause_tokens"},
           batch=frozenset({"accuracy_reward", "base_model_accuracy_reward"}), values={-1: False},
           call_config={"is_correct_strict_box": {"strict_box_verify": True},
                        "is_correct_minerva": {"strict_box_verify": False},
                        "verify": {"strict_box_verify": False}, "compute_score": {"strict_box_verify": False},
                        "base_model_accuracy_reward": {"format": "base model"}}),
    Source("THUDM/slime", ["tests/test_rm_math.py", "tests/test_rm_math_dapo.py"],
           calls={"grade_answer_mathd": ["pred", "gold"], "grade_answer_sympy": ["pred", "gold"],
                  "grade_answer_verl": ["pred", "gold"], "is_correct_strict_box": ["pred", "gold"],
                  "is_correct_minerva": ["pred", "gold"], "verify": ["pred", "gold"],
                  "compute_score": ["pred", "gold"]},
           values={-1: False},
           call_config={"is_correct_strict_box": {"strict_box_verify": True},
                        "is_correct_minerva": {"strict_box_verify": False},
                        "verify": {"strict_box_verify": False}, "compute_score": {"strict_box_verify": False},
                        "grade_answer_sympy": {"grader": "sympy, reducible fractions unequal by design"}}),
    Source("NovaSky-AI/SkyRL", ["skyrl-gym/tests/test_aime.py", "skyrl-gym/tests/test_gsm8k.py"],
           calls={"env.step": ["pred"]}, gold_param="ground_truth", values={-1: False},
           path_config={"skyrl-gym/tests/test_aime.py": {"grader": "AIME env, normalised string match"},
                        "skyrl-gym/tests/test_gsm8k.py": {"extraction": "GSM8K '####' line only"}}),
]


class Unresolved(Exception):
    """An argument that is not a literal the miner can evaluate."""


def git(mirror: Path, *args: str) -> str:
    return subprocess.run(["git", f"--git-dir={mirror}", *args], check=True, capture_output=True,
                          text=True).stdout


def callee(node: ast.expr) -> str:
    """``a.b.c`` for a call's function, '' for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = callee(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def evaluate(node: ast.expr, env: dict[str, Any]) -> Any:
    """The value of a literal expression, with names bound in ``env`` (params, local literals)."""
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name):
        if node.id in env:
            return env[node.id]
        raise Unresolved(node.id)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [evaluate(e, env) for e in node.elts]
        return tuple(items) if isinstance(node, ast.Tuple) else items
    if isinstance(node, ast.Dict):
        return {evaluate(k, env): evaluate(v, env) for k, v in zip(node.keys, node.values) if k is not None}
    if isinstance(node, ast.Subscript):
        return evaluate(node.value, env)[evaluate(node.slice, env)]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -evaluate(node.operand, env)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mult, ast.Div)):
        left, right = evaluate(node.left, env), evaluate(node.right, env)
        if isinstance(node.op, ast.Div):
            return left / right
        return left + right if isinstance(node.op, ast.Add) else left * right
    if isinstance(node, ast.Attribute) and callee(node).startswith("Language."):
        return node.attr  # lighteval's Language enum: keep its name
    if isinstance(node, ast.Call) and callee(node.func) in {"parse", "str"} and len(node.args) == 1:
        return evaluate(node.args[0], env)  # verify(parse(gold), parse(pred)): the strings
    raise Unresolved(ast.dump(node)[:60])


def label(value: Any) -> bool | str | None:
    """1/1.0/True -> True, 0/0.0/False -> False, None -> None; anything else is not a label ('skip')."""
    if value is None:
        return None
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)) and value in (0, 1):
        return bool(value)
    return "skip"


def parametrize_rows(func: ast.FunctionDef, env: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """One binding of the test's parameters per row (``[{}]`` for a test without parameters)."""
    for dec in func.decorator_list:
        if not isinstance(dec, ast.Call):
            continue
        name = callee(dec.func)
        if name.endswith("parametrize") and len(dec.args) >= 2:
            names = evaluate(dec.args[0], env)
            names = [n.strip() for n in names.split(",")] if isinstance(names, str) else list(names)
            rows_node = dec.args[1]
        elif name.endswith("expand") and dec.args:
            names = [a.arg for a in func.args.args if a.arg != "self"]
            rows_node = dec.args[0]
        else:
            continue
        if not isinstance(rows_node, (ast.List, ast.Tuple)):
            return [], 1
        rows, skipped = [], 0
        for elt in rows_node.elts:
            if isinstance(elt, ast.Call) and callee(elt.func).endswith("param"):
                elt = ast.Tuple(elts=elt.args)
            try:
                value = evaluate(elt, env)
            except Unresolved:
                skipped += 1
                continue
            values = list(value) if isinstance(value, (tuple, list)) and len(names) > 1 else [value]
            if len(values) != len(names):
                skipped += 1
                continue
            rows.append({**dict(zip(names, values)), "__line__": elt.lineno})
        return rows, skipped
    return [{}], 0


class Miner:
    """Walks one test function's statements for one parameter row, collecting labelled calls."""

    def __init__(self, src: Source, env: dict[str, Any]) -> None:
        self.src = src
        self.env = env
        self.pending: dict[str, list[tuple[Any, Any, dict[str, Any], int]]] = {}
        self.cases: list[dict[str, Any]] = []
        self.skipped = 0

    def grade_call(self, node: ast.expr) -> list[tuple[Any, Any, dict[str, Any], int]] | None:
        """The (pred, gold, config, line) pairs of a grader call, or None when ``node`` is not one."""
        if not isinstance(node, ast.Call):
            return None
        name = callee(node.func)
        if name not in self.src.calls:
            return None
        roles: dict[str, Any] = {}
        config: dict[str, Any] = dict(self.src.call_config.get(name, {}))
        for role, arg in zip(self.src.calls[name], node.args):
            if role != "_":
                roles[role] = evaluate(arg, self.env)
        for kw in node.keywords:
            if kw.arg is None:
                raise Unresolved("**kwargs")
            role = self.src.keywords.get(kw.arg, "config")
            if role == "config":
                config[kw.arg] = evaluate(kw.value, self.env)
            elif role != "_":
                roles[role] = evaluate(kw.value, self.env)
        for key in [k for k in roles if k not in {"gold", "pred", "entry"}]:
            config[key] = roles.pop(key)
        if "gold" not in roles and self.src.gold_param and self.src.gold_param in self.env:
            roles["gold"] = self.env[self.src.gold_param]
        if "entry" in roles:  # reasoning-gym: the gold is the entry's "answer"
            entry = roles.pop("entry")
            if not isinstance(entry, dict) or "answer" not in entry:
                raise Unresolved("entry")
            roles["gold"] = entry["answer"]
        if "gold" not in roles or "pred" not in roles:
            raise Unresolved("roles")
        if name in self.src.batch:
            preds = [p[0]["content"] if isinstance(p, list) else p for p in roles["pred"]]
            return [(p, g, config, node.lineno) for p, g in zip(preds, roles["gold"])]
        return [(roles["pred"], roles["gold"], config, node.lineno)]

    def subject(self, node: ast.expr) -> list[tuple[Any, Any, dict[str, Any], int]] | None:
        """The graded pairs an assertion's subject stands for (a call, a result name, ``rewards[i]``)."""
        while isinstance(node, ast.Call) and callee(node.func) in {"int", "bool", "float"} and len(node.args) == 1:
            node = node.args[0]
        pairs = self.grade_call(node)
        if pairs is not None:
            return pairs
        if isinstance(node, ast.Name) and node.id in self.pending:
            return self.pending[node.id]
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in self.pending:
            return self.pending[node.value.id]  # open-instruct: result.score
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in self.pending:
            index = evaluate(node.slice, self.env)
            if isinstance(index, str):  # out["score"], step_output["reward"]: the result's score
                return self.pending[node.value.id]
            return [self.pending[node.value.id][index]]
        return None

    def emit(self, pairs: list[tuple[Any, Any, dict[str, Any], int]], expected: Any) -> None:
        expects = list(expected) if isinstance(expected, list) else [expected] * len(pairs)
        if len(expects) != len(pairs):
            self.skipped += len(pairs)
            return
        for (pred, gold, config, line), exp in zip(pairs, expects):
            lab = self.src.values[exp] if isinstance(exp, (int, float)) and exp in self.src.values else label(exp)
            if isinstance(pred, (int, float)) and not isinstance(pred, bool):
                pred = str(pred)  # a grader fed a number: the text a model would write for it
            if lab == "skip" or not isinstance(pred, str) or not (gold is None or isinstance(gold, (str, int, float))):
                self.skipped += 1
                continue
            self.cases.append({"pred": pred, "gold": gold, "expected": lab, "config": config, "call_line": line})

    def check(self, node: ast.expr | None, expected: Any) -> None:
        if node is None:
            return
        try:
            pairs = self.subject(node)
        except (Unresolved, KeyError, IndexError, TypeError):
            self.skipped += 1
            return
        if pairs is not None:
            self.emit(pairs, expected)

    def assertion(self, test: ast.expr) -> None:
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            self.check(test.operand, False)
        elif isinstance(test, ast.Compare) and len(test.ops) == 1:
            left, op, right = test.left, test.ops[0], test.comparators[0]
            if not isinstance(op, (ast.Eq, ast.Is)):
                return
            for subj, other in ((left, right), (right, left)):
                try:
                    value = evaluate(other, self.env)
                except Unresolved:
                    continue
                self.check(subj, value)
                return
        else:
            self.check(test, True)

    def statement(self, stmt: ast.stmt) -> None:
        if (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Tuple)
                and stmt.targets[0].elts and isinstance(stmt.targets[0].elts[0], ast.Name)):
            try:  # score, extracted = grader(...): the first element is the score
                pairs = self.grade_call(stmt.value)
            except (Unresolved, KeyError, IndexError, TypeError):
                pairs = None
            if pairs is not None:
                self.pending[stmt.targets[0].elts[0].id] = pairs
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            target = stmt.targets[0].id
            try:
                pairs = self.grade_call(stmt.value)
            except (Unresolved, KeyError, IndexError, TypeError):
                pairs = None
            if pairs is not None:
                self.pending[target] = pairs
                return
            try:
                self.env[target] = evaluate(stmt.value, self.env)
            except (Unresolved, KeyError, IndexError, TypeError):
                self.env.pop(target, None)
        elif isinstance(stmt, ast.Assert):
            self.assertion(stmt.test)
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            name = callee(call.func)
            if name in {"self.assertEqual", "self.assertAlmostEqual"} and len(call.args) >= 2:
                try:
                    value = evaluate(call.args[1], self.env)
                except Unresolved:
                    return
                self.check(call.args[0], value)
            elif name in {"self.assertTrue", "self.assertFalse", "self.assertIsNone"} and call.args:
                self.check(call.args[0], {"self.assertTrue": True, "self.assertFalse": False}.get(name))
        elif isinstance(stmt, (ast.With, ast.If, ast.For)):
            for inner in stmt.body:
                self.statement(inner)


def module_env(tree: ast.Module) -> dict[str, Any]:
    """Module-level literal assignments (test tables defined as constants)."""
    env: dict[str, Any] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            try:
                env[stmt.targets[0].id] = evaluate(stmt.value, env)
            except (Unresolved, KeyError, IndexError, TypeError):
                pass
    return env


def mine_file(src: Source, path: str, text: str) -> tuple[list[dict[str, Any]], int]:
    tree = ast.parse(text)
    base = module_env(tree)
    cases: list[dict[str, Any]] = []
    skipped = 0
    funcs: list[tuple[str, ast.FunctionDef]] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            funcs.append((node.name, node))
        elif isinstance(node, ast.ClassDef):
            funcs += [(f"{node.name}.{f.name}", f) for f in node.body if isinstance(f, ast.FunctionDef)]
    for name, func in funcs:
        if not name.split(".")[-1].startswith("test") or (src.tests and not name.startswith(src.tests)):
            continue
        rows, bad = parametrize_rows(func, base)
        skipped += bad
        for row in rows:
            miner = Miner(src, {**base, **{k: v for k, v in row.items() if k != "__line__"}})
            for stmt in func.body:
                miner.statement(stmt)
            skipped += miner.skipped
            for case in miner.cases:
                case["test"] = name
                case["line"] = row.get("__line__", case.pop("call_line"))
                case.pop("call_line", None)
                cases.append(case)
    return cases, skipped


def mine_source(src: Source, mirrors: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    mirror = mirrors / src.project.replace("/", "+") / "repo"
    if not mirror.is_dir():
        return [], {"project": src.project, "error": f"no mirror at {mirror}"}
    commit = git(mirror, "rev-parse", "HEAD").strip()
    listing = git(mirror, "ls-tree", "-r", "--name-only", commit).splitlines()
    paths = [p for p in listing if any(Path(p).match(g) for g in src.files)]
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    skipped = 0
    for path in paths:
        cases, bad = mine_file(src, path, git(mirror, "show", f"{commit}:{path}"))
        skipped += bad
        for case in cases:
            case["config"] = {**src.path_config.get(path, {}), **case["config"]}
            if src.project == "open-thought/reasoning-gym" and not any(c.isdigit() for c in str(case["gold"])):
                skipped += 1  # reasoning-gym grades word games too: keep the answers with a number
                continue
            key = json.dumps([case["pred"], case["gold"], case["expected"], case["config"]], sort_keys=True)
            if key in seen:
                continue
            seen.add(key)
            rows.append({"project": src.project, "path": path, "commit": commit, "test": case["test"],
                         "line": case["line"], "pred": case["pred"], "gold": case["gold"],
                         "expected": case["expected"], "config": case["config"]})
    return rows, {"project": src.project, "commit": commit, "files": len(paths), "cases": len(rows),
                  "skipped": skipped}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--out", type=Path, default=HERE / "cases.jsonl")
    args = parser.parse_args(argv)
    out: list[dict[str, Any]] = []
    for src in SOURCES:
        rows, summary = mine_source(src, args.mirrors)
        out += rows
        print(json.dumps(summary), file=sys.stderr)
    with args.out.open("w", encoding="utf-8") as fh:
        for row in out:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(out)} cases from {len({r['project'] for r in out})} projects -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
