"""IFBench's ``words:`` checkers (:mod:`grpo_rewards_instructions.ifbench` holds the registry of ids)."""

from __future__ import annotations

import itertools
import string
from collections import Counter

from . import text
from .ifbench_common import _EDGE, Args, _no_punctuation

_PRIMES = frozenset((2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97))


def _palindromes(value: str, args: Args) -> bool:
    words = _no_punctuation(value).lower().split()
    return sum(1 for word in words if len(word) >= 5 and word == word[::-1]) >= 10


def _prime_lengths(value: str, args: Args) -> bool:
    return all(len(word) in _PRIMES for word in _no_punctuation(value).split())


def _limited_repeats(value: str, args: Args) -> bool:
    counts = Counter(_no_punctuation(value.lower()).split())
    return all(count <= args["small_n"] for count in counts.values())


def _alphabet_loop(value: str, args: Args) -> bool:
    words = _no_punctuation(value).strip(_EDGE).split()
    if not words:
        return False
    letters = string.ascii_lowercase
    expected = words[0][0].lower()
    if expected not in letters:
        return False
    for word in words[1:]:
        word = word.strip(_EDGE).lower()
        if not word:
            continue
        expected = letters[(letters.index(expected) + 1) % 26]
        if word[0] != expected:
            return False
    return True


_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz")


def _three_vowels(value: str, args: Args) -> bool:
    lines = value.strip().split("\n")
    return len(lines) == 1 and len(set(lines[0].lower()) & set("aeiou")) <= 3


def _consonant_clusters(value: str, args: Args) -> bool:
    return all(any(a in _CONSONANTS and b in _CONSONANTS for a, b in itertools.pairwise(word))
               for word in value.lower().strip().split())


def _last_word_first_next(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    for current, following in itertools.pairwise(sentences):
        last, first = current.rstrip(_EDGE).split(), following.lstrip(_EDGE).split()
        if not last or not first or last[-1].lower() != first[0].lower():
            return False
    return True


def _paragraph_first_is_last(value: str, args: Args) -> bool:
    for line in value.split("\n"):
        words = line.strip().lower().strip(_EDGE).split()
        if words and words[0] != words[-1]:
            return False
    return True


def _no_consecutive_first_letter(value: str, args: Args) -> bool:
    words = _no_punctuation(value.lower()).split()
    return all(a[0] != b[0] for a, b in itertools.pairwise(words))


def _word_tokens_alnum(value: str) -> list[str]:
    return [token for token in text.word_tokens(value) if any(c.isalnum() for c in token)]


def _keyword_at_position(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    if len(sentences) < args["n"]:
        return False
    words = _word_tokens_alnum(sentences[args["n"] - 1])
    return len(words) >= args["m"] and words[args["m"] - 1].lower() == args["keyword"].lower()


def _second_and_second_last(value: str, args: Args) -> bool:
    words = text.word_tokens(value)
    keyword = args["keyword"].lower()
    if len(words) < 2:
        return False
    if words[-1] in string.punctuation:  # as the original: a substring test
        return len(words) >= 3 and words[1].lower() == words[-3].lower() == keyword
    return words[1].lower() == words[-2].lower() == keyword


def _odd_even_syllables(value: str, args: Args) -> bool:
    import syllapy  # IFBench's syllable counter: its word list, then its vowel-group rule

    parities = [syllapy.count(word) % 2 for word in _no_punctuation(value).lower().split()]
    return all(a != b for a, b in itertools.pairwise(parities))
