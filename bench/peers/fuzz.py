"""Differential fuzzing of ``math.accuracy`` against math-verify, adjudicated by construction.

Run by hand, from the repository root in the project's venv (math-verify is benchmark-only)::

    python bench/peers/fuzz.py                     # 6 values per shape, seed 0 (about 7,000 cases)
    python bench/peers/fuzz.py --values 3 --seed 1 --show 3 --detail

For gold values of many shapes (integers, large integers, negative numbers, fractions, decimals,
radicals, multiples of pi, intervals, unions of intervals, sets, solution points, tuples,
matrices, equations, percentages, text answers), the script writes the gold as a dataset would (bare LaTeX) and the prediction as models
write it: the same value in other notations (``\\dfrac``, ``a/b``, exact decimals, ``sqrt(2)``,
``\\sqrt{8}`` for ``2\\sqrt{2}``, reordered sets, ``\\left(…\\right]``, a relation for an
interval, …), each in a wrapper (``\\boxed{}``, ``$…$``, ``\\(…\\)``, bare, "The answer is …",
"Final Answer: …", labelled ``x = …``, several boxes, buried at the end of a long response with
distractor numbers), and near misses (an endpoint, bracket, entry, element, sign or digit
changed). Every case's truth is known by construction: a rendering is the gold's value written
another way; a near miss is checked to differ from the gold by evaluating both with exact
rationals or floats here (never by asking either grader). Rounded decimals of non-terminating
values (``0.33`` for 1/3) have no single truth and are reported apart as acceptance rates.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import statistics
import sys
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from run import ours, theirs  # the runner's callers: the same calls, the same timeouts


@dataclass
class Gold:
    shape: str
    latex: str
    #: (form name, body, "latex" | "plain"): the gold's value written another way
    forms: list[tuple[str, str, str]]
    #: (perturbation name, body, kind): a value that differs from the gold (checked here)
    misses: list[tuple[str, str, str]]
    #: (name, body): rounded decimals (no single truth; acceptance reported apart)
    rounded: list[tuple[str, str]] = field(default_factory=list)
    #: whether "x = …" / "the value is …" labels make sense for this shape
    scalar: bool = True


def _frac_latex(f: Fraction) -> str:
    if f.denominator == 1:
        return str(f.numerator)
    sign = "-" if f < 0 else ""
    return f"{sign}\\frac{{{abs(f.numerator)}}}{{{f.denominator}}}"


def _terminating(f: Fraction) -> str | None:
    d = f.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return None
    places = 0
    while (f * 10**places).denominator != 1:
        places += 1
    return f"{float(f):.{places}f}"


def _differs(a: float, b: float) -> bool:
    return abs(a - b) > 1e-3 * max(1.0, abs(a))


# -- shapes ---------------------------------------------------------------------------------------
def integers(rng: random.Random) -> Gold:
    n = rng.choice([rng.randint(2, 99), rng.randint(100, 999), rng.randint(1000, 9999)])
    misses = [("digit +1", str(n + 1), "latex"), ("digit x10", str(n * 10), "latex"),
              ("digits swapped", str(n)[::-1], "latex")]
    misses = [m for m in misses if int(m[1]) != n]
    return Gold("integer", str(n), [("same", str(n), "latex"), ("decimal .0", f"{n}.0", "plain"),
                                    ("spelled with unit", f"{n} \\text{{ units}}", "latex")], misses)


def large_integers(rng: random.Random) -> Gold:
    n = rng.randint(10_000, 99_999_999)
    sep = f"{n:,}"
    return Gold("large integer", str(n),
                [("same", str(n), "latex"), ("comma thousands", sep, "plain"),
                 ("thin-space thousands", sep.replace(",", "\\,"), "latex"),
                 ("braced comma thousands", sep.replace(",", "{,}"), "latex")],
                [("last digit +1", str(n + 1), "latex"), ("off by 1000", f"{n + 1000:,}", "plain"),
                 ("one digit dropped", str(n)[:-1], "latex")])


def negatives(rng: random.Random) -> Gold:
    n = -rng.randint(1, 500)
    return Gold("negative integer", str(n), [("same", str(n), "latex"), ("parenthesised", f"({n})", "latex"),
                                             ("unicode minus", f"\u2212{-n}", "plain")],
                [("sign dropped", str(-n), "latex"), ("off by one", str(n - 1), "latex")])


def fractions_(rng: random.Random) -> Gold:
    while True:
        q = rng.randint(2, 40)
        p = rng.randint(1, 3 * q)
        f = Fraction(p, q) * rng.choice([1, 1, -1])
        if f.denominator > 1:
            break
    forms = [("same", _frac_latex(f), "latex"), ("dfrac", _frac_latex(f).replace("\\frac", "\\dfrac"), "latex"),
             ("slash", f"{f.numerator}/{f.denominator}", "plain"),
             ("unreduced", f"{'-' if f < 0 else ''}\\frac{{{abs(f.numerator) * 3}}}{{{f.denominator * 3}}}", "latex")]
    if f > 1 and f.denominator > 1:
        whole, rest = divmod(f.numerator, f.denominator)
        forms.append(("mixed number", f"{whole}\\frac{{{rest}}}{{{f.denominator}}}", "latex"))
    term = _terminating(f)
    if term:
        forms += [("exact decimal", term, "plain"), ("exact decimal, trailing zero", term + "0", "plain")]
    rounded = [] if term else [(f"rounded decimal {k} places", f"{float(f):.{k}f}") for k in (2, 4, 6, 10)]
    misses = [("numerator +1", _frac_latex(Fraction(f.numerator + 1, f.denominator)), "latex"),
              ("inverted", _frac_latex(1 / f), "latex"), ("sign flipped", _frac_latex(-f), "latex")]
    misses = [m for m in misses if m[1] != _frac_latex(f)]
    return Gold("fraction", _frac_latex(f), forms, misses, rounded)


def radicals(rng: random.Random) -> Gold:
    b = rng.choice([2, 3, 5, 6, 7, 10, 11, 13])
    a = rng.randint(2, 9)
    value = a * math.sqrt(b)
    forms = [("same", f"{a}\\sqrt{{{b}}}", "latex"), ("single root", f"\\sqrt{{{a * a * b}}}", "latex"),
             ("plain sqrt", f"{a}*sqrt({b})", "plain"), ("cdot", f"{a} \\cdot \\sqrt{{{b}}}", "latex"),
             ("power 1/2", f"{a}\\cdot {b}^{{1/2}}", "latex")]
    misses = [("radicand +1", f"{a}\\sqrt{{{b + 1}}}", "latex"), ("coefficient +1", f"{a + 1}\\sqrt{{{b}}}", "latex"),
              ("root dropped", f"{a * b}", "latex")]
    checks = {"radicand +1": a * math.sqrt(b + 1), "coefficient +1": (a + 1) * math.sqrt(b), "root dropped": a * b}
    misses = [m for m in misses if _differs(value, checks[m[0]])]
    rounded = [(f"rounded decimal {k} places", f"{value:.{k}f}") for k in (2, 4, 6, 10)]
    return Gold("radical", f"{a}\\sqrt{{{b}}}", forms, misses, rounded)


def pis(rng: random.Random) -> Gold:
    f = Fraction(rng.randint(1, 11), rng.choice([2, 3, 4, 6, 12]))
    p, q = f.numerator, f.denominator
    num = "" if p == 1 else str(p)
    gold = f"\\frac{{{num}\\pi}}{{{q}}}" if q > 1 else f"{num}\\pi"
    plain = ("pi" if p == 1 else f"{p}*pi") + (f"/{q}" if q > 1 else "")
    forms = [("same", gold, "latex"), ("plain", plain, "plain"),
             ("unicode pi", f"{num}π/{q}" if q > 1 else f"{num}π", "plain")]
    if q > 1:
        forms.append(("coefficient fraction", f"\\frac{{{p}}}{{{q}}}\\pi", "latex"))
    g2 = f + 1
    miss = f"\\frac{{{g2.numerator}\\pi}}{{{g2.denominator}}}" if g2.denominator > 1 else f"{g2.numerator}\\pi"
    misses = [("plus pi", miss, "latex"), ("pi dropped", _frac_latex(f), "latex")]
    rounded = [(f"rounded decimal {k} places", f"{float(f) * math.pi:.{k}f}") for k in (2, 4, 6, 10)]
    return Gold("multiple of pi", gold, forms, misses, rounded)


def intervals(rng: random.Random) -> Gold:
    a = rng.randint(-10, 5)
    b = a + rng.randint(1, 10)
    lo, hi = rng.choice(["(", "["]), rng.choice([")", "]"])
    gold = f"{lo}{a}, {b}{hi}"
    le = "\\le"
    rel = f"{a} {'<' if lo == '(' else le} x {'<' if hi == ')' else le} {b}"
    forms = [("same", gold, "latex"), ("left-right", f"\\left{lo} {a}, {b} \\right{hi}", "latex"),
             ("relation", rel, "latex"), ("no spaces", f"{lo}{a},{b}{hi}", "latex"),
             ("x in", f"x \\in {gold}", "latex")]
    flip = {"(": "[", "[": "(", ")": "]", "]": ")"}
    misses = [("left bracket flipped", f"{flip[lo]}{a}, {b}{hi}", "latex"),
              ("right bracket flipped", f"{lo}{a}, {b}{flip[hi]}", "latex"),
              ("endpoint +1", f"{lo}{a}, {b + 1}{hi}", "latex"), ("endpoints swapped sign", f"{lo}{-b}, {-a}{hi}", "latex")]
    misses = [m for m in misses if m[1] != gold]
    return Gold("interval", gold, forms, misses, scalar=False)


def sets(rng: random.Random) -> Gold:
    items = sorted(rng.sample(range(-9, 20), rng.randint(2, 4)))
    body = ", ".join(map(str, items))
    shuffled = items[:]
    while shuffled == items:
        rng.shuffle(shuffled)
    sbody = ", ".join(map(str, shuffled))
    forms = [("same", f"\\{{{body}\\}}", "latex"), ("reordered", f"\\{{{sbody}\\}}", "latex"),
             ("bare list", body, "latex"), ("reordered bare list", sbody, "latex")]
    other = max(items) + 1
    misses = [("element dropped", f"\\{{{', '.join(map(str, items[:-1]))}\\}}", "latex"),
              ("element changed", f"\\{{{', '.join(map(str, [*items[:-1], other]))}\\}}", "latex"),
              ("element added", f"\\{{{', '.join(map(str, [*items, other]))}\\}}", "latex")]
    gold = Gold("set", f"\\{{{body}\\}}", forms, misses, scalar=False)
    gold.forms.append(("several boxes", "|".join(map(str, shuffled)), "boxes"))
    return gold


def unions(rng: random.Random) -> Gold:
    a = rng.randint(-9, 3)
    b = a + rng.randint(1, 8)
    gold = f"(-\\infty, {a}) \\cup ({b}, \\infty)"
    forms = [("same", gold, "latex"), ("reordered", f"({b}, \\infty) \\cup (-\\infty, {a})", "latex"),
             ("relation with or", f"x < {a} \\text{{ or }} x > {b}", "latex"),
             ("left-right", f"\\left(-\\infty, {a}\\right) \\cup \\left({b}, \\infty\\right)", "latex")]
    misses = [("closed endpoint", f"(-\\infty, {a}] \\cup ({b}, \\infty)", "latex"),
              ("endpoint +1", f"(-\\infty, {a}) \\cup ({b + 1}, \\infty)", "latex"),
              ("complement", f"[{a}, {b}]", "latex")]
    return Gold("union of intervals", gold, forms, misses, scalar=False)


def points(rng: random.Random) -> Gold:
    p1 = (rng.randint(-9, 9), rng.randint(-9, 9))
    p2 = (p1[0] + rng.randint(1, 5), rng.randint(-9, 9))

    def pt(p: tuple[int, int]) -> str:
        return f"({p[0]}, {p[1]})"

    gold = f"{pt(p1)}, {pt(p2)}"
    forms = [("same", gold, "latex"), ("reordered", f"{pt(p2)}, {pt(p1)}", "latex"),
             ("set of points", f"\\{{{pt(p1)}, {pt(p2)}\\}}", "latex"),
             ("and", f"{pt(p2)} \\text{{ and }} {pt(p1)}", "latex")]
    moved = (p2[0], p2[1] + 1)
    candidates = [("one point moved", [p1, moved]), ("one point only", [p1]), ("coordinates swapped", [p1[::-1], p2])]
    misses = [(name, ", ".join(map(pt, pts)), "latex") for name, pts in candidates if set(pts) != {p1, p2}]
    gold_ = Gold("solution points", gold, forms, misses, scalar=False)
    gold_.forms.append(("several boxes", f"{pt(p2)}|{pt(p1)}", "boxes"))
    return gold_


def tuples(rng: random.Random) -> Gold:
    n = rng.randint(2, 3)
    items = [rng.randint(-9, 9) for _ in range(n)]
    while len(set(items)) < n:
        items = [rng.randint(-9, 9) for _ in range(n)]
    body = ", ".join(map(str, items))
    forms = [("same", f"({body})", "latex"), ("left-right", f"\\left( {body} \\right)", "latex"),
             ("labelled point", f"({', '.join('xyz'[:n])}) = ({body})", "latex")]
    misses = [("order swapped", f"({', '.join(map(str, items[::-1]))})", "latex"),
              ("entry changed", f"({', '.join(map(str, [*items[:-1], items[-1] + 1]))})", "latex"),
              ("entry dropped", f"({', '.join(map(str, items[:-1]))})" if n > 2 else f"{items[0]}", "latex")]
    return Gold("tuple", f"({body})", forms, misses, scalar=False)


def matrices(rng: random.Random) -> Gold:
    m = [[rng.randint(-9, 9) for _ in range(2)] for _ in range(2)]
    while m[0][1] == m[1][0]:
        m[1][0] = rng.randint(-9, 9)

    def latex(mat: list[list[int]], env: str = "pmatrix") -> str:
        return f"\\begin{{{env}}} " + " \\\\ ".join(" & ".join(map(str, r)) for r in mat) + f" \\end{{{env}}}"

    t = [[m[j][i] for j in range(2)] for i in range(2)]
    changed = [r[:] for r in m]
    changed[1][1] += 1
    forms = [("same", latex(m), "latex"), ("bmatrix", latex(m, "bmatrix"), "latex"),
             ("compact", latex(m).replace(" ", ""), "latex"),
             ("trailing \\\\", latex(m).replace(" \\end", " \\\\ \\end"), "latex")]
    misses = [("transposed", latex(t), "latex"), ("entry changed", latex(changed), "latex")]
    return Gold("matrix", latex(m), forms, misses, scalar=False)


def equations(rng: random.Random) -> Gold:
    a, b = rng.randint(2, 9), rng.randint(1, 9)
    gold = f"y = {a}x + {b}"
    forms = [("same", gold, "latex"), ("reordered terms", f"y = {b} + {a}x", "latex"),
             ("sides swapped", f"{a}x + {b} = y", "latex"), ("explicit product", f"y = {a} \\cdot x + {b}", "latex")]
    misses = [("constant sign", f"y = {a}x - {b}", "latex"), ("slope +1", f"y = {a + 1}x + {b}", "latex")]
    return Gold("equation", gold, forms, misses, scalar=False)


def percentages(rng: random.Random) -> Gold:
    n = rng.randint(1, 99)
    return Gold("percentage", f"{n}\\%", [("same", f"{n}\\%", "latex"), ("unescaped %", f"{n}%", "plain"),
                                          ("word percent", f"{n} percent", "plain"), ("bare number", str(n), "latex")],
                [("off by one", f"{n + 1}\\%", "latex"), ("times ten", f"{n * 10}\\%", "latex")])


def texts(rng: random.Random) -> Gold:
    words = ["Monday", "Tuesday", "Wednesday", "yes", "no", "east", "west", "odd", "even"]
    w = rng.choice(words)
    other = rng.choice([x for x in words if x != w])
    return Gold("text", f"\\text{{{w}}}", [("same", f"\\text{{{w}}}", "latex"), ("plain word", w, "plain"),
                                           ("capitalised", w.capitalize() if w.islower() else w.lower(), "plain"),
                                           ("textbf", f"\\textbf{{{w}}}", "latex")],
                [("other word", f"\\text{{{other}}}", "latex")], scalar=False)


SHAPES = [integers, large_integers, negatives, fractions_, radicals, pis, intervals, unions, sets, points, tuples,
          matrices, equations, percentages, texts]


# -- wrappers -------------------------------------------------------------------------------------
def distractor(rng: random.Random) -> str:
    x, y = rng.randint(1000, 4000), rng.randint(4001, 9000)
    return (f"Let us work through the problem step by step. First we note that {x} + {y} = {x + y}, "
            f"which is not yet what we need. Checking the case of {y} again, the constraint gives "
            f"a contradiction, so we try another approach and simplify the expression carefully. ")


def wrappers(body: str, kind: str, scalar: bool, rng: random.Random) -> list[tuple[str, str]]:
    if kind == "boxes":
        parts = body.split("|")
        return [("several boxes", ", ".join(f"\\boxed{{{p}}}" for p in parts)),
                ("several boxes in $", " and ".join(f"$\\boxed{{{p}}}$" for p in parts))]
    out = [("boxed", f"\\boxed{{{body}}}"), ("bare", body), ("answer is", f"The answer is {body}."),
           ("final answer line", f"Final Answer: The final answer is {body}. I hope it is correct."),
           ("long response, boxed", distractor(rng) + f"Therefore, the answer is $\\boxed{{{body}}}$.")]
    if kind == "latex":
        out += [("$…$", f"${body}$"), ("\\(…\\)", f"\\({body}\\)"), ("answer is $…$", f"The answer is ${body}$."),
                ("long response, $…$", distractor(rng) + f"So the final answer is ${body}$.")]
        if scalar:
            out.append(("labelled x = …", f"So $x = {body}$."))
    else:
        out.append(("long response, plain", distractor(rng) + f"So the final answer is {body}."))
        if scalar:
            out.append(("labelled x = …", f"So x = {body}."))
    return out


def generate(values: int, seed: int) -> list[dict[str, Any]]:
    """Every case twice: the gold written bare (as dataset columns hold it) and in ``$…$`` (as
    math-verify's README writes golds); both graders always get the same gold string."""
    rng = random.Random(seed)
    cases: list[dict[str, Any]] = []
    for case in _generate(values, rng):
        cases.append({**case, "gold_format": "bare"})
        cases.append({**case, "gold": f"${case['gold']}$", "gold_format": "$…$"})
    return cases


def _generate(values: int, rng: random.Random) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    for make in SHAPES:
        seen: set[str] = set()
        for _ in range(values * 3):
            if len(seen) >= values:
                break
            gold = make(rng)
            if gold.latex in seen:
                continue
            seen.add(gold.latex)
            for form, body, kind in gold.forms:
                for wrap, text in wrappers(body, kind, gold.scalar, rng):
                    cases.append({"shape": gold.shape, "gold": gold.latex, "pred": text, "expected": True,
                                  "variant": form, "wrapper": wrap})
            for miss, body, kind in gold.misses:
                for wrap, text in wrappers(body, kind, gold.scalar, rng):
                    if wrap in {"boxed", "$…$", "answer is", "long response, boxed"}:
                        cases.append({"shape": gold.shape, "gold": gold.latex, "pred": text, "expected": False,
                                      "variant": "near miss: " + miss, "wrapper": wrap})
            for name, body in gold.rounded:
                for wrap, text in (("boxed", f"\\boxed{{{body}}}"), ("answer is", f"The answer is {body}.")):
                    cases.append({"shape": gold.shape, "gold": gold.latex, "pred": text, "expected": "rounded",
                                  "variant": name, "wrapper": wrap})
    return cases


# -- report ---------------------------------------------------------------------------------------
def _rate(rs: list[dict[str, Any]], key: str) -> str:
    n = len(rs)
    k = sum(r[key] for r in rs)
    return f"{k}/{n} ({k / n:.3f})" if n else "-"


def report(results: list[dict[str, Any]], show: int, detail: bool = False) -> str:
    judged = [r for r in results if r["expected"] != "rounded"]
    lines = ["| shape | cases | ours right | math-verify right | ours FP / FN | math-verify FP / FN |",
             "|---|---|---|---|---|---|"]
    by_shape: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in judged:
        by_shape[r["shape"]].append(r)
    for shape, rs in [*by_shape.items(), ("**all**", judged)]:
        fp = sum(1 for r in rs if not r["expected"] and r["ours"] == 1.0)
        fn = sum(1 for r in rs if r["expected"] and r["ours"] != 1.0)
        mfp = sum(1 for r in rs if not r["expected"] and r["mv"] == 1.0)
        mfn = sum(1 for r in rs if r["expected"] and r["mv"] != 1.0)
        lines.append(f"| {shape} | {len(rs)} | {_rate(rs, 'ours_right')} | {_rate(rs, 'mv_right')} | {fp} / {fn} | "
                     f"{mfp} / {mfn} |")
    lines += ["", "| gold written | cases | ours right | math-verify right |", "|---|---|---|---|"]
    for fmt in ("bare", "$…$"):
        rs = [r for r in judged if r["gold_format"] == fmt]
        lines.append(f"| {fmt} | {len(rs)} | {_rate(rs, 'ours_right')} | {_rate(rs, 'mv_right')} |")
    lines += ["", "| wrapper | cases | ours right | math-verify right |", "|---|---|---|---|"]
    by_wrap: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in judged:
        by_wrap[r["wrapper"]].append(r)
    for wrap, rs in sorted(by_wrap.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"| {wrap} | {len(rs)} | {_rate(rs, 'ours_right')} | {_rate(rs, 'mv_right')} |")

    cats: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in judged:
        if r["ours_right"] != r["mv_right"] or not r["ours_right"]:
            who = ("ours right, math-verify wrong" if r["ours_right"] else
                   "math-verify right, ours wrong" if r["mv_right"] else "both wrong")
            cats[(who, r["shape"], r["variant"] + ("" if r["gold_format"] == "bare" else ", gold in $…$"))].append(r)
    count = Counter({k[0]: 0 for k in cats})
    for k, v in cats.items():
        count[k[0]] += len(v)
    lines += ["", "Disagreements and shared misses: " + ", ".join(f"{k}: {v}" for k, v in sorted(count.items())), ""]
    by_shape: dict[tuple[str, str], list[tuple[str, list[dict[str, Any]]]]] = defaultdict(list)
    for (who, shape, variant), rs in cats.items():
        by_shape[(who, shape)].append((variant, rs))
    lines += ["| who | shape | cases | variants (cases) | wrappers (cases) | example (gold / prediction) |",
              "|---|---|---|---|---|---|"]
    for (who, shape), groups in sorted(by_shape.items(), key=lambda kv: (kv[0][0], -sum(len(g) for _, g in kv[1]))):
        rs = [r for _, g in groups for r in g]
        variants = sorted(groups, key=lambda g: -len(g[1]))
        wraps = Counter(r["wrapper"] for r in rs)
        ex = variants[0][1][0]
        lines.append(f"| {who} | {shape} | {len(rs)} | "
                     + ", ".join(f"{v} ({len(g)})" for v, g in variants[:4]) + (", …" if len(variants) > 4 else "")
                     + f" | {', '.join(f'{w} ({c})' for w, c in wraps.most_common(3))} | "
                     f"`{_short(ex['gold'])}` / `{_short(ex['pred'])}` |")
    if detail:
        lines += ["", "| who | shape | variant | cases | wrappers | example (gold / prediction) |",
                  "|---|---|---|---|---|---|"]
        for (who, shape, variant), rs in sorted(cats.items(), key=lambda kv: (kv[0][0], -len(kv[1]))):
            wraps = Counter(r["wrapper"] for r in rs)
            ex = rs[0]
            lines.append(f"| {who} | {shape} | {variant} | {len(rs)} | "
                         f"{', '.join(f'{w} {c}' for w, c in wraps.most_common(4))} | "
                         f"`{_short(ex['gold'])}` / `{_short(ex['pred'])}` |")
    rounded = [r for r in results if r["expected"] == "rounded"]
    if rounded:
        lines += ["", "Rounded decimals of non-terminating values (no single truth): share accepted as equal",
                  "", "| places | cases | ours accepts | math-verify accepts |", "|---|---|---|---|"]
        by_places: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for r in rounded:
            by_places[r["variant"]].append(r)
        for name, rs in sorted(by_places.items(), key=lambda kv: int(kv[0].split()[2])):
            n = len(rs)
            o = sum(r["ours"] == 1.0 for r in rs)
            m = sum(r["mv"] == 1.0 for r in rs)
            lines.append(f"| {name.split()[2]} | {n} | {o} ({o / n:.2f}) | {m} ({m / n:.2f}) |")
    if show:
        lines += ["", f"Examples (up to {show} per category):"]
        for (who, shape, variant), rs in sorted(cats.items()):
            for r in rs[:show]:
                lines.append(f"- {who} [{shape} / {variant} / {r['wrapper']}]: gold `{_short(r['gold'])}`, "
                             f"pred `{_short(r['pred'], 160)}`, ours {r['ours']} ({r['label']}), math-verify {r['mv']}")
    o = [r["ours_s"] for r in results]
    m = [r["mv_s"] for r in results]
    cpu = [r["ours_cpu_s"] for r in results]
    lines += ["", f"Median latency: ours {statistics.median(o) * 1e3:.3f} ms, math-verify {statistics.median(m) * 1e3:.3f} "
              f"ms ({statistics.median(m) / statistics.median(o):.1f}x); max in-process CPU of ours "
              f"{max(cpu) * 1e3:.1f} ms; cases over 50 ms CPU: {sum(c > 0.05 for c in cpu)}."]
    return "\n".join(lines)


def _short(text: str, n: int = 70) -> str:
    text = text.replace("\n", " ")
    return (text[: n - 1] + "…" if len(text) > n else text).replace("|", "\\|").replace("`", "'")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=6, help="gold values per shape")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=0, help="examples to print per disagreement category")
    parser.add_argument("--detail", action="store_true", help="also one table row per (who, shape, variant)")
    parser.add_argument("--mv-timeout", type=int, default=3)
    parser.add_argument("--json", type=Path, help="write every case's results here")
    args = parser.parse_args(argv)
    cases = generate(args.values, args.seed)
    ours(r"\boxed{x^2-1}", "(x-1)(x+1)", {})
    theirs("$x^2-1$", "$(x-1)(x+1)$", {}, "", args.mv_timeout)
    started = time.perf_counter()
    results = []
    for c in cases:
        value, label, wall, cpu = ours(c["pred"], c["gold"], {})
        mv, mv_s = theirs(c["pred"], c["gold"], {}, "", args.mv_timeout)
        exp = c["expected"]
        results.append({**c, "ours": value, "label": label, "ours_s": wall, "ours_cpu_s": cpu, "mv": mv, "mv_s": mv_s,
                        "ours_right": exp != "rounded" and (value == 1.0) == exp,
                        "mv_right": exp != "rounded" and (mv == 1.0) == exp})
    print(f"{len(cases)} cases ({args.values} values per shape, seed {args.seed}) in "
          f"{time.perf_counter() - started:.0f} s\n")
    print(report(results, args.show, args.detail))
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
