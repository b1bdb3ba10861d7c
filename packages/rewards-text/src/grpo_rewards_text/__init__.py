"""grpo-rewards-text: rewards against reference texts, and structured output that must match a schema.

Each reward is a plain TRL reward function with default parameters (``exact_match``, ``f1``,
``fuzzy``, ``bleu``, ``chrf``, ``rouge``, ``similarity``, ``language``, ``json``) and a factory that
takes parameters (``make_rouge(kind="rouge2")``, ...). The same scorers are registered under the
``text`` namespace (``text.exact_match``, ...). Importing this package is light: each name is
imported from its module on first use, and each metric library when a reward first scores.

>>> from grpo_rewards_text import exact_match
>>> exact_match(prompts=["Capital of France?"], completions=["<answer>Paris.</answer>"], reference=[["Paris"]])
[1.0]
>>> exact_match.__name__
'text.exact_match'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "ExactMatch": "overlap",
    "F1": "overlap",
    "Fuzzy": "fuzzy_match",
    "Bleu": "sacre",
    "Chrf": "sacre",
    "Rouge": "rouge_scores",
    "Similarity": "embeddings",
    "Language": "detect",
    "Json": "structured",
    "Normalizer": "normalize",
    "read_answer": "answer",
    "make_exact_match": "definitions",
    "make_f1": "definitions",
    "make_fuzzy": "definitions",
    "make_bleu": "definitions",
    "make_chrf": "definitions",
    "make_rouge": "definitions",
    "make_similarity": "definitions",
    "make_language": "definitions",
    "make_json": "definitions",
}
#: the ready-made rewards with default parameters, built once on first use
_BUILT = {
    "exact_match": "definitions:make_exact_match",
    "f1": "definitions:make_f1",
    "fuzzy": "definitions:make_fuzzy",
    "bleu": "definitions:make_bleu",
    "chrf": "definitions:make_chrf",
    "rouge": "definitions:make_rouge",
    "similarity": "definitions:make_similarity",
    "language": "definitions:make_language",
    "json": "definitions:make_json",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-text")

__all__ = [
    "F1",
    "Bleu",
    "Chrf",
    "ExactMatch",
    "Fuzzy",
    "Json",
    "Language",
    "Normalizer",
    "Rouge",
    "Similarity",
    "bleu",
    "chrf",
    "exact_match",
    "f1",
    "fuzzy",
    "json",
    "language",
    "make_bleu",
    "make_chrf",
    "make_exact_match",
    "make_f1",
    "make_fuzzy",
    "make_json",
    "make_language",
    "make_rouge",
    "make_similarity",
    "read_answer",
    "rouge",
    "similarity",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .answer import read_answer
    from .definitions import (
        make_bleu,
        make_chrf,
        make_exact_match,
        make_f1,
        make_fuzzy,
        make_json,
        make_language,
        make_rouge,
        make_similarity,
    )
    from .detect import Language
    from .embeddings import Similarity
    from .fuzzy_match import Fuzzy
    from .normalize import Normalizer
    from .overlap import F1, ExactMatch
    from .rouge_scores import Rouge
    from .sacre import Bleu, Chrf
    from .structured import Json

    exact_match: Reward
    f1: Reward
    fuzzy: Reward
    bleu: Reward
    chrf: Reward
    rouge: Reward
    similarity: Reward
    language: Reward
    json: Reward
