"""Rewards for the kit's own tests: good ones, and one deliberately broken reward per contract point.

Module-level so that worker processes can import them (this folder is on ``sys.path`` under pytest).
"""

from __future__ import annotations

import random
import time
from typing import Any

from grpo_rewards import Reward, completion_text, hookimpl


# -- good rewards ---------------------------------------------------------------------------------
def mentions_four(prompts, completions, completion_ids=None, **kwargs):
    """1.0 when the completion's text contains "4", else 0.0; None when it has no text."""
    texts = [completion_text(c) for c in completions]
    return [None if t is None else float("4" in t) for t in texts]


def score_length(text: str, **row: Any) -> float:
    """Characters, divided by 100."""
    return len(text) / 100


def score_solution(text: str, *, solution: str, **row: Any) -> float:
    """1.0 when the text ends with the solution."""
    return float(text.rstrip(". ").endswith(str(solution)))


def score_integer_gold(text: str, *, solution: str, **row: Any) -> float:
    """1.0 when the text ends with the solution, which must be an integer (``int`` raises otherwise)."""
    return float(text.rstrip(". ").endswith(str(int(solution))))


char_length = Reward(score_length, metric="kit.char_length")
solution_match = Reward(score_solution, metric="kit.solution_match", columns=("solution",))
integer_gold = Reward(score_integer_gold, metric="kit.integer_gold", columns=("solution",))


def token_count(prompts, completions, completion_ids=None, **kwargs):
    """The number of completion tokens."""
    return [float(len(ids)) for ids in completion_ids]


# -- one broken reward per contract point --------------------------------------------------------
def wrong_count(prompts, completions, completion_ids=None, **kwargs):
    return [1.0]


def returns_strings(prompts, completions, completion_ids=None, **kwargs):
    return ["good" for _ in completions]


def strings_only(prompts, completions, completion_ids=None, **kwargs):
    return [float(c.strip().count("4")) if c is not None and not isinstance(c, int) else None for c in completions]


def messages_only(prompts, completions, completion_ids=None, **kwargs):
    return [float(len(c[-1]["content"] or "")) if c is not None and not isinstance(c, int) else None for c in completions]


def one_at_least(prompts, completions, completion_ids=None, **kwargs):
    return [0.0] * max(1, len(completions))


def first_char(prompts, completions, completion_ids=None, **kwargs):
    texts = [completion_text(c) for c in completions]
    return [None if t is None else float(t[0] == "T") for t in texts]


def refuses_huge(prompts, completions, completion_ids=None, **kwargs):
    texts = [completion_text(c) or "" for c in completions]
    if any(len(t) > 100_000 for t in texts):
        raise MemoryError("too long")
    return [0.0 for _ in texts]


def strips_in_place(prompts, completions, completion_ids=None, **kwargs):
    for i, c in enumerate(completions):
        if isinstance(c, str):
            completions[i] = c.lower()
    return [0.0 for _ in completions]


class Unpicklable:
    """Holds a lock, which cannot be pickled."""

    __name__ = "kit.unpicklable"

    def __init__(self) -> None:
        import threading

        self.lock = threading.Lock()

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        return [0.0 for _ in completions]


class ForgetsOnPickle:
    """Its bonus is lost in a pickle round trip."""

    __name__ = "kit.forgets_on_pickle"

    def __init__(self) -> None:
        self.bonus = 1.0

    def __getstate__(self) -> dict:
        return {}

    def __setstate__(self, state: dict) -> None:
        self.bonus = 0.0

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        return [self.bonus for _ in completions]


unpicklable = Unpicklable()
forgets_on_pickle = ForgetsOnPickle()


class LastBitsOnPickle:
    """Its unpickled copy pays values one part in 10^9 away, as a float32 model in another process does."""

    __name__ = "kit.last_bits_on_pickle"

    def __init__(self) -> None:
        self.value = 0.6904738965487559

    def __setstate__(self, state: dict) -> None:
        self.value = state["value"] * (1 - 1e-8)

    def __call__(self, prompts, completions, completion_ids=None, **kwargs):
        return [self.value for _ in completions]


last_bits_on_pickle = LastBitsOnPickle()

space_name = Reward(score_length, metric="kit.char length")
lambda_reward = lambda prompts, completions, completion_ids=None, **kwargs: [0.0 for _ in completions]  # noqa: E731


def reward(prompts, completions, completion_ids=None, **kwargs):
    return [0.0 for _ in completions]


def noisy(prompts, completions, completion_ids=None, **kwargs):
    return [random.random() for _ in completions]


def reads_answer(prompts, completions, completion_ids=None, **kwargs):
    return [float(kwargs["answer"] in (completion_text(c) or "")) for c in completions]


def no_kwargs(prompts, completions, completion_ids=None):
    return [0.0 for _ in completions]


def needs_ids(prompts, completions, completion_ids=None, **kwargs):
    return [float(len(ids)) for ids in completion_ids]


def above_one(prompts, completions, completion_ids=None, **kwargs):
    return [2.0 for _ in completions]


def chokes_on_none(prompts, completions, completion_ids=None, **kwargs):
    return [float("4" in (c if isinstance(c, str) else c[-1]["content"])) for c in completions]


def hangs_on_braces(prompts, completions, completion_ids=None, **kwargs):
    texts = [completion_text(c) or "" for c in completions]
    if any("{" * 1000 in t for t in texts):
        while True:
            time.sleep(0.05)
    return [0.0 for _ in texts]


# -- a plugin object, for the registration fixtures ------------------------------------------------
class Scaled:
    """Characters times ``factor``."""

    def __init__(self, factor: float = 1.0) -> None:
        if factor <= 0:
            raise ValueError("factor must be positive")
        self.factor = factor

    def __call__(self, text: str, **row: Any) -> float:
        return len(text) * self.factor


class KitPlugin:
    """Registers three rewards under the namespace it is given."""

    @hookimpl
    def register_rewards(self, register):
        register("char_length", score_length, units="chars")
        register("solution_match", score_solution, output_range=(0.0, 1.0))
        register("scaled", Scaled, units="chars")
        register("first_char", first_char, form="batch")


# -- for the contract's reading of a built reward ---------------------------------------------------
class Measured:
    """Length of the completion in its unit: characters, or tokens (the length of completion_ids).

    The instance says its units, which its ``unit`` parameter chooses.
    """

    def __init__(self, unit: str = "chars") -> None:
        self.units = unit

    def __call__(self, text: str, **row: Any) -> float:
        if self.units == "tokens":
            return float(len(row["completion_ids"]))
        return float(len(text))


def never_scores(text: str, **row: Any) -> float | None:
    """None for every completion (as a reward whose column is missing or wrong would give)."""
    return None


class UnitsPlugin:
    """Registers ``measured`` (units chars unless built with unit=tokens) and ``never_scores``."""

    @hookimpl
    def register_rewards(self, register):
        register("measured", Measured, units="chars")
        register("never_scores", never_scores)
