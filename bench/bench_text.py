"""The text rewards on a 512-reply batch against calling each library once per sample, as users do today.

Run: ``.venv/bin/python bench/bench_text.py`` (add ``--skip-embeddings`` to leave the model out). It
prints the Markdown tables of bench/text.md: for each reward the best of ``--repeats`` timings of
one 512-reply batch (64 prompts x 8 replies, GRPO's shape), ours through TRL's call (answer
extraction, the core's checks and labels included) beside the per-sample library loop, and their
ratio; then the embedding reward's throughput. Torch is held to 2 threads (the machine has 2 CPUs).
Ours and theirs run alternately in one process, so a busy machine slows both alike.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import string
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

SUBJECTS = ["The committee", "A small cat", "The old bridge", "Our neighbour", "The river", "The museum", "A pilot",
            "The teacher"]
VERBS = ["opened", "crossed", "painted", "visited", "closed", "described", "repaired", "photographed"]
OBJECTS = ["the north gate", "a quiet garden", "the railway station", "the main square", "an empty room",
           "the harbour at dawn", "a wooden boat", "the city library"]
SCHEMA = {"type": "object", "required": ["name", "age"], "additionalProperties": False,
          "properties": {"name": {"type": "string", "minLength": 1}, "age": {"type": "integer", "minimum": 0}}}


def batch(seed: int = 0, prompts: int = 64, group: int = 8) -> tuple[list[str], list[str], list[str]]:
    """(replies, references, json replies): 512 replies, each group sharing its prompt's reference."""
    rng = random.Random(seed)
    replies, refs, jsons = [], [], []
    for _ in range(prompts):
        ref = f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} in {rng.randint(1900, 2020)}."
        for _ in range(group):
            words = ref.rstrip(".").split()
            for _ in range(rng.randint(0, 4)):
                words[rng.randrange(len(words))] = rng.choice([*VERBS, "the", "a", "old", "new"])
            replies.append(" ".join(words) + rng.choice([".", "!", " indeed.", ""]))
            refs.append(ref)
            person: dict[str, Any] = {"name": rng.choice(["Ada", "Kofi", "Mei"]), "age": rng.randint(-3, 80)}
            jsons.append(json.dumps(person) if rng.random() < 0.9 else "{" + json.dumps(person))
    return replies, refs, jsons


def best_of(repeats: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


# What users write today for SQuAD EM/F1 (the rule of SQuAD's evaluation script, written out here).
_TABLE = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def _squad_normalize(s: str) -> str:
    return " ".join(_ARTICLES.sub(" ", s.lower().translate(_TABLE)).split())


def _squad_f1(pred: str, gold: str) -> float:
    p, g = _squad_normalize(pred).split(), _squad_normalize(gold).split()
    if not p or not g:
        return float(p == g)
    same = sum((Counter(p) & Counter(g)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(p), same / len(g)
    return 2 * precision * recall / (precision + recall)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-embeddings", action="store_true")
    parser.add_argument("--only-embeddings", action="store_true")
    parser.add_argument("--only", action="append", default=[], metavar="REWARD",
                        help="time only this reward (text.fuzzy or fuzzy; repeatable); implies --skip-embeddings")
    args = parser.parse_args()
    if args.only_embeddings:
        replies, refs, _ = batch()
        embeddings(replies, refs, args.repeats)
        return

    import jsonschema
    import langdetect
    import sacrebleu
    from rapidfuzz import fuzz
    from rouge_score import rouge_scorer

    import grpo_rewards_text as text

    replies, refs, jsons = batch()
    n = len(replies)
    prompts: list[Any] = [None] * n
    french = ["Le comité a publié son rapport final sur la nouvelle ligne de chemin de fer."] * (n // 2) + replies[n // 2:]
    rouge = rouge_scorer.RougeScorer(["rougeL"])
    langdetect.DetectorFactory.seed = 0

    def jsonschema_loop() -> list[float]:
        out = []
        for reply in jsons:
            try:
                jsonschema.validate(json.loads(reply), SCHEMA)
                out.append(1.0)
            except (ValueError, jsonschema.ValidationError):
                out.append(0.0)
        return out

    rows: list[tuple[str, str, Callable[[], Any], Callable[[], Any]]] = [
        ("text.exact_match", "SQuAD normalize_answer ==, per sample",
         lambda: text.exact_match(prompts=prompts, completions=replies, reference=refs),
         lambda: [float(_squad_normalize(c) == _squad_normalize(r)) for c, r in zip(replies, refs)]),
        ("text.f1", "SQuAD compute_f1, per sample",
         lambda: text.f1(prompts=prompts, completions=replies, reference=refs),
         lambda: [_squad_f1(c, r) for c, r in zip(replies, refs)]),
        ("text.fuzzy", "rapidfuzz fuzz.ratio, per sample",
         lambda: text.fuzzy(prompts=prompts, completions=replies, reference=refs),
         lambda: [fuzz.ratio(c, r) / 100 for c, r in zip(replies, refs)]),
        ("text.bleu", "sacrebleu.sentence_bleu, per sample",
         lambda: text.bleu(prompts=prompts, completions=replies, reference=refs),
         lambda: [sacrebleu.sentence_bleu(c, [r]).score / 100 for c, r in zip(replies, refs)]),
        ("text.chrf", "sacrebleu.sentence_chrf, per sample",
         lambda: text.chrf(prompts=prompts, completions=replies, reference=refs),
         lambda: [sacrebleu.sentence_chrf(c, [r]).score / 100 for c, r in zip(replies, refs)]),
        ("text.rouge", "RougeScorer built once, .score per sample",
         lambda: text.rouge(prompts=prompts, completions=replies, reference=refs),
         lambda: [rouge.score(r, c)["rougeL"].fmeasure for c, r in zip(replies, refs)]),
        ("text.rouge", "RougeScorer built per sample",
         lambda: text.rouge(prompts=prompts, completions=replies, reference=refs),
         lambda: [rouge_scorer.RougeScorer(["rougeL"]).score(r, c)["rougeL"].fmeasure for c, r in zip(replies, refs)]),
        ("text.language", "langdetect.detect == 'fr', per sample",
         lambda: text.make_language(language="fr", language_column=None)(prompts=prompts, completions=french),
         lambda: [float(langdetect.detect(c) == "fr") for c in french]),
        ("text.json", "json.loads + jsonschema.validate, per sample",
         lambda: text.json(prompts=prompts, completions=jsons, schema=[SCHEMA] * n),
         jsonschema_loop),
    ]
    if args.only:
        wanted = {o if o.startswith("text.") else f"text.{o}" for o in args.only}
        rows = [row for row in rows if row[0] in wanted]
        args.skip_embeddings = True
    for _, _, ours, theirs in rows:  # imports, model and profile loading, validators: outside the timings
        ours()
        theirs()
    print("| reward | per-sample library loop | ours (ms / 512) | library loop (ms / 512) | library / ours |")
    print("|---|---|---|---|---|")
    for name, loop, ours, theirs in rows:
        ours_s, theirs_s = [], []
        for _ in range(args.repeats):  # alternate, so load on the machine hits both alike
            ours_s.append(best_of(1, ours))
            theirs_s.append(best_of(1, theirs))
        a, b = min(ours_s), min(theirs_s)
        print(f"| {name} | {loop} | {a * 1000:.2f} | {b * 1000:.2f} | {b / a:.2f}x |")
    if not args.skip_embeddings:
        embeddings(replies, refs, args.repeats)


def embeddings(replies: list[str], refs: list[str], repeats: int) -> None:
    import torch
    from sentence_transformers import util

    import grpo_rewards_text as text
    from grpo_rewards_text.embeddings import EMBEDDED, local_model

    torch.set_num_threads(2)
    n = len(replies)
    model = local_model(EMBEDDED, "cpu")
    cold = text.make_similarity(cache_size=0)
    warm = text.make_similarity()
    warm(prompts=[None] * n, completions=replies, reference=refs)  # fills the cache

    def per_sample() -> list[float]:
        out = []
        for c, r in zip(replies, refs):
            v = model.encode([c, r], convert_to_tensor=True)
            out.append(float(util.cos_sim(v[0], v[1])))
        return out

    texts = len(set(replies)) + len(set(refs))
    times = {"ours, batched, no cache": [], "ours, batched, references cached from the last step": [],
             "per-sample model.encode([reply, reference])": []}
    for rep in range(repeats):
        times["ours, batched, no cache"].append(best_of(1, lambda: cold(prompts=[None] * n, completions=replies,
                                                                        reference=refs)))
        times["per-sample model.encode([reply, reference])"].append(best_of(1, per_sample))
        fresh = [f"{r} ({rep})" for r in replies]  # replies never seen, references already embedded
        times["ours, batched, references cached from the last step"].append(
            best_of(1, lambda: warm(prompts=[None] * n, completions=fresh, reference=refs)))  # noqa: B023
    base = min(times["per-sample model.encode([reply, reference])"])
    print(f"\nEmbeddings (all-MiniLM-L6-v2, CPU, torch threads = 2): {n} replies, {texts} distinct texts\n")
    print("| how | seconds / 512 replies | replies / s | per-sample / this |")
    print("|---|---|---|---|")
    for how, ts in times.items():
        t = min(ts)
        print(f"| {how} | {t:.2f} | {n / t:.0f} | {base / t:.2f}x |")


if __name__ == "__main__":
    main()
