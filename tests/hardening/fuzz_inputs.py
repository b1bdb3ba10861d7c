"""Fuzz inputs for every registered reward: strategies, parameter and column tables, one checked call.

Shared by the hardening tests (modest ``max_examples``) and ``bench/bench_fuzz.py`` (many more).
Rewards are found through discovery (``grpo_rewards.load_registry()``), so a new reward is fuzzed
as soon as its plugin is installed; a reward with a required parameter or a dataset column these
tables do not know fails loudly (``fuzz_reward`` raises ``LookupError``) instead of being skipped.
"""

from __future__ import annotations

import copy
import math
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st


def _tiny_reward_model() -> str:
    """A tiny random sequence-classification model for judge.reward_model, written once per process."""
    from judge_models import tiny_reward_model

    return str(tiny_reward_model())


#: A judge server address where nothing listens: the judges' requests fail fast (label unreachable), so
#: fuzzing reaches everything before the request (text, templates, grade lines) without a server.
_NO_JUDGE = {"model": "fuzz-judge", "base_url": "http://127.0.0.1:9/v1", "max_retries": 0}

#: Values for required parameters (no default), keyed by reward name; a callable is called for its value
#: (once per reward built).
REQUIRED_PARAMS: dict[str, dict[str, Any]] = {
    "format.regex": {"pattern": r"\\boxed\{\s*-?\d+\s*\}"},
    "judge.rubric": _NO_JUDGE,
    "judge.pairwise": _NO_JUDGE,
    "judge.reward_model": {"model": _tiny_reward_model, "max_length": 256},
}

#: Watchdog per reward call: generous, a hang (not slowness) is what it catches.
WATCHDOG_S = 30.0

#: Real completions the mutations start from.
SEEDS = [
    "<think>\nStep 1: 2 + 2 = 4.\nStep 2: check: 4 - 2 = 2.\n</think>\n<answer>\n\\boxed{4}\n</answer>",
    "<think>2 + 2 = 4</think> <answer>\\boxed{4}</answer>",
    "Let x = 3. Then 2x + 1 = 7, so the answer is $\\frac{7}{2}$.",
    "We compute \\(\\sqrt{16} = 4\\). Therefore the final answer is \\boxed{\\sqrt{16}}.",
    "#### 72",
    "The answer is 13.",
    "I don't know.",
    "\\boxed{\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}}",
    "\\boxed{(-\\infty, 3] \\cup (5, \\infty)}",
    "<answer>\\boxed{9**9**9**9}</answer>",
    "\\boxed{2^{2^{2^{2^{2^{2}}}}}}",
    "```python\nprint(2 + 2)\n```\nSo \\boxed{4}",
    "<think><think>nested</think></think><answer>\\boxed{4}</answer>",
    "Step 1: a\nStep 2: b\nStep 3: c\nFinally, \\boxed{x^2 + 2x + 1}",
    "the the the the the the the the the the the the",
    "\\boxed{\\frac{1}{2}",
    "<th\u0456nk>lookalike</th\u0456nk>\uff1canswer\uff1e\\boxed{4}\uff1c/answer\uff1e",
]

#: Gold answers for the ``solution`` column (bare answers, a MATH solution, a GSM8K solution, junk).
SOLUTIONS = [
    "4", "13", "72", "\\frac{7}{2}", "x^2+2x+1", "(-\\infty, 3] \\cup (5, \\infty)", "0.5", "-3",
    "The sum is $\\boxed{4}$.", "She pays 6 * 12 = 72.\n#### 72", "not a math answer ][", "", "\\sqrt{2}",
    "\\begin{pmatrix} 1 & 2 \\\\ 3 & 4 \\end{pmatrix}", "9**9**9", "10^{10^{10}}",
]

#: Real ``gym.accuracy`` metadata columns (``make_rows("chain_sum" / "word_sorting", 1, seed=3)``, as
#: grpo_rewards_gym writes them), so a fuzzed row reaches a reasoning-gym scorer.
GYM_ROWS = {
    "chain_sum": ('{"seed": 3, "size": 1}',
                  '{"question": "State the final answer to the following arithmetic problem: 57 + 87 + 70 =", '
                  '"answer": "214", "metadata": {"source_dataset": "chain_sum", "source_index": 0, "num_terms": 3, '
                  '"num_digits": 2, "expression": "57 + 87 + 70", "difficulty": {"num_terms": {"__tuple__": [2, 6]}, '
                  '"num_digits": {"__tuple__": [1, 4]}}}}'),
    "word_sorting": ('{"min_words": 3, "max_words": 3, "seed": 3, "size": 1}',
                     '{"question": "Sort these words in ascending order: array, one, strength", '
                     '"answer": "array, one, strength", "metadata": {"source_dataset": "word_sorting", '
                     '"source_index": 0, "original_words": ["array", "one", "strength"], '
                     '"sorted_words": ["array", "one", "strength"], "transformed_words": ["array", "one", "strength"], '
                     '"direction": "ascending", "num_words": 3, "word_length": 8, "difficulty": {"num_words": '
                     '{"__tuple__": [3, 3]}, "word_length": {"__tuple__": [3, 12]}}}}'),
}

#: Strategies for dataset columns rewards read, keyed by column name. The gym columns are drawn
#: independently, so a row may pair one dataset with another's entry (a corrupt row must score too).
COLUMN_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "solution": st.sampled_from(SOLUTIONS),
    "correct": st.sampled_from([True, False, 1.0, 0.0, 0.5, None, float("nan")]),
    "gym_dataset": st.sampled_from([*GYM_ROWS, "no_such_dataset", "", None]),
    "gym_config": st.sampled_from([*(c for c, _ in GYM_ROWS.values()), "{not json", '{"no_such_param": 1}', "", 3]),
    "gym_entry": st.sampled_from([*(e for _, e in GYM_ROWS.values()), "{}", "[1, 2", '{"__tuple__": 3}', "", None]),
    # the text package's reference, schema and language columns (a list of golds too; junk schemas)
    "reference": st.sampled_from(["4", "Paris", ["Paris", "paris, France"], "", "the the the", "\u00e9t\u00e9 \u6771\u4eac"]),
    "schema": st.sampled_from(['{"type": "object", "required": ["a"], "properties": {"a": {"type": "integer"}}}',
                               '{"type": "array", "items": {"type": "string"}}', "{not json", "",
                               '{"$ref": "#"}', '{"$ref": "http://127.0.0.1:9/s.json"}']),
    "language": st.sampled_from(["en", "fr", "de", "zz", ""]),
}

#: One well-formed value per column (a real gold answer, a real gym row).
GOOD_COLUMN_VALUES: dict[str, Any] = {
    "solution": "4", "correct": True, "gym_dataset": "chain_sum", "gym_config": GYM_ROWS["chain_sum"][0],
    "gym_entry": GYM_ROWS["chain_sum"][1], "reference": "4", "schema": '{"type": "object"}', "language": "en",
}

_FRAGMENTS = ["\\boxed{", "}", "{", "<think>", "</think>", "<answer>", "</answer>", "$", "$$", "\\frac",
              "\\left(", "\\right)", "\\\\", "^", "_", "\n", "#### ", "the answer is ", "\x00", "\ud7ff", "\ud800", "\udfff",
              "\u202e", "9" * 50, "**", "\\text{", "\\begin{pmatrix}", "\\end{pmatrix}", "&", "∞", "√",
              # pieces of tool calls (Hermes, pythonic, JSON), which the tools rewards read
              "<tool_call>", "</tool_call>", '{"name": "f", "arguments": {', '"x": ', '"s": "a b"', "}}", "[f(x=",
              "g(n=", ")]", ", ", "1e999", "NaN", "9" * 400]

_ATOMS = st.one_of(
    st.integers(-10**6, 10**6).map(str),
    st.sampled_from(["x", "y", "\\pi", "e", "i", "\\infty", "0.5", "1e10", "3.14", "\\alpha", "n!", "\\%",
                     "10^{10^{10}}", "9^{9^{9}}", "\\varnothing", "\\emptyset"]),
)


def _latex_node(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "\\cdot", "\\times", "/", "^", "=", ",", "\\cup",
                                                  "\\le", "<", "\\pm", " "]), children)
    return st.one_of(
        binary.map(lambda t: f"{t[0]}{t[1]}{t[2]}"),
        st.tuples(children, children).map(lambda t: f"\\frac{{{t[0]}}}{{{t[1]}}}"),
        children.map(lambda c: f"\\sqrt{{{c}}}"),
        st.tuples(children, children).map(lambda t: f"{t[0]}^{{{t[1]}}}"),
        children.map(lambda c: f"\\left({c}\\right)"),
        st.tuples(st.sampled_from("([{"), children, children, st.sampled_from(")]}")).map(
            lambda t: f"{t[0]}{t[1]}, {t[2]}{t[3]}"),
        children.map(lambda c: f"\\text{{{c}}}"),
        st.tuples(st.sampled_from(["sin", "cos", "log", "ln", "exp", "det"]), children).map(
            lambda t: f"\\{t[0]}({t[1]})"),
        st.tuples(children, children, children, children).map(
            lambda t: "\\begin{pmatrix} " + f"{t[0]} & {t[1]} \\\\ {t[2]} & {t[3]}" + " \\end{pmatrix}"),
    )


#: LaTeX expressions from a small grammar (numbers, symbols, fractions, roots, powers, intervals...).
latex = st.recursive(_ATOMS, _latex_node, max_leaves=12)

#: A LaTeX expression as a model would write its final answer.
latex_answers = st.tuples(st.sampled_from(["\\boxed{{{}}}", "The answer is ${}$.", "{}", "$${}$$",
                                           "<answer>{}</answer>", "#### {}", "\\boxed{{{}"]), latex).map(
    lambda t: t[0].format(t[1]))


@st.composite
def mutations(draw: Callable[..., Any]) -> str:
    """A real completion with a few random edits: inserts, deletions, duplications, swaps."""
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 6))):
        if not text:
            text = draw(st.sampled_from(_FRAGMENTS))
            continue
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 20)))
        op = draw(st.sampled_from(["insert", "delete", "duplicate", "swap", "unicode"]))
        if op == "insert":
            text = text[:i] + draw(st.sampled_from(_FRAGMENTS)) + text[i:]
        elif op == "delete":
            text = text[:i] + text[j:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] * draw(st.integers(1, 50)) + text[j:]
        elif op == "swap" and j - i >= 2:
            text = text[:i] + text[j - 1] + text[i + 1:j - 1] + text[i] + text[j:]
        else:
            text = text[:i] + draw(st.text(min_size=1, max_size=5)) + text[i:]
    return text


_HUGE_UNITS = ["a", " ", "9", "\\boxed{", "}", "{", "<think>", "<answer>", "\\frac{1}{", "x^", "the ",
               "I add two and two. ", "$", "\\sqrt{", "(", "\u00e9", "\U0001f600", "1,", "\n"]
MB = 1_000_000


def huge_text(unit: str, size: int = MB, tail: str = "") -> str:
    """``unit`` repeated to about ``size`` characters, then ``tail``."""
    return unit * max(1, size // len(unit)) + tail


#: Around 1 MB (10 kB to 1 MB) from one repeated unit, with an optional real ending.
huge = st.builds(huge_text, st.sampled_from(_HUGE_UNITS), st.sampled_from([10_000, 100_000, MB]),
                 st.sampled_from(["", "\\boxed{4}", "</think><answer>4</answer>", "#### 4"]))

#: Every kind of completion text.
texts = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=60),
    st.text(alphabet=st.characters(categories=["Cs", "Lu", "Nd", "Ps", "Pe", "Sm"]), max_size=40),  # lone surrogates
    latex_answers,
    mutations(),
    st.sampled_from(["", " ", "\n", "\x00", "\ufeff", "}", "{", "\\", "$", "\\boxed{}", "<think></think>"]),
)

#: A completion as TRL passes it: a string, or a conversation ending with the assistant's message.
ROLES_BEFORE = st.sampled_from([[], [{"role": "user", "content": "q"}],
                                [{"role": "assistant", "content": "draft"}, {"role": "tool", "content": "4"}]])


def as_completion(text: str, conversational: bool, before: list[dict[str, Any]]) -> Any:
    return [*before, {"role": "assistant", "content": text}] if conversational else text


#: Completions with no readable text, or text in an unusual place: they must get a defined value too.
ODD_COMPLETIONS = [None, 42, 3.5, b"bytes", [], ["a str in a list"], [{"role": "user", "content": "q"}],
                   [{"role": "assistant"}], [{"role": "assistant", "content": None}],
                   {"role": "assistant", "content": "\\boxed{4}"},
                   [{"role": "assistant", "content": [{"type": "text", "text": "\\boxed{4}"}]}],
                   [{"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {}}}]}]]


def completions_of(text_strategy: st.SearchStrategy[str], max_size: int = 4) -> st.SearchStrategy[list[Any]]:
    """Batches of 1..``max_size`` completions: strings, conversations, now and then an odd one."""
    one = st.builds(as_completion, text_strategy, st.booleans(), ROLES_BEFORE)
    odd = st.sampled_from(ODD_COMPLETIONS)
    return st.lists(st.one_of(one, one, one, odd), min_size=1, max_size=max_size)


# -- building rewards and calling them under a watchdog ---------------------------------------
def build_reward(registry: Any, name: str) -> Any:
    """``name`` with default parameters (plus the required ones from :data:`REQUIRED_PARAMS`)."""
    from grpo_rewards import get_reward

    info = registry.reward(name)
    params = {k: v() if callable(v) else v for k, v in REQUIRED_PARAMS.get(name, {}).items()}
    missing = [p.name for p in info.params.values() if p.required and p.name not in params]
    if missing:
        raise LookupError(f"{name} needs parameter(s) {missing}: add a value to REQUIRED_PARAMS in {__file__}")
    reward = get_reward(name, registry=registry, **params)
    unknown = [c for c in reward.columns if c not in COLUMN_VALUES]
    if unknown:
        raise LookupError(f"{name} reads column(s) {unknown}: add a strategy to COLUMN_VALUES in {__file__}")
    return reward


class Hang(AssertionError):
    """A reward call did not return within the watchdog."""


def watchdog(func: Callable[[], Any], seconds: float = WATCHDOG_S) -> Any:
    """``func()`` in a thread; its result or exception, or :class:`Hang` after ``seconds``."""
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = func()
        except BaseException as exc:  # re-raised in the caller
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise Hang(f"no result after {seconds:g} s")
    if "error" in box:
        raise box["error"]
    return box["value"]


#: RewardError messages that are documented contract errors (the caller's input is incomplete).
CONTRACT_ERRORS = re.compile(r"needs dataset column|needs completion_ids|measures tokens and needs completion_ids")


def token_ids(completion: Any) -> list[int]:
    from grpo_rewards import completion_text

    text = completion_text(completion) or ""
    return [ord(c) % 997 for c in text[: max(1, len(text) // 4)]]


def call_reward(reward: Any, completions: list[Any], columns: dict[str, list[Any]], with_ids: bool,
                timings: list[float] | None = None) -> Any:
    """One checked call: values, or ``"contract"`` when a documented contract error was raised.

    Checks: no exception but a documented contract error, one float-or-None per completion, finite,
    inside the declared output range, and the same values on a second call with fresh list copies.
    ``timings`` (when given) receives the seconds of the first call.
    """
    from grpo_rewards import RewardError

    ids = [token_ids(c) for c in completions] if with_ids else None

    def once() -> Any:
        fresh = copy.deepcopy(completions)
        return reward(prompts=["q"] * len(fresh), completions=fresh, completion_ids=None if ids is None else
                      [list(i) for i in ids], **{k: list(v) for k, v in columns.items()})

    started = time.perf_counter()
    try:
        first = watchdog(once)
    except RewardError as exc:
        if CONTRACT_ERRORS.search(str(exc)):
            return "contract"
        raise
    finally:
        if timings is not None:
            timings.append(time.perf_counter() - started)
    second = watchdog(once)
    assert isinstance(first, list) and len(first) == len(completions), first
    for v in first:
        assert v is None or (type(v) is float and math.isfinite(v)), (reward.__name__, v)
    assert _same(first, second), (reward.__name__, first, second)
    return first


def _same(a: list[Any], b: list[Any]) -> bool:
    return len(a) == len(b) and all(x == y or (x is None and y is None) for x, y in zip(a, b))


def in_range(values: list[Any], output_range: tuple[float, float] | None, extra: tuple[Any, ...]) -> bool:
    """Every value inside ``output_range`` (or one of the reward's configured special values)."""
    if output_range is None:
        return True
    lo, hi = output_range
    return all(v is None or v in extra or lo - 1e-9 <= v <= hi + 1e-9 for v in values)
