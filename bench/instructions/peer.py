"""Run lm-eval's IFEval checkers on cases (JSONL on stdin); verdicts and timings as JSON on stdout.

Runs in the peer's venv (bench/instructions/setup_peer.sh), never the project's:

    NLTK_DATA=/work/peers/lm-eval/nltk_data /work/peers/lm-eval/bin/python bench/instructions/peer.py < cases.jsonl

Each case is scored as lm-eval scores a document (``test_instruction_following_strict`` and
``_loose``). langdetect is seeded (``DetectorFactory.seed = 0``) as the project seeds its own
detector; unseeded, lm-eval's verdict on a borderline text can change between runs. ``--time N``
also times the strict pass over the cases N times (after one warm pass) and the share spent in
``langdetect.detect``. ``--serve`` (what ``differential.py --time`` uses, so that the two sides'
passes alternate in one run): after the verdicts line, each line ``time`` on stdin runs one timed
strict pass and answers ``[seconds, language seconds]`` on a line of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("NLTK_DATA", str(Path(sys.executable).resolve().parents[1] / "nltk_data"))

import langdetect
from langdetect import DetectorFactory
from lm_eval.tasks.ifeval import instructions as lm_instructions
from lm_eval.tasks.ifeval import utils

DetectorFactory.seed = 0


def _input(case: dict) -> utils.InputExample:
    return utils.InputExample(key=case.get("key", 0), instruction_id_list=case["instruction_id_list"],
                              prompt=case["prompt"], kwargs=case["kwargs"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--time", type=int, default=0, help="time the strict pass this many times")
    parser.add_argument("--serve", action="store_true", help="answer each `time` line with one timed pass")
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    cases = [json.loads(line) for line in sys.stdin if line.strip()]
    out: dict = {"verdicts": []}
    for case in cases:
        try:
            strict = utils.test_instruction_following_strict(_input(case), case["response"]).follow_instruction_list
            loose = utils.test_instruction_following_loose(_input(case), case["response"]).follow_instruction_list
            out["verdicts"].append({"strict": strict, "loose": loose})
        except Exception as exc:  # lm-eval raises on some inputs: recorded, not fatal
            out["verdicts"].append({"error": f"{type(exc).__name__}: {exc}"[:200]})
    if args.time:
        timed = _timed_pass(cases)
        out["timings"] = [timed() for _ in range(args.time)]
    json.dump(out, sys.stdout)


def _timed_pass(cases: list[dict]) -> Callable[[], tuple[float, float]]:
    spent = [0.0]
    detect = langdetect.detect

    def timed_detect(text: str) -> str:
        started = time.perf_counter()
        try:
            return detect(text)
        finally:
            spent[0] += time.perf_counter() - started

    lm_instructions.langdetect.detect = timed_detect  # the module the checkers call through

    def one() -> tuple[float, float]:
        spent[0] = 0.0
        started = time.perf_counter()
        for case in cases:
            utils.test_instruction_following_strict(_input(case), case["response"])
        return time.perf_counter() - started, spent[0]

    return one


def serve() -> None:
    """The cases on the first line (a JSON list), then one timed strict pass per ``time`` line."""
    cases = json.loads(sys.stdin.readline())
    timed = _timed_pass(cases)
    timed()  # warm
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() == "time":
            print(json.dumps(timed()), flush=True)


if __name__ == "__main__":
    main()
