"""Run IFBench's own checkers on cases (JSONL on stdin: ``id``, ``kwargs``, ``response``); verdicts on stdout.

Runs in IFBench's venv (bench/instructions/setup_ifbench_peer.sh), never the project's:

    NLTK_DATA=/work/peers/lm-eval/nltk_data PYTHONPATH=/work/peers/ifbench/src \\
        /work/peers/ifbench/bin/python bench/instructions/ifbench_peer.py < cases.jsonl

Each verdict is ``check_following``'s (True/False), or ``"raised <Type>"`` where it raises.
"""

from __future__ import annotations

import json
import sys

from ifbench import instructions_registry


def main() -> None:
    verdicts = []
    for line in sys.stdin:
        case = json.loads(line)
        checker = instructions_registry.INSTRUCTION_DICT[case["id"]](case["id"])
        checker.build_description(**case["kwargs"])
        try:
            verdicts.append(bool(checker.check_following(case["response"])))
        except Exception as exc:  # the peer's failure: a verdict to compare
            verdicts.append(f"raised {type(exc).__name__}")
    json.dump(verdicts, sys.stdout)


if __name__ == "__main__":
    main()
