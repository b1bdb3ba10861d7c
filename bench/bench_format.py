"""Format rewards side by side: grpo-rewards-format vs TRL's think_format_reward and Open-R1's rewards.

Run by hand from the repository root (writes bench/format.md):

    .venv/bin/python bench/bench_format.py

Scores the same 10,000 generated completions (good, hacked and malformed, as conversational
completions, which every function here accepts) with each reward, then reports the share of
full-credit scores per category (which hacks each reward lets through), pairwise agreement, and
time per 10,000 as a ratio to TRL's ``think_format_reward``. Open-R1's ``format_reward`` and
``tag_count_reward`` are reimplemented from the published formulas (src/open_r1/rewards.py);
``format_reward`` uses ``re.match`` with ``re.DOTALL | re.MULTILINE`` as published, and a
``fullmatch`` variant is shown next to it.
"""

from __future__ import annotations

import argparse
import platform
import random
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

N = 10_000
NOTES_MARKER = "<!-- notes: kept when the tables above are regenerated -->"
SEED = 0
REPEATS = 5

# -- the baselines ----------------------------------------------------------------------------
OPEN_R1_FORMAT = r"^<think>\n.*?\n</think>\n<answer>\n.*?\n</answer>$"


def open_r1_format(completions: list[Any], **kwargs: Any) -> list[float]:
    """Open-R1 ``format_reward`` as published: ``re.match`` (so ``$`` may stop at any line end)."""
    contents = [c[0]["content"] for c in completions]
    return [1.0 if re.match(OPEN_R1_FORMAT, t, re.DOTALL | re.MULTILINE) else 0.0 for t in contents]


def open_r1_format_fullmatch(completions: list[Any], **kwargs: Any) -> list[float]:
    """The same pattern with ``re.fullmatch``: the whole completion must be the layout."""
    contents = [c[0]["content"] for c in completions]
    return [1.0 if re.fullmatch(OPEN_R1_FORMAT, t, re.DOTALL | re.MULTILINE) else 0.0 for t in contents]


def open_r1_tag_count(completions: list[Any], **kwargs: Any) -> list[float]:
    """Open-R1 ``tag_count_reward``: +0.25 for each of four newline-delimited tags present exactly once."""
    out = []
    for c in completions:
        t = c[0]["content"]
        out.append(0.25 * sum(t.count(s) == 1 for s in ("<think>\n", "\n</think>\n", "\n<answer>\n", "\n</answer>")))
    return out


# -- the completions --------------------------------------------------------------------------
WORDS = "we add the two numbers then check the sum carry over and compare with the question so".split()
LEGIT = ("good_open_r1", "good_compact", "think_then_plain_answer")
HACKS = ("repeated_blocks", "nested_tags", "empty_answer", "empty_think", "no_answer_after_think",
         "trailing_text", "prose_before", "code_block", "extra_closing_tag", "answer_inside_think")
MALFORMED = ("truncated_mid_tag", "lookalike_tags", "no_tags", "unclosed_think")
CATEGORIES = LEGIT + HACKS + MALFORMED
WEIGHTS = [12] * len(LEGIT) + [4] * len(HACKS) + [4] * len(MALFORMED)


def _reasoning(rng: random.Random) -> str:
    lines = []
    for i in range(rng.randint(1, 6)):
        sentence = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 40)))
        lines.append(f"Step {i + 1}: {sentence}." if rng.random() < 0.4 else sentence.capitalize() + ".")
    return "\n".join(lines)


def _answer(rng: random.Random) -> str:
    n = rng.randint(0, 999)
    return rf"\boxed{{{n}}}" if rng.random() < 0.5 else str(n)


def make_completion(category: str, rng: random.Random) -> str:
    r, a = _reasoning(rng), _answer(rng)
    r1 = f"<think>\n{r}\n</think>\n<answer>\n{a}\n</answer>"
    if category == "good_open_r1":
        return r1
    if category == "good_compact":
        return f"<think>{r}</think>{rng.choice(['', ' ', chr(10)])}<answer>{a}</answer>"
    if category == "think_then_plain_answer":
        return f"<think>\n{r}\n</think>\nThe answer is {a}."
    if category == "repeated_blocks":
        return r1 + "\n" + f"<think>\n{_reasoning(rng)}\n</think>\n<answer>\n{_answer(rng)}\n</answer>"
    if category == "nested_tags":
        return f"<think>\n<think>\n{r}\n</think>\n</think>\n<answer>\n{a}\n</answer>"
    if category == "empty_answer":
        return f"<think>\n{r}\n</think>\n<answer>\n\n</answer>"
    if category == "empty_think":
        return f"<think>\n\n</think>\n<answer>\n{a}\n</answer>"
    if category == "no_answer_after_think":
        return f"<think>\n{r}\n</think>"
    if category == "trailing_text":
        return r1 + "\n" + " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 30)))
    if category == "prose_before":
        return "Sure, let me think about it.\n" + r1
    if category == "code_block":
        return "```\n" + r1 + "\n```"
    if category == "extra_closing_tag":
        return f"<think>\n{r}\n</think>\n{a}\n</think>"
    if category == "answer_inside_think":
        return f"<think>\n{r}\n<answer>\n{a}\n</answer>\n</think>\n<answer>\n{a}\n</answer>"
    if category == "truncated_mid_tag":
        return r1[: len(r1) - rng.randint(1, len("</answer>") - 1)]
    if category == "lookalike_tags":
        return r1.replace("think>", "th\u0456nk>")  # Cyrillic i
    if category == "no_tags":
        return f"{r}\nThe answer is {a}."
    if category == "unclosed_think":
        return f"<think>\n{r}\n<answer>\n{a}\n</answer>"
    raise ValueError(category)


def make_dataset(n: int = N, seed: int = SEED) -> tuple[list[str], list[Any]]:
    rng = random.Random(seed)
    cats = rng.choices(CATEGORIES, weights=WEIGHTS, k=n)
    return cats, [[{"role": "assistant", "content": make_completion(c, rng)}] for c in cats]


# -- the run ----------------------------------------------------------------------------------
def rewards() -> dict[str, Any]:
    from trl.rewards import think_format_reward

    import grpo_rewards_format as fmt

    return {
        "trl think_format_reward": think_format_reward,
        "ours format.think": fmt.think,
        "open-r1 format_reward (re.match)": open_r1_format,
        "open-r1 format_reward (fullmatch)": open_r1_format_fullmatch,
        "ours format.think_answer (newlines)": fmt.make_think_answer(newlines=True, metric="ta_newlines"),
        "ours format.think_answer": fmt.think_answer,
        "open-r1 tag_count_reward": open_r1_tag_count,
        "ours format.tag_count": fmt.tag_count,
    }


PAIRS = [
    ("trl think_format_reward", "ours format.think"),
    ("open-r1 format_reward (re.match)", "ours format.think_answer (newlines)"),
    ("open-r1 format_reward (fullmatch)", "ours format.think_answer (newlines)"),
    ("open-r1 tag_count_reward", "ours format.tag_count"),
]


def run(n: int, repeats: int) -> str:
    cats, completions = make_dataset(n)
    prompts = [None] * len(completions)
    funcs = rewards()
    scores: dict[str, list[float]] = {}
    seconds: dict[str, float] = {}
    for name, func in funcs.items():
        best = float("inf")
        for _ in range(repeats):
            batch = list(completions)  # a fresh list: Reward reuses results for the same list object
            started = time.perf_counter()
            values = func(prompts=prompts, completions=batch)
            best = min(best, time.perf_counter() - started)
        scores[name], seconds[name] = values, best
    counts = defaultdict(int)
    for c in cats:
        counts[c] += 1

    names = list(funcs)
    short = {name: f"({i + 1})" for i, name in enumerate(names)}
    out = [
        "# Format rewards side by side",
        "",
        f"Reproduce: `.venv/bin/python bench/bench_format.py` (n={n}, seed={SEED}, best of {repeats} timings;",
        f"Python {platform.python_version()}, {platform.machine()}, a shared 2-core machine).",
        "",
        "Each reward scores the same generated completions (conversational form). Columns:",
        "",
    ]
    out += [f"- {short[name]} {name}" for name in names]
    out += ["", "## Share of completions given full credit (1.0), by category", "",
            "| category | n | " + " | ".join(short[nm] for nm in names) + " |",
            "|---|---|" + "---|" * len(names)]
    for group, members in (("legit", LEGIT), ("hack", HACKS), ("malformed", MALFORMED)):
        for cat in members:
            idx = [i for i, c in enumerate(cats) if c == cat]
            cells = [f"{sum(scores[nm][i] == 1.0 for i in idx) / len(idx):.2f}" for nm in names]
            out.append(f"| {group}: {cat} | {len(idx)} | " + " | ".join(cells) + " |")

    out += ["", "## Hacks each reward lets through (full credit on at least one sample)", ""]
    for nm in names:
        through = [cat for cat in HACKS + MALFORMED
                   if any(scores[nm][i] == 1.0 for i, c in enumerate(cats) if c == cat)]
        out.append(f"- {nm}: {', '.join(through) if through else 'none'}")

    out += ["", "## Agreement", "", "| baseline | ours | same score (all) | same score (legit) | "
            "mean abs diff | categories where they differ |", "|---|---|---|---|---|---|"]
    for base, ours in PAIRS:
        a, b = scores[base], scores[ours]
        same = sum(x == y for x, y in zip(a, b)) / len(a)
        legit_idx = [i for i, c in enumerate(cats) if c in LEGIT]
        same_legit = sum(a[i] == b[i] for i in legit_idx) / len(legit_idx)
        diff = sum(abs(x - y) for x, y in zip(a, b)) / len(a)
        differ = sorted({cats[i] for i in range(len(a)) if a[i] != b[i]}, key=CATEGORIES.index)
        out.append(f"| {base} | {ours} | {same:.3f} | {same_legit:.3f} | {diff:.3f} | {', '.join(differ) or '-'} |")

    base_time = seconds["trl think_format_reward"]
    bare = bare_scorer_seconds(funcs, completions, repeats)
    out += ["", f"## Time for {n} completions (best of {repeats})", "",
            "| reward | seconds | ratio to TRL think_format_reward | scorer alone: seconds (ratio) |",
            "|---|---|---|---|"]
    for nm in names:
        alone = f"{bare[nm]:.4f} ({bare[nm] / base_time:.2f}x)" if nm in bare else "-"
        out.append(f"| {nm} | {seconds[nm]:.4f} | {seconds[nm] / base_time:.2f}x | {alone} |")
    out += ["", "Our rewards are timed end to end through `grpo_rewards.Reward` (text extraction, output",
            "checks, error policy, timing); the baselines are bare list comprehensions. \"Scorer alone\"",
            "times our per-sample scorer in the same kind of bare list comprehension.", ""]
    out += long_inputs(funcs, names, short)
    return "\n".join(out)


def bare_scorer_seconds(funcs: dict[str, Any], completions: list[Any], repeats: int) -> dict[str, float]:
    """Best time of ``[scorer(c[0]["content"]) for c in completions]`` for each of our rewards."""
    out = {}
    for name, func in funcs.items():
        scorer = getattr(func, "impl", None)
        if scorer is None:
            continue
        best = float("inf")
        for _ in range(repeats):
            started = time.perf_counter()
            [scorer(c[0]["content"]) for c in completions]
            best = min(best, time.perf_counter() - started)
        out[name] = best
    return out


def long_inputs(funcs: dict[str, Any], names: list[str], short: dict[str, str]) -> list[str]:
    """Seconds (and score) for single long completions: a 1 MB good one and an adversarial one."""
    good = "<think>\n" + "We add the two numbers and check. " * 30_000 + "\n</think>\n<answer>\n4\n</answer>"
    cases = [("1 MB, good layout", good)]
    for k in (1_000, 4_000):
        text = "<think>\n" + "x\n</think>\n<answer>\ny\n" * k  # many candidate block ends, none final
        cases.append((f"{len(text) // 1000} KB, repeated block ends", text))
    out = ["## Single long completions: seconds (score)", "",
           "| input | " + " | ".join(short[nm] for nm in names) + " |", "|---|" + "---|" * len(names)]
    for label, text in cases:
        cells = []
        for nm in names:
            started = time.perf_counter()
            (value,) = funcs[nm](prompts=[None], completions=[[{"role": "assistant", "content": text}]])
            cells.append(f"{time.perf_counter() - started:.4f} ({value:g})")
        out.append(f"| {label} | " + " | ".join(cells) + " |")
    return [*out, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=N)
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--out", default=str(Path(__file__).with_name("format.md")))
    args = parser.parse_args()
    report = run(args.n, args.repeats)
    out = Path(args.out)
    old = out.read_text(encoding="utf-8") if out.exists() else ""
    if NOTES_MARKER in old:  # keep the hand-written notes below the marker
        report += "\n" + old[old.index(NOTES_MARKER):]
    out.write_text(report, encoding="utf-8")
    print(report)


if __name__ == "__main__":
    main()
