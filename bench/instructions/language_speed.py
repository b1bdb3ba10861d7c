"""langdetect's ``Detector`` against the package's port of it (``grpo_rewards_instructions.language``).

Run from the repository root in the project's venv (langdetect is a dependency of the package):

    python bench/instructions/language_speed.py --passes 5

Texts: every text the 512-reply batch of ``differential.py --time`` sends to language detection
(strict), and the first 200 generated replies. Both detectors seeded with 0; passes alternate
(langdetect, ours, langdetect, ...) so that both see the same load; every pass also checks that the
two give the same probabilities, float for float.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import generated  # noqa: E402
from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory  # noqa: E402
from langdetect.lang_detect_exception import LangDetectException  # noqa: E402

from grpo_rewards_instructions import language, text  # noqa: E402
from grpo_rewards_instructions.constraints import ConstraintError, read_row  # noqa: E402
from grpo_rewards_instructions.rewards import follows  # noqa: E402


def batch_texts(cases: list[dict[str, Any]]) -> list[str]:
    """The texts the strict checks of the first 512 readable cases send to ``detect_language``."""
    seen: list[str] = []
    detect = text.detect_language

    def spy(value: str) -> str | None:
        seen.append(value)
        return detect(value)

    text.detect_language = spy  # type: ignore[assignment]
    try:
        readable = 0
        for case in cases:
            try:
                constraints = read_row(case, where="case")
            except ConstraintError:
                continue
            readable += 1
            for constraint in constraints:
                follows(case["response"], constraint, "strict")
            if readable == 512:
                break
    finally:
        text.detect_language = detect  # type: ignore[assignment]
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--passes", type=int, default=5)
    args = parser.parse_args()
    cases = generated(2000, 0)
    sets = {"batch's language texts": batch_texts(cases), "200 generated replies": [c["response"] for c in cases[:200]]}
    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    factory.set_seed(0)

    def theirs(values: list[str]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            detector = factory.create()
            detector.append(value)
            try:
                out.append([(str(p.lang), p.prob) for p in detector.get_probabilities()])
            except LangDetectException:
                out.append(None)
        return out

    def ours(values: list[str]) -> list[Any]:
        out: list[Any] = []
        for value in values:
            try:
                out.append(language.probabilities(value, 0))
            except language.NoFeatures:
                out.append(None)
        return out

    ours(["warm the profiles"])
    load = os.getloadavg()[0]
    print(f"load average {load:.2f} on {os.cpu_count()} cores; {args.passes} alternating passes each, medians")
    print("| texts | langdetect s | ours s | ratio | same probabilities |\n|---|---|---|---|---|")
    for name, values in sets.items():
        spent: dict[str, list[float]] = {"theirs": [], "ours": []}
        same = True
        for _ in range(args.passes):
            started = time.perf_counter()
            a = theirs(values)
            spent["theirs"].append(time.perf_counter() - started)
            started = time.perf_counter()
            b = ours(values)
            spent["ours"].append(time.perf_counter() - started)
            same = same and a == b
        t, o = statistics.median(spent["theirs"]), statistics.median(spent["ours"])
        print(f"| {name} ({len(values)}) | {t:.3f} | {o:.3f} | {t / o:.2f}x | {same} |")


if __name__ == "__main__":
    main()
