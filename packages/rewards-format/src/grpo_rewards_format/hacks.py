r"""The hack corpus of the format rewards: degenerate completions and the most each reward may pay.

Registered with every format reward (``register(..., hacks=corpus)``) and run by
``grpo-rewards check format.boxed --hacks``. Each entry gives, for every format reward, the exact
value it pays today, which is also the most it may pay: junk (blank blocks, tag soup, look-alike
tags, boxes that print nothing, truncated output, repeats that differ only in invisible
characters) pays 0.0 or a partial share, and ``format.repetition`` (a penalty) at most its
negative value. ``format.regex`` runs with :data:`REGEX_PATTERN`. ``format.tag_count`` counts tags
and never reads their content (as Open-R1's ``tag_count_reward``), so a blank block keeps its tags'
credit. The test suite checks every value exactly; ``tests/format/test_format_hacks.py``.

>>> entries = corpus()
>>> blank = next(e for e in entries if e["name"] == "blank_think_hangul_filler")
>>> blank["max_pay"]["format.think_answer"], blank["max_pay"]["format.xml_fields"]
(0.0, 0.5)
"""

from __future__ import annotations

from typing import Any

#: The pattern ``format.regex`` runs with on this corpus: a boxed integer answer block at the end.
REGEX_PATTERN = r"<answer>\s*\\boxed\{\d+\}\s*</answer>\s*$"
REWARDS = ("think_answer", "think", "tag_count", "boxed", "regex", "reasoning_steps", "repetition", "xml_fields")
ZERO = dict.fromkeys(REWARDS, 0.0)
#: What a completion with no readable text gets from every format reward.
UNREADABLE = ZERO
PHRASE_REPEATS = 50


def _entry(name: str, completion: Any, note: str, **pays: float) -> dict[str, Any]:
    unknown = set(pays) - set(REWARDS)
    assert not unknown, unknown
    max_pay = {f"format.{short}": float(pays.get(short, 0.0)) for short in REWARDS}
    return {"name": name, "completion": completion, "note": note, "max_pay": max_pay,
            "prompt": "What is 2 + 2?", "params": {"format.regex": {"pattern": REGEX_PATTERN}}}


def _blank_blocks() -> list[dict[str, Any]]:
    """Blocks whose only content is a character that renders as nothing."""
    blanks = {"hangul_filler": "\u3164", "braille_blank": "\u2800", "grapheme_joiner": "\u034f", "nul": "\x00",
              "zero_width_mix": "\u200b\u2060\ufeff\u00ad", "halfwidth_hangul_filler": "\uffa0",
              "tag_characters": "\U000e0041\U000e0042", "combining_mark_on_nothing": " \u0301\u20dd",
              # one of every general category that is not visible (only L, N, P, S are), and the
              # characters of visible categories that still render as nothing
              "nonspacing_mark_Mn": "\u0301", "spacing_mark_Mc": "\u0903", "enclosing_mark_Me": "\u20dd",
              "space_Zs": "\u3000", "line_separator_Zl": "\u2028", "paragraph_separator_Zp": "\u2029",
              "control_Cc": "\x07", "format_Cf": "\u200e", "private_use_Co": "\ue000",
              "private_use_plane_16_Co": "\U00100000", "unassigned_Cn": "\u0378",
              "hangul_choseong_filler_Lo": "\u115f", "musical_null_notehead_So": "\U0001d159",
              "musical_begin_beam_Cf": "\U0001d173"}
    out = []
    for label, blank in blanks.items():
        out.append(_entry(f"blank_think_{label}", f"<think>{blank}</think><answer>4</answer>",
                          f"the reasoning block holds only {blank!r}", tag_count=1.0, xml_fields=0.5))
        out.append(_entry(f"blank_answer_{label}", f"<think>2 + 2 = 4</think><answer>{blank}</answer>",
                          f"the answer block holds only {blank!r}", think=1.0, tag_count=1.0, xml_fields=0.5))
    out.append(_entry("both_blocks_unassigned", "<think>\u0378</think><answer>\u0378</answer>",
                      "both blocks hold only an unassigned code point", tag_count=1.0))
    out.append(_entry("both_blocks_private_use", "<think>\ue000</think><answer>\ue000</answer>",
                      "both blocks hold only a private-use character", tag_count=1.0))
    out.append(_entry("blank_after_think", "<think>2 + 2 = 4</think>\u3164\u2800",
                      "nothing visible after the reasoning", tag_count=0.5, xml_fields=0.5))
    out.append(_entry("blank_steps", "Step 1: \u3164\nStep 2: \u2800\nStep 3: \u200b",
                      "step markers followed by invisible characters"))
    return out


def _blank_boxes() -> list[dict[str, Any]]:
    """Boxes whose content prints nothing in LaTeX."""
    boxes = {"backslash_space": "\\ ", "tilde": "~", "empty_group": "{}", "empty_text": "\\text{}",
             "phantom": "\\phantom{4}", "quad": "\\quad", "hspace": "\\hspace{1cm}", "kern": "\\kern 2em",
             "null_delimiters": "\\left.\\right.", "colour_only": "\\color{red}{}", "thin_spaces": "\\,\\;\\!",
             "blank_text": "\\text{\u3164}", "zero_width": "\u200b"}
    return [_entry(f"box_{label}", f"The answer is \\boxed{{{inside}}}.", f"\\boxed{{{inside}}} prints nothing")
            for label, inside in boxes.items()]


def _structure() -> list[dict[str, Any]]:
    """Tag soup, nesting, repeats, truncation, look-alikes, code blocks (the former fixture set)."""
    return [
        _entry("repeated_blocks",
               "<think>2 + 2 = 4</think><answer>\\boxed{4}</answer>\n<think>2 + 2 = 5</think><answer>\\boxed{5}</answer>",
               "two think/answer pairs", regex=1.0, repetition=-0.25),
        _entry("nested_tags", "<think><think>2 + 2 = 4</think></think><answer>\\boxed{4}</answer>",
               "a think block inside a think block", tag_count=0.5, boxed=1.0, regex=1.0, xml_fields=0.5),
        _entry("empty_answer", "<think>2 + 2 = 4</think><answer> </answer>", "a blank answer block",
               think=1.0, tag_count=1.0, xml_fields=0.5),
        _entry("answer_outside", "<think>2 + 2 = 4</think>The answer is \\boxed{4}.", "no answer block",
               think=1.0, tag_count=0.5, boxed=1.0, xml_fields=0.25),
        _entry("code_block", "```\n<think>2 + 2 = 4</think><answer>\\boxed{4}</answer>\n```",
               "the tags are quoted in a code block", boxed=1.0),
        _entry("truncated_mid_tag", "<think>2 + 2 = 4</think><answer>\\boxed{4}</ans", "cut off inside a tag",
               think=1.0, tag_count=0.75, boxed=1.0, xml_fields=0.25),
        _entry("truncated_in_box", "<think>2 + 2 = 4</think><answer>\\boxed{\\frac{1}{2}", "cut off inside a box",
               think=1.0, tag_count=0.75, xml_fields=0.25),
        _entry("lookalike_cyrillic", "<th\u0456nk>2 + 2 = 4</th\u0456nk><answer>\\boxed{4}</answer>",
               "a Cyrillic i in the think tags", tag_count=0.5, boxed=1.0, regex=1.0, xml_fields=0.25),
        _entry("lookalike_fullwidth",
               "\uff1cthink\uff1e2 + 2 = 4\uff1c/think\uff1e\uff1canswer\uff1e\\boxed{4}\uff1c/answer\uff1e",
               "fullwidth angle brackets", boxed=1.0),
        _entry("lookalike_boxed", "The answer is \\b\u043exed{4}.", "a Cyrillic o in \\boxed"),
        _entry("tag_soup", "<think><answer></think></answer>" * 3, "tags in every order, nothing in them"),
        _entry("unclosed_think", "<think>2 + 2 = 4<answer>4</answer>", "the reasoning block never closes",
               tag_count=0.75),
        _entry("two_answers", "<think>2 + 2 = 4</think><answer>4</answer><answer>5</answer>",
               "two answer blocks", think=1.0, tag_count=0.5, xml_fields=0.5),
        _entry("boxed_spam", " ".join(f"\\boxed{{{n}}}" for n in range(1, 21)), "a box for every number",
               repetition=0.0),
        _entry("nested_boxes", "\\boxed{\\boxed{}}", "a box in a box"),
    ]


def _repeats() -> list[dict[str, Any]]:
    """Repetition that differs only in invisible characters or spacing."""
    invisible = " ".join("the answer is four" + "\u200b" * i for i in range(PHRASE_REPEATS))
    spacing = " ".join("the answer is four" + "\u3000" * (i % 3) + "\u2800" * (i % 2) for i in range(PHRASE_REPEATS))
    steps = "\n".join("- add two and two" + "\u200b" * i for i in range(5))
    words = 4 * PHRASE_REPEATS
    return [
        _entry("repeats_with_zero_width_variation", invisible,
               "one phrase 50 times, each ending in a different number of zero-width spaces",
               repetition=-(1 - 4 / (words - 2))),
        _entry("repeats_with_blank_spacing", spacing, "one phrase 50 times, spaced by ideographic and braille blanks",
               repetition=-(1 - 4 / (words - 2))),
        _entry("one_step_with_invisible_variation", steps, "one step line five times, told apart by zero-width spaces",
               reasoning_steps=1 / 3, repetition=-(1 - 5 / (5 * 5 - 2))),
    ]


def _huge() -> list[dict[str, Any]]:
    """Large inputs: the rewards stay linear and pay nothing for size."""
    return [
        _entry("huge_tags", "<answer>" * 125_000, "a megabyte of opening tags"),
        _entry("huge_blank_think", "<think>" + "\u3164" * 1_000_000 + "</think><answer>4</answer>",
               "a million Hangul fillers as reasoning", tag_count=1.0, xml_fields=0.5),
        _entry("huge_blank_box", "\\boxed{" + "\\quad" * 200_000 + "}", "a megabyte of spaces in a box"),
    ]


def _unreadable() -> list[dict[str, Any]]:
    return [
        _entry("none", None, "no completion at all", **UNREADABLE),
        _entry("number", 42, "a number, not text", **UNREADABLE),
        _entry("no_assistant_message", [{"role": "user", "content": "hi"}], "no assistant message", **UNREADABLE),
    ]


def corpus() -> list[dict[str, Any]]:
    """Every entry, built on demand (a few megabytes of text)."""
    return [*_blank_blocks(), *_blank_boxes(), *_structure(), *_repeats(), *_huge(), *_unreadable()]
