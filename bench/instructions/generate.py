"""Generated (row, reply) cases for the differential: rows with real constraint arguments, replies built
from seeded pieces that satisfy or break each constraint (commas, case, bullets, titles, JSON, quotes,
sections, paragraphs, postscripts, placeholders, highlights, end phrases, keywords, other languages).

Standard library only, so the peer's venv can import it too.

    python bench/instructions/generate.py --n 2000 --seed 0 > /tmp/generated.jsonl
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
IFEVAL_ROWS = HERE.parents[1] / "tests" / "instructions" / "data" / "ifeval_gpt4.jsonl"
SENTENCES = [
    "Owls hunt at night and see well in the dark.", "The river runs past the old mill.",
    "Mr. Smith went to Washington on Jan. 5th.", "It was a cold, clear morning in the garden.",
    "The U.S. team won the match, didn't it?", "We walked 3.5 miles before lunch!",
    "Bring a lantern, a map and some bread.", "This is the end of the story... or is it?",
    "Dr. Jones said the answer is 42.", "The moon rose over the silver harbour.",
]
FOREIGN = {"fr": "Les hiboux chassent la nuit et voient très bien dans le noir.",
           "de": "Die Eulen jagen in der Nacht und sehen sehr gut im Dunkeln.",
           "es": "Los búhos cazan de noche y ven muy bien en la oscuridad.",
           "it": "I gufi cacciano di notte e vedono molto bene al buio."}


def _body(rng: random.Random) -> str:
    sentences = [rng.choice(SENTENCES) for _ in range(rng.randint(1, 12))]
    if rng.random() < 0.15:
        return " ".join(FOREIGN[rng.choice(sorted(FOREIGN))] for _ in range(rng.randint(1, 4)))
    sep = rng.choice([" ", " ", "\n", "\n\n", "\n***\n"])
    return sep.join(sentences)


def _decorate(text: str, rng: random.Random, row: dict[str, Any]) -> str:
    """Pieces that satisfy (or nearly satisfy) the constraints a row may carry."""
    pieces = [text]
    if rng.random() < 0.3:
        pieces = ["<<" + rng.choice(["Owls", " ", "A Night Walk"]) + ">>", *pieces]
    if rng.random() < 0.3:
        pieces.append("\n".join(rng.choice(["* ", "- ", "*", "  * "]) + rng.choice(SENTENCES)
                                for _ in range(rng.randint(1, 5))))
    if rng.random() < 0.25:
        pieces.append(" ".join(f"*{rng.choice(['key idea', 'note', ' '])}*" for _ in range(rng.randint(1, 4))))
    if rng.random() < 0.2:
        pieces.append(" ".join(f"[{w}]" for w in rng.sample(["name", "address", "date", "city"], rng.randint(1, 3))))
    if rng.random() < 0.2:
        pieces = [f"{rng.choice(['SECTION', 'Section'])} {i + 1}\n{p}" for i, p in enumerate(pieces)]
    if rng.random() < 0.2:
        pieces.append(rng.choice(["P.S. see you soon.", "P.P.S thanks", "p. s. bye", "PS: later"]))
    for kwargs in row.get("kwargs") or []:
        for key in ("keywords", "forbidden_words"):
            if kwargs.get(key) and rng.random() < 0.5:
                pieces.append(" ".join(kwargs[key]))
        if kwargs.get("keyword") and rng.random() < 0.5:
            pieces.append(" ".join([kwargs["keyword"]] * rng.randint(1, 5)))
        if kwargs.get("end_phrase") and rng.random() < 0.5:
            pieces.append(kwargs["end_phrase"])
        if kwargs.get("prompt_to_repeat") and rng.random() < 0.5:
            pieces.insert(0, kwargs["prompt_to_repeat"])
        if kwargs.get("first_word") and rng.random() < 0.5:
            pieces.insert(0, kwargs["first_word"].capitalize() + " is where it starts.")
    reply = "\n\n".join(pieces)
    roll = rng.random()
    if roll < 0.12:
        reply = reply.upper()
    elif roll < 0.24:
        reply = reply.lower()
    elif roll < 0.30:
        reply = reply.replace(",", "")
    if rng.random() < 0.1:
        reply = json.dumps({"answer": reply}) if rng.random() < 0.7 else "```json\n" + json.dumps([reply]) + "\n```"
    if rng.random() < 0.1:
        reply = f'"{reply}"'
    if rng.random() < 0.05:
        reply = reply + "\n******\n" + rng.choice([reply, _body(rng)])
    if rng.random() < 0.1:
        reply = "Sure! Here is my answer:\n" + reply
    return reply


def generated(n: int, seed: int) -> list[dict[str, Any]]:
    """``n`` cases over IFEval's own rows (tests/instructions/data/ifeval_gpt4.jsonl: the published kwargs)."""
    rows = [json.loads(line) for line in IFEVAL_ROWS.read_text(encoding="utf-8").splitlines()]
    rng = random.Random(f"instructions-bench:{seed}")
    cases = []
    for i in range(n):
        row = rows[rng.randrange(len(rows))]
        cases.append({"case": i, "key": row["key"], "prompt": row["prompt"],
                      "instruction_id_list": row["instruction_id_list"], "kwargs": row["kwargs"],
                      "response": _decorate(_body(rng), rng, row)})
    return cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    for case in generated(args.n, args.seed):
        sys.stdout.write(json.dumps(case) + "\n")


if __name__ == "__main__":
    main()
