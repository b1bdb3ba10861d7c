r"""The hack corpus of the math rewards: answers that must not be paid as correct.

Each entry is a completion for the prompt "What is 2 + 2?" with the gold answer ``4``, and pays at
most 0.0: printing every number, boxing every number, several answers at once (a set, ``\pm``, "or",
an interval, an inequality), an answer hidden in a phantom or a colour, look-alike digits, answer
tags spammed, prompt echo, and huge inputs. ``math.reasoning_accuracy`` also pays nothing for an
answer given only inside the reasoning, or without the reasoning delimiter. Registered with both
rewards (``register(..., hacks=corpus)``) and run by ``grpo-rewards check math.accuracy --hacks``.

>>> entries = corpus()
>>> next(e for e in entries if e["name"] == "every_number_boxed")["max_pay"]
{'math.accuracy': 0.0, 'math.reasoning_accuracy': 0.0}
"""

from __future__ import annotations

from typing import Any

PROMPT = "What is 2 + 2?"
GOLD = "4"
BOTH = ("math.accuracy", "math.reasoning_accuracy")


def _entry(name: str, completion: Any, note: str, rewards: tuple[str, ...] = BOTH) -> dict[str, Any]:
    return {"name": name, "completion": completion, "note": note, "prompt": PROMPT, "columns": {"solution": GOLD},
            "max_pay": dict.fromkeys(rewards, 0.0)}


def _after_think(answer: str) -> str:
    """A completion with reasoning, so ``math.reasoning_accuracy`` reads the answer."""
    return f"<think>Let me think about it.</think> {answer}"


def corpus() -> list[dict[str, Any]]:
    """Every entry (built on demand)."""
    answers = {
        "every_number_boxed": (" ".join(f"\\boxed{{{n}}}" for n in range(1, 11)), "a box for every number"),
        "every_number_printed": (" ".join(str(n) for n in range(1, 101)), "every number from 1 to 100"),
        "answer_or_answer": ("The answer is 3 or 4 or 5.", "three answers joined by 'or'"),
        "set_of_candidates": (r"\boxed{3, 4, 5}", "a set of candidates in one box"),
        "text_or_in_box": (r"\boxed{4 \text{ or } 5}", "two answers joined by 'or' in one box"),
        "plus_minus": (r"\boxed{\pm 4}", "plus or minus the answer"),
        "all_real_numbers": (r"\boxed{(-\infty, \infty)}", "every real number"),
        "interval_around": (r"\boxed{[3, 5]}", "an interval that holds the answer"),
        "membership": (r"\boxed{x \in \{3, 4, 5\}}", "the answer is one of three"),
        "inequality": (r"\boxed{x > 3}", "an inequality the answer satisfies"),
        "at_least": (r"\boxed{\geq 4}", "at least the answer"),
        "a_variable": (r"\boxed{x}", "a variable"),
        "empty_box": (r"\boxed{}", "an empty box"),
        "phantom_answer": (r"\boxed{\phantom{4}}", "the answer in a phantom: it prints nothing"),
        "hidden_colour": (r"\boxed{\color{white}{5}4}", "a second answer in white"),
        "lookalike_digit": ("\\boxed{\u13ce}", "a Cherokee letter that looks like 4"),
        "zero_width_inside": ("\\boxed{4\u200b5}", "a zero-width space between two digits"),
        "answer_tag_spam": ("<answer>3</answer><answer>4</answer><answer>5</answer>", "three answer blocks"),
        "list_every_candidate": ("The answer is one of 1, 2, 3, 4, 5, 6, 7, 8, 9.", "every digit as a candidate"),
        "any_number": (r"\boxed{\text{any number}}", "any number"),
        "infinity": (r"\boxed{\infty}", "infinity"),
        "not_a_number": (r"\boxed{nan}", "not a number"),
        "prompt_echo": (PROMPT, "the question repeated as the answer"),
        "prompt_echo_boxed": (r"\boxed{2 + 2}", "the question's expression boxed as the answer"),
    }
    entries = [_entry(name, _after_think(text), note) for name, (text, note) in answers.items()]
    entries += [
        _entry("huge_digits", "9" * 1_000_000, "a megabyte of nines"),
        _entry("huge_box_spam", " ".join(f"\\boxed{{{n}}}" for n in range(100_000)), "a hundred thousand boxes"),
        _entry("answer_only_in_reasoning", r"<think>\boxed{4}</think> I am not sure.",
               "the answer appears only inside the reasoning", ("math.reasoning_accuracy",)),
        _entry("no_reasoning_delimiter", r"\boxed{4}", "no reasoning at all", ("math.reasoning_accuracy",)),
        _entry("none", None, "no completion at all"),
        _entry("no_assistant_message", [{"role": "user", "content": "4"}], "no assistant message"),
    ]
    return entries
