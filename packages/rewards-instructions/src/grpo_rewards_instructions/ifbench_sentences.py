"""IFBench's ``sentence:`` and ``ratio:`` checkers (:mod:`grpo_rewards_instructions.ifbench` holds the registry
of ids).
"""

from __future__ import annotations

import itertools
from collections import Counter

from . import text
from .ifbench_common import _EDGE, Args, _no_punctuation, contains_word


def _increment(value: str, args: Args) -> bool:
    counts = [len(_no_punctuation(sentence).split()) for sentence in text.sentences(value)]
    if not counts:  # the original raises on a reply with no sentence
        return False
    return all(b == a + args["small_n"] for a, b in itertools.pairwise(counts))


def _keyword_in_sentence(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    return len(sentences) >= args["N"] and contains_word(sentences[args["N"] - 1], args["word"])


def _same_length_sentences(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    return len(sentences) == 3 and len({len(sentence.strip()) for sentence in sentences}) == 1


def _sentence_endings(value: str) -> Counter[str]:
    return Counter(sentence[-1] for sentence in text.sentences(value) if sentence)


def _two_declaratives_per_question(value: str, args: Args) -> bool:
    endings = _sentence_endings(value)
    return endings["."] == 2 * endings["?"]


def _balanced_sentence_types(value: str, args: Args) -> bool:
    endings = _sentence_endings(value)
    return endings["."] == endings["?"] == endings["!"]


def _trigram_overlap(value: str, args: Args) -> bool:
    trigrams = {value[i:i + 3] for i in range(len(value) - 2)}  # characters, as nltk.ngrams of a text
    if not trigrams:
        return False
    reference = args["reference_text"]
    shared = len(trigrams & {reference[i:i + 3] for i in range(len(reference) - 2)})
    return bool(args["percentage"] - 2 <= shared / len(trigrams) * 100 <= args["percentage"] + 2)


def _alliteration_increment(value: str, args: Args) -> bool:
    previous = -1
    for sentence in text.sentences(value):
        words = [clean for clean in (word.lstrip(_EDGE) for word in sentence.lower().split()) if clean]
        score, in_run = 0, False
        for left, right in itertools.pairwise(words):
            if left[0] == right[0]:
                score += 1 if in_run else 2  # a run of n alliterating words scores n
                in_run = True
            else:
                in_run = False
        if score <= previous:
            return False
        previous = score
    return True


#: NLTK's English stop words (``nltk.corpus.stopwords.words("english")``, the list IFBench's
#: ``count_stopwords`` reads; NLTK downloads it at run time, so it is written out here). Only the
#: entries without an apostrophe can match a ``\w+`` word; the 19 contractions later NLTK releases
#: added (``"i'm"``, ``"they've"``, ...) never can, so either release gives the same verdicts.
STOP_WORDS = frozenset("""
i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he
him his himself she she's her hers herself it it's its itself they them their theirs themselves what
which who whom this that that'll these those am is are was were be been being have has had having do
does did doing a an the and but if or because as until while of at by for with about against between
into through during before after above below to from up down in out on off over under again further
then once here there when where why how all any both each few more most other some such no nor not
only own same so than too very s t can will just don don't should should've now d ll m o re ve y ain
aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't
ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't
won won't wouldn wouldn't""".split())


def _stop_words(value: str, args: Args) -> bool:
    words = text.WORD.findall(value)
    if not words:
        return False
    stop = sum(1 for word in words if word.lower() in STOP_WORDS)
    # the original's float expression: 7 of 25 words is 28.000000000000004 %, above a limit of 28
    return stop / len(words) * 100 <= args["percentage"]
