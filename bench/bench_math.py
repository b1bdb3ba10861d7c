"""Our own regression table: math.accuracy side by side with math-verify on cases we wrote.

Run by hand (math-verify is a benchmark-only dependency)::

    python bench/bench_math.py                 # prints the full report (markdown)
    python bench/bench_math.py --out FILE      # also writes it to FILE
    python bench/bench_math.py --quick         # every 10th case
    python bench/bench_math.py --batch-only    # only the 512-completion batches, ours vs TRL's accuracy_reward

These cases are our own writing, so they show what we thought of, not what the world writes; the
evidence that counts is in ``bench/peers/`` (cases mined from other projects' test suites, and
differential fuzzing), summarised with this table in ``bench/math.md``.

Cases: every (gold, prediction, expected) row of the equivalence table in
tests/math/equivalence_cases.tsv (both sides fed as ``$…$`` text), plus GSM8K- and MATH-style
full completions written here. math-verify is fed as its README says: ``verify(parse(gold),
parse(answer))``; grpo-rewards-math through the public reward, ``grpo_rewards_math.accuracy(
completions=[answer], solution=[gold])``. One call per case, each timed; both warmed up first on
other inputs (imports, worker start). Pathological inputs run math-verify in a worker process
killed after ``--kill-after`` seconds (it can hang in one C call where its signal timeout cannot
reach).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

GSM8K_GOLD = (
    "Natalia sold 48/2 = <<48/2=24>>24 clips in May.\n"
    "Natalia sold 48+24 = <<48+24=72>>72 clips altogether in April and May.\n#### 72"
)
#: (gold solution, full completion, expected): GSM8K- and MATH-style, both right and wrong.
COMPLETION_CASES: list[tuple[str, str, bool]] = [
    (GSM8K_GOLD, "In May she sold 48 / 2 = 24 clips.\nAltogether 48 + 24 = 72.\n#### 72", True),
    (GSM8K_GOLD, "She sold 24 in May, so 72 in total. The answer is 72.", True),
    (GSM8K_GOLD, "48 + 24 = 72 clips. So the answer is $72$.", True),
    (GSM8K_GOLD, "In May she sold 48 * 2 = 96, total 144.\nThe answer is 144.", False),
    (GSM8K_GOLD, "She sold 48 + 24 = 72 clips, that is \\boxed{72}.", True),
    (GSM8K_GOLD, "Total: 70", False),
    ("Weng earns 12/60 = $<<12/60=0.2>>0.2 per minute.\n#### 10", "0.2 * 50 = 10, so she earned $10.", True),
    ("#### 1,000", "The answer is 1000.", True),
    ("#### 1,000", "The answer is 100.", False),
    ("#### 5", "I am not sure.", False),
    (r"The sum is $\boxed{\frac{3}{4}}$.", r"Therefore the sum is \boxed{0.75}.", True),
    (r"The sum is $\boxed{\frac{3}{4}}$.", r"Therefore the sum is \boxed{\dfrac{3}{4}}.", True),
    (r"The sum is $\boxed{\frac{3}{4}}$.", r"Therefore the sum is \boxed{\frac{4}{3}}.", False),
    (r"So $x = \boxed{2\sqrt{2}}$.", r"We get $\sqrt{8}$, i.e. \boxed{\sqrt{8}}", True),
    (r"So $x = \boxed{2\sqrt{2}}$.", r"\boxed{2.828}", False),
    (r"$\boxed{(-\infty, 2) \cup (3, \infty)}$", r"The solution set is \boxed{(-\infty,2)\cup(3,\infty)}", True),
    (r"$\boxed{(-\infty, 2) \cup (3, \infty)}$", r"The solution set is \boxed{(-\infty,2]\cup(3,\infty)}", False),
    (r"The roots are $\boxed{2, 3}$.", r"The roots are \boxed{3, 2}.", True),
    (r"The roots are $\boxed{2, 3}$.", r"The roots are \boxed{2, 4}.", False),
    (r"The point is $\boxed{(1, -2)}$.", r"It is \boxed{(1,-2)}", True),
    (r"The point is $\boxed{(1, -2)}$.", r"It is \boxed{(-2, 1)}", False),
    (r"The angle is $\boxed{30^\circ}$.", r"\boxed{30}", True),
    (r"$\boxed{\frac{\pi}{6}}$", r"The angle is \boxed{\pi/6}.", True),
    (r"$\boxed{x^2 + 2x + 1}$", r"Expanding, \boxed{(x+1)^2}", True),
    (r"$\boxed{x^2 + 2x + 1}$", r"Expanding, \boxed{(x-1)^2}", False),
    (r"$\boxed{\text{(C)}}$", r"The correct option is \boxed{C}.", True),
    (r"$\boxed{\text{(C)}}$", r"The correct option is \boxed{B}.", False),
    (r"$\boxed{5}$", r"Final Answer: The final answer is $5$. I hope it is correct.", True),
    (r"$\boxed{5}$", r"<think>maybe 4</think><answer>5</answer>", True),
    (r"$\boxed{5}$", r"<think>maybe 5</think><answer>4</answer>", False),
    (r"$\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}$", r"\boxed{\begin{pmatrix}1\\2\end{pmatrix}}", True),
    (r"$\boxed{\begin{pmatrix} 1 \\ 2 \end{pmatrix}}$", r"\boxed{\begin{pmatrix}2\\1\end{pmatrix}}", False),
    (r"$\boxed{10\%}$", r"The rate is \boxed{10\%}.", True),
    (r"$\boxed{-\frac{1}{2}}$", r"so $y = -\frac12$ and \boxed{-0.5}", True),
    (r"$\boxed{\{1, 2, 3\}}$", r"\boxed{\{3, 1, 2\}}", True),
    (r"$\boxed{\{1, 2, 3\}}$", r"\boxed{\{1, 2\}}", False),
    (r"$\boxed{3\sqrt{3}}$", r"\boxed{\sqrt{27}}", True),
    (r"$\boxed{e^{2}}$", r"\boxed{\exp(2)}", True),
    (r"$\boxed{\log_2 8}$", r"\boxed{3}", True),
    (r"$\boxed{1.5 \times 10^{3}}$", r"\boxed{1500}", True),
    (r"$\boxed{\frac{1}{3}}$", r"\boxed{0.3333}", False),
    (r"$\boxed{\sin^2 x + \cos^2 x}$", r"\boxed{1}", True),
    (r"$\boxed{\text{yes}}$", r"The answer is yes.", True),
    (r"$\boxed{\text{yes}}$", r"The answer is no.", False),
]
#: Pathological inputs: (name, gold, completion, expected: whether they are equal, worked out by hand).
PATHOLOGICAL: list[tuple[str, str, str, bool]] = [
    ("power tower 9^{9^{9^{9}}}", "$1$", r"\boxed{9^{9^{9^{9}}}}", False),
    ("power 10^{10^{7}}", "$1$", r"\boxed{10^{10^{7}}}", False),
    ("factorial 100000!", "$1$", r"\boxed{100000!}", False),
    ("300 nested parentheses", "$1$", "\\boxed{" + "(" * 300 + "1" + ")" * 300 + "}", True),
    ("1 MB completion", "$12$", "7 + 5 = 12, then 12 - 5 = 7. " * 36_000 + r"\boxed{12}", True),
    ("tower vs itself", r"$9^{9^{9^{9}}}$", r"\boxed{9^{9^{9^{9}}}}", True),
    ("10^{10^{7}} vs 10^{10^{7}}+1", r"$10^{10^{7}}$", r"\boxed{10^{10^{7}}+1}", False),
    # issue 12's bounded-work inputs
    ("conjugate nested radicals ^5000", "$0$",
     r"\boxed{\sqrt[3]{\left(\sqrt{2+\sqrt{3}}\right)^{5000}\left(\sqrt{2-\sqrt{3}}\right)^{5000}}-1}", True),
    ("10^{399}-th root of 2 vs 1", "$1$", r"\boxed{\sqrt[10^{399}]{2}}", False),
    ("exact algebraic zero", "$0$", r"\boxed{\sqrt[3]{(\sqrt2+\sqrt3)^2-5-2\sqrt6}}", True),
    ("10^{5000000} 10^{5000000} vs 10^{10^7}", r"$10^{10^7}$", r"\boxed{10^{5000000}\cdot10^{5000000}}", True),
    ("superscript digits", "$16$", r"\boxed{2⁴}", True),
    ("circled digit", "$1$", r"\boxed{①}", True),
]
#: Written reasons for cases math-verify gets right and ours gets wrong: (gold, answer) -> reason.
REASONS: dict[tuple[str, str], str] = {}

NOTES = """## Reading these figures

- `expected` comes from the equivalence table (tests/math/equivalence_cases.tsv, written from GSM8K
  and MATH answer styles alongside our parser) and from the full completions written in this script,
  so "right" means "agrees with our table"; read the disagreement list rather than the percentage.
- The cases math-verify gets "wrong" are mostly conventions it does not implement: thin-space
  thousands separators (`1\\,000`), `e` notation and `**` powers, a percent against the bare number,
  degrees against radians, complex identities (`e^{i\\pi} = -1`, `i^2`), an inequality against an
  interval, an equation against its solution, a column vector against a tuple, `\\text{Yes.}`
  against `yes`, a unit word after a number, `rel_tol = 1e-6` (`1.0000001` = `1`), `\\pm` against
  the two answers. On full completions it reads the number inside a `<think>` block instead of the
  `<answer>` tag, and misses a plain-text answer outside `$…$`.
- Ours is timed through the public reward (`grpo_rewards_math.accuracy`, one completion per call),
  so each time includes extraction, the reward wrapper and, for the few undecided cases, the round
  trip to a warm worker process. math-verify is timed in-process (`parse` + `verify`); its own
  timeouts use `signal.alarm`, which only works on the main thread and cannot stop a long C call,
  hence the worker process and the kill for the pathological inputs. (Run there, on its worker's main
  thread, its 5 s alarms do fire; off the main thread, as in TRL's async reward loop, they cannot.)
- One machine, shared with other work while it ran: read ratios, not absolute times. The in-process
  checks have no time budget: what they decide is fixed by the input (bounded arithmetic without
  sympy, `grpo_rewards_math.bounded`), and the rest makes the round trip to a worker (still right,
  but slower) whatever the machine's load.
"""


def table_cases() -> list[tuple[str, str, bool]]:
    """The (gold, prediction, expected) rows of the equivalence table (tests/math/equivalence_cases.tsv)."""
    path = ROOT / "tests" / "math" / "equivalence_cases.tsv"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            _category, gold, pred, expected = line.split("\t")
            out.append((gold, pred, expected == "1"))
    return out


def ours(gold: str, answer: str) -> tuple[float | None, str, float]:
    import grpo_rewards_math

    labels: dict[str, list[str]] = {}
    started = time.perf_counter()
    value = grpo_rewards_math.accuracy(completions=[answer], solution=[gold],
                                       log_extra=lambda c, v: labels.__setitem__(c, v))[0]
    return value, labels["math.accuracy/outcome"][0], time.perf_counter() - started


def theirs(gold: str, answer: str) -> tuple[bool, float]:
    from math_verify import parse, verify

    started = time.perf_counter()
    result = verify(parse(gold), parse(answer))
    return bool(result), time.perf_counter() - started


class TheirsTimed:
    """math-verify in a worker process; returns (result, seconds) measured there."""

    def __call__(self, gold: str, answer: str) -> tuple[bool, float]:
        return theirs(gold, answer)

    def warmup(self) -> None:
        theirs("$1$", "$1$")


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def throughput_section(table: list[tuple[str, str, bool]]) -> list[str]:
    """The batch path, as TRL calls a reward: one call with 512 completions (chat messages), ours
    against TRL's own ``accuracy_reward`` (math-verify inside) on the same completions and golds."""
    lines = ["## Throughput: one batch of 512 completions, as TRL calls a reward (caches cleared first)\n",
             "Each batch is timed four ways on the same 512 conversational completions and golds: ours as TRL "
             "calls it (`grpo_rewards_math.accuracy(prompts=, completions=, solution=)`, one call); ours one "
             "completion per call (as `bench/peers/run.py` times it); TRL's `trl.rewards.accuracy_reward` (one "
             "call); math-verify's `verify(parse(gold), parse(answer))` per pair (its README's defaults). Ratios are "
             "TRL's or math-verify's seconds over ours in one batch call.\n",
             "| batch | ours, one call: s (completions/s) | ours, 512 calls: s | TRL accuracy_reward: s "
             "(completions/s) | math-verify parse+verify: s | **TRL / ours** | math-verify / ours | "
             "agree with TRL | mean reward ours / TRL |", "|---|---|---|---|---|---|---|---|---|"]
    for title, (batch, golds) in (("task mix: arithmetic, fractions, linear; 8 styles", throughput_batch()),
                                  ("MATH-style: the table's answers in \\boxed{}", table_batch(table)),
                                  ("mined: bench/peers/cases.jsonl (pred, gold), cycled", mined_batch())):
        if batch:
            lines.append(_throughput_row(title, batch, golds))
    lines.append("")
    lines.append(_wrapper_overhead())
    return lines


class _Decided:
    """A per-sample scorer decided in-process at once (``quick``), as math.accuracy's usual sample."""

    def quick(self, text: str, **row: Any) -> tuple[float, str]:
        return 1.0, "correct"

    def __call__(self, text: str, **row: Any) -> tuple[float, str]:
        return 1.0, "correct"


def _wrapper_overhead() -> str:
    """The core's per-call cost around a scorer that does nothing: what a one-completion call adds."""
    from grpo_rewards import Reward, RewardOptions

    reward = Reward(_Decided, metric="decided", columns=("solution",),
                    options=RewardOptions(timeout=1.0, timeout_value=0.0, invalid_value=0.0))
    log = {}.__setitem__
    singles = [[f"answer {i}"] for i in range(20_000)]
    started = time.perf_counter()
    for completions in singles:
        reward(prompts=[""], completions=completions, solution=["1"], log_metric=log, log_extra=log)
    per_call = (time.perf_counter() - started) / len(singles)
    batches = [[f"answer {i} {k}" for k in range(512)] for i in range(40)]
    started = time.perf_counter()
    for completions in batches:
        reward(prompts=[""] * 512, completions=completions, solution=["1"] * 512, log_metric=log, log_extra=log)
    per_sample = (time.perf_counter() - started) / (512 * len(batches))
    return (f"The core's wrapper around a scorer decided at once: {per_call * 1e6:.1f} us per one-completion call, "
            f"{per_sample * 1e6:.1f} us per completion in a 512-completion call.\n")


def run(quick: bool, kill_after: float, batch_only: bool = False) -> str:
    from grpo_rewards import map_with_deadline

    load = os.getloadavg()[0]
    table = table_cases()
    cases = [(f"${g}$", f"${p}$", e, "table") for g, p, e in table]
    cases += [(g, c, e, "completion") for g, c, e in COMPLETION_CASES]
    if quick:
        cases = cases[::10]
    for g, a in (("$2$", "$2$"), ("$x^2$", "$x \\cdot x$"), ("#### 5", "so 5")):  # warm up both
        ours(g, a)
        theirs(g, a)
    from grpo_rewards_math.correctness import SymbolicCheck

    map_with_deadline(SymbolicCheck(), [("(y+1)^2", "y^2+2y+1")] * 16, timeout=60)  # start the workers
    throughput = throughput_section(table)
    if batch_only:
        return "\n".join(throughput)
    _cold()  # the throughput batches saw the table's answers: time every case without their caches
    rows = []
    for gold, answer, expected, source in cases:
        value, label, t_ours = ours(gold, answer)
        result, t_theirs = theirs(gold, answer)
        rows.append({"gold": gold, "answer": answer, "expected": expected, "source": source, "value": value,
                     "label": label, "t_ours": t_ours, "mv": result, "t_mv": t_theirs})
    lines = [f"# Our own regression table: math.accuracy vs math-verify\n\nReproduce: `python bench/bench_math.py` "
             f"(Python {platform.python_version()}, {platform.machine()}, "
             f"{len(table)} table cases + {len(COMPLETION_CASES)} full completions"
             f"{', quick subset' if quick else ''}; load average at the start "
             f"{load:.1f} on {os.cpu_count()} CPUs).\n"]
    ours_right = sum((r["value"] == 1.0) == r["expected"] for r in rows)
    mv_right = sum(r["mv"] == r["expected"] for r in rows)
    agree = sum((r["value"] == 1.0) == r["mv"] for r in rows)
    n = len(rows)
    lines.append("## Agreement\n")
    lines.append("| | cases | right (vs expected) | agreement with the other |\n|---|---|---|---|")
    lines.append(f"| grpo-rewards-math | {n} | {ours_right} ({ours_right / n:.1%}) | {agree} ({agree / n:.1%}) |")
    lines.append(f"| math-verify 0.9 | {n} | {mv_right} ({mv_right / n:.1%}) | |\n")
    t_o = [r["t_ours"] for r in rows]
    t_m = [r["t_mv"] for r in rows]
    lines.append("## Latency per case (one call each, seconds)\n")
    lines.append("| | median | p99 | max |\n|---|---|---|---|")
    lines.append(f"| grpo-rewards-math | {statistics.median(t_o):.6f} | {pct(t_o, 0.99):.6f} | {max(t_o):.6f} |")
    lines.append(f"| math-verify | {statistics.median(t_m):.6f} | {pct(t_m, 0.99):.6f} | {max(t_m):.6f} |")
    lines.append(f"| ratio (math-verify / ours) | **{statistics.median(t_m) / statistics.median(t_o):.1f}x** | "
                 f"{pct(t_m, 0.99) / pct(t_o, 0.99):.1f}x | {max(t_m) / max(t_o):.1f}x |\n")
    symbolic = [r for r in rows if r["t_ours"] > 0.02]
    lines.append(f"Cases where ours took over 20 ms (the symbolic check in a worker): {len(symbolic)}; "
                 f"outcome labels: {dict(sorted(_count(r['label'] for r in rows).items()))}.\n")
    for key, who in (("t_ours", "ours"), ("t_mv", "math-verify")):
        slow = sorted(rows, key=lambda r: -r[key])[:5]
        lines.append(f"Slowest 5 for {who}: " + "; ".join(
            f"{_cell(r['gold'])} vs {_cell(r['answer'])} {r[key]:.3f} s" for r in slow) + "\n")

    lines.append("## Disagreements\n")
    wrong_ours = [r for r in rows if (r["value"] == 1.0) != r["expected"] and r["mv"] == r["expected"]]
    wrong_mv = [r for r in rows if r["mv"] != r["expected"] and (r["value"] == 1.0) == r["expected"]]
    both = [r for r in rows if r["mv"] != r["expected"] and (r["value"] == 1.0) != r["expected"]]
    lines.append(f"math-verify right, ours wrong: {len(wrong_ours)}; ours right, math-verify wrong: "
                 f"{len(wrong_mv)}; both wrong: {len(both)}.\n")
    for title, group in (("math-verify right, ours wrong", wrong_ours), ("ours right, math-verify wrong", wrong_mv),
                         ("both wrong", both)):
        if not group:
            continue
        lines.append(f"### {title}\n\n| gold | answer | expected | ours (label) | math-verify | reason |\n"
                     "|---|---|---|---|---|---|")
        for r in group:
            reason = REASONS.get((r["gold"], r["answer"]), "")
            lines.append(f"| {_cell(r['gold'])} | {_cell(r['answer'])} | {r['expected']} | "
                         f"{r['value']} ({r['label']}) | {r['mv']} | {reason} |")
        lines.append("")

    lines.append(f"## Pathological inputs (worst case; math-verify killed after {kill_after:g} s)\n")
    lines.append("| input | gold | expected | ours: value (label), seconds | ours: CPU in the calling process (s) | "
                 "math-verify: result, seconds |\n|---|---|---|---|---|---|")
    items = [(g, a) for _, g, a, _ in PATHOLOGICAL]
    mv_out = map_with_deadline(TheirsTimed(), items, timeout=kill_after, workers=1)
    worst_o = worst_m = worst_cpu = 0.0
    for (name, gold, answer, expected), outcome in zip(PATHOLOGICAL, mv_out):
        cpu = time.process_time()
        value, label, t = ours(gold, answer)
        cpu = time.process_time() - cpu
        worst_o = max(worst_o, t)
        worst_cpu = max(worst_cpu, cpu)
        if outcome.status == "ok":
            worst_m = max(worst_m, outcome.value[1])
            mv_cell = f"{outcome.value[0]}, {outcome.value[1]:.3f}"
        else:
            worst_m = max(worst_m, kill_after)
            mv_cell = f"{outcome.status}, > {kill_after:g} (killed)" if outcome.status == "timeout" else (
                f"{outcome.status}: {(outcome.error or '')[:60]}")
        lines.append(f"| {name} | {_cell(gold)} | {expected} | {value} ({label}), {t:.6f} | {cpu:.3f} | {mv_cell} |")
    lines.append(f"\nWorst case: ours {worst_o:.6f} s ({worst_cpu:.3f} s CPU in the calling process; target "
                 f"<= 0.050), math-verify {'>= ' if worst_m >= kill_after else ''}{worst_m:.3f} s.\n")

    lines += throughput
    lines.append(NOTES)
    return "\n".join(lines)


def _cold() -> None:
    """Forget every cached parse and comparison of the math package."""
    import grpo_rewards_math
    from grpo_rewards_math.correctness import clear_cache

    clear_cache()
    for name in ("parse", "equivalence", "compare", "numeric", "latex_lexer"):
        module = getattr(grpo_rewards_math, name, None) or sys.modules.get(f"grpo_rewards_math.{name}")
        for value in vars(module).values() if module else ():
            if callable(getattr(value, "cache_clear", None)):
                value.cache_clear()


def _throughput_row(title: str, batch: list[str], golds: list[str]) -> str:
    from trl.rewards import accuracy_reward

    import grpo_rewards_math

    n = len(batch)
    messages = [[{"role": "assistant", "content": c}] for c in batch]
    _cold()
    started = time.perf_counter()
    values = grpo_rewards_math.accuracy(prompts=[""] * n, completions=messages, solution=golds)
    t_ours = time.perf_counter() - started
    _cold()
    started = time.perf_counter()
    for message, gold in zip(messages, golds):
        grpo_rewards_math.accuracy(prompts=[""], completions=[message], solution=[gold])
    t_single = time.perf_counter() - started
    started = time.perf_counter()
    trl = accuracy_reward(messages, golds)
    t_trl = time.perf_counter() - started
    started = time.perf_counter()
    for gold, completion in zip(golds, batch):
        theirs(gold, completion)
    t_mv = time.perf_counter() - started
    agree = sum((v == 1.0) == (t == 1.0) for v, t in zip(values, trl))
    mean_ours = sum(v or 0.0 for v in values) / n
    mean_trl = sum(t or 0.0 for t in trl) / n
    return (f"| {title} | {t_ours:.3f} ({n / t_ours:.0f}) | {t_single:.3f} | {t_trl:.3f} ({n / t_trl:.0f}) | "
            f"{t_mv:.3f} | **{t_trl / t_ours:.1f}x** | {t_mv / t_ours:.1f}x | {agree}/{n} | "
            f"{mean_ours:.3f} / {mean_trl:.3f} |")


def mined_batch() -> tuple[list[str], list[str]]:
    """512 (prediction, gold) pairs cycled from the mined outside cases (``bench/peers/cases.jsonl``)."""
    import json

    path = ROOT / "bench" / "peers" / "cases.jsonl"
    if not path.exists():
        return [], []
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows = [r for r in rows if isinstance(r["pred"], str) and r["gold"] is not None]
    rows = [rows[i % len(rows)] for i in range(512)]
    return [r["pred"] for r in rows], [str(r["gold"]) for r in rows]


def table_batch(table: list[tuple[str, str, bool]]) -> tuple[list[str], list[str]]:
    """512 completions ``The answer is $\\boxed{pred}$.`` cycled from the equivalence table."""
    if not table:
        return [], []
    rows = [table[i % len(table)] for i in range(512)]
    return [f"So the answer is $\\boxed{{{p}}}$." for _, p, _ in rows], [f"${g}$" for g, _, _ in rows]


def throughput_batch() -> tuple[list[str], list[str]]:
    """512 completions of a GRPO step: 64 prompts x 8 generations, mixed styles and outcomes."""
    import random

    from grpo_rewards_math.tasks import make_arithmetic, make_fractions, make_linear

    rng = random.Random(0)
    rows = make_arithmetic(24, seed=1) + make_fractions(20, seed=1) + make_linear(20, seed=1)
    completions, golds = [], []
    for row in rows:
        gold = row["solution"]
        for k in range(8):
            style = (k + rng.randint(0, 7)) % 8
            answer = gold if rng.random() < 0.5 else str(rng.randint(-20, 40))
            if "/" in gold and style == 3:
                num, den = gold.split("/")
                answer = f"\\frac{{{num}}}{{{den}}}"
            text = [
                f"Let me compute. The result is \\boxed{{{answer}}}.",
                f"<think>working it out</think>\nThe answer is {answer}.",
                f"Step 1: compute.\nStep 2: simplify.\n#### {answer}",
                f"So we get $x = {answer}$, i.e. \\boxed{{{answer}}}",
                f"Final Answer: The final answer is ${answer}$. I hope it is correct.",
                f"{answer}",
                f"I think it is {answer} but I am not sure",
                "I cannot solve this.",
            ][style]
            completions.append(text)
            golds.append(gold)
    return completions, golds


def _count(labels: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for label in labels:
        out[label] = out.get(label, 0) + 1
    return out


def _cell(text: str) -> str:
    text = text.replace("\n", "\\n").replace("|", "\\|")
    return f"`{text[:80]}{'…' if len(text) > 80 else ''}`"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="every 10th case")
    parser.add_argument("--out", type=Path, help="also write the report to this file")
    parser.add_argument("--batch-only", action="store_true", help="only the 512-completion batches (TRL's path)")
    parser.add_argument("--kill-after", type=float, default=20.0, help="seconds before math-verify is killed")
    args = parser.parse_args()
    report = run(args.quick, args.kill_after, args.batch_only)
    print(report)
    if args.out:
        args.out.write_text(report + "\n")


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import bench_math  # so that TheirsTimed pickles as bench_math.TheirsTimed for the worker

    bench_math.main()
