"""IFBench's ``custom:`` and ``repeat:`` checkers (:mod:`grpo_rewards_instructions.ifbench` holds the registry
of ids).
"""

from __future__ import annotations

import itertools
import string
import unicodedata

from . import text
from .ifbench_common import _EDGE, Args, _no_punctuation


def _ascii_fold(value: str) -> str:
    return unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")


def _reverse_newline(value: str, args: Args) -> bool:
    lines = [line.strip(_EDGE) for line in value.split("\n") if line.strip(_EDGE)]
    start = next((i for i, line in enumerate(lines) if "Zimbabwe" in line), None)
    if start is None or len(lines) - start < 52:
        return False
    folded = [_ascii_fold(line) for line in lines[start:]]
    return folded == sorted(folded, reverse=True)


def _word_reverse(value: str, args: Args) -> bool:
    value = " ".join(_no_punctuation(value.lower().strip()).split()[::-1])
    return "bald eagle" in value and value in text.sentences(value)


def _character_reverse(value: str, args: Args) -> bool:
    return "elgae dlab" in value.lower()


def _sentence_alphabet(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    if len(sentences) != 26:
        return False
    for letter, sentence in zip(string.ascii_lowercase, sentences):
        words = sentence.lstrip().split()
        if not words or words[0].lower()[0] != letter:
            return False
    return True


def _repeat_change(value: str, args: Args) -> bool:
    prompt = args["prompt_to_repeat"]
    return prompt != value and " ".join(prompt.split()[1:]) == " ".join(value.split()[1:])


def digit_runs(value: str) -> list[str]:
    """The maximal runs of decimal digits (``re.findall(r"\\d+", value)``).

    >>> digit_runs("14, 21 and 2,8")
    ['14', '21', '2', '8']
    """
    runs, start = [], None
    for index, char in enumerate(value):
        if char.isdecimal():
            if start is None:
                start = index
        elif start is not None:
            runs.append(value[start:index])
            start = None
    if start is not None:
        runs.append(value[start:])
    return runs


def _multiples_of_seven(value: str, args: Args) -> bool:
    return digit_runs(value) == [str(i) for i in range(14, 51, 7)]


_CAPITALS_NORTH_TO_SOUTH = (
    "Reykjavik", "Helsinki", "Oslo", "Tallinn", "Stockholm", "Riga", "Moscow", "Copenhagen", "Vilnius",
    "Minsk", "Dublin", "Berlin", "Amsterdam", "Warsaw", "London", "Brussels", "Prague", "Luxembourg",
    "Paris", "Vienna", "Bratislava", "Budapest", "Vaduz", "Chisinau", "Bern", "Ljubljana", "Zagreb")


def _european_capitals(value: str, args: Args) -> bool:
    capitals = tuple(name.strip() for name in _ascii_fold(value).split(",") if name.strip())
    return capitals == _CAPITALS_NORTH_TO_SOUTH


def _csv_rows(value: str, delimiter: str = ",") -> list[list[str]] | None:
    """``list(csv.reader(...))`` of ``value``, or ``None`` where the reader refuses it (a field over
    its size limit, a NUL byte): the original raises there."""
    import csv
    import io

    try:
        return list(csv.reader(io.StringIO(value), delimiter=delimiter))
    except csv.Error:
        return None


def _city_csv(value: str, args: Args) -> bool:
    rows = _csv_rows(value)
    return (rows is not None and len(rows) == 8 and rows[0] == ["ID", "Country", "City", "Year", "Count"]
            and all(len(row) == 5 for row in rows[1:]))


_NAPOLEON_YEARS = range(1769, 1822)
_DAYS_IN_MONTH = {1: 31, 3: 31, 5: 31, 7: 31, 8: 31, 10: 31, 12: 31, 4: 30, 6: 30, 9: 30, 11: 30, 2: 29}


def _date_list(value: str, args: Args) -> bool:
    for date in value.strip().split(","):
        date = date.strip()
        shape_ok = len(date) == 10 and date[4] == date[7] == "-" and all(
            date[i].isdecimal() for i in (0, 1, 2, 3, 5, 6, 8, 9))
        if not shape_ok:
            return False
        year, month, day = int(date[:4]), int(date[5:7]), int(date[8:])
        if year not in _NAPOLEON_YEARS or month > 12 or day > _DAYS_IN_MONTH.get(month, 10**9):
            return False  # as the original, month 00 and day 00 pass
    return True


def _header_matches(header: str, names: tuple[str, ...], separator: str, padding: str) -> bool:
    """The original's header pattern as a scan: the names in order (each bare or in double quotes),
    each after the first preceded by ``separator`` and any run of ``padding`` characters."""
    parts = header.split(separator)
    if len(parts) != len(names):
        return False
    return all((part if index == 0 else part.lstrip(padding)) in (name, f'"{name}"')
               for index, (part, name) in enumerate(zip(parts, names)))


def _quoted_special(field: str) -> bool:
    r"""``re.match(r'".*[^\d\w\s].*"', field)`` as a scan: a double quote first, then on the same
    line a character neither word nor space, and after it a double quote."""
    if not field.startswith('"'):
        return False
    newline = field.find("\n", 1)
    line_end = len(field) if newline < 0 else newline
    for index in range(1, line_end):
        char = field[index]
        if not (char.isalnum() or char == "_" or char.isspace()):
            return field.find('"', index + 1, line_end) >= 0
    return False


_PRODUCT_COLUMNS = ("ProductID", "Category", "Brand", "Price", "Stock")
_STUDENT_COLUMNS = ("StudentID", "Subject", "Grade", "Semester", "Score")


def _special_character_csv(value: str, args: Args) -> bool:
    if not _header_matches(value.split("\n")[0].strip(), _PRODUCT_COLUMNS, ",", " \t"):
        return False
    rows = _csv_rows(value.replace('"', '"""'))
    if rows is None or len(rows) != 15:
        return False
    for row in rows[1:]:  # as the original: the first row with a quoted special field settles it
        if len(row) != 5:
            return False
        if any(_quoted_special(field) for field in row):
            return True
    return False


def _quoted_fields_tsv(value: str, args: Args) -> bool:
    if not _header_matches(value.split("\n")[0].strip(), _STUDENT_COLUMNS, "\t", " "):
        return False
    rows = _csv_rows(value.replace('"', '"""'), delimiter="\t")
    if rows is None or len(rows) != 4:
        return False
    for row in rows:
        if len(row) != 5:
            return False
        fields = [field.strip() for field in row]
        if not all(field and field[0] == '"' and field[-1] == '"' for field in fields):
            return False  # an empty field: the original raises
    return True


#: The sentence ``repeat:repeat_simple`` asks to output (its instruction text).
REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."


def _repeat_simple(value: str, args: Args) -> bool:
    return value.strip().lower() == REPEAT_SIMPLE.lower()


def _repeat_span(value: str, args: Args) -> bool:
    # n_end is inclusive here (IFEvalG's new:copy_span_idx excludes it)
    span = args["prompt_to_repeat"][args["n_start"]:args["n_end"] + 1]
    return value.strip().lower() == span.strip().lower()


def split_questions(value: str) -> list[str]:
    r"""``re.split(r"\n*(?:Question \d+[\.|\):;]?\s*)", value)`` as a scan.

    >>> split_questions("Question 1. Why?\n\nQuestion 2) How?")
    ['', 'Why?', 'How?']
    """
    parts, piece_start, pos = [], 0, 0
    while True:
        found = value.find("Question ", pos)
        if found < 0:
            break
        end = found + len("Question ")
        digits = end
        while digits < len(value) and value[digits].isdecimal():
            digits += 1
        if digits == end:  # no number: not a separator here
            pos = found + 1
            continue
        end = digits + (digits < len(value) and value[digits] in ".|):;")
        while end < len(value) and value[end].isspace():
            end += 1
        start = found
        while start > piece_start and value[start - 1] == "\n":
            start -= 1
        parts.append(value[piece_start:start])
        piece_start = pos = end
    parts.append(value[piece_start:])
    return parts


def _is_option_line(line: str) -> bool:
    # re.match(r"^[A-Ea-e][\.|\)]\s*\w+", line): a letter a-e, one of ".|)", spaces, a word character
    if len(line) < 3 or line[0] not in "ABCDEabcde" or line[1] not in ".|)":
        return False
    rest = line[2:].lstrip()
    return bool(rest) and (rest[0].isalnum() or rest[0] == "_")


def _multiple_choice_questions(value: str, args: Args) -> bool:
    if value.find("Question") != 0:  # anything before the first question is an explanation
        return False
    questions = [q.strip() for q in split_questions(value) if q.strip()]
    if len(questions) != 4:
        return False
    lengths = []
    for question in questions:
        wording, options, in_options = "", 0, False
        for line in question.split("\n"):
            if _is_option_line(line.strip()):
                options += 1
                in_options = True
            elif not in_options:
                wording += " " + line.strip()
        if options != 5:
            return False
        lengths.append(len(wording.strip()))
    return all(a < b for a, b in itertools.pairwise(lengths))
