"""IFBench's ``count:`` checkers (:mod:`grpo_rewards_instructions.ifbench` holds the registry of ids)."""

from __future__ import annotations

from . import text
from .ifbench_common import _EDGE, Args, _no_punctuation, contains_word


def _word_count_range(value: str, args: Args) -> bool:
    return bool(args["min_words"] <= text.count_words(value) <= args["max_words"])


def _unique_word_count(value: str, args: Args) -> bool:
    return len({word.strip(_EDGE) for word in value.lower().split()}) >= args["N"]


def count_digit_runs(value: str) -> int:
    """The number of maximal runs of decimal digits (``len(re.findall(r"\\d+", value))``).

    >>> count_digit_runs("In 2024, 3.5 million and ٣ more")
    4
    """
    count, inside = 0, False
    for char in value:
        digit = char.isdecimal()
        count += digit and not inside
        inside = digit
    return count


def _numbers(value: str, args: Args) -> bool:
    # the original strips punctuation first, so "3.5" and "1,000" are one number each
    return count_digit_runs(_no_punctuation(value)) == args["N"]


def _punctuation_cover(value: str, args: Args) -> bool:
    if not ("!?" in value or "?!" in value or "\u203d" in value):
        return False
    rest = value.replace("?!", "", 1)
    if len(rest) == len(value):
        rest = value.replace("!?", "", 1)
    return {".", ",", "!", "?", ";", ":"} <= set(rest)


_CONJUNCTIONS = frozenset(("and", "but", "for", "nor", "or", "so", "yet"))
_PRONOUNS = frozenset((
    "i", "me", "we", "us", "you", "he", "him", "she", "her", "it", "they", "them",
    "my", "mine", "our", "ours", "your", "yours", "his", "hers", "its", "their", "theirs",
    "myself", "ourselves", "yourself", "yourselves", "himself", "herself", "itself", "themselves",
    "this", "that", "these", "those", "who", "whom", "whose", "which", "what",
    "whoever", "whomever", "whatever", "whichever",
    "anybody", "anyone", "anything", "everybody", "everyone", "everything",
    "nobody", "nothing", "somebody", "someone", "something",
    "each", "either", "neither", "both", "all", "some", "any", "none"))


def _conjunctions(value: str, args: Args) -> bool:
    # the original counts distinct words as written ("And" and "and" are two)
    found = {word for word in value.split() if word.strip(_EDGE).lower() in _CONJUNCTIONS}
    return len(found) >= args["small_n"]


def _pronouns(value: str, args: Args) -> bool:
    tokens = text.word_tokens(value.replace("/", " ").lower())
    return sum(1 for token in tokens if token in _PRONOUNS) >= args["N"]


_PERSON_NAMES = (
    "Emma", "Liam", "Sophia", "Jackson", "Olivia", "Noah", "Ava", "Lucas", "Isabella", "Mason", "Mia", "Ethan",
    "Charlotte", "Alexander", "Amelia", "Benjamin", "Harper", "Leo", "Zoe", "Daniel", "Chloe", "Samuel", "Lily",
    "Matthew", "Grace", "Owen", "Abigail", "Gabriel", "Ella", "Jacob", "Scarlett", "Nathan", "Victoria", "Elijah",
    "Layla", "Nicholas", "Audrey", "David", "Hannah", "Christopher", "Penelope", "Thomas", "Nora", "Andrew", "Aria",
    "Joseph", "Claire", "Ryan", "Stella", "Jonathan")


def _person_names(value: str, args: Args) -> bool:
    # IFBench's fixed list of 50 first names, each matched as a whole word, case as written
    found = sum(1 for name in _PERSON_NAMES if contains_word(value, name, ignore_case=False))
    return found >= args["N"]


#: How often each of ``keyword1`` .. ``keyword5`` must occur (``count:keywords_multiple``).
KEYWORD_TIMES = {"keyword1": 1, "keyword2": 2, "keyword3": 3, "keyword4": 5, "keyword5": 7}


def _keywords_multiple(value: str, args: Args) -> bool:
    # substrings, case-folded, counted without overlap (str.count), as the original
    lowered = value.lower()
    return all(lowered.count(args[name].lower()) == times for name, times in KEYWORD_TIMES.items())


def _has_japanese(word: str) -> bool:
    # Hiragana, Katakana (U+3040-U+30FF) or CJK ideographs (U+4E00-U+9FFF), as the original's class
    return any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in word)


def _every_nth_word_japanese(value: str, args: Args) -> bool:
    for index, word in enumerate(value.split(), 1):
        word = word.strip(_EDGE)
        if index % args["N"] == 0 and word and not word.isdigit() and not _has_japanese(word):
            return False
    return True
