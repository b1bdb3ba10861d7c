"""The task ``instructions:synthetic``: seeded requests, each with one to three compatible IFEval constraints.

Rows carry IFEval's columns (``prompt``, ``instruction_id_list``, ``kwargs``), so the rewards read
them as they read the published dataset. Two constraints that contradict (all capitals and all
lower case, JSON output and a title, ...) are never drawn together (:data:`CONFLICTS`, after the
original's ``INSTRUCTION_CONFLICTS``).

>>> row = make_synthetic(1, seed=0)[0]
>>> sorted(row)
['instruction_id_list', 'kwargs', 'prompt']
>>> make_synthetic(3, seed=7) == make_synthetic(3, seed=7)
True
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

REQUESTS = (
    "Write a short note to a neighbour about a lost cat.",
    "Describe how a bicycle works.",
    "Explain why the sky is blue.",
    "Give advice to someone starting to learn the guitar.",
    "Write a short story about a lighthouse keeper.",
    "Describe your ideal weekend.",
    "Explain how to make a cup of tea.",
    "Write a product description for a wooden chair.",
    "Summarise the benefits of walking every day.",
    "Write a thank-you message to a teacher.",
    "Describe the water cycle.",
    "Give three tips for keeping a plant alive.",
    "Write a short poem about autumn.",
    "Explain what a library is to a child.",
    "Describe a busy market in the morning.",
    "Write an invitation to a birthday picnic.",
)
_WORDS = ("river", "lantern", "garden", "window", "morning", "journey", "silver", "harbour", "forest", "music")
_ENDINGS = ("Any other questions?", "Is there anything else I can help with?")

Drawn = tuple[dict[str, Any], str]


def _no_comma(rng: random.Random) -> Drawn:
    return {}, "Do not use any commas."


def _lowercase(rng: random.Random) -> Drawn:
    return {}, "Write your entire answer in English, in lowercase letters only."


def _capital(rng: random.Random) -> Drawn:
    return {}, "Write your entire answer in English, in capital letters only."


def _words(rng: random.Random) -> Drawn:
    n = rng.choice((40, 60, 80, 120))
    return {"num_words": n, "relation": "less than"}, f"Answer with less than {n} words."


def _sentences(rng: random.Random) -> Drawn:
    n = rng.randint(2, 5)
    return {"num_sentences": n, "relation": "at least"}, f"Your answer should contain at least {n} sentences."


def _keywords(rng: random.Random) -> Drawn:
    words = sorted(rng.sample(_WORDS[:5], 2))
    return {"keywords": words}, f"Include the keywords {words[0]} and {words[1]}."


def _forbidden(rng: random.Random) -> Drawn:
    words = sorted(rng.sample(_WORDS[5:], 2))
    return {"forbidden_words": words}, f"Do not use the words {words[0]} or {words[1]}."


def _end(rng: random.Random) -> Drawn:
    phrase = rng.choice(_ENDINGS)
    return {"end_phrase": phrase}, f"Finish your answer with the exact phrase '{phrase}'. No other words should follow it."


def _quotation(rng: random.Random) -> Drawn:
    return {}, "Wrap your entire answer in double quotation marks."


def _title(rng: random.Random) -> Drawn:
    return {}, "Give your answer a title wrapped in double angular brackets, such as <<my title>>."


def _placeholders(rng: random.Random) -> Drawn:
    n = rng.randint(1, 3)
    return {"num_placeholders": n}, f"Include at least {n} placeholders in square brackets, such as [name]."


def _postscript(rng: random.Random) -> Drawn:
    marker = rng.choice(("P.S.", "P.P.S"))
    return {"postscript_marker": marker}, f"At the end of your answer, add a postscript starting with {marker}"


def _bullets(rng: random.Random) -> Drawn:
    n = rng.randint(2, 4)
    return {"num_bullets": n}, f"Your answer must contain exactly {n} bullet points, in markdown such as:\n* point one"


def _highlights(rng: random.Random) -> Drawn:
    n = rng.randint(1, 3)
    return {"num_highlights": n}, f"Highlight at least {n} sections with markdown, such as *highlighted section*."


def _json(rng: random.Random) -> Drawn:
    return {}, "Wrap your entire output in JSON format."


#: The constraint ids the task draws from, with a draw of each one's arguments and instruction.
DRAWS: dict[str, Callable[[random.Random], Drawn]] = {
    "punctuation:no_comma": _no_comma,
    "change_case:english_lowercase": _lowercase,
    "change_case:english_capital": _capital,
    "length_constraints:number_words": _words,
    "length_constraints:number_sentences": _sentences,
    "keywords:existence": _keywords,
    "keywords:forbidden_words": _forbidden,
    "startend:end_checker": _end,
    "startend:quotation": _quotation,
    "detectable_format:title": _title,
    "detectable_content:number_placeholders": _placeholders,
    "detectable_content:postscript": _postscript,
    "detectable_format:number_bullet_lists": _bullets,
    "detectable_format:number_highlighted_sections": _highlights,
    "detectable_format:json_format": _json,
}
_PAIRS = [
    ("change_case:english_lowercase", "change_case:english_capital"),
    ("change_case:english_lowercase", "startend:end_checker"),  # the endings have capitals
    ("change_case:english_lowercase", "detectable_content:postscript"),
    ("startend:quotation", "detectable_format:title"),
    ("startend:quotation", "startend:end_checker"),
    ("startend:quotation", "detectable_content:postscript"),
    ("length_constraints:number_words", "length_constraints:number_sentences"),
    ("detectable_format:number_bullet_lists", "detectable_format:number_highlighted_sections"),
    ("detectable_format:number_bullet_lists", "startend:quotation"),
    *[("detectable_format:json_format", other) for other in DRAWS
      if other not in ("detectable_format:json_format", "keywords:existence", "keywords:forbidden_words")],
]
#: Constraint id -> the ids never drawn with it.
CONFLICTS: dict[str, frozenset[str]] = {
    cid: frozenset({b for a, b in _PAIRS if a == cid} | {a for a, b in _PAIRS if b == cid}) for cid in DRAWS
}


def make_synthetic(n: int, seed: int = 0, max_constraints: int = 3, chat: bool = False) -> list[dict[str, Any]]:
    """``n`` rows: a request from :data:`REQUESTS` and one to ``max_constraints`` compatible constraints.

    >>> make_synthetic(1, seed=1, max_constraints=1)[0]["instruction_id_list"]
    ['detectable_content:postscript']
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a non-negative integer, not {n!r}")
    if isinstance(max_constraints, bool) or not isinstance(max_constraints, int) or not 1 <= max_constraints <= 3:
        raise ValueError(f"max_constraints must be 1, 2 or 3, not {max_constraints!r}")
    rng = random.Random(f"instructions:synthetic:{seed}")
    rows = []
    for _ in range(n):
        request = rng.choice(REQUESTS)
        wanted = rng.randint(1, max_constraints)
        ids: list[str] = []
        kwargs: list[dict[str, Any]] = []
        texts: list[str] = []
        for cid in rng.sample(sorted(DRAWS), len(DRAWS)):
            if len(ids) == wanted:
                break
            if any(cid in CONFLICTS[taken] for taken in ids):
                continue
            args, instruction = DRAWS[cid](rng)
            ids.append(cid)
            kwargs.append(args)
            texts.append(instruction)
        text = request + " " + " ".join(texts)
        rows.append({"prompt": [{"role": "user", "content": text}] if chat else text,
                     "instruction_id_list": ids, "kwargs": kwargs})
    return rows
