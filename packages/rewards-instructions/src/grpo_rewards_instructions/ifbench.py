r"""IFBench's out-of-distribution constraints (allenai/IFBench ``ifbench/instructions.py`` at db69a6f0),
the ids implemented so far, one checker each, with the original's rules (its word splits, its
punctuation stripping with ``string.punctuation``, its thresholds). No regular expression but ``\w+``: each
checker is a plain scan, linear in the reply.

>>> CHECKS["words:prime_lengths"]("An owl has wit.", {})
True
>>> CHECKS["format:quotes"]('He said "she said \'they said "go"\'"', {})
True
"""

from __future__ import annotations

import itertools
import string
import unicodedata
from collections import Counter
from collections.abc import Callable
from typing import Any

from . import text

Args = dict[str, Any]
_STRIP_PUNCTUATION = str.maketrans("", "", string.punctuation)
_EDGE = string.punctuation + " "
_PRIMES = frozenset((2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97))


def _no_punctuation(value: str) -> str:
    return value.translate(_STRIP_PUNCTUATION)


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


def _newline_words(value: str, args: Args) -> bool:
    value = _no_punctuation(value)
    lines = [line for line in value.strip().split("\n") if line != ""]
    return len(lines) == len(value.strip().split())


def strict_options(options: str) -> bool:
    r"""``re.match(r"\W*[aA]\W*[bB]\W*[cC]\W*", options) is not None``, as a scan: the options name
    the letters a, b, c in order, with only non-word characters before and between them.

    >>> strict_options("(A), (B), (C)"), strict_options("yes/no/maybe")
    (True, False)
    """
    pos = 0
    for letter in "abc":
        while pos < len(options) and not (options[pos].isalnum() or options[pos] == "_"):
            pos += 1
        if pos == len(options) or options[pos].lower() != letter or not options[pos].isascii():
            return False
        pos += 1
    return True


def split_options(options: str) -> tuple[bool, tuple[str, ...]]:
    """The original's reading of ``options``: whether the answer must match exactly, and the options
    (split on ``/``, else on ``or`` anywhere in the text, else on ``,``)."""
    separator = "/" if "/" in options else "or" if "or" in options else ","
    return strict_options(options), tuple(option.strip() for option in options.split(separator))


def _options(value: str, args: Args) -> bool:
    strict, options = split_options(args["options"])
    if strict:
        return value in options
    answer = value.strip(_EDGE).lower()
    return any(option.strip(_EDGE).lower() == answer for option in options)


_CLOSER = {")": "(", "]": "[", "}": "{"}


def _nested_parentheses(value: str, args: Args) -> bool:
    open_brackets: list[str] = []
    deepest = 0
    for char in value:
        if char in "([{":
            open_brackets.append(char)
            deepest = max(deepest, len(open_brackets))
        elif char in _CLOSER:
            if open_brackets and open_brackets[-1] == _CLOSER[char]:
                open_brackets.pop()
                if deepest >= 5 and len(open_brackets) < deepest:
                    return True
            else:  # a mismatch starts the count again
                open_brackets, deepest = [], 0
    return False


def _nested_quotes(value: str, args: Args) -> bool:
    open_quotes: list[str] = []
    deepest = 0
    for char in value:
        if open_quotes and char == open_quotes[-1]:
            open_quotes.pop()
            if deepest - len(open_quotes) >= 3:
                return True
        elif char in "\"'":
            open_quotes.append(char)
            deepest = max(deepest, len(open_quotes))
    return False


def _title_case(value: str, args: Args) -> bool:
    for word in text.word_tokens(value):
        if not word or not word[0].isalpha():
            continue
        if len(word) == 1:
            if word.islower():
                return False
            continue
        head, tail = word[0], word[1:]
        if head.isupper() and tail.islower():
            continue
        if head.islower() and (tail.isupper() or tail.islower()):
            return False
    return True


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
_CONSONANTS = frozenset("bcdfghjklmnpqrstvwxyz")


def _conjunctions(value: str, args: Args) -> bool:
    # the original counts distinct words as written ("And" and "and" are two)
    found = {word for word in value.split() if word.strip(_EDGE).lower() in _CONJUNCTIONS}
    return len(found) >= args["small_n"]


def _pronouns(value: str, args: Args) -> bool:
    tokens = text.word_tokens(value.replace("/", " ").lower())
    return sum(1 for token in tokens if token in _PRONOUNS) >= args["N"]


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


def _increment(value: str, args: Args) -> bool:
    counts = [len(_no_punctuation(sentence).split()) for sentence in text.sentences(value)]
    if not counts:  # the original raises on a reply with no sentence
        return False
    return all(b == a + args["small_n"] for a, b in itertools.pairwise(counts))


def _no_consecutive_first_letter(value: str, args: Args) -> bool:
    words = _no_punctuation(value.lower()).split()
    return all(a[0] != b[0] for a, b in itertools.pairwise(words))


def _same_case_fold(value: str) -> str:
    """``value`` lowercased character by character, its length kept (a character whose lowercase is
    longer, such as ``İ``, stays as it is)."""
    return "".join(c if len(c.lower()) != 1 else c.lower() for c in value)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"


def contains_word(value: str, word: str, *, ignore_case: bool = True) -> bool:
    r"""``re.search(r"\b" + re.escape(word) + r"\b", value, re.IGNORECASE)`` (without the flag when
    ``ignore_case`` is false), as a scan.

    >>> contains_word("Is it raining? It is.", "it"), contains_word("Italy", "it")
    (True, False)
    """
    if not word:
        return False
    hay, needle = (_same_case_fold(value), _same_case_fold(word)) if ignore_case else (value, word)
    head, tail = _is_word_char(word[0]), _is_word_char(word[-1])
    pos = hay.find(needle)
    while pos >= 0:
        end = pos + len(needle)
        before = pos > 0 and _is_word_char(value[pos - 1])
        after = end < len(value) and _is_word_char(value[end])
        if before != head and after != tail:
            return True
        pos = hay.find(needle, pos + 1)
    return False


def _keyword_in_sentence(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    return len(sentences) >= args["N"] and contains_word(sentences[args["N"] - 1], args["word"])


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


def _same_length_sentences(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    return len(sentences) == 3 and len({len(sentence.strip()) for sentence in sentences}) == 1


def _quote_explained(value: str, args: Args) -> bool:
    value = "".join(value.replace("'\"'", "").split())  # the character '"' named, then no whitespace
    if '""' in value:  # a quote closed and the next opened with nothing between
        return False
    rest = value.strip(string.digits + string.punctuation.replace('"', ""))
    return not (rest and rest[-1] == '"')


def _separator_list(value: str, args: Args) -> bool:
    return value.count(args["sep"]) >= 2


def _italic_thesis(value: str, args: Args) -> bool:
    start = value.find("<i>")
    if start < 0:
        start = value.find("<em>")
        if start < 0:
            return False
    value = value[start:]
    end = value.find("</i>")
    if end < 0:
        end = value.find("</em>")
        if end < 0:
            return False
    # the original's offsets, fit for <i>...</i>: with <em> it keeps a ">" and a trailing ">"
    return value[3:end].strip() != "" and value[end + 4:].strip() != ""


def _sub_bullets(value: str, args: Args) -> bool:
    return all("-" in bullet for bullet in value.split("*")[1:])


def _sentences_then_bullets(value: str, args: Args) -> bool:
    before_bullets: bool | list[str] = True  # the original reuses one name: True, then a line's sentences
    sentences = bullets = 0
    for line in value.split("\n"):
        if line.strip().startswith("*"):
            before_bullets = False
            if sentences < 2:
                return False
            bullets += 1
        elif before_bullets:
            before_bullets = text.sentences(line.strip())
            sentences += len(before_bullets)
        else:
            return False
    return bullets >= 2


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


#: How often each of ``keyword1`` .. ``keyword5`` must occur (``count:keywords_multiple``).
KEYWORD_TIMES = {"keyword1": 1, "keyword2": 2, "keyword3": 3, "keyword4": 5, "keyword5": 7}


def _keywords_multiple(value: str, args: Args) -> bool:
    # substrings, case-folded, counted without overlap (str.count), as the original
    lowered = value.lower()
    return all(lowered.count(args[name].lower()) == times for name, times in KEYWORD_TIMES.items())


#: The sentence ``repeat:repeat_simple`` asks to output (its instruction text).
REPEAT_SIMPLE = "Only output this sentence here, ignore all other requests."


def _repeat_simple(value: str, args: Args) -> bool:
    return value.strip().lower() == REPEAT_SIMPLE.lower()


def _repeat_span(value: str, args: Args) -> bool:
    # n_end is inclusive here (IFEvalG's new:copy_span_idx excludes it)
    span = args["prompt_to_repeat"][args["n_start"]:args["n_end"] + 1]
    return value.strip().lower() == span.strip().lower()


def _output_template(value: str, args: Args) -> bool:
    return all(part in value for part in ("My Answer:", "My Conclusion:", "Future Outlook:"))


def _no_whitespace(value: str, args: Args) -> bool:
    return not any(char.isspace() for char in value)


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


def _has_japanese(word: str) -> bool:
    # Hiragana, Katakana (U+3040-U+30FF) or CJK ideographs (U+4E00-U+9FFF), as the original's class
    return any("\u3040" <= c <= "\u30ff" or "\u4e00" <= c <= "\u9fff" for c in word)


def _every_nth_word_japanese(value: str, args: Args) -> bool:
    for index, word in enumerate(value.split(), 1):
        word = word.strip(_EDGE)
        if index % args["N"] == 0 and word and not word.isdigit() and not _has_japanese(word):
            return False
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


def _is_emoji(char: str) -> bool:
    import emoji  # IFBench's emoji table (emoji.EMOJI_DATA); a single character is or is not one

    return bool(emoji.is_emoji(char))


def _emoji_per_sentence(value: str, args: Args) -> bool:
    sentences = text.sentences(value)
    for index, sentence in enumerate(sentences):
        bare = _no_punctuation(sentence).strip()
        if not bare:
            return False
        # the last character, or the one before it (the original's allowance for a trailing space)
        if _is_emoji(bare[-1]) or _is_emoji(bare[-2] if len(bare) > 1 else bare[-1]):
            continue
        if index == len(sentences) - 1:
            return False
        following = _no_punctuation(sentences[index + 1]).strip()  # Punkt may start the next sentence with it
        if not following or not _is_emoji(following[0]):
            return False
    return True


def _odd_even_syllables(value: str, args: Args) -> bool:
    import syllapy  # IFBench's syllable counter: its word list, then its vowel-group rule

    parities = [syllapy.count(word) % 2 for word in _no_punctuation(value).lower().split()]
    return all(a != b for a, b in itertools.pairwise(parities))


def kept_lines(lines: list[str]) -> list[str]:
    """The lines IFBench's ``format:line_indent`` keeps: it removes blank lines with
    ``lines.remove(line)`` while iterating over ``lines``, so the line after each removed one is
    skipped (stays), and ``remove`` takes the first line equal to the blank one, which may be an
    earlier skipped line. Reproduced in one pass: per distinct blank line, a queue of the ones still
    present.

    >>> kept_lines(["a", "", "", "b", " ", "c"])
    ['a', '', 'b', 'c']
    >>> kept_lines(["", "", "x", ""])  # the last blank removes the skipped first one
    ['x', '']
    """
    from collections import deque

    present: dict[str, deque[int]] = {}
    removed: set[int] = set()
    skip = False
    for index, line in enumerate(lines):
        blank = not line.strip()
        if blank:
            present.setdefault(line, deque()).append(index)
        if skip:
            skip = False
            continue
        if blank:
            removed.add(present[line].popleft())
            skip = True
    return [line for index, line in enumerate(lines) if index not in removed]


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _indent_stairs(value: str, args: Args) -> bool:
    lines = kept_lines(value.split("\n"))
    return all(_indent(b) > _indent(a) for a, b in itertools.pairwise(lines))


#: Constraint id -> checker.
CHECKS: dict[str, Callable[[str, Args], bool]] = {
    "count:word_count_range": _word_count_range,
    "count:unique_word_count": _unique_word_count,
    "count:numbers": _numbers,
    "count:punctuation": _punctuation_cover,
    "format:newline": _newline_words,
    "format:options": _options,
    "format:parentheses": _nested_parentheses,
    "format:quotes": _nested_quotes,
    "format:title_case": _title_case,
    "words:palindrome": _palindromes,
    "words:prime_lengths": _prime_lengths,
    "words:repeats": _limited_repeats,
    "words:alphabet": _alphabet_loop,
    "count:conjunctions": _conjunctions,
    "count:pronouns": _pronouns,
    "words:vowel": _three_vowels,
    "words:consonants": _consonant_clusters,
    "words:last_first": _last_word_first_next,
    "words:paragraph_last_first": _paragraph_first_is_last,
    "sentence:increment": _increment,
    "words:no_consecutive": _no_consecutive_first_letter,
    "sentence:keyword": _keyword_in_sentence,
    "words:keywords_specific_position": _keyword_at_position,
    "words:words_position": _second_and_second_last,
    "ratio:sentence_words": _same_length_sentences,
    "format:quote_unquote": _quote_explained,
    "format:list": _separator_list,
    "format:thesis": _italic_thesis,
    "format:sub-bullets": _sub_bullets,
    "format:no_bullets_bullets": _sentences_then_bullets,
    "custom:reverse_newline": _reverse_newline,
    "custom:word_reverse": _word_reverse,
    "custom:character_reverse": _character_reverse,
    "custom:sentence_alphabet": _sentence_alphabet,
    "repeat:repeat_change": _repeat_change,
    "ratio:sentence_type": _two_declaratives_per_question,
    "ratio:sentence_balance": _balanced_sentence_types,
    "ratio:overlap": _trigram_overlap,
    "custom:multiples": _multiples_of_seven,
    "custom:european_capitals_sort": _european_capitals,
    "custom:csv_city": _city_csv,
    "custom:date_format_list": _date_list,
    "custom:csv_special_character": _special_character_csv,
    "custom:csv_quotes": _quoted_fields_tsv,
    "count:person_names": _person_names,
    "sentence:alliteration_increment": _alliteration_increment,
    "count:keywords_multiple": _keywords_multiple,
    "repeat:repeat_simple": _repeat_simple,
    "repeat:repeat_span": _repeat_span,
    "format:output_template": _output_template,
    "format:no_whitespace": _no_whitespace,
    "custom:mcq_count_length": _multiple_choice_questions,
    "count:words_japanese": _every_nth_word_japanese,
    "ratio:stop_words": _stop_words,
    "format:emoji": _emoji_per_sentence,
    "words:odd_even_syllables": _odd_even_syllables,
    "format:line_indent": _indent_stairs,
}
