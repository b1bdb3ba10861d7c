"""Property tests: random and mutated LaTeX never raises out of the reward and always gets a label.

No wall-clock assertions: a sample the symbolic check cannot finish within the deadline is
labelled ``timeout`` (its worker killed), so "finishes within the deadline" shows up as every
sample having one of the documented labels, with the value that label implies.
"""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grpo_rewards_math import extract_answer, make_accuracy
from grpo_rewards_math.correctness import OUTCOMES

TOKENS = [
    "\\frac", "\\dfrac", "{", "}", "(", ")", "[", "]", "\\left(", "\\right)", "\\sqrt", "\\sqrt[3]", "^", "_",
    "+", "-", "\\cdot", "\\times", "*", "/", "=", ",", ".", "!", "%", "\\%", "0", "1", "2", "9", "12", "3.5",
    "1,000", "x", "y", "e", "i", "\\pi", "\\infty", "\\pm", "\\sin", "\\log", "\\ln", "\\text{", "\\boxed{",
    "$", " ", "\\\\", "\\{", "\\}", "\\cup", "\\le", "<", "\\begin{pmatrix}", "\\end{pmatrix}", "&",
    "\\mathrm{cm}", "^\\circ", "\\", "#", "or", "\\in", "\\emptyset", "10^{10}", "99!", "\\,", "~",
]
VALID = [
    "\\frac{1}{2}", "\\sqrt{2}", "x^2+1", "(1, 2]", "\\{1,2\\}", "3.14", "1,000", "x = 3", "2^{10}",
    "\\dfrac{\\pi}{4}", "50\\%", "(2, 3)", "\\infty", "e^{i\\pi}", "10!", "\\log_2 8", "a+b", "-\\frac{3}{4}",
    "\\begin{pmatrix}1\\\\2\\end{pmatrix}", "(-\\infty, 0) \\cup (1, \\infty)", "2 \\text{ or } 3",
    "30^\\circ", "\\sin(x)^2 + \\cos(x)^2", "\\text{(B)}", "yes", "1.5 \\times 10^{3}", "\\sqrt[3]{27}",
]

random_latex = st.lists(st.sampled_from(TOKENS), max_size=24).map("".join)
edits = st.lists(st.tuples(st.integers(0, 40), st.sampled_from(["insert", "delete", "replace"]),
                           st.sampled_from(TOKENS)), min_size=1, max_size=4)


def _mutate(text: str, ops: list[tuple[int, str, str]]) -> str:
    for at, op, token in ops:
        at = at % (len(text) + 1)
        if op == "insert":
            text = text[:at] + token + text[at:]
        elif op == "delete":
            text = text[:at] + text[at + len(token):]
        else:
            text = text[:at] + token + text[at + 1:]
    return text


mutated_latex = st.builds(_mutate, st.sampled_from(VALID), edits)
any_latex = st.one_of(random_latex, mutated_latex, st.sampled_from(VALID), st.text(max_size=40))
REWARD = make_accuracy()
SETTINGS = settings(max_examples=100, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow])


def _score(completions: list[str], golds: list[str]) -> tuple[list[float | None], list[str]]:
    logged: dict[str, list[str]] = {}
    values = REWARD(completions=completions, solution=golds,
                    log_extra=lambda column, values: logged.__setitem__(column, values))
    return values, logged["math.accuracy/outcome"]


def _assert_consistent(values: list[float | None], labels: list[str], n: int) -> None:
    assert len(values) == len(labels) == n
    for value, label in zip(values, labels):
        assert label in OUTCOMES
        assert value == {"correct": 1.0, "no_gold": None, "gold_unparsable": None}.get(label, 0.0)


@SETTINGS
@given(pred=any_latex, gold=any_latex)
def test_random_and_mutated_latex_always_gets_a_label_and_its_value(pred, gold):
    completions = [f"\\boxed{{{pred}}}", f"The answer is ${pred}$.", pred, f"<answer>{pred}</answer>"]
    values, labels = _score(completions, [gold, gold, gold, f"\\boxed{{{gold}}}"])
    _assert_consistent(values, labels, 4)


@SETTINGS
@given(gold=st.one_of(mutated_latex, st.sampled_from(VALID)))
def test_a_parsable_answer_equals_itself(gold):
    assume(extract_answer(f"\\boxed{{{gold}}}") == gold.strip() and gold.strip())
    values, labels = _score([f"\\boxed{{{gold}}}"], [gold])
    _assert_consistent(values, labels, 1)
    assert labels[0] in ("correct", "gold_unparsable")


@SETTINGS
@given(gold=st.sampled_from(VALID), noise=st.text(max_size=200))
def test_noise_around_a_boxed_answer_does_not_change_its_score(gold, noise):
    assume("\\boxed" not in noise and "\\fbox" not in noise)
    _, labels = _score([f"{noise}\\boxed{{{gold}}}"], [gold])
    assert labels == ["correct"]
