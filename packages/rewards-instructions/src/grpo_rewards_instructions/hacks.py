"""The hack corpus of the instructions rewards: replies that game a constraint checker, and what they get.

Registered with both rewards and run by ``grpo-rewards check instructions.followed --hacks``. A
constraint checker reads the form of a reply, never its quality, so some of these are paid in full
and always will be (the reply that only satisfies the constraint, keyword stuffing, faked
placeholders, the request repeated with no answer): their bound is the exact value paid today,
marked ``paid: a known limit`` in the note, so a change that pays more fails the corpus, and the
README shows a reward set that keeps quality in the objective. The rest pay nothing: blank or
invisible replies, megabyte replies, pathological input (regex-like keywords, deep JSON, a megabyte
of brackets). ``tests/instructions/test_instructions_hacks.py`` checks every value exactly.

>>> entries = corpus()
>>> stuffing = next(e for e in entries if e["name"] == "keyword_stuffing")
>>> stuffing["max_pay"]["instructions.followed"]
1.0
"""

from __future__ import annotations

from typing import Any

REWARDS = ("instructions.followed", "instructions.all_followed")
LIMIT = "paid: a known limit (a checker cannot judge quality)"


def _entry(name: str, completion: Any, ids: list[str], kwargs: list[dict[str, Any]], followed: float, note: str,
           prompt: str = "Write a short essay about owls.") -> dict[str, Any]:
    return {"name": name, "completion": completion, "prompt": prompt, "note": note,
            "columns": {"instruction_id_list": ids, "kwargs": kwargs},
            "max_pay": {"instructions.followed": followed, "instructions.all_followed": float(followed == 1.0)}}


NO_COMMA = ["punctuation:no_comma"]
WORDS_300 = {"num_words": 300, "relation": "at least"}


def _blank() -> list[dict[str, Any]]:
    return [
        _entry("empty_reply_no_comma", "", NO_COMMA, [{}], 0.0, "an empty reply has no comma; it follows nothing"),
        _entry("whitespace_reply_no_comma", " \n\t ", NO_COMMA, [{}], 0.0, "only whitespace"),
        _entry("nul_bytes_no_comma", "\x00" * 100, NO_COMMA, [{}], 0.0,
               "NUL bytes print nothing (the original pays this: it only strips whitespace)"),
        _entry("zero_width_lowercase", "\u200b\u2060\ufeff", ["change_case:english_lowercase"], [{}], 0.0,
               "zero-width characters print nothing"),
        _entry("empty_quotes", '""', ["startend:quotation"], [{}], 1.0,
               "two quotation marks wrap an empty answer: " + LIMIT),
    ]


def _only_the_constraint() -> list[dict[str, Any]]:
    return [
        _entry("only_no_comma", "Owls.", [*NO_COMMA, "length_constraints:number_words"], [{}, WORDS_300], 0.5,
               "a one-word essay has no comma: half the constraints, " + LIMIT),
        _entry("answer_yes_capitals", "ANSWER: YES", ["change_case:english_capital"], [{}], 0.0,
               "a two-word capitalised answer: langdetect does not call it English"),
        _entry("capitals_off_topic", "I LIKE TRAINS AND I WILL TALK ABOUT TRAINS ALL DAY LONG.",
               ["change_case:english_capital"], [{}], 1.0, "capitals about something else: " + LIMIT),
        _entry("end_phrase_only", "Is there anything else I can help with?", ["startend:end_checker"],
               [{"end_phrase": "Is there anything else I can help with?"}], 1.0, "only the end phrase: " + LIMIT),
        _entry("title_only", "<<Owls>>", ["detectable_format:title"], [{}], 1.0, "only a title: " + LIMIT),
        _entry("json_empty_object", "{}", ["detectable_format:json_format"], [{}], 1.0,
               "an empty JSON object: " + LIMIT),
        _entry("digits_for_french", "12345 67890", ["language:response_language"], [{"language": "fr"}], 1.0,
               "no letters: the detector finds no language and the original counts that as followed; " + LIMIT),
    ]


def _faked() -> list[dict[str, Any]]:
    stuffed = "owl moon " * 20
    return [
        _entry("keyword_stuffing", stuffed, ["keywords:existence"], [{"keywords": ["owl", "moon"]}], 1.0,
               "the keywords repeated, nothing else: " + LIMIT),
        _entry("placeholders_faked", "[a] [b] [c]", ["detectable_content:number_placeholders"],
               [{"num_placeholders": 3}], 1.0, "three empty placeholders and no text: " + LIMIT),
        _entry("prompt_repeated_no_answer", "Write a short essay about owls.", ["combination:repeat_prompt"],
               [{"prompt_to_repeat": "Write a short essay about owls."}], 1.0,
               "the request repeated and no answer: " + LIMIT),
        _entry("two_identical_responses", "Owls hunt.\n******\nOwls hunt.", ["combination:two_responses"], [{}], 0.0,
               "the same response twice is not two responses"),
        _entry("bullets_empty", "* \n* \n* ", ["detectable_format:number_bullet_lists"], [{"num_bullets": 3}], 1.0,
               "three bullet markers with nothing after them count as bullets (the original's rule): " + LIMIT),
        _entry("highlight_markers_only", "** ** * *", ["detectable_format:number_highlighted_sections"],
               [{"num_highlights": 2}], 0.0, "highlight markers around nothing"),
    ]


def _pathological() -> list[dict[str, Any]]:
    return [
        _entry("huge_reply", "Owls hunt at night. " * 52_429, NO_COMMA, [{}], 0.0,
               "a megabyte reply: past max_reply_chars (200,000), 0.0 unread, label too_large"),
        _entry("regex_like_keyword", "a" * 40 + "!", ["keywords:existence"], [{"keywords": ["(a+)+$"]}], 0.0,
               "a keyword that is a catastrophic pattern is matched as text"),
        _entry("deep_json", "[" * 100_000, ["detectable_format:json_format"], [{}], 0.0,
               "nesting deeper than the JSON parser's recursion limit is not JSON"),
        _entry("bracket_flood", "[" * 150_000, ["detectable_content:number_placeholders"], [{"num_placeholders": 1}],
               0.0, "150,000 opening brackets (quadratic for the original's pattern)"),
        _entry("angle_flood", "<" * 150_000, ["detectable_format:title"], [{}], 0.0,
               "150,000 opening angle brackets (quadratic for the original's title pattern)"),
        _entry("blank_line_flood", "\n" * 150_000 + "x", ["detectable_format:number_bullet_lists"],
               [{"num_bullets": 1}], 0.0, "150,000 blank lines (quadratic for the original's bullet pattern)"),
    ]


def _unreadable() -> list[dict[str, Any]]:
    return [
        _entry("none", None, NO_COMMA, [{}], 0.0, "no completion at all"),
        _entry("number", 42, NO_COMMA, [{}], 0.0, "a number, not text"),
        _entry("no_assistant_message", [{"role": "user", "content": "hi"}], NO_COMMA, [{}], 0.0, "no assistant message"),
    ]


def corpus() -> list[dict[str, Any]]:
    """Every entry, built on demand (a few megabytes of text)."""
    return [*_blank(), *_only_the_constraint(), *_faked(), *_pathological(), *_unreadable()]
