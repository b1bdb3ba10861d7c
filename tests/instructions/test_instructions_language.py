"""The package's language detector gives langdetect's own numbers: the same probabilities, float for
float, and the same language, on real replies and on seeded texts in many scripts."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples
from langdetect.detector_factory import PROFILES_DIRECTORY, DetectorFactory
from langdetect.lang_detect_exception import LangDetectException

from grpo_rewards_instructions import language, text

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def factory() -> DetectorFactory:
    made = DetectorFactory()
    made.load_profile(PROFILES_DIRECTORY)
    return made


def langdetect_says(factory: DetectorFactory, value: str, seed: int) -> object:
    factory.set_seed(seed)
    detector = factory.create()
    detector.append(value)
    try:
        return [(str(p.lang), p.prob) for p in detector.get_probabilities()]
    except LangDetectException:
        return "no features"


def ours(value: str, seed: int) -> object:
    try:
        return language.probabilities(value, seed)
    except language.NoFeatures:
        return "no features"


def replies() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "ifeval_gpt4.jsonl").read_text(encoding="utf-8").splitlines()]
    return [row["response"] for row in rows[::6]]  # 91 of GPT-4's 541 IFEval replies


LETTERS = ("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ     .,;!?'0123456789éèêüößçñåøăîșțşţ"
           + "".join(map(chr, range(0x0410, 0x0450)))  # Cyrillic
           + "".join(map(chr, range(0x03B1, 0x03CA)))  # Greek
           + "".join(map(chr, range(0x0627, 0x064B))) + "\u06cc\u067e"  # Arabic, Farsi yeh, peh
           + "".join(map(chr, range(0x05D0, 0x05EB)))  # Hebrew
           + "".join(map(chr, range(0x0905, 0x0940)))  # Devanagari
           + "".join(map(chr, range(0x3041, 0x3097))) + "".join(map(chr, range(0x30A1, 0x30FB)))  # kana
           + "".join(map(chr, range(0x4E00, 0x4E60))) + "".join(map(chr, range(0xAC00, 0xAC30)))  # CJK, Hangul
           + "\u0300\u0301\u0303\u0309\u0323\u1e00\u1ea0\u1ec3\u2013\u201c\u00a0\u3105\U0001f600")


def seeded_texts(count: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        # a few scripts per text, so that mixed and mostly-non-Latin texts both occur
        pool = "".join(rng.sample(LETTERS, 40)) + " " * 8
        out.append("".join(rng.choice(pool) for _ in range(rng.randint(1, 240))))
    return out


EDGES = [
    "",
    "   ",
    "12345 67890 !!!",
    "NASA USA FBI CIA",  # capital words are skipped: no features
    "The NASA and the FBI work in the USA with the people of the land.",
    "see https://example.com/a?b=c and mail me at someone@example.org about it, thanks a lot",
    "Tiếng Việt có dấu: Người ta nói tiếng Việt ở Việt Nam.",
    # mostly U+1Exx (Latin Extended Additional) with a little ASCII: langdetect counts those as non-Latin
    # (its "not Latin Extended Additional" test compares a block number with a name) and drops the ASCII
    "ạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ ab",
    "Tie\u0302\u0301ng Vie\u0323\u0302t vie\u0302\u0301t ba\u0306\u0300ng da\u0302\u0301u ro\u031bi",  # combining marks
    "Această propoziție este scrisă în limba română, cu ș și ț.",
    "این یک جمله فارسی است که برای آزمایش نوشته شده است",
    "これは日本語の文です。カタカナもあります。",
    "这是一个中文句子，用来测试语言检测。",
    "한국어 문장입니다. 언어 감지를 시험합니다.",
    "Москва is the capital of Россия and Киев of Украина, said the English speaker to Иван.",
    "word " * 3000,  # past the 10,000 characters langdetect reads
    "Ça va très bien, merci beaucoup. Et vous, comment allez-vous aujourd'hui ?",
    # close calls between related languages, where the trials disagree and all seven are run
    "Hij zegt dat het huis groot ist und der Garten klein, maar de kat is zwart.",
    "El perro come pão e a menina bebe leche en la casa do avô.",
    "Jeg tror at det er godt, men jag vet inte om det är sant.",
    "hotel taxi menu radio piano",
]


@pytest.mark.parametrize("value", EDGES, ids=range(len(EDGES)))
def test_edge_texts_get_langdetects_exact_probabilities(factory: DetectorFactory, value: str) -> None:
    assert ours(value, 0) == langdetect_says(factory, value, 0)


def test_gpt4_ifeval_replies_get_langdetects_exact_probabilities(factory: DetectorFactory) -> None:
    values = replies()
    assert len(values) == 91
    different = [v[:60] for v in values if ours(v, 0) != langdetect_says(factory, v, 0)]
    assert different == []


def test_seeded_texts_in_many_scripts_get_langdetects_exact_probabilities(factory: DetectorFactory) -> None:
    values = seeded_texts(120, seed=3)
    outcomes = [langdetect_says(factory, v, 0) for v in values]
    assert sum(o == "no features" for o in outcomes) < 20  # most texts do have features
    assert [ours(v, 0) for v in values] == outcomes


def test_another_seed_is_langdetects_run_with_that_seed(factory: DetectorFactory) -> None:
    value = "Ceci est une phrase en français, mais with some English words mixed in here and there."
    for seed in (1, 7, 12345):
        assert ours(value, seed) == langdetect_says(factory, value, seed)


def test_detect_language_names_the_language_or_none_without_features() -> None:
    assert text.detect_language("Das ist ein kurzer Satz auf Deutsch, geschrieben für den Test.") == "de"
    assert text.detect_language("12345 !!!") is None
    assert text.languages() == frozenset(language.languages())
    assert len(language.languages()) == 55


def _langdetects_language(factory: DetectorFactory, value: str, seed: int) -> str | None:
    said = langdetect_says(factory, value, seed)
    if said == "no features":
        return None
    assert isinstance(said, list)
    return said[0][0] if said else "unknown"


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="detect_many computes nothing where sum is compensated")
def test_texts_detected_together_get_langdetects_language_each(factory: DetectorFactory) -> None:
    values = [*EDGES, *replies(), *seeded_texts(120, seed=3), EDGES[4]]  # a text twice
    together = language.detect_many(values, 0)
    assert set(together) == set(values)
    assert together == {v: _langdetects_language(factory, v, 0) for v in values}
    assert language.detect_many(values[:5], 7) == {v: _langdetects_language(factory, v, 7) for v in values[:5]}


def test_a_text_detected_ahead_is_not_detected_again_until_forgotten(monkeypatch: pytest.MonkeyPatch) -> None:
    value = "Das ist ein kurzer Satz auf Deutsch, geschrieben für den Test."
    text.detect_ahead([value])
    monkeypatch.setattr(language, "detect", None)  # detecting now would fail
    assert text.detect_language(value) == "de"
    text.forget()
    with pytest.raises(TypeError):
        text.detect_language(value)


@given(trials=st.lists(st.lists(st.floats(0.0, 1.0), min_size=4, max_size=4).filter(lambda w: sum(w) > 1e-6),
                       min_size=language.N_TRIAL, max_size=language.N_TRIAL),
       close=st.booleans())
@settings(max_examples=examples(500, thorough=20_000))
def test_a_text_decided_early_gets_the_language_all_seven_trials_give(trials, close) -> None:
    # any seven trials' probabilities (each summing to one, as a trial's do), close calls between two languages
    # included: where _decided stops after t trials, the leader then is the leader after all seven
    import numpy as np

    rows = np.array(trials, dtype=np.float64)
    if close:  # two languages trading the lead, as es/pt and da/sv do
        rows[:, 2:] = 0.0
        rows[rows.sum(axis=1) == 0.0] = [0.5, 0.5, 0.0, 0.0]
    rows /= rows.sum(axis=1, keepdims=True)
    sums = np.cumsum(rows / language.N_TRIAL, axis=0)  # the sum after each trial, as detect_many adds them up
    for t in range(1, language.N_TRIAL):
        if language._decided(sums[t - 1], language.N_TRIAL - t):
            assert int(np.argmax(sums[t - 1])) == int(np.argmax(sums[-1])), (t, sums[t - 1], sums[-1])
            break
