"""IFBench's checkers for ``format:emoji``, ``words:odd_even_syllables`` and ``format:line_indent``
beside this package's, on real and generated replies: every verdict compared.

Run from the repository root in the project's venv, after ``bash bench/instructions/setup_ifbench_peer.sh``:

    python bench/instructions/ifbench_differential.py --generated 3000

- Real replies: the 294 model responses of allenai/IFBench ``data/sample_output.jsonl`` at
  db69a6f0 (read from a checkout, ``--ifbench``), each as written and in variants that push it
  toward the rule (its lines indented as stairs, with blank lines; an emoji before each full stop;
  runs of 2 to 6 of its words for the syllables).
- Generated: ``--generated`` seeded strings over emoji (with ZWJ, skin tones, variation selectors,
  flags), letters, digits, punctuation, spaces, tabs and newlines.

``ratio:stop_words`` and ``words:start_verb`` are not compared: offline the peer has neither
NLTK's stop-word corpus nor its POS tagger (it raises). Prints the counts and every disagreement.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

from grpo_rewards_instructions.constraints import make_constraint

HERE = Path(__file__).resolve().parent
PEER = Path(os.environ.get("IFBENCH_PEER", "/work/peers/ifbench"))
IDS = ("format:emoji", "words:odd_even_syllables", "format:line_indent")
COMMIT = "db69a6f0"
ALPHABET = ["🦉", "😀", "👍🏽", "👨\u200d👩\u200d👧", "❤\ufe0f", "🇫🇷", "©", "#", "\u200d", "\ufe0f", "🏻",
            *"abcxyzAEIOU owl banana.,!?;:'-\"", "  ", "\n", "\n\n", "\t", "42", "é", "ß"]


def real_replies(checkout: Path) -> list[str]:
    raw = subprocess.run(["git", "-C", str(checkout), "show", f"{COMMIT}:data/sample_output.jsonl"],
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line)["response"] for line in raw.splitlines() if line.strip()]


def variants(reply: str, rng: random.Random) -> list[tuple[str, str]]:
    lines = [line.strip() for line in reply.split("\n")]
    stairs = "\n".join(" " * i + line for i, line in enumerate(lines))
    blanks = "\n".join(" " * i + line + ("\n" * rng.randint(0, 2)) for i, line in enumerate(lines))
    words = reply.split()
    start = rng.randrange(max(1, len(words)))
    run = " ".join(words[start:start + rng.randint(2, 6)])
    return [("format:line_indent", reply), ("format:line_indent", stairs), ("format:line_indent", blanks),
            ("format:emoji", reply), ("format:emoji", reply.replace(". ", " 🦉. ")),
            ("format:emoji", reply.replace(". ", ". 🦉 ")),
            ("words:odd_even_syllables", reply), ("words:odd_even_syllables", run)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ifbench", type=Path, default=Path("/work/.mirror/allenai+IFBench/repo"),
                        help="a git checkout (or bare clone) of allenai/IFBench")
    parser.add_argument("--generated", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cases = [(cid, text, "real") for reply in real_replies(args.ifbench) for cid, text in variants(reply, rng)]
    for _ in range(args.generated):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 40)))
        cases += [(cid, text, "generated") for cid in IDS]
    payload = "".join(json.dumps({"id": cid, "kwargs": {}, "response": text}) + "\n" for cid, text, _ in cases)
    env = {**os.environ, "NLTK_DATA": os.environ.get("NLTK_DATA", "/work/peers/lm-eval/nltk_data"),
           "PYTHONPATH": str(PEER / "src")}
    done = subprocess.run([str(PEER / "bin" / "python"), str(HERE / "ifbench_peer.py")], input=payload,
                          capture_output=True, text=True, env=env, check=True)
    theirs = json.loads(done.stdout)
    counts: dict[tuple[str, str], list[int]] = {}
    different = []
    for (cid, text, kind), their in zip(cases, theirs):
        ours = make_constraint(cid, {}).check(text)
        tally = counts.setdefault((cid, kind), [0, 0, 0])  # cases, same verdict, followed (ours)
        tally[0] += 1
        tally[1] += ours is their
        tally[2] += ours
        if ours is not their:
            different.append((cid, kind, text[:80], ours, their))
    print("| id | replies | cases | same verdict | followed |")
    print("| --- | --- | --- | --- | --- |")
    for (cid, kind), (n, same, followed) in sorted(counts.items()):
        print(f"| `{cid}` | {kind} | {n} | {same} | {followed} |")
    for row in different:
        print("DIFFERENT", row)
    sys.exit(1 if different else 0)


if __name__ == "__main__":
    main()
