r"""IFEval's 25 constraints (Zhou et al. 2023, google-research ``instruction_following_eval``), one checker each.

Each checker is ``check(text, args) -> bool`` with the original's rule; ``args`` are the row's
keyword arguments, already checked by :mod:`.constraints`. Where the original builds a regular
expression from a row's text (keywords, forbidden words, a section splitter, a postscript marker)
the text is matched literally (``re.escape``), so a keyword such as ``"c++"`` or ``"(a+)+$"`` is a
word to find, never a pattern to run; on the published data the verdicts are the same. Where the
original's pattern backtracks quadratically on hostile text, a linear scan with the same result
is used (:mod:`.scans`).

>>> CHECKS["punctuation:no_comma"]("No commas here.", {})
True
>>> CHECKS["keywords:frequency"]("keyword, Keyword, KEYWORD", {"keyword": "keyword", "frequency": 3,
...                                                              "relation": "at least"})
True
"""

from __future__ import annotations

import collections
import json
import re
from collections.abc import Callable
from typing import Any

from . import scans, text

Args = dict[str, Any]
#: The two comparisons the original knows.
RELATIONS = ("less than", "at least")
#: The options of ``detectable_format:constrained_response``.
CONSTRAINED_RESPONSES = ("My answer is yes.", "My answer is no.", "My answer is maybe.")
PARAGRAPH_SPLIT = re.compile(r"\s?\*\*\*\s?")
_HIGHLIGHT = re.compile(r"\*[^\n\*]*\*")
_DOUBLE_HIGHLIGHT = re.compile(r"\*\*[^\n\*]*\*\*")
_FIRST_WORD_PUNCTUATION = frozenset(".,?!'\"")


def compare(count: int, relation: str, threshold: int) -> bool:
    """``count < threshold`` for ``"less than"``, ``count >= threshold`` for ``"at least"``."""
    return count < threshold if relation == "less than" else count >= threshold


def _language(value: str, args: Args) -> bool:
    found = text.detect_language(value)
    return True if found is None else found == args["language"]  # the original: undetectable passes


def _sentences(value: str, args: Args) -> bool:
    return compare(text.count_sentences(value), args["relation"], args["num_sentences"])


def _placeholders(value: str, args: Args) -> bool:
    return scans.count_placeholders(value) >= args["num_placeholders"]


def _bullets(value: str, args: Args) -> bool:
    return scans.count_line_starts(value, "*") + scans.count_line_starts(value, "-") == args["num_bullets"]


def _constrained_response(value: str, args: Args) -> bool:
    value = value.strip()
    return any(option in value for option in CONSTRAINED_RESPONSES)


def _highlights(value: str, args: Args) -> bool:
    count = sum(1 for h in _HIGHLIGHT.findall(value) if h.strip("*").strip())
    count += sum(1 for h in _DOUBLE_HIGHLIGHT.findall(value) if h[2:-2].strip())
    return count >= args["num_highlights"]


def _sections(value: str, args: Args) -> bool:
    pattern = r"\s?" + re.escape(args["section_spliter"]) + r"\s?\d+\s?"
    return len(re.split(pattern, value)) - 1 >= args["num_sections"]


def count_paragraphs(pieces: list[str]) -> int | None:
    """The paragraphs among the pieces a text was split into, as the original's checkers count them:
    a blank first or last piece is no paragraph; a blank piece between two others makes the text fail
    (``None``).

    >>> count_paragraphs(["", "a", "b"]), count_paragraphs(["a", " ", "b"])
    (2, None)
    """
    count = len(pieces)
    for index, piece in enumerate(pieces):
        if not piece.strip():
            if index in (0, len(pieces) - 1):
                count -= 1
            else:
                return None
    return count


def _paragraphs(value: str, args: Args) -> bool:
    return count_paragraphs(PARAGRAPH_SPLIT.split(value)) == args["num_paragraphs"]


def _postscript(value: str, args: Args) -> bool:
    marker = args["postscript_marker"]
    value = value.lower()
    if marker == "P.P.S":
        pattern = r"p\.\s?p\.\s?s"
    elif marker == "P.S.":
        pattern = r"p\.\s?s\."
    else:
        pattern = re.escape(marker.lower())
    # the original's r"\s*" + pattern + r".*$" (multiline) matches exactly where the pattern occurs
    return re.search(pattern, value) is not None


def _keywords(value: str, args: Args) -> bool:
    return all(re.search(re.escape(k), value, flags=re.IGNORECASE) for k in args["keywords"])


def _keyword_frequency(value: str, args: Args) -> bool:
    count = len(re.findall(re.escape(args["keyword"]), value, flags=re.IGNORECASE))
    return compare(count, args["relation"], args["frequency"])


def _words(value: str, args: Args) -> bool:
    return compare(text.count_words(value), args["relation"], args["num_words"])


def _json(value: str, args: Args) -> bool:
    value = value.strip()
    for prefix in ("```json", "```Json", "```JSON", "```"):
        if value.startswith(prefix):
            value = value[len(prefix):]
            break
    value = value.removesuffix("```").strip()
    try:
        json.loads(value)
    except (ValueError, RecursionError):  # RecursionError: a megabyte of "[" (the original crashes)
        return False
    return True


def _nth_paragraph_first_word(value: str, args: Args) -> bool:
    paragraphs = value.split("\n\n")
    count = sum(1 for p in paragraphs if p.strip())
    nth = args["nth_paragraph"]
    if nth > count:
        return False
    paragraph = paragraphs[nth - 1].strip()
    if not paragraph:
        return False
    word = paragraph.split()[0].strip().lstrip("'").lstrip('"')
    first = ""
    for letter in word:
        if letter in _FIRST_WORD_PUNCTUATION:
            break
        first += letter.lower()
    return count == args["num_paragraphs"] and first == args["first_word"].lower()


def _forbidden_words(value: str, args: Args) -> bool:
    return not any(re.search(r"\b" + re.escape(w) + r"\b", value, flags=re.IGNORECASE)
                   for w in args["forbidden_words"])


def _two_responses(value: str, args: Args) -> bool:
    valid = []
    parts = value.split("******")
    for index, part in enumerate(parts):
        if not part.strip():
            if index not in (0, len(parts) - 1):
                return False
        else:
            valid.append(part)
    return len(valid) == 2 and valid[0].strip() != valid[1].strip()


def _repeat_prompt(value: str, args: Args) -> bool:
    return value.strip().lower().startswith(args["prompt_to_repeat"].strip().lower())


def _end_phrase(value: str, args: Args) -> bool:
    return value.strip().strip('"').lower().endswith(args["end_phrase"].strip().lower())


def _capital_word_frequency(value: str, args: Args) -> bool:
    count = sum(1 for word in text.word_tokens(value) if word.isupper())
    return compare(count, args["capital_relation"], args["capital_frequency"])


def _english_capital(value: str, args: Args) -> bool:
    return value.isupper() and text.detect_language(value) in ("en", None)


def _english_lowercase(value: str, args: Args) -> bool:
    return value.islower() and text.detect_language(value) in ("en", None)


def _no_comma(value: str, args: Args) -> bool:
    return "," not in value


def _letter_frequency(value: str, args: Args) -> bool:
    count = collections.Counter(value.lower())[args["letter"].lower()]
    return compare(count, args["let_relation"], args["let_frequency"])


def _quotation(value: str, args: Args) -> bool:
    value = value.strip()
    return len(value) > 1 and value[0] == '"' and value[-1] == '"'


def _title(value: str, args: Args) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in scans.titles(value))


#: Constraint id -> checker, in the order of the original's registry.
CHECKS: dict[str, Callable[[str, Args], bool]] = {
    "keywords:existence": _keywords,
    "keywords:frequency": _keyword_frequency,
    "keywords:forbidden_words": _forbidden_words,
    "keywords:letter_frequency": _letter_frequency,
    "language:response_language": _language,
    "length_constraints:number_sentences": _sentences,
    "length_constraints:number_paragraphs": _paragraphs,
    "length_constraints:number_words": _words,
    "length_constraints:nth_paragraph_first_word": _nth_paragraph_first_word,
    "detectable_content:number_placeholders": _placeholders,
    "detectable_content:postscript": _postscript,
    "detectable_format:number_bullet_lists": _bullets,
    "detectable_format:constrained_response": _constrained_response,
    "detectable_format:number_highlighted_sections": _highlights,
    "detectable_format:multiple_sections": _sections,
    "detectable_format:json_format": _json,
    "detectable_format:title": _title,
    "combination:two_responses": _two_responses,
    "combination:repeat_prompt": _repeat_prompt,
    "startend:end_checker": _end_phrase,
    "change_case:capital_word_frequency": _capital_word_frequency,
    "change_case:english_capital": _english_capital,
    "change_case:english_lowercase": _english_lowercase,
    "punctuation:no_comma": _no_comma,
    "startend:quotation": _quotation,
}

#: The checkers that detect their text's language, each with the test of the texts it detects (its
#: other condition comes first): the rewards detect a batch's texts together before checking.
DETECTS: dict[str, Callable[[str], bool]] = {
    "language:response_language": lambda value: True,
    "change_case:english_capital": str.isupper,
    "change_case:english_lowercase": str.islower,
}
