"""Where ``instructions.followed``'s time goes on the speed batch of ``differential.py``, part by part.

Run from the repository root in the project's venv (no peer needed):

    python bench/instructions/parts.py

Each part is timed alone over the texts the batch gives it (best of N passes): language detection
one text at a time and together (``language.detect_many``), Punkt (ours and NLTK's own), the Treebank
tokens, reading the rows; then the reward itself with and without detecting the batch's texts ahead,
alternating in one process. Nothing here is a test: the figures go into bench/instructions.md.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from differential import ours
from generate import generated
from nltk.tokenize.punkt import PunktSentenceTokenizer

from grpo_rewards_instructions import followed, language, text
from grpo_rewards_instructions.constraints import read_row


def best(work: Callable[[], Any], passes: int = 7) -> float:
    times = []
    for _ in range(passes):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    batch = [c for c in generated(2000, 0) if "error" not in ours(c)][:512]

    def using(*ids: str) -> list[str]:
        return [c["response"] for c in batch if any(i in c["instruction_id_list"] for i in ids)]

    detected = using("language:response_language")
    split = using("length_constraints:number_sentences", "change_case:capital_word_frequency")
    tokenised = using("change_case:capital_word_frequency")
    punkt, nltk = text._punkt(), PunktSentenceTokenizer(text._punkt()._params)
    sentences = [s for r in tokenised for s in punkt.tokenize(r)]
    treebank = text._word_tokenizer()
    print("| part | texts | seconds (best) |\n|---|---|---|")
    print(f"| language, one text at a time | {len(detected)} | {best(lambda: [language.detect(t, 0) for t in detected], 3):.4f} |")
    print(f"| language, together (detect_many) | {len(detected)} | {best(lambda: language.detect_many(detected, 0), 3):.4f} |")
    print(f"| language: n-grams only | {len(detected)} | {best(lambda: [language.ngrams(language.prepare(t)) for t in detected]):.4f} |")
    print(f"| Punkt, ours | {len(split)} | {best(lambda: [punkt.tokenize(r) for r in split]):.4f} |")
    print(f"| Punkt, NLTK's | {len(split)} | {best(lambda: [nltk.tokenize(r) for r in split]):.4f} |")
    print(f"| Treebank tokens | {len(tokenised)} | {best(lambda: [treebank.tokenize(s) for s in sentences]):.4f} |")
    print(f"| reading the rows | {len(batch)} | {best(lambda: [read_row(c) for c in batch]):.4f} |")
    columns = {"instruction_id_list": [c["instruction_id_list"] for c in batch], "kwargs": [c["kwargs"] for c in batch]}
    replies = [c["response"] for c in batch]
    ahead = text.detect_ahead

    def reward() -> float:
        started = time.perf_counter()
        followed.score(prompts=[None] * len(replies), completions=replies, **columns)
        return time.perf_counter() - started

    reward()
    with_ahead, without = [], []
    for _ in range(9):
        text.detect_ahead = ahead  # type: ignore[assignment]
        with_ahead.append(reward())
        text.detect_ahead = lambda texts: None  # type: ignore[assignment]
        without.append(reward())
    text.detect_ahead = ahead  # type: ignore[assignment]
    print(f"\nthe reward on {len(replies)} replies, medians of 9 alternating: detecting ahead "
          f"{statistics.median(with_ahead):.4f} s, one text at a time {statistics.median(without):.4f} s")


if __name__ == "__main__":
    main()
