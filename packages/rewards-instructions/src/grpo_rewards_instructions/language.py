"""langdetect's ``Detector.detect``, step for step, with the arithmetic on numpy arrays.

IFEval's language constraints call ``langdetect.detect``; the rewards must give its verdicts. In
langdetect each of the detector's seven trials multiplies 55 per-language probabilities by one
n-gram's row at a time in a Python loop, which is most of the time a batch of replies takes. This
module runs the same algorithm on langdetect's own profiles and parameters, with every number
produced by the same IEEE operations in the same order:

- the text is prepared as ``Detector.append`` and ``cleaning_text`` prepare it (URL and e-mail
  removal, Vietnamese normalisation, the first 10,000 characters, runs of spaces collapsed, Latin
  letters dropped from a mostly non-Latin text), with langdetect's own regular expressions;
- n-grams are extracted by ``NGram.add_char``'s state machine, with ``NGram.normalize`` memoised per
  character;
- the trials draw from a ``random.Random`` seeded as the detector seeds its own, in the same order
  (one ``gauss`` per trial, one ``choice`` per update), so they pick the same n-grams and alphas;
- an update is ``prob[i] *= weight + row[i]`` for every language: one element-wise numpy product
  (element-wise float64 multiplication and addition are the operations Python's floats do);
- normalisation divides by ``sum(prob)`` taken by Python's own ``sum`` over the same floats in the
  same order (its summation differs between Python versions; calling it keeps the version's own),
  and convergence is checked where langdetect checks it (after update 0, 5, 10, ... up to 1,000);
- the result is sorted by langdetect's ``Language`` objects, as ``Detector.detect`` sorts them.

``tests/instructions/test_instructions_language.py`` compares the two on every reply of the mined
and generated cases and on seeded texts in many scripts.

>>> detect("Das ist ein kurzer Satz auf Deutsch, geschrieben für den Test.", seed=0)
'de'
"""

from __future__ import annotations

import functools
from typing import Any

#: The detector's parameters (langdetect 1.0.9's ``Detector`` class attributes and defaults).
N_TRIAL = 7
ALPHA = 0.5
ALPHA_WIDTH = 0.05
ITERATION_LIMIT = 1000
PROB_THRESHOLD = 0.1
CONV_THRESHOLD = 0.99999
BASE_FREQ = 10000
MAX_TEXT_LENGTH = 10000
#: Blocks of five updates whose factors are gathered at once.
AHEAD = 16


class NoFeatures(ValueError):
    """The text has no n-gram the profiles know (langdetect's ``CantDetectError``)."""


@functools.cache
def _profiles() -> tuple[dict[str, int], Any, list[str]]:
    """langdetect's profiles as (n-gram -> row, one float64 row of per-language probabilities per
    n-gram, the languages): the same numbers ``DetectorFactory.load_profile`` computes, in one array."""
    import numpy as np
    from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory

    factory = DetectorFactory()
    factory.load_profile(PROFILES_DIRECTORY)
    words = factory.word_lang_prob_map
    rows = np.array(list(words.values()), dtype=np.float64)
    return {w: i for i, w in enumerate(words)}, rows, list(factory.langlist)


def languages() -> list[str]:
    """The language codes of the profiles, in the detector's order."""
    return list(_profiles()[2])


@functools.lru_cache(maxsize=1 << 16)
def _normalize(ch: str) -> str:
    from langdetect.utils.ngram import NGram

    return str(NGram.normalize(ch))


@functools.cache
def _patterns() -> tuple[Any, Any, Any, Any, Any, Any]:
    import re

    from langdetect.detector import Detector
    from langdetect.utils.ngram import NGram

    return (
        Detector.URL_RE,
        Detector.MAIL_RE,
        NGram.normalize_vi,
        re.compile(r"[A-z]"),  # cleaning_text's Latin letter: 'A' <= ch <= 'z'
        # cleaning_text's non-Latin character: >= U+0300 ("and not in Latin Extended Additional" compares
        # unicode_block's number with a block's name in langdetect 1.0.9, so it excludes nothing)
        re.compile("[\u0300-\U0010ffff]"),
        re.compile(" {2,}"),
    )


def prepare(text: str) -> str:
    """The text ``Detector.append`` then ``Detector.cleaning_text`` leave to extract n-grams from."""
    url, mail, normalize_vi, latin, non_latin, spaces = _patterns()
    text = url.sub(" ", text)
    text = mail.sub(" ", text)
    text = normalize_vi(text)
    # append keeps a character unless it and the one before it (in the input) are both spaces
    text = spaces.sub(" ", text[:MAX_TEXT_LENGTH])
    if len(latin.findall(text)) * 2 < len(non_latin.findall(text)):
        text = latin.sub("", text)
    return text


def ngrams(text: str) -> list[str]:
    """The n-grams ``Detector._extract_ngrams`` yields for a prepared text, in order."""
    known = _profiles()[0]
    result: list[str] = []
    append = result.append
    normalize = _normalize
    grams = " "
    for raw in text:
        ch = normalize(raw)
        last = grams[-1]
        if last == " ":
            grams = " "
            if ch == " ":
                continue  # nothing known: the only candidate is " "
        elif len(grams) >= 3:
            grams = grams[1:]
        grams += ch
        # NGram.capitalword after this character: set by two upper-case characters in a row, cleared
        # by any other (a run of capitals is skipped: acronyms say little about the language)
        if ch.isupper() and last.isupper():
            continue
        if ch != " " and ch in known:
            append(ch)
        size = len(grams)
        if size >= 2:
            w = grams[-2:]
            if w in known:
                append(w)
            if size >= 3 and grams in known:
                append(grams)
    return result


class _Choices:
    """``rng.choice(seq)`` for a sequence of ``size`` items, drawn many at a time.

    ``Random.choice`` is ``seq[rng._randbelow(len(seq))]``: ``getrandbits(k)`` with
    ``k = len(seq).bit_length()``, redrawn while it is ``>= len(seq)``; ``getrandbits(k)`` for
    ``k <= 32`` is one 32-bit output of the generator shifted right by ``32 - k``, and
    ``getrandbits(32 * m)`` is ``m`` such outputs, the first the least significant. A trial draws
    ahead (``take``) from a saved state; ``finish(used)`` puts the generator where ``used`` calls of
    ``choice`` would have left it (the saved state, then as many outputs as those calls consumed), so
    the next ``gauss`` sees the same stream as in langdetect.
    """

    def __init__(self, rng: Any, size: int) -> None:
        self.rng, self.size = rng, size
        self.shift = 32 - size.bit_length()

    def start(self) -> None:
        import numpy as np

        self.state = self.rng.getstate()
        self.accepted = np.empty(0, dtype=np.intp)  # for each pick drawn ahead: the output index
        self.values = np.empty(0, dtype=np.intp)  # ... and the pick
        self.outputs = 0  # outputs drawn ahead so far
        self.used = 0  # picks handed out so far

    def take(self, count: int) -> Any:
        import numpy as np

        while len(self.values) < self.used + count:
            more = max(64, 2 * (self.used + count - len(self.values)))
            raw = self.rng.getrandbits(32 * more).to_bytes(4 * more, "little")
            candidates = np.frombuffer(raw, dtype="<u4") >> self.shift
            (ok,) = np.nonzero(candidates < self.size)
            self.accepted = np.concatenate((self.accepted, ok + self.outputs))
            self.values = np.concatenate((self.values, candidates[ok].astype(np.intp)))
            self.outputs += more
        picked = self.values[self.used:self.used + count]
        self.used += count
        return picked

    def finish(self, used: int) -> None:
        consumed = int(self.accepted[used - 1]) + 1
        self.rng.setstate(self.state)
        self.rng.getrandbits(32 * consumed)


def probabilities(text: str, seed: int | None) -> list[tuple[str, float]]:
    """``Detector.get_probabilities()``: (language, probability) above 0.1, most probable first.

    Raises :class:`NoFeatures` where langdetect raises ``CantDetectError``.
    """
    import random

    import numpy as np

    known, table, langlist = _profiles()
    found = ngrams(prepare(text))
    if not found:
        raise NoFeatures("No features in text.")
    local: dict[int, int] = {}
    picks = np.array([local.setdefault(known[w], len(local)) for w in found], dtype=np.intp)
    rows = table[list(local)]  # the rows of the text's distinct n-grams
    n = len(langlist)
    langprob = np.zeros(n, dtype=np.float64)
    rng = random.Random()
    rng.seed(seed)
    draws = _Choices(rng, len(picks))
    for _ in range(N_TRIAL):
        prob = np.full(n, 1.0 / n, dtype=np.float64)
        weight = (ALPHA + rng.gauss(0.0, 1.0) * ALPHA_WIDTH) / BASE_FREQ
        draws.start()
        # update 0, then a check; then blocks of five updates, each followed by a check. The factors
        # (weight + lang_prob_map[i]) of the next 16 blocks are gathered at once, each block's rows
        # after a slot for the probabilities it starts from.
        first = draws.take(1 + 5 * AHEAD)
        prob *= weight + rows[picks[first[0]]]
        blocks = np.empty((AHEAD, 6, n), dtype=np.float64)
        blocks[:, 1:, :] = (weight + rows[picks[first[1:]]]).reshape(AHEAD, 5, n)
        views = [(block, block[0]) for block in blocks]  # each block, and its first row's slot
        b = i = 0
        while True:
            # _normalize_prob: divide by Python's own sum of the same floats in the same order; the
            # largest quotient is the largest value divided (correctly rounded division is monotonic)
            values = prob.tolist()
            total = sum(values)
            if total == 0.0:
                raise ZeroDivisionError("float division by zero")  # as langdetect would
            if max(values) / total > CONV_THRESHOLD or i >= ITERATION_LIMIT:
                prob /= total
                break
            if b == AHEAD:
                blocks[:, 1:, :] = (weight + rows[picks[draws.take(5 * AHEAD)]]).reshape(AHEAD, 5, n)
                b = 0
            # the normalised probabilities go to the block's first row; updates i+1 .. i+5 are then
            # ((prob * f1) * f2) ... * f5, in that order
            block, head = views[b]
            np.divide(prob, total, out=head)
            np.multiply.reduce(block, axis=0, out=prob)
            b += 1
            i += 5
        draws.finish(1 + i)
        langprob += prob / N_TRIAL
    return _ranked(langprob, langlist)


class _Trials:
    """One text's trials in :func:`detect_many`: its n-gram rows, its generator and its draws."""

    def __init__(self, text: str, picks: Any, rows: Any, seed: int | None) -> None:
        import random

        import numpy as np

        self.text, self.picks, self.rows = text, picks, rows
        self.rng = random.Random()
        self.rng.seed(seed)
        self.draws = _Choices(self.rng, len(picks))
        self.langprob = np.zeros(rows.shape[1], dtype=np.float64)
        self.trial = self.updates = 0
        self.weight = 0.0

    def start(self, prob: Any, blocks: Any) -> None:
        """A trial begins: ``prob`` (a row, in place) after update 0; ``blocks`` the factors of the next blocks."""
        n = len(prob)
        prob[:] = 1.0 / n
        self.weight = (ALPHA + self.rng.gauss(0.0, 1.0) * ALPHA_WIDTH) / BASE_FREQ
        self.draws.start()
        first = self.draws.take(1 + 5 * AHEAD)
        prob *= self.weight + self.rows[self.picks[first[0]]]
        blocks[:] = (self.weight + self.rows[self.picks[first[1:]]]).reshape(AHEAD, 5, n)
        self.updates = 0

    def refill(self, blocks: Any) -> None:
        n = len(self.langprob)
        blocks[:] = (self.weight + self.rows[self.picks[self.draws.take(5 * AHEAD)]]).reshape(AHEAD, 5, n)


def detect_many(texts: list[str], seed: int | None) -> dict[str, str | None]:
    """:func:`detect` of several texts (``None`` for a text without features), in lockstep.

    Each step runs one block of five updates of every text's current trial as a few numpy operations
    on a (texts x languages) array, so numpy's per-call cost is paid once a step, not once a text.
    Every number is the one :func:`probabilities` computes: the same operations in the same order on
    each row, a row's sum being the sequential ``np.add.accumulate``, which is Python 3.11's ``sum``
    of floats. A text's last trials are left out once they cannot change its verdict (:func:`_decided`).
    On Python 3.12 and later (a compensated ``sum``) nothing is computed here (an empty dict), nor for a
    text whose probabilities all vanish (where :func:`probabilities` raises): the caller detects those
    alone.
    """
    import sys

    import numpy as np

    if sys.version_info >= (3, 12):
        return {}
    known, table, langlist = _profiles()
    n = len(langlist)
    found: dict[str, str | None] = {}
    active: list[_Trials] = []
    for text in dict.fromkeys(texts):
        grams = ngrams(prepare(text))
        if not grams:
            found[text] = None
            continue
        local: dict[int, int] = {}
        picks = np.array([local.setdefault(known[w], len(local)) for w in grams], dtype=np.intp)
        active.append(_Trials(text, picks, table[list(local)], seed))
    prob = np.empty((len(active), n), dtype=np.float64)
    blocks = np.empty((len(active), AHEAD, 5, n), dtype=np.float64)
    block = np.zeros(len(active), dtype=np.intp)
    for row, trials in enumerate(active):
        trials.start(prob[row], blocks[row])
    while active:
        totals = np.add.accumulate(prob, axis=1)[:, -1]
        converged = (prob.max(axis=1) / totals > CONV_THRESHOLD).tolist()
        stepping, staying = [], []
        for row, trials in enumerate(active):
            if totals[row] == 0.0:
                continue  # probabilities() raises ZeroDivisionError here, as langdetect does
            if converged[row] or trials.updates >= ITERATION_LIMIT:
                trials.draws.finish(1 + trials.updates)
                trials.langprob += (prob[row] / totals[row]) / N_TRIAL
                trials.trial += 1
                if _decided(trials.langprob, N_TRIAL - trials.trial):
                    found[trials.text] = _best(trials.langprob, langlist)
                    continue
                trials.start(prob[row], blocks[row])
                block[row] = 0
            else:
                if block[row] == AHEAD:
                    trials.refill(blocks[row])
                    block[row] = 0
                stepping.append(row)
                trials.updates += 5
            staying.append(row)
        if stepping:
            rows = np.array(stepping, dtype=np.intp)
            factors = blocks[rows, block[rows]]
            step = prob[rows] / totals[rows, None]
            for q in range(5):  # ((prob * f1) * f2) ... * f5, in that order
                step *= factors[:, q]
            prob[rows] = step
            block[rows] += 1
        if len(staying) < len(active):
            keep = np.array(staying, dtype=np.intp)
            active = [active[row] for row in staying]
            prob, blocks, block = prob[keep], blocks[keep], block[keep]
    return found


def _decided(langprob: Any, left: int) -> bool:
    """Whether the ``left`` trials still to come (none: decided) cannot change the most probable language of
    ``langprob`` (the sum so far of each finished trial's probabilities over ``N_TRIAL``): a trial's
    probabilities sum to one, so it adds at most ``1 / N_TRIAL`` to any language. The lead must exceed what
    they could give the runner-up (a margin of 1e-9 for the rounding of those sums); it is then also above
    ``PROB_THRESHOLD``.
    :func:`detect` is the argmax alone, so its verdict is the one all seven trials give; a clear text is
    decided after four.

    >>> import numpy as np
    >>> _decided(np.array([4 / 7, 0.0, 0.0]), 3), _decided(np.array([3 / 7, 0.0, 0.0]), 4)
    (True, False)
    """
    import numpy as np

    if left == 0:
        return True
    second, first = np.partition(langprob, -2)[-2:]
    return bool(first - second > left / N_TRIAL + 1e-9)


def _best(langprob: Any, langlist: list[str]) -> str:
    ranked = _ranked(langprob, langlist)
    return ranked[0][0] if ranked else "unknown"


def _ranked(langprob: Any, langlist: list[str]) -> list[tuple[str, float]]:
    """``Detector.get_probabilities()`` of the final probabilities: above 0.1, sorted as langdetect sorts."""
    from langdetect.language import Language

    ranked = [Language(lang, p) for lang, p in zip(langlist, langprob.tolist()) if p > PROB_THRESHOLD]
    ranked.sort(reverse=True)
    return [(str(r.lang), float(r.prob)) for r in ranked]


def detect(text: str, seed: int | None) -> str:
    """``Detector.detect()``: the most probable language, or ``"unknown"`` where none is above 0.1."""
    ranked = probabilities(text, seed)
    return ranked[0][0] if ranked else "unknown"
