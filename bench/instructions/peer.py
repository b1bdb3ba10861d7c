"""Run lm-eval's IFEval checkers on cases (JSONL on stdin); verdicts and timings as JSON on stdout.

Runs in the peer's venv (bench/instructions/setup_peer.sh), never the project's:

    NLTK_DATA=/work/peers/lm-eval/nltk_data /work/peers/lm-eval/bin/python bench/instructions/peer.py < cases.jsonl

Each case is scored as lm-eval scores a document (``test_instruction_following_strict`` and
``_loose``). langdetect is seeded (``DetectorFactory.seed = 0``) as the project seeds its own
detector; unseeded, lm-eval's verdict on a borderline text can change between runs. ``--time N``
also times the strict pass over the cases N times (after one warm pass) and the share spent in
``langdetect.detect``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
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
    args = parser.parse_args()
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
        spent = [0.0]
        detect = langdetect.detect

        def timed_detect(text: str) -> str:
            started = time.perf_counter()
            try:
                return detect(text)
            finally:
                spent[0] += time.perf_counter() - started

        lm_instructions.langdetect.detect = timed_detect  # the module the checkers call through
        runs = []
        for _ in range(args.time):
            spent[0] = 0.0
            started = time.perf_counter()
            for case in cases:
                utils.test_instruction_following_strict(_input(case), case["response"])
            runs.append((time.perf_counter() - started, spent[0]))
        out["timings"] = runs
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
