"""Length rewards side by side with TRL's own, on the same batch: agreement and time per 1,000.

Run by hand (results go into bench/length.md):

    python bench/bench_length.py            # 1,000 completions, prints a markdown report
    python bench/bench_length.py --n 200 --repeats 3   # quicker

Compares ``length.soft_overlong`` with ``trl.rewards.get_soft_overlong_punishment`` and
``length.cosine`` with ``trl.rewards.get_cosine_scaled_reward``. TRL's cosine reward computes
correctness itself with math-verify on every call; ours reads it from another reward's result,
so the cosine rows compare (a) the length scaling alone, given the same correctness, and (b) the
pair "accuracy + cosine" as a training step runs it (TRL: two math-verify passes; ours: one).
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

MAX_LENGTH = 1024
BUFFER = 256


def make_batch(n: int, seed: int = 0) -> dict[str, Any]:
    """Conversational completions (TRL's cosine reads ``completion[0]["content"]``) with token ids."""
    rng = random.Random(seed)
    edges = [0, 1, MAX_LENGTH - BUFFER, MAX_LENGTH - BUFFER + 1, MAX_LENGTH - 1, MAX_LENGTH, MAX_LENGTH + 1,
             2 * MAX_LENGTH, 3 * MAX_LENGTH]
    lengths = (edges + [rng.randint(0, int(1.5 * MAX_LENGTH)) for _ in range(n)])[:n]
    completions, solutions, ids, prompts = [], [], [], []
    for i, length in enumerate(lengths):
        a, b = rng.randint(2, 99), rng.randint(2, 99)
        answer = a + b if rng.random() < 0.5 else a + b + 1
        filler = "Adding the two numbers step by step. " * rng.randint(0, 20)
        completions.append([{"role": "assistant", "content": f"{filler}The answer is $\\boxed{{{answer}}}$."}])
        # one gold in twenty cannot be parsed: TRL's accuracy (and so both cosine rewards) give None
        solutions.append("no number here" if i % 20 == 19 else f"${a + b}$")
        ids.append(list(range(length)))
        prompts.append([{"role": "user", "content": f"What is {a} + {b}?"}])
    return {"prompts": prompts, "completions": completions, "solution": solutions, "completion_ids": ids}


def per_thousand(func: Callable[[], Any], n: int, repeats: int) -> float:
    """Median seconds of ``func()`` scaled to 1,000 completions, in milliseconds."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        func()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000.0 * 1000 / n


def agreement(ours: list[Any], theirs: list[Any]) -> tuple[int, float]:
    """(number of identical values, largest absolute difference among the numeric ones)."""
    same = sum(1 for a, b in zip(ours, theirs) if a == b or (a is None and b is None))
    diffs = [abs(a - b) for a, b in zip(ours, theirs) if a is not None and b is not None]
    return same, max(diffs, default=0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="completions in the batch")
    parser.add_argument("--repeats", type=int, default=5, help="timed repeats (median reported)")
    args = parser.parse_args()
    n, repeats = args.n, args.repeats

    import trl
    import trl.rewards.accuracy_rewards as trl_accuracy
    from trl.rewards import get_soft_overlong_punishment

    from grpo_rewards import Reward
    from grpo_rewards_length import CosineLength, SoftOverlong, make_cosine, make_soft_overlong

    batch = make_batch(n)
    prompts, completions, ids, solution = (batch["prompts"], batch["completions"], batch["completion_ids"],
                                           batch["solution"])
    rows: list[tuple[str, float, float, str]] = []
    lines: list[str] = []

    # -- soft overlong ---------------------------------------------------------------------------
    trl_overlong = get_soft_overlong_punishment(max_completion_len=MAX_LENGTH, soft_punish_cache=BUFFER)
    ours_overlong = make_soft_overlong(max_length=MAX_LENGTH, buffer=BUFFER)
    scorer = SoftOverlong(max_length=MAX_LENGTH, buffer=BUFFER)
    theirs = trl_overlong(completion_ids=ids)
    ours = ours_overlong(prompts=prompts, completions=list(completions), completion_ids=ids)
    same, worst = agreement(ours, theirs)
    lines.append(f"| soft overlong | {same} / {n} identical | largest difference {worst:g} |")
    t_trl = per_thousand(lambda: trl_overlong(completion_ids=ids), n, repeats * 4)
    t_ours = per_thousand(lambda: ours_overlong(prompts=prompts, completions=list(completions), completion_ids=ids),
                          n, repeats * 4)
    t_scorer = per_thousand(lambda: [scorer("x", completion_ids=i) for i in ids], n, repeats * 4)
    rows.append(("soft overlong: TRL `get_soft_overlong_punishment`", t_trl, 1.0, "baseline"))
    rows.append(("soft overlong: `length.soft_overlong` (Reward: text, rows, checks)", t_ours, t_ours / t_trl, ""))
    rows.append(("soft overlong: `SoftOverlong` scorer alone (formula only)", t_scorer, t_scorer / t_trl, ""))

    # -- cosine ----------------------------------------------------------------------------------
    trl_cosine = trl_accuracy.get_cosine_scaled_reward(max_len=MAX_LENGTH)
    correct = trl_accuracy.accuracy_reward(completions, solution)
    theirs = trl_cosine(completions, solution, ids)
    ours_cosine = make_cosine(max_length=MAX_LENGTH)
    ours = ours_cosine(prompts=prompts, completions=list(completions), completion_ids=ids, correct=correct)
    same, worst = agreement(ours, theirs)
    nones = sum(v is None for v in ours)
    lines.append(f"| cosine (same correctness) | {same} / {n} identical ({nones} None in both) | "
                 f"largest difference {worst:g} |")

    t_acc = per_thousand(lambda: trl_accuracy.accuracy_reward(completions, solution), n, repeats)
    t_trl_cos = per_thousand(lambda: trl_cosine(completions, solution, ids), n, repeats)
    t_ours_cos = per_thousand(
        lambda: ours_cosine(prompts=prompts, completions=list(completions), completion_ids=ids, correct=correct),
        n, repeats * 4)
    cos_scorer = CosineLength(max_length=MAX_LENGTH)
    t_cos_scorer = per_thousand(lambda: [cos_scorer("x", completion_ids=i, correct=c) for i, c in zip(ids, correct)],
                                n, repeats * 4)
    # TRL's length scaling alone: its accuracy_reward swapped for the precomputed correctness
    original = trl_accuracy.accuracy_reward
    trl_accuracy.accuracy_reward = lambda completions, solution, **kwargs: list(correct)
    try:
        t_trl_scaling = per_thousand(lambda: trl_cosine(completions, solution, ids), n, repeats * 4)
    finally:
        trl_accuracy.accuracy_reward = original
    rows.append(("cosine: TRL `get_cosine_scaled_reward` (math-verify inside)", t_trl_cos, 1.0, "baseline"))
    rows.append(("cosine: TRL `accuracy_reward` alone (math-verify)", t_acc, t_acc / t_trl_cos, ""))
    rows.append(("cosine: TRL's length scaling alone (accuracy precomputed)", t_trl_scaling, 1.0, "baseline"))
    rows.append(("cosine: `length.cosine` given correctness (Reward)", t_ours_cos, t_ours_cos / t_trl_scaling,
                 "vs scaling alone"))
    rows.append(("cosine: `CosineLength` scorer alone (formula only)", t_cos_scorer, t_cos_scorer / t_trl_scaling,
                 "vs scaling alone"))

    # -- a training step that logs accuracy and uses cosine -------------------------------------
    def trl_pair() -> None:
        trl_accuracy.accuracy_reward(completions, solution)
        trl_cosine(completions, solution, ids)

    accuracy = Reward(trl_accuracy.accuracy_reward, metric="accuracy", form="batch")
    paired = make_cosine(max_length=MAX_LENGTH, correctness=accuracy)

    def ours_pair() -> None:
        step = list(completions)  # one list per step, as TRL passes to every reward
        accuracy(prompts=prompts, completions=step, completion_ids=ids, solution=solution)
        paired(prompts=prompts, completions=step, completion_ids=ids, solution=solution)

    step = list(completions)
    pair_values = paired(prompts=prompts, completions=step, completion_ids=ids, solution=solution)
    same, _ = agreement(pair_values, theirs)
    lines.append(f"| cosine fed by a wrapped `accuracy_reward` (`correctness=`) | {same} / {n} identical | |")
    t_trl_pair = per_thousand(trl_pair, n, repeats)
    t_ours_pair = per_thousand(ours_pair, n, repeats)
    rows.append(("step: TRL `accuracy_reward` + `get_cosine_scaled_reward`", t_trl_pair, 1.0, "baseline"))
    rows.append(("step: accuracy + `length.cosine` with `correctness=accuracy`", t_ours_pair,
                 t_ours_pair / t_trl_pair, "math-verify runs once"))

    print(f"TRL {trl.__version__}, Python {platform.python_version()}, {platform.machine()}, "
          f"n={n}, max_length={MAX_LENGTH}, buffer={BUFFER}, median of {repeats} (x4 for the cheap rows)\n")
    print("| reward | agreement | |\n|---|---|---|")
    print("\n".join(lines))
    print("\n| what | ms per 1,000 completions | ratio to the TRL baseline above it | note |\n|---|---:|---:|---|")
    for label, ms, ratio, note in rows:
        print(f"| {label} | {ms:.3f} | {ratio:.3g} | {note} |")


if __name__ == "__main__":
    main()
