r"""The one normaliser: a dataset row's constraints, read as the public datasets carry them, checked.

Three shapes are read:

- IFEval (``google/IFEval``) and IFBench rows: ``instruction_id_list`` (ids) and ``kwargs`` (one
  dict per id; keys that are ``None`` are absent, as the datasets store every key of every id).
  ``kwargs`` may also be a JSON string.
- open-instruct's RLVR rows: ``ground_truth``, a JSON (or Python-literal) string of a dict, or of a
  list whose first element is one, with ``instruction_id`` (a list, or one id) and ``kwargs``.
- Already parsed: a ``constraints`` column, a list of ``{"id": ..., "kwargs": {...}}``.

An unknown id, a missing, unknown or ill-typed argument is a :class:`ConstraintError` naming the
row, the id and the argument; the rewards' ``check_rows`` reports them before training starts.

>>> [c.id for c in read_row({"instruction_id_list": ["punctuation:no_comma"], "kwargs": [{}]})]
['punctuation:no_comma']
>>> read_row({"ground_truth": '[{"instruction_id": ["keywords:existence"], "kwargs": [{"keywords": ["owl"]}]}]'})
(Constraint(id='keywords:existence', args={'keywords': ('owl',)}),)
>>> read_row({"instruction_id_list": ["length_constraints:number_words"],
...           "kwargs": [{"num_words": 10, "relation": "about"}]}, where="row 3")
Traceback (most recent call last):
...
grpo_rewards_instructions.constraints.ConstraintError: row 3: length_constraints:number_words: relation must be one of 'less than', 'at least', got 'about'
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from grpo_rewards import NotApplicable, check_each_row, jsontext

from . import ifbench, ifevalg
from .ifeval import CHECKS as IFEVAL_CHECKS
from .ifeval import RELATIONS

#: Constraint id -> checker: IFEval's 25, IFEvalG's 29, then the IFBench ids implemented so far.
CHECKS = {**IFEVAL_CHECKS, **ifevalg.CHECKS, **ifbench.CHECKS}

#: The columns a row's constraints are read from, in the order they are tried.
COLUMNS = ("instruction_id_list", "ground_truth", "constraints")


class ConstraintError(ValueError):
    """A row whose constraints cannot be read (unknown id, missing or bad argument)."""


@dataclass(frozen=True)
class Constraint:
    """One constraint: its id and its checked arguments (lists made tuples)."""

    id: str
    args: dict[str, Any]

    def check(self, text: str) -> bool:
        return CHECKS[self.id](text, self.args)

    def __hash__(self) -> int:
        return hash((self.id, tuple(sorted(self.args.items()))))


def _count(value: Any, name: str) -> int:
    # a float counts when it is whole (3.0: a column with gaps); inf and NaN are not (int() raised on them)
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or (isinstance(value, float) and not value.is_integer()) or value < 0):
        raise ValueError(f"{name} must be a whole number >= 0, got {value!r}")
    return int(value)


def _positive(value: Any, name: str) -> int:
    number = _count(value, name)
    if number < 1:
        raise ValueError(f"{name} must be a whole number >= 1, got {value!r}")
    return number


def _relation(value: Any, name: str) -> str:
    if value not in RELATIONS:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, RELATIONS))}, got {value!r}")
    return str(value)


def _phrase(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value.strip() or "\x00" in value:
        raise ValueError(f"{name} must be a non-empty text without NUL, got {value!r}")
    return value.strip()


def _text(value: Any, name: str) -> str:
    # as _phrase, kept as written (IFBench compares a repeated prompt, or counts a separator, unstripped)
    _phrase(value, name)
    return str(value)


def _first_phrase(value: Any, name: str) -> str:
    # IFEvalG takes the first of a list of keywords for keyword_specific_position
    if isinstance(value, (list, tuple)) and value:
        value = value[0]
    return _phrase(value, name)


def _words(value: Any, name: str) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
        raise ValueError(f"{name} must be a non-empty list of texts, got {value!r}")
    return tuple(_phrase(v, f"{name}[{i}]") for i, v in enumerate(value))


def _letter(value: Any, name: str) -> str:
    # The original takes a letter a-z and draws a random one for anything else; IFEval's own data asks
    # for "#" and "!" twice, so any one visible character is counted as given (case-folded).
    if not isinstance(value, str) or len(value.strip()) != 1:
        raise ValueError(f"{name} must be one character, got {value!r}")
    return value.strip().lower()


def _language(value: Any, name: str) -> str:
    from .text import languages

    known = languages()
    if not isinstance(value, str) or value not in known:  # a list or dict is no code (and unhashable)
        raise ValueError(f"{name} must be a language code the detector knows ({', '.join(sorted(known))}), "
                         f"got {value!r}")
    return str(value)


_Check = Callable[[Any, str], Any]
#: Constraint id -> {argument: check}; every argument is required (the original draws a missing one at
#: random, which a reward must not).
SPECS: dict[str, dict[str, _Check]] = {
    "keywords:existence": {"keywords": _words},
    "keywords:frequency": {"keyword": _phrase, "frequency": _count, "relation": _relation},
    "keywords:forbidden_words": {"forbidden_words": _words},
    "keywords:letter_frequency": {"letter": _letter, "let_frequency": _count, "let_relation": _relation},
    "language:response_language": {"language": _language},
    "length_constraints:number_sentences": {"num_sentences": _count, "relation": _relation},
    "length_constraints:number_paragraphs": {"num_paragraphs": _count},
    "length_constraints:number_words": {"num_words": _count, "relation": _relation},
    "length_constraints:nth_paragraph_first_word": {"num_paragraphs": _positive, "nth_paragraph": _positive,
                                                    "first_word": _phrase},
    "detectable_content:number_placeholders": {"num_placeholders": _count},
    "detectable_content:postscript": {"postscript_marker": _phrase},
    "detectable_format:number_bullet_lists": {"num_bullets": _count},
    "detectable_format:constrained_response": {},
    "detectable_format:number_highlighted_sections": {"num_highlights": _count},
    "detectable_format:multiple_sections": {"section_spliter": _phrase, "num_sections": _count},
    "detectable_format:json_format": {},
    "detectable_format:title": {},
    "combination:two_responses": {},
    "combination:repeat_prompt": {"prompt_to_repeat": _phrase},
    "startend:end_checker": {"end_phrase": _phrase},
    "change_case:capital_word_frequency": {"capital_frequency": _count, "capital_relation": _relation},
    "change_case:english_capital": {},
    "change_case:english_lowercase": {},
    "punctuation:no_comma": {},
    "startend:quotation": {},
    # open-instruct's IFEvalG (ifevalg.py)
    "punctuation:punctuation_dot": {},
    "punctuation:punctuation_exclamation": {},
    "count:lowercase_counting": {"N": _count},
    "letters:letter_counting": {"N": _count, "relation": _relation},
    "letters:letter_counting2": {"letter": _letter, "let_frequency": _count, "let_relation": _relation},
    "count:count_unique": {},
    "count:count_increment_word": {"keyword1": _phrase, "keyword2": _phrase},
    "keywords:palindrome": {},
    "keywords:keyword_specific_position": {"keyword": _first_phrase, "n": _positive, "m": _positive},
    "keywords:start_end": {},
    "keywords:exclude_word_harder": {"keyword": _phrase},
    "paragraphs:paragraphs": {},
    "paragraphs:paragraphs2": {},
    "first_word:first_word_sent": {"first_word": _first_phrase},
    "first_word:first_word_answer": {"first_word": _phrase},
    "last_word:last_word_sent": {"last_word": _first_phrase},
    "last_word:last_word_answer": {"last_word": _phrase},
    "detectable_format:bigram_wrapping": {},
    "copy:copying_simple": {"prompt_to_repeat": _phrase},
    "copy:copying_multiple": {"prompt_to_repeat": _phrase, "N": _positive},
    "copy:copy": {"prompt_to_repeat": _phrase},
    "new:copy_span_idx": {"prompt_to_repeat": _phrase, "n_start": _count, "n_end": _count},
    "detectable_format:sentence_hyphens": {},
    "keywords:no_adjacent_consecutive": {},
    "detectable_format:square_brackets": {},
    "keywords:word_once": {"keyword": _phrase},
    "keywords:word_count_different_numbers": {"keyword": _phrase, "frequency": _count, "relation": _relation},
    "copy:repeat_phrase": {"phrase": _phrase, "small_n": _positive},
    "count:counting_composition": {"n_sent": _positive, "n_words": _positive},
    # allenai/IFBench's out-of-distribution set (ifbench.py)
    "count:word_count_range": {"min_words": _count, "max_words": _count},
    "count:unique_word_count": {"N": _count},
    "count:numbers": {"N": _count},
    "count:punctuation": {},
    "format:newline": {},
    "format:options": {"options": _phrase},
    "format:parentheses": {},
    "format:quotes": {},
    "format:title_case": {},
    "words:palindrome": {},
    "words:prime_lengths": {},
    "words:repeats": {"small_n": _count},
    "words:alphabet": {},
    "count:conjunctions": {"small_n": _count},
    "count:pronouns": {"N": _count},
    "words:vowel": {},
    "words:consonants": {},
    "words:last_first": {},
    "words:paragraph_last_first": {},
    "sentence:increment": {"small_n": _count},
    "words:no_consecutive": {},
    "sentence:keyword": {"word": _phrase, "N": _positive},
    "words:keywords_specific_position": {"keyword": _phrase, "n": _positive, "m": _positive},
    "words:words_position": {"keyword": _phrase},
    "ratio:sentence_words": {},
    "format:quote_unquote": {},
    "format:list": {"sep": _text},
    "format:thesis": {},
    "format:sub-bullets": {},
    "format:no_bullets_bullets": {},
    "custom:reverse_newline": {},
    "custom:word_reverse": {},
    "custom:character_reverse": {},
    "custom:sentence_alphabet": {},
    "repeat:repeat_change": {"prompt_to_repeat": _text},
    "ratio:sentence_type": {},
    "ratio:sentence_balance": {},
    "ratio:overlap": {"reference_text": _text, "percentage": _count},
    "custom:multiples": {},
    "custom:european_capitals_sort": {},
    "custom:csv_city": {},
    "custom:date_format_list": {},
    "custom:csv_special_character": {},
    "custom:csv_quotes": {},
    "count:person_names": {"N": _count},
    "sentence:alliteration_increment": {},
    "count:keywords_multiple": {name: _phrase for name in ("keyword1", "keyword2", "keyword3", "keyword4", "keyword5")},
    "repeat:repeat_simple": {},
    "repeat:repeat_span": {"prompt_to_repeat": _text, "n_start": _count, "n_end": _count},
    "format:output_template": {},
    "format:no_whitespace": {},
    "custom:mcq_count_length": {},
    "count:words_japanese": {"N": _positive},
    "ratio:stop_words": {"percentage": _count},
    "format:emoji": {},
    "words:odd_even_syllables": {},
    "format:line_indent": {},
}
#: The ids of IFEval itself, of IFEvalG and of IFBench (implemented so far).
IFEVAL_IDS = frozenset(IFEVAL_CHECKS)
IFEVALG_IDS = frozenset(ifevalg.CHECKS)
IFBENCH_IDS = frozenset(ifbench.CHECKS)
assert set(SPECS) == set(CHECKS)


def make_constraint(constraint_id: Any, kwargs: Any) -> Constraint:
    """One checked constraint (a ``ValueError`` naming the id and the argument otherwise)."""
    if not isinstance(constraint_id, str) or constraint_id not in SPECS:
        raise ValueError(f"unknown constraint id {constraint_id!r} (known: IFEval's {len(IFEVAL_IDS)}, "
                         f"IFEvalG's {len(IFEVALG_IDS)} and {len(IFBENCH_IDS)} of IFBench's; "
                         f"grpo_rewards_instructions.constraints.SPECS lists them)")
    if kwargs is None:
        kwargs = {}
    if not isinstance(kwargs, Mapping):
        raise ValueError(f"{constraint_id}: kwargs must be a dict, got {type(kwargs).__name__}")
    given = {k: v for k, v in kwargs.items() if v is not None}
    spec = SPECS[constraint_id]
    unknown = sorted(set(given) - set(spec))
    if unknown:
        raise ValueError(f"{constraint_id}: unknown argument(s) {', '.join(map(repr, unknown))} "
                         f"(it takes {', '.join(spec) or 'none'})")
    args = {}
    for name, check in spec.items():
        if name not in given:
            raise ValueError(f"{constraint_id}: argument {name!r} is missing")
        try:
            args[name] = check(given[name], name)
        except ValueError as exc:
            raise ValueError(f"{constraint_id}: {exc}") from None
    if constraint_id == "length_constraints:nth_paragraph_first_word" and args["nth_paragraph"] > args["num_paragraphs"]:
        raise ValueError(f"{constraint_id}: nth_paragraph ({args['nth_paragraph']}) is past num_paragraphs "
                         f"({args['num_paragraphs']})")
    if constraint_id == "repeat:repeat_span" and args["n_end"] < args["n_start"]:
        raise ValueError(f"{constraint_id}: n_end ({args['n_end']}) is below n_start ({args['n_start']})")
    if constraint_id == "count:word_count_range" and args["min_words"] > args["max_words"]:
        raise ValueError(f"{constraint_id}: min_words ({args['min_words']}) is above max_words ({args['max_words']})")
    return Constraint(constraint_id, args)


def _parse_text(value: Any, column: str) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return jsontext.loads(value)
    except ValueError:
        try:
            return ast.literal_eval(value)
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise ValueError(f"{column} is neither JSON nor a Python literal: {value[:80]!r}") from None


def _pairs(row: Mapping[str, Any]) -> tuple[list[Any], list[Any]]:
    """The row's ``(ids, kwargs)`` lists, from whichever column it has."""
    if row.get("instruction_id_list") is not None:
        ids = row["instruction_id_list"]
        kwargs = _parse_text(row.get("kwargs"), "kwargs")
        if kwargs is None:
            kwargs = [{}] * len(ids) if isinstance(ids, (list, tuple)) else []
    elif row.get("ground_truth") is not None:
        truth = _parse_text(row["ground_truth"], "ground_truth")
        if isinstance(truth, (list, tuple)):
            if not truth:
                raise ValueError("ground_truth is an empty list")
            truth = _parse_text(truth[0], "ground_truth[0]")  # open-instruct reads the first element
        if not isinstance(truth, Mapping) or "instruction_id" not in truth:
            keys = sorted(truth) if isinstance(truth, Mapping) else type(truth).__name__
            raise ValueError(f"ground_truth must hold 'instruction_id' and 'kwargs' (open-instruct's IFEvalG "
                             f"format), got {keys}")
        ids, kwargs = truth["instruction_id"], truth.get("kwargs")
        if isinstance(ids, str):
            ids, kwargs = [ids], [kwargs]
        if kwargs is None:
            kwargs = [{}] * len(ids) if isinstance(ids, (list, tuple)) else []
    elif row.get("constraints") is not None:
        items = _parse_text(row["constraints"], "constraints")
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, Mapping) for i in items):
            raise ValueError("constraints must be a list of {'id': ..., 'kwargs': {...}}")
        ids, kwargs = [i.get("id") for i in items], [i.get("kwargs") for i in items]
    else:
        raise NotApplicable(f"no constraints: expected a column {', '.join(map(repr, COLUMNS))}")
    if isinstance(ids, str) or not isinstance(ids, (list, tuple)):
        raise ValueError(f"the constraint ids must be a list, got {type(ids).__name__}")
    if not isinstance(kwargs, (list, tuple)) or len(kwargs) != len(ids):
        got = len(kwargs) if isinstance(kwargs, (list, tuple)) else type(kwargs).__name__
        raise ValueError(f"{len(ids)} constraint ids but kwargs is {got}: one dict per id expected")
    return list(ids), list(kwargs)


def _constraints(row: Mapping[str, Any]) -> tuple[Constraint, ...]:
    """The constraints of one row (a ``ValueError`` naming the column, the id or the argument otherwise)."""
    ids, kwargs = _pairs(row)
    if not ids:
        raise ValueError("the row has no constraints")
    return tuple(make_constraint(i, k) for i, k in zip(ids, kwargs))


def read_row(row: Mapping[str, Any], *, where: str = "row") -> tuple[Constraint, ...]:
    """The constraints of one row; a :class:`ConstraintError` starting with ``where`` otherwise."""
    try:
        return _constraints(row)
    except ValueError as exc:
        raise ConstraintError(f"{where}: {exc}") from None


def check_rows(rows: Any, *, max_problems: int = 5) -> list[str]:
    """A problem line per row whose constraints cannot be read (at most ``max_problems``), naming the row; a row
    whose constraint columns are all ``None`` (another task's row in a mixed dataset) is none, unless all are."""
    return check_each_row(rows, _constraints, ValueError, max_problems=max_problems)
