"""The text plugin: registration, discovery, reward sets, importable callables, tasks, answer reading and the contract."""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

import grpo_rewards
import grpo_rewards_text as text
from grpo_rewards_text.answer import read_answer, references

NAMES = ["text.bleu", "text.chrf", "text.exact_match", "text.f1", "text.fuzzy", "text.json", "text.language",
         "text.rouge", "text.similarity"]
IMPORTABLE = ["exact_match", "f1", "fuzzy", "bleu", "chrf", "rouge", "language", "json"]


@pytest.fixture(scope="module")
def registry():
    return grpo_rewards.load_registry()


def test_the_plugin_registers_every_text_reward_and_both_tasks(registry):
    assert sorted(n for n in registry.rewards if n.startswith("text.")) == NAMES
    assert {registry.reward(n).distribution for n in NAMES} == {"grpo-rewards-text"}
    assert sorted(n for n in registry.tasks if n.startswith("text:")) == ["text:capitals", "text:json_extraction"]


def test_listing_the_plugins_imports_no_metric_library():
    code = ("import sys, grpo_rewards; r = grpo_rewards.load_registry(); r.reward('text.bleu');"
            "print(sorted(m for m in ('sacrebleu', 'rouge_score', 'rapidfuzz', 'jsonschema', 'langdetect', "
            "'sentence_transformers', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_registered_parameters_come_from_the_signatures(registry):
    params = registry.reward("text.rouge").params
    assert {n: p.default for n, p in params.items()} == {
        "reference_column": "reference", "answer_format": "any", "answer_position": "last", "kind": "rougeL",
        "measure": "f", "use_stemmer": False, "split_summaries": False, "tokenizer": "default"}
    assert registry.reward("text.similarity").form == "batch"


def test_every_importable_reward_is_named_after_its_registered_reward():
    assert [getattr(text, short).__name__ for short in IMPORTABLE] == [f"text.{s}" for s in IMPORTABLE]


def test_a_yaml_reward_set_with_bad_parameters_reports_every_problem(tmp_path):
    path = tmp_path / "rewards.yaml"
    path.write_text("rewards:\n"
                    "  - use: text.rouge\n    with: {kind: rouge3}\n"
                    "  - use: text.bleu\n    with: {tokenize: klingon}\n"
                    "  - use: text.json\n    with: {schema: {type: strin}}\n"
                    "  - use: text.exact_match\n    with: {answer_format: boxd}\n")
    with pytest.raises(grpo_rewards.RewardSetError) as info:
        grpo_rewards.load_reward_set(path)
    assert len(info.value.problems) == 4


def test_a_reward_set_weights_the_text_rewards():
    rs = grpo_rewards.load_reward_set({"rewards": [{"use": "text.exact_match", "weight": 1.0},
                                                   {"use": "text.f1", "weight": 0.5}]})
    values = [r(prompts=[None], completions=["<answer>the cat sat</answer>"], reference=[["a cat sat down"]])[0]
              for r in rs.reward_funcs]
    assert values == [0.0, 0.8] and rs.total(values) == 0.4


@pytest.mark.parametrize("name", [n for n in NAMES if n != "text.similarity"])
def test_each_reward_keeps_the_reward_contract(name):
    from grpo_rewards.testing import assert_reward_contract

    # the contract scores in fresh worker processes, each importing the metric library: rouge-score imports
    # nltk (about 5 s of CPU, 30 s of wall time on a busy 2-core machine), past the default 10 s deadline
    assert_reward_contract(name, deadline=180.0)


@pytest.mark.parametrize("short", IMPORTABLE)
def test_reward_survives_a_pickle_round_trip(short):
    reward = getattr(text, short)
    reward(prompts=[None], completions=["Paris"], reference=["Paris"], language=["en"], schema=[{"type": "string"}])
    clone = pickle.loads(pickle.dumps(reward))
    assert clone.__name__ == f"text.{short}"
    columns = {"reference": ["The cat sat on the mat."], "language": ["en"], "schema": [{"type": "object"}]}
    completions = ["The cat sat on the mat, I think, and then it slept."]
    assert clone(prompts=[None], completions=completions, **columns) == reward(prompts=[None], completions=completions,
                                                                            **columns)


def test_conversational_completions_read_the_last_assistant_message():
    messages = [{"role": "assistant", "content": "<answer>Paris</answer>"}]
    assert text.exact_match(prompts=[None], completions=[messages], reference=["paris"]) == [1.0]
    assert text.exact_match.score(prompts=[None], completions=[None], reference=["paris"]).labels == ["unreadable"]


@pytest.mark.parametrize(("reply", "fmt", "position", "expected"), [
    (r"so \boxed{Paris} <answer>Lyon</answer>", "any", "last", "Paris"),        # a box beats a tag, as in math
    ("<answer>Lyon</answer> then <answer> Paris </answer>", "any", "last", "Paris"),
    ("<answer>Lyon</answer> then <answer>Paris</answer>", "answer_tag", "first", "Lyon"),
    ("<answer>Paris", "any", "last", "Paris"),                                   # cut off: read to the end
    (r"\boxed{\text{New York}}", "boxed", "last", "New York"),
    (r"\boxed{a} and \fbox{b}", "boxed", "last", "b"),
    (r"\boxed{unclosed", "boxed", "last", None),
    (r"\boxed{a \} b} c", "boxed", "last", r"a \} b"),                     # an escaped brace is a character
    ("Paris.", "boxed", "last", None),
    ("Paris.", "answer_tag", "last", None),
    ("  Paris. \n", "any", "last", "Paris."),
    ("<answer>Lyon</answer>", "whole", "last", "<answer>Lyon</answer>"),
])
def test_the_answer_is_read_with_maths_parameter_names(reply, fmt, position, expected):
    assert read_answer(reply, fmt, position) == expected


def _answer_steps(reply: str, position: str) -> tuple[str | None, int]:
    """What read_answer gives ``reply`` and how many lines of the answer module it ran (a count of steps,
    the same on any machine)."""
    from grpo_rewards_text import answer

    steps = 0

    def trace(frame, event, arg):
        nonlocal steps
        if frame.f_code.co_filename != answer.__file__:
            return None
        if event == "line":
            steps += 1
        return trace

    sys.settrace(trace)
    try:
        found = read_answer(reply, "boxed", position)
    finally:
        sys.settrace(None)
    return found, steps


@pytest.mark.parametrize("position", ["last", "first"])
def test_boxes_left_open_are_read_in_steps_linear_in_the_reply(position):
    # each open box was scanned again to the end of the reply: \boxed{ repeated over the 200,000
    # characters text rewards read took minutes, in the training process
    counts = []
    for n in (300, 600, 1200):
        found, steps = _answer_steps("\\boxed{" * n + r"\boxed{42}", position)  # the first box's search
        found_before, steps_before = _answer_steps(r"\fbox{7}" + "\\boxed{" * n, position)  # the last box's
        assert (found, found_before) == ("42", "7")
        counts.append(steps + steps_before)
    assert counts[2] < 2.2 * counts[1] < 4.4 * counts[0]  # quadratic was 4x per doubling
    reply = "\\boxed{" * 28_000 + r"\boxed{Paris}"  # 196,013 characters, under text.exact_match's max_chars
    assert text.make_exact_match(answer_format="boxed", answer_position=position).score(
        prompts=[None], completions=[reply], reference=["Paris"]).values == [1.0]


def test_a_strict_answer_format_without_its_form_scores_no_answer():
    assert text.make_exact_match(answer_format="boxed").score(
        prompts=[None], completions=["Paris"], reference=["Paris"]).labels == ["no_answer"]


def test_a_row_without_references_is_left_out():
    result = text.f1.score(prompts=[None, None], completions=["Paris", "Paris"], reference=[None, []])
    assert (result.values, result.labels) == ([None, None], ["no_reference", "no_reference"])


@pytest.mark.parametrize("name", ["text.exact_match", "text.f1", "text.fuzzy", "text.bleu", "text.chrf", "text.rouge"])
def test_references_are_read_as_datasets_carry_them(name):
    import numpy as np

    reward = grpo_rewards.get_reward(name)
    replies = ["<answer>42</answer>", "The answer is \\boxed{42}", "0.5", "Denver Broncos", "Paris",
               "The City of Light", "yes", "Paris", "Paris"]
    refs = [42, 42.0, 0.5, {"text": ["Denver Broncos", "Broncos"], "answer_start": [177, 184]},
            np.array(["Lyon", "Paris"], dtype=object), {"value": "Paris", "aliases": ["Paris", "The City of Light"]},
            True, {"city": "Paris"}, [["Paris"]]]
    result = reward.score(prompts=[None] * len(replies), completions=replies, reference=refs)
    # a number is its text (42.0 as 42), SQuAD's answers their text, a numpy array its items, TriviaQA's answer its
    # value and aliases; a bool, another mapping or a nested list is no reference
    assert result.values[:6] == [1.0] * 6
    assert result.values[6:] == [None] * 3 and result.labels[6:] == ["no_reference"] * 3


@settings(max_examples=examples(300, thorough=20_000))
@given(number=st.one_of(st.integers(-10**40, 10**40), st.floats(allow_nan=False, allow_infinity=False)))
def test_a_number_reference_is_a_text_that_reads_back_as_that_number(number):
    # the family of 42 and 42.0: any integer or finite float, alone or in a list beside a string and non-references
    (text,) = references(number)
    if isinstance(number, int):
        assert text == str(number)
    else:
        assert float(text) == number
        if number.is_integer() and abs(number) < 2 ** 53:
            assert text == str(int(number))  # 42.0 is 42: no point, no exponent
    assert references([number, "x", None, True, [number]]) == (text, "x")
    assert references(float("nan")) == references(float("inf")) == ()


def test_the_capitals_task_trains_with_exact_match_on_its_rows(registry):
    task = registry.tasks["text:capitals"]
    rows = task.factory(20, seed=3)
    assert rows == task.factory(20, seed=3) and len({r["prompt"] for r in rows}) > 5
    rs = grpo_rewards.load_reward_set({"rewards": task.default_rewards})
    right = [f"<answer>{r['reference'][-1]}</answer>" for r in rows]
    values = rs.reward_funcs[0](prompts=[r["prompt"] for r in rows], completions=right,
                                reference=[r["reference"] for r in rows])
    assert values == [1.0] * 20


def test_the_json_extraction_task_pays_its_reference_and_not_a_wrong_field(registry):
    task = registry.tasks["text:json_extraction"]
    rows = task.factory(5, seed=1)
    rs = grpo_rewards.load_reward_set({"rewards": task.default_rewards})
    import json

    good = [json.dumps(r["reference"]) for r in rows]
    wrong = [json.dumps({**r["reference"], "city": "Nowhere"}) for r in rows]
    columns = {"schema": [r["schema"] for r in rows], "reference": [r["reference"] for r in rows]}
    prompts = [r["prompt"] for r in rows]
    assert rs.reward_funcs[0](prompts=prompts, completions=good, **columns) == [1.0] * 5
    assert rs.reward_funcs[0](prompts=prompts, completions=wrong, **columns) == [0.75] * 5


def test_a_language_written_no_in_a_set_file_is_refused_with_yamls_reason(tmp_path):
    # YAML 1.1 reads `no` (Norwegian) as false: the error said only "must be str | None, got False"
    path = tmp_path / "set.yaml"
    path.write_text("rewards:\n  - use: text.language\n    with: {language: no, language_column: null}\n")
    with pytest.raises(grpo_rewards.RewardSetError) as err:
        grpo_rewards.load_reward_set(path)
    assert str(err.value) == (f"{path}: entry 1 (text.language): parameter 'language' must be str | None, got False "
                              "(YAML reads yes, no, on and off as true or false: quote a text, language: 'no')")
    path.write_text("rewards:\n  - use: text.language\n    with: {language: 'no', language_column: null}\n")
    reward = grpo_rewards.load_reward_set(path).rewards[0]
    reply = "Jeg heter Ola, og jeg bor i en liten by ved havet i Norge. Vi har mange fjell og fjorder her."
    assert reward(prompts=[None], completions=[reply]) == [1.0]
