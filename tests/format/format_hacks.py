"""Known reward hacks and pathological inputs, with the exact score each format reward gives them.

Shared by the tests (exact values) and by bench/bench_format.py. Every reward runs with its
default parameters; ``format.regex`` with ``REGEX_PATTERN``.
"""

from __future__ import annotations

from typing import Any

#: The pattern the regex reward runs with on these fixtures: a boxed integer answer block at the end.
REGEX_PATTERN = r"<answer>\s*\\boxed\{\d+\}\s*</answer>\s*$"

HUGE_REPEATS = 52_632  # "I add two and two. " (19 chars) this many times: just over 1 MB

FIXTURES: dict[str, Any] = {
    "good": "<think>\nStep 1: 2 + 2 = 4.\nStep 2: check: 4 - 2 = 2.\n</think>\n<answer>\n\\boxed{4}\n</answer>",
    "good_inline": "<think>2 + 2 = 4</think> <answer>\\boxed{4}</answer>",
    "repeated_blocks": (
        "<think>2 + 2 = 4</think><answer>\\boxed{4}</answer>\n<think>2 + 2 = 5</think><answer>\\boxed{5}</answer>"
    ),
    "nested_tags": "<think><think>2 + 2 = 4</think></think><answer>\\boxed{4}</answer>",
    "empty_answer": "<think>2 + 2 = 4</think><answer> </answer>",
    "answer_outside": "<think>2 + 2 = 4</think>The answer is \\boxed{4}.",
    "code_block": "```\n<think>2 + 2 = 4</think><answer>\\boxed{4}</answer>\n```",
    "truncated_mid_tag": "<think>2 + 2 = 4</think><answer>\\boxed{4}</ans",
    "truncated_in_box": "<think>2 + 2 = 4</think><answer>\\boxed{\\frac{1}{2}",
    "lookalike_cyrillic": "<th\u0456nk>2 + 2 = 4</th\u0456nk><answer>\\boxed{4}</answer>",
    "lookalike_fullwidth": "\uff1cthink\uff1e2 + 2 = 4\uff1c/think\uff1e\uff1canswer\uff1e\\boxed{4}\uff1c/answer\uff1e",
    "huge_good": (
        "<think>\n" + "I add two and two. " * HUGE_REPEATS + "\n</think>\n<answer>\n\\boxed{4}\n</answer>"
    ),
    "huge_tags": "<answer>" * 125_000,
    "none": None,
    "number": 42,
    "no_assistant_message": [{"role": "user", "content": "hi"}],
}

#: Readable fixtures only (the others have no text, so they have no conversational form).
TEXT_FIXTURES = [name for name, value in FIXTURES.items() if isinstance(value, str)]

# "huge_good" words: "<think>", 5 per repeat, then 4 closing words; 3-grams: words - 2;
# distinct 3-grams: 1 at the start, 5 in the repeating cycle, 4 at the end.
_HUGE_WORDS = 1 + 5 * HUGE_REPEATS + 4
HUGE_REPETITION = -1.0 * (1.0 - 10 / (_HUGE_WORDS - 2))

_ZERO_UNREADABLE = {"none": 0.0, "number": 0.0, "no_assistant_message": 0.0}

EXPECTED: dict[str, dict[str, float]] = {
    "format.think_answer": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 0.0, "nested_tags": 0.0, "empty_answer": 0.0,
        "answer_outside": 0.0, "code_block": 0.0, "truncated_mid_tag": 0.0, "truncated_in_box": 0.0,
        "lookalike_cyrillic": 0.0, "lookalike_fullwidth": 0.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.think": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 0.0, "nested_tags": 0.0, "empty_answer": 1.0,
        "answer_outside": 1.0, "code_block": 0.0, "truncated_mid_tag": 1.0, "truncated_in_box": 1.0,
        "lookalike_cyrillic": 0.0, "lookalike_fullwidth": 0.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.tag_count": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 0.0, "nested_tags": 0.5, "empty_answer": 1.0,
        "answer_outside": 0.5, "code_block": 0.0, "truncated_mid_tag": 0.75, "truncated_in_box": 0.75,
        "lookalike_cyrillic": 0.5, "lookalike_fullwidth": 0.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.boxed": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 0.0, "nested_tags": 1.0, "empty_answer": 0.0,
        "answer_outside": 1.0, "code_block": 1.0, "truncated_mid_tag": 1.0, "truncated_in_box": 0.0,
        "lookalike_cyrillic": 1.0, "lookalike_fullwidth": 1.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.regex": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 1.0, "nested_tags": 1.0, "empty_answer": 0.0,
        "answer_outside": 0.0, "code_block": 0.0, "truncated_mid_tag": 0.0, "truncated_in_box": 0.0,
        "lookalike_cyrillic": 1.0, "lookalike_fullwidth": 0.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.reasoning_steps": {
        "good": 2 / 3, "good_inline": 0.0, "repeated_blocks": 0.0, "nested_tags": 0.0, "empty_answer": 0.0,
        "answer_outside": 0.0, "code_block": 0.0, "truncated_mid_tag": 0.0, "truncated_in_box": 0.0,
        "lookalike_cyrillic": 0.0, "lookalike_fullwidth": 0.0, "huge_good": 0.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.repetition": {
        "good": 0.0, "good_inline": 0.0, "repeated_blocks": -0.25, "nested_tags": 0.0, "empty_answer": 0.0,
        "answer_outside": 0.0, "code_block": 0.0, "truncated_mid_tag": 0.0, "truncated_in_box": 0.0,
        "lookalike_cyrillic": 0.0, "lookalike_fullwidth": 0.0, "huge_good": HUGE_REPETITION, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
    "format.xml_fields": {
        "good": 1.0, "good_inline": 1.0, "repeated_blocks": 0.0, "nested_tags": 0.5, "empty_answer": 0.5,
        "answer_outside": 0.25, "code_block": 0.0, "truncated_mid_tag": 0.25, "truncated_in_box": 0.25,
        "lookalike_cyrillic": 0.25, "lookalike_fullwidth": 0.0, "huge_good": 1.0, "huge_tags": 0.0,
        **_ZERO_UNREADABLE,
    },
}


def as_conversation(completion: Any) -> Any:
    """A readable fixture as a conversational completion (one assistant message); others unchanged."""
    return [{"role": "assistant", "content": completion}] if isinstance(completion, str) else completion
