"""This round's bounds and readings over their families (hypothesis) rather than the examples each was found on:
text.fuzzy's aligning scorers at and around their 1,000-character bound (per-sample and batch forms alike, equal to
rapidfuzz wherever they compare), text.rouge's rougeLsum reference bound, and a row's programming language written
with a vendor, a version and a note in brackets."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from grpo_rewards_code.formats import row_language
from grpo_rewards_text.definitions import ROUGE_MAX_CHARS, make_fuzzy
from grpo_rewards_text.fuzzy_match import ALIGN_MAX_CHARS, ALIGNING, SCORERS, Fuzzy
from grpo_rewards_text.rouge_scores import Rouge

FAMILY = settings(max_examples=60, deadline=None, database=None, derandomize=True)
#: lengths on both sides of the bound, and far past it
LENGTHS = st.sampled_from([1, ALIGN_MAX_CHARS - 1, ALIGN_MAX_CHARS, ALIGN_MAX_CHARS + 1, 3 * ALIGN_MAX_CHARS])


def _text(seed: int, n: int) -> str:
    rng = random.Random(seed)
    words = ("the", "cat", "sat", "on", "a", "mat", "Eiffel", "tower", "x1", "café")
    text = " ".join(rng.choice(words) for _ in range(n))
    return text[:n].rstrip() + "z" * (n - len(text[:n].rstrip()))  # exactly n characters, no blank at either end


@FAMILY
@given(scorer=st.sampled_from(SCORERS), answer_length=LENGTHS, reference_length=LENGTHS, seed=st.integers(0, 10 ** 6))
def test_fuzzy_leaves_exactly_the_pairs_past_the_bound_uncompared_in_both_forms(scorer, answer_length,
                                                                                reference_length, seed):
    answer, reference = _text(seed, answer_length), _text(seed + 1, reference_length)
    assert (len(answer), len(reference)) == (answer_length, reference_length)
    per_sample = Fuzzy(answer_format="whole", scorer=scorer)(answer, reference=reference)
    batch = make_fuzzy(answer_format="whole", scorer=scorer).score(prompts=[None], completions=[answer],
                                                                   reference=[reference])
    assert (batch.values[0], batch.labels[0]) == per_sample
    too_long = scorer in ALIGNING and min(answer_length, reference_length) > ALIGN_MAX_CHARS
    assert per_sample == ((None, "too_long") if too_long else (getattr(fuzz, scorer)(answer, reference) / 100, "ok"))


@FAMILY
@given(reference_length=st.sampled_from([ROUGE_MAX_CHARS - 1, ROUGE_MAX_CHARS, ROUGE_MAX_CHARS + 1]),
       kind=st.sampled_from(["rouge1", "rougeL", "rougeLsum"]), seed=st.integers(0, 10 ** 6))
def test_rouge_lsum_alone_leaves_a_reference_past_the_bound_uncompared(reference_length, kind, seed):
    reference = _text(seed, reference_length)
    value, label = Rouge(answer_format="whole", kind=kind)("the cat sat on a mat", reference=reference)
    if kind == "rougeLsum" and reference_length > ROUGE_MAX_CHARS:
        assert (value, label) == (None, "reference_too_long")
    else:
        assert label == "ok" and value is not None and 0.0 <= value <= 1.0


#: how judges and submission datasets decorate a language's name, and the language each base name is
BASES = {"c++": "cpp", "cpp": "cpp", "g++": "cpp", "python": "python", "pypy": "python", "java": "java",
         "rust": "rust", "node.js": "javascript", "javascript": "javascript", "go": "go", "kotlin": "kotlin"}


@settings(max_examples=300, deadline=None, database=None, derandomize=True)
@given(base=st.sampled_from(sorted(BASES)), vendor=st.sampled_from(["", "gnu ", "ms ", "clang "]),
       version=st.sampled_from(["", "3", "17", " 17", " 3.8.2", "11", " 2021", " 1.19", "-64", " 3-64"]),
       note=st.sampled_from(["", " (gcc 9.2.1)", " (64 bit)", "(x86)"]), upper=st.booleans())
def test_a_decorated_language_name_is_its_language(base, vendor, version, note, upper):
    written = f"{vendor}{base}{version}{note}"
    if version == "-64":  # a bare suffix is no version: only "pypy 3-64"-like names carry one
        written = f"{vendor}{base} 3{version}{note}"
    written = written.upper() if upper else written.title()
    assert row_language({"language": written, "tests": []}) == BASES[base], written


@settings(max_examples=200, deadline=None, database=None, derandomize=True)
@given(version=st.sampled_from(["2", " 2", " 2.7", "2.7.18"]), base=st.sampled_from(["python", "pypy", "cpython"]))
def test_python_2_written_any_way_is_not_python_3(version, base):
    assert row_language({"language": f"{base}{version}", "tests": []}) == "python2"
