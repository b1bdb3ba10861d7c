"""instructions.followed against lm-eval's IFEval checkers, side by side: verdicts and speed.

Run from the repository root in the project's venv, after ``bash bench/instructions/setup_peer.sh``:

    python bench/instructions/differential.py --generated 2000 --time 5

- Verdicts: every constraint of every case, strict and loose, ours (``read_row`` + ``follows``, what
  the rewards run) and lm-eval's (``bench/instructions/peer.py`` in the peer's venv). Cases: GPT-4's
  541 IFEval replies (tests/instructions/data/ifeval_gpt4.jsonl, mined) and ``--generated`` seeded replies
  over IFEval's rows (bench/instructions/generate.py). Rows whose arguments lm-eval replaces by a
  random draw (a letter ``#``) are set apart: there is no fixed verdict to agree with.
- Speed (``--time N``): the first 512 generated cases as one batch, strict. Ours through the reward
  (``instructions.followed.score``, the call training makes), lm-eval's checkers in its own process
  (``peer.py --serve``), each warmed by one pass, then N passes of each, alternating (ours, theirs,
  ours, ...) so that both see the same load; the median of each is reported with the share of it
  spent in language detection (langdetect in lm-eval, the package's detector in ours).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
IFEVAL_ROWS = HERE.parents[1] / "tests" / "instructions" / "data" / "ifeval_gpt4.jsonl"
sys.path.insert(0, str(HERE))

from generate import generated  # noqa: E402

from grpo_rewards_instructions import followed, text  # noqa: E402
from grpo_rewards_instructions.constraints import ConstraintError, read_row  # noqa: E402
from grpo_rewards_instructions.rewards import follows  # noqa: E402

PEER = Path(os.environ.get("INSTRUCTIONS_PEER", "/work/peers/lm-eval"))


def peer(cases: list[dict[str, Any]], time_runs: int = 0) -> dict[str, Any]:
    payload = "".join(json.dumps(c) + "\n" for c in cases)
    env = {**os.environ, "NLTK_DATA": str(PEER / "nltk_data"), "PYTHONPATH": ""}
    args = [str(PEER / "bin" / "python"), str(HERE / "peer.py"), "--time", str(time_runs)]
    done = subprocess.run(args, input=payload, capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout)


def ours(case: dict[str, Any]) -> dict[str, Any]:
    try:
        constraints = read_row(case, where=f"key {case.get('key')}")
    except ConstraintError as exc:
        return {"error": str(exc)}
    return {mode: [follows(case["response"], c, mode) for c in constraints] for mode in ("strict", "loose")}


def compare(name: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    theirs = peer(cases)["verdicts"]
    per_id: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    disagreements, set_apart = [], []
    for case, their in zip(cases, theirs):
        mine = ours(case)
        if "error" in mine or "error" in their:
            set_apart.append((case.get("key"), mine.get("error"), their.get("error")))
            continue
        for mode in ("strict", "loose"):
            for cid, a, b in zip(case["instruction_id_list"], mine[mode], their[mode]):
                per_id[cid]["same" if a == b else "different"] += 1
                if a != b:
                    disagreements.append({"key": case.get("key"), "case": case.get("case"), "mode": mode, "id": cid,
                                          "ours": a, "lm_eval": b, "response": case["response"][:160]})
    same = sum(c["same"] for c in per_id.values())
    total = same + sum(c["different"] for c in per_id.values())
    print(f"\n## {name}: {len(cases)} replies, {total} verdicts (strict + loose), {same} the same, "
          f"{total - same} different; {len(set_apart)} replies set apart")
    print("| constraint id | verdicts | different |\n|---|---|---|")
    for cid in sorted(per_id):
        print(f"| `{cid}` | {sum(per_id[cid].values())} | {per_id[cid]['different']} |")
    for key, mine_error, their_error in set_apart:
        print(f"- set apart: key {key}: ours: {mine_error}; lm-eval: {their_error or 'scored (random letter)'}")
    for d in disagreements[:20]:
        print(f"- different: {json.dumps(d)}")
    return {"total": total, "same": same, "disagreements": disagreements}


def time_both(cases: list[dict[str, Any]], runs: int) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """N timed passes of ours and N of lm-eval's, alternating; each (seconds, language seconds)."""
    columns = {"instruction_id_list": [c["instruction_id_list"] for c in cases], "kwargs": [c["kwargs"] for c in cases]}
    prompts, replies = [c["prompt"] for c in cases], [c["response"] for c in cases]
    spent = [0.0]
    detect, ahead = text.detect_language, text.detect_ahead

    def timed_detect(value: str) -> str | None:
        started = time.perf_counter()
        try:
            return detect(value)
        finally:
            spent[0] += time.perf_counter() - started

    def timed_ahead(values: list[str]) -> None:  # the reward detects a batch's texts together first
        started = time.perf_counter()
        try:
            ahead(values)
        finally:
            spent[0] += time.perf_counter() - started

    env = {**os.environ, "NLTK_DATA": str(PEER / "nltk_data"), "PYTHONPATH": ""}
    args = [str(PEER / "bin" / "python"), str(HERE / "peer.py"), "--serve"]
    theirs: list[tuple[float, float]] = []
    mine: list[tuple[float, float]] = []
    with subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps(cases) + "\n")
        proc.stdin.flush()
        followed.score(prompts=prompts, completions=replies, **columns)  # warm: imports, Punkt, profiles
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError("the peer did not start")
        text.detect_language = timed_detect  # type: ignore[assignment]
        text.detect_ahead = timed_ahead  # type: ignore[assignment]
        try:
            for _ in range(runs):
                spent[0] = 0.0
                started = time.perf_counter()
                followed.score(prompts=prompts, completions=replies, **columns)
                mine.append((time.perf_counter() - started, spent[0]))
                proc.stdin.write("time\n")
                proc.stdin.flush()
                seconds, lang = json.loads(proc.stdout.readline())
                theirs.append((seconds, lang))
        finally:
            text.detect_language = detect  # type: ignore[assignment]
            text.detect_ahead = ahead  # type: ignore[assignment]
            proc.stdin.close()
    return mine, theirs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--generated", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--time", type=int, default=0, help="time a 512-reply batch this many times")
    parser.add_argument("--time-only", action="store_true", help="skip the verdict comparisons")
    args = parser.parse_args()
    if args.time_only:
        cases = generated(args.generated, args.seed)
        time_batch(cases, args.time)
        return
    gpt4 = [json.loads(line) for line in IFEVAL_ROWS.read_text(encoding="utf-8").splitlines()]
    recorded = same = 0
    for case in gpt4:  # the original implementation's own recorded verdicts (eval_results_{strict,loose}.jsonl)
        mine = ours(case)
        for mode in ("strict", "loose"):
            recorded += len(case[mode])
            same += sum(a == b for a, b in zip(mine.get(mode, []), case[mode]))
    print(f"## GPT-4's IFEval replies against the original's recorded verdicts: {recorded} verdicts, {same} the same")
    compare("GPT-4's IFEval replies (mined)", gpt4)
    cases = generated(args.generated, args.seed)
    compare(f"generated replies (seed {args.seed})", cases)
    if args.time:
        time_batch(cases, args.time)


def time_batch(cases: list[dict[str, Any]], runs: int) -> None:
    if runs:
        batch = [c for c in cases if "error" not in ours(c)][:512]
        load = os.getloadavg()
        mine, theirs = time_both(batch, runs)
        load_after = os.getloadavg()
        m, t = statistics.median(s for s, _ in mine), statistics.median(s for s, _ in theirs)
        m_lang = statistics.median(lang / s for s, lang in mine)
        t_lang = statistics.median(lang / s for s, lang in theirs)
        print(f"\n## speed: {len(batch)} replies, strict, median of {runs} alternating "
              f"passes each after a warm pass; 1-min load average {load[0]:.2f} before, {load_after[0]:.2f} after "
              f"on {os.cpu_count()} cores")
        print("| | seconds | replies/s | language detection share |\n|---|---|---|---|")
        print(f"| instructions.followed | {m:.3f} | {len(batch) / m:,.0f} | {m_lang:.0%} |")
        print(f"| lm-eval checkers | {t:.3f} | {len(batch) / t:,.0f} | {t_lang:.0%} |")
        print(f"| ratio | {t / m:.2f}x | | |")
        print(f"runs (s, language s): ours {[(round(a, 3), round(b, 3)) for a, b in mine]}; "
              f"lm-eval {[(round(a, 3), round(b, 3)) for a, b in theirs]}")


if __name__ == "__main__":
    main()
