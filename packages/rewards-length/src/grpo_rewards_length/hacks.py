"""The hack corpus of the length rewards: junk judged against a real answer of the same length.

A length reward pays for length, so junk of a good length is paid by design: the question is
whether it is ever paid *more* than a real answer of the same length (for example because
invisible padding, a blank word or a missing end-of-sequence token is measured differently).
Every bound here is ``"reference"``: at most what the reward pays the entry's ``reference``, a
real answer of the same length (in the reward's unit). Registered with every length reward
(``register(..., hacks=corpus)``) and run by ``grpo-rewards check length.cosine --hacks``.

>>> entries = corpus()
>>> sorted({reward for e in entries for reward in e["max_pay"]})[:2]
['length.cosine', 'length.group_relative']
"""

from __future__ import annotations

from typing import Any

PROMPT = "What is 2 + 2?"
TOKEN_REWARDS = ("length.soft_overlong", "length.cosine", "length.group_relative", "length.truncated")


def _ids(n: int, start: int = 10) -> list[int]:
    """``n`` token ids (none of them an end-of-sequence id of the entries below)."""
    return [start + i % 50 for i in range(n)]


def _entry(name: str, completion: str, reference: str, note: str, rewards: tuple[str, ...], *,
           ids: int | None = None, columns: dict[str, Any] | None = None,
           params: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "completion": completion, "reference": reference, "note": note,
                             "prompt": PROMPT, "max_pay": dict.fromkeys(rewards, "reference")}
    if ids is not None:
        entry["completion_ids"] = _ids(ids)
        entry["reference_ids"] = _ids(ids, start=100)
    if columns:
        entry["columns"] = columns
    if params:
        entry["params"] = params
    return entry


def corpus() -> list[dict[str, Any]]:
    """Every entry (built on demand)."""
    real_20_chars = "2 + 2 = 4, so it's 4"
    real_20_words = ("Two plus two: take two apples and add two more apples, and you count four apples "
                     "in all, so four.")
    wrong = {"correct": False}
    right = {"correct": True}
    return [
        _entry("junk_at_target_length", "a" * 20, real_20_chars, "twenty letters of nothing", ("length.target",)),
        _entry("invisible_padding_to_target", "4" + "\u200b" * 19, real_20_chars,
               "an answer padded to the target with zero-width spaces", ("length.target",)),
        _entry("blank_words_at_target", " ".join(["\u3164"] * 20), real_20_words,
               "twenty Hangul fillers as words", ("length.target",),
               params={"length.target": {"unit": "words", "target": 20}}),
        _entry("short_wrong_junk", "5", "2 + 2 = 5", "a short wrong answer of junk", TOKEN_REWARDS,
               ids=5, columns=wrong),
        _entry("short_junk_marked_correct", "4", "It is 4.", "the shortest possible correct answer", TOKEN_REWARDS,
               ids=3, columns=right),
        _entry("junk_in_overlong_buffer", "a " * 450, "2 + 2 = 4. " * 90, "junk that fills the overlong buffer",
               TOKEN_REWARDS, ids=450, columns=wrong),
        _entry("junk_past_max_length", "a " * 600, "2 + 2 = 4. " * 120, "junk past the maximum length",
               TOKEN_REWARDS, ids=600, columns=right),
        _entry("junk_without_end_of_sequence", "a " * 512, "2 + 2 = 4. " * 100,
               "junk cut off at the generation limit", ("length.truncated",), ids=512,
               params={"length.truncated": {"eos_token_ids": [2]}}),
    ]
