"""Fuzz every discovered reward with many more examples than the test suite; record inputs tried and the slowest.

The same strategies and checks as ``tests/hardening/test_fuzz_rewards.py`` (tests/hardening/fuzz_inputs.py):
random unicode and LaTeX from a grammar, mutations of real completions, and huge (10 kB to 1 MB)
inputs, in both completion formats, with the columns rewards read filled in. Each call runs under a
watchdog; exceptions other than documented contract errors, non-float values, values out of the
declared range and non-deterministic results are failures. Results go to ``bench/fuzz.md``.

    .venv/bin/python bench/bench_fuzz.py                      # 400 batches per reward and family
    .venv/bin/python bench/bench_fuzz.py --examples 50 --only math.accuracy --out /tmp/fuzz.md
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "hardening"))

import fuzz_inputs as fi  # noqa: E402
from hypothesis import HealthCheck, given, seed, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

FAMILIES = {
    "random": (lambda: fi.completions_of(fi.texts), 1.0),
    "mutated": (lambda: fi.completions_of(st.one_of(fi.mutations(), fi.latex_answers)), 1.0),
    "huge": (lambda: fi.completions_of(st.one_of(fi.huge, fi.texts), max_size=2), 0.1),
}


class Record:
    def __init__(self) -> None:
        self.batches = 0
        self.inputs = 0
        self.contract = 0
        self.times: list[float] = []
        self.slowest = (0.0, "")  # (seconds of its batch, family)
        self.slowest_batch: tuple[list[Any], dict[str, list[Any]], bool] | None = None
        self.slowest_input = (0.0, "")  # (seconds alone, repr of the text)
        self.failures: list[str] = []


def _short(text: str | None, limit: int = 60) -> str:
    shown = repr(text)
    return shown if len(shown) <= limit else f"{shown[:limit]}… ({len(text or ''):,} chars)"


def _clear_caches() -> None:
    try:
        from grpo_rewards_math.correctness import clear_cache
    except ImportError:
        return
    clear_cache()


def slowest_input(reward: Any, record: Record) -> None:
    """Re-time each completion of the slowest batch alone (result caches cleared): the slowest input."""
    from grpo_rewards import completion_text

    if record.slowest_batch is None:
        return
    completions, columns, with_ids = record.slowest_batch
    for i, completion in enumerate(completions):
        _clear_caches()
        timings: list[float] = []
        fi.call_reward(reward, [completion], {k: [v[i]] for k, v in columns.items()}, with_ids, timings)
        if timings[0] >= record.slowest_input[0]:
            record.slowest_input = (timings[0], _short(completion_text(completion)))


def _run_family(reward: Any, info: Any, extra: tuple[Any, ...], record: Record, family: str,
                batches: Any, examples: int, rng_seed: int) -> None:
    @seed(rng_seed)
    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data: Any) -> None:
        completions = data.draw(batches)
        n = len(completions)
        columns = {c: data.draw(st.lists(fi.COLUMN_VALUES[c], min_size=n, max_size=n)) for c in reward.columns}
        timings: list[float] = []
        with_ids = data.draw(st.booleans())
        values = fi.call_reward(reward, completions, columns, with_ids, timings)
        record.batches += 1
        record.inputs += n
        record.times.append(timings[0])
        if timings[0] > record.slowest[0]:
            record.slowest = (timings[0], family)
            record.slowest_batch = (completions, columns, with_ids)
        if values == "contract":
            record.contract += 1
        else:
            assert fi.in_range(values, info.output_range, extra), (values, info.output_range)

    run()


def fuzz_one(registry: Any, name: str, examples: int, rng_seed: int) -> Record:
    reward = fi.build_reward(registry, name)
    info = registry.reward(name)
    extra = tuple(v for v in (reward.options.invalid_value, reward.options.error_value, reward.options.too_large_value,
                              reward.options.timeout_value) if v is not None)
    record = Record()
    for family, (make, share) in FAMILIES.items():
        try:
            _run_family(reward, info, extra, record, family, make(), max(1, int(examples * share)), rng_seed)
        except Exception as exc:  # hypothesis re-raises the shrunk failure
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
            record.failures.append(f"{family}: {type(exc).__name__}: {first[:200]}")
    slowest_input(reward, record)
    return record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=400, help="batches per reward for each family (huge: 10%%)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", nargs="*", help="reward names (default: every discovered reward)")
    parser.add_argument("--out", default=str(ROOT / "bench" / "fuzz.md"))
    args = parser.parse_args(argv)

    from grpo_rewards import load_registry

    registry = load_registry()
    names = args.only or sorted(registry.rewards)
    started = time.perf_counter()
    rows = []
    for name in names:
        t0 = time.perf_counter()
        record = fuzz_one(registry, name, args.examples, args.seed)
        rows.append((name, record))
        print(f"{name:<26} {record.batches:>5} batches {record.inputs:>6} inputs "
              f"slowest {record.slowest[0]:.3f} s failures {len(record.failures)} ({time.perf_counter() - t0:.0f} s)",
              flush=True)
    total = time.perf_counter() - started
    plugins = ", ".join(f"{r.distribution} {r.version}" for r in registry.records.values() if r.distribution)
    lines = [
        "# Fuzzing every reward (`bench/bench_fuzz.py`)",
        "",
        "Reproduce (from the repository root, in the project's venv):",
        "",
        "```bash",
        f"python bench/bench_fuzz.py --examples {args.examples} --seed {args.seed}",
        "```",
        "",
        f"Every reward discovered by `load_registry()` ({plugins}), with default parameters "
        "(`format.regex`: the pattern from `REQUIRED_PARAMS` in tests/hardening/fuzz_inputs.py), fed by hypothesis "
        f"(seed {args.seed}): {args.examples} batches of 1–4 completions of random unicode (lone surrogates too) / LaTeX from a grammar / "
        f"edge strings, {args.examples} of mutated real completions and LaTeX answers, {max(1, args.examples // 10)} "
        "with huge inputs (10 kB – 1 MB from one repeated unit), each completion a string or a conversation (one in "
        "four an unreadable or unusual one: None, a number, bytes, a dict, multimodal parts, tool calls), the "
        "`solution`/`correct` columns filled, token ids given in half the batches (rewards in tokens raise the documented "
        "contract error without them). Checked on every batch: no exception except that contract error, one "
        "finite float or None per completion inside the declared range, the same values on a second call with "
        "fresh copies, and no call over the 30 s watchdog.",
        "",
        f"Python {platform.python_version()}, {platform.machine()}, shared 2-core machine; total {total:.0f} s. "
        "Times are of one (first) call of the batch, end to end through the reward as TRL calls it.",
        "",
        "| reward | batches | completions | contract errors | failures | median ms per batch | slowest batch s "
        "(family) | slowest input of that batch, alone: s | its text |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rows:
        median = statistics.median(r.times) * 1000 if r.times else 0.0
        slow = r.slowest_input[1].replace("|", "\\|").replace("`", "'")
        lines.append(f"| {name} | {r.batches} | {r.inputs} | {r.contract} | {len(r.failures)} | {median:.2f} | "
                     f"{r.slowest[0]:.3f} ({r.slowest[1]}) | {r.slowest_input[0]:.3f} | `{slow}` |")
    failures = [(name, f) for name, r in rows for f in r.failures]
    lines += ["", "## Failures", ""]
    lines += [f"- {name}: {f}" for name, f in failures] or ["None."]
    Path(args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {args.out} in {total:.0f} s")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
