"""Each reference metric equals its library's own value on the same inputs (sacrebleu, rouge-score,
rapidfuzz), on real sentences: English, German, Japanese, Russian, accents and typographic quotes,
emoji, empty strings and a 6,000-word text; and SQuAD exact match / F1 on worked examples."""

from __future__ import annotations

import random
import re
import string

import pytest
import sacrebleu
from rapidfuzz import fuzz, utils
from rouge_score import rouge_scorer

from grpo_rewards_text import F1, Bleu, Chrf, ExactMatch, Fuzzy, Rouge
from grpo_rewards_text.fuzzy_match import SCORERS

_WORDS = ("river", "stone", "light", "garden", "window", "quiet", "morning", "paper", "silver", "bridge", "cloud")
_rng = random.Random(7)
LONG_A = " ".join(_rng.choice(_WORDS) for _ in range(6000)) + "."
LONG_B = " ".join(_rng.choice(_WORDS) for _ in range(6000)) + "."

PAIRS = [
    ("The cat is sitting on the mat.", "The cat sat on the mat."),
    ("A quick brown fox jumps over the lazy dog", "The quick brown fox jumped over the lazy dog."),
    ("Der schnelle braune Fuchs springt über den faulen Hund.", "Der flinke braune Fuchs sprang über den faulen Hund."),
    ("東京は日本の首都です。", "日本の首都は東京です。"),
    ("Москва — столица России.", "Столица России — Москва."),
    ("naïve café – “quoted” façade", 'naive cafe - "quoted" facade'),
    ("😀 emoji answer 🚀", "emoji answer"),
    ("", "The reference is not empty."),
    ("A reply against an empty reference.", ""),
    ("", ""),
]
IDS = ["en", "en2", "de", "ja", "ru", "accents", "emoji", "empty_reply", "empty_reference", "both_empty"]


def test_every_metric_equals_its_library_on_a_6000_word_text():
    assert Bleu(answer_format="whole")(LONG_A, reference=LONG_B)[0] == sacrebleu.sentence_bleu(LONG_A, [LONG_B]).score / 100
    assert Chrf(answer_format="whole")(LONG_A, reference=LONG_B)[0] == sacrebleu.sentence_chrf(LONG_A, [LONG_B]).score / 100
    theirs = rouge_scorer.RougeScorer(["rouge2"]).score(LONG_B, LONG_A)["rouge2"].fmeasure
    assert Rouge(answer_format="whole", kind="rouge2")(LONG_A, reference=LONG_B)[0] == theirs
    assert Fuzzy(answer_format="whole", scorer="token_set_ratio")(LONG_A, reference=LONG_B)[0] == fuzz.token_set_ratio(
        LONG_A, LONG_B) / 100
    assert 0.0 < theirs < 1.0


@pytest.mark.parametrize(("reply", "reference"), PAIRS, ids=IDS)
@pytest.mark.parametrize("tokenize", ["13a", "intl", "char", "zh", "none"])
def test_bleu_is_sacrebleu_sentence_bleu(reply, reference, tokenize):
    ours = Bleu(answer_format="whole", tokenize=tokenize)(reply, reference=reference)
    theirs = sacrebleu.sentence_bleu(reply, [reference], tokenize=tokenize).score / 100
    assert ours == (min(1.0, theirs), "ok")


@pytest.mark.parametrize(("method", "value"), [("floor", 0.1), ("add-k", 1), ("none", None), ("exp", None)])
@pytest.mark.parametrize(("reply", "reference"), PAIRS[:7], ids=IDS[:7])
def test_bleu_smoothing_is_sacrebleus(reply, reference, method, value):
    ours = Bleu(answer_format="whole", smooth_method=method, smooth_value=value, lowercase=True)(reply, reference=reference)
    theirs = sacrebleu.sentence_bleu(reply, [reference], smooth_method=method, smooth_value=value, lowercase=True)
    assert ours[0] == min(1.0, theirs.score / 100)


def test_bleu_of_several_references_is_the_best_or_sacrebleus_joint_score():
    refs = ["The cat sat on the mat.", "There is a cat on the mat.", "A dog."]
    reply = "The cat is on the mat."
    best = max(sacrebleu.sentence_bleu(reply, [r]).score for r in refs) / 100
    joint = sacrebleu.sentence_bleu(reply, refs).score / 100
    assert Bleu(answer_format="whole")(reply, reference=refs) == (best, "ok")
    assert Bleu(answer_format="whole", references="joint")(reply, reference=refs) == (joint, "ok")
    assert joint != best


def test_an_unknown_tokeniser_is_refused_when_the_reward_is_built():
    with pytest.raises(ValueError, match="tokenize='klingon'"):
        Bleu(tokenize="klingon")


@pytest.mark.parametrize(("reply", "reference"), PAIRS, ids=IDS)
@pytest.mark.parametrize("word_order", [0, 2])
def test_chrf_is_sacrebleu_sentence_chrf(reply, reference, word_order):
    ours = Chrf(answer_format="whole", word_order=word_order)(reply, reference=reference)
    assert ours == (sacrebleu.sentence_chrf(reply, [reference], word_order=word_order).score / 100, "ok")


@pytest.mark.parametrize(("reply", "reference"), PAIRS[:7], ids=IDS[:7])
def test_chrf_options_are_sacrebleus(reply, reference):
    ours = Chrf(answer_format="whole", char_order=4, beta=1, lowercase=True, whitespace=True, eps_smoothing=True)
    theirs = sacrebleu.metrics.CHRF(char_order=4, beta=1, lowercase=True, whitespace=True, eps_smoothing=True)
    assert ours(reply, reference=reference)[0] == theirs.sentence_score(reply, [reference]).score / 100


#: words with punctuation at either end, single characters, case, Unicode, for chrF's counts
_CHRF_WORDS = ("The", "the", "cat", "cat.", "(sat", "on", "mat!", ",", "a", "Straße", "東京", "naïve", "x", "--",
               "don't", "#tag", "'tis", "\"quoted\"", "ÉCOLE", "école", "🙂", "aa", "aaa")


@pytest.mark.parametrize(("char_order", "word_order", "beta", "lowercase", "whitespace", "eps_smoothing"), [
    (6, 0, 2, False, False, False), (6, 2, 2, False, False, False), (4, 1, 1, True, True, False),
    (3, 3, 0, False, True, True), (6, 2, 3, True, False, True), (1, 0, 2, False, False, False)])
def test_chrf_is_sacrebleus_on_many_generated_pairs(char_order, word_order, beta, lowercase, whitespace, eps_smoothing):
    """One reward per setting over 300 pairs, references repeated in runs of one to nine as in GRPO
    groups (the kept reference n-grams reused, then replaced); empty texts and runs of spaces included."""
    rng = random.Random(f"{char_order}{word_order}{beta}{lowercase}{whitespace}{eps_smoothing}")
    options = {"char_order": char_order, "word_order": word_order, "beta": beta, "lowercase": lowercase,
               "whitespace": whitespace, "eps_smoothing": eps_smoothing}
    theirs = sacrebleu.metrics.CHRF(**options)
    ours = Chrf(answer_format="whole", **options)

    def text() -> str:
        return rng.choice([" ", "  ", "\t"]).join(rng.choice(_CHRF_WORDS) for _ in range(rng.randint(0, 12)))

    pairs = 0
    while pairs < 300:
        reference = text()
        for _ in range(rng.randint(1, 9)):
            reply = text()
            assert ours(reply, reference=reference) == (theirs.sentence_score(reply, [reference]).score / 100, "ok"), (
                reply, reference)
            pairs += 1


@pytest.mark.parametrize(("reply", "reference"), PAIRS, ids=IDS)
@pytest.mark.parametrize("kind", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize(("measure", "field"), [("f", "fmeasure"), ("precision", "precision"), ("recall", "recall")])
def test_rouge_is_rouge_score(reply, reference, kind, measure, field):
    ours = Rouge(answer_format="whole", kind=kind, measure=measure)(reply, reference=reference)
    theirs = rouge_scorer.RougeScorer([kind]).score(reference, reply)[kind]
    assert ours == (getattr(theirs, field), "ok")


@pytest.mark.parametrize(("reply", "reference"), PAIRS[:3], ids=IDS[:3])
def test_rouge_with_the_stemmer_is_rouge_score_with_it(reply, reference):
    theirs = rouge_scorer.RougeScorer(["rouge1"], use_stemmer=True).score(reference, reply)["rouge1"].fmeasure
    assert Rouge(answer_format="whole", kind="rouge1", use_stemmer=True)(reply, reference=reference)[0] == theirs


def test_rouge_lsum_leaves_a_reference_past_the_replys_bound_uncompared_and_the_other_kinds_read_it():
    # before: a 200,000-character reference (an article given as the reference) took 30 s per reply in
    # rouge-score's quadratic tables, in the trainer's process
    from grpo_rewards_text.definitions import ROUGE_MAX_CHARS

    sentence = "the cat sat on the mat. "
    within, past = sentence * (ROUGE_MAX_CHARS // len(sentence)), sentence * 10_000
    reply = "the cat sat."
    theirs = rouge_scorer.RougeScorer(["rougeLsum"]).score(within, reply)["rougeLsum"].fmeasure
    assert Rouge(answer_format="whole", kind="rougeLsum")(reply, reference=within) == (theirs, "ok")
    assert Rouge(answer_format="whole", kind="rougeLsum")(reply, reference=past) == (None, "reference_too_long")
    assert Rouge(answer_format="whole", kind="rougeLsum")(reply, reference=[within, past]) == (
        None, "reference_too_long")
    rouge_l = rouge_scorer.RougeScorer(["rougeL"]).score(past, reply)["rougeL"].fmeasure
    assert Rouge(answer_format="whole", kind="rougeL")(reply, reference=past) == (rouge_l, "ok")


#: words whose Porter stems, case, digits and punctuation exercise rouge-score's tokeniser; few, so
#: that replies and references share tokens and repeat them (LCS and n-gram counts with ties)
_ROUGE_WORDS = ("the", "The", "running", "runs", "Runner's", "cats", "caresses", "ponies", "agreed", "generously",
                "İstanbul", "naïve", "Straße", "x2", "3.14", "co-operate", "—", "ÆON", "a", "dog,", "dogs!", "ies")


def _rouge_texts(rng: random.Random, count: int) -> list[str]:
    texts = []
    for _ in range(count):
        words = [rng.choice(_ROUGE_WORDS) for _ in range(rng.randint(0, 14))]
        texts.append(" ".join(words) if rng.random() < 0.8 else "\n".join(words))
    return texts


@pytest.mark.parametrize("kind", ["rouge1", "rouge2", "rougeL", "rougeLsum"])
@pytest.mark.parametrize(("use_stemmer", "tokenizer"), [(False, "default"), (True, "default"), (False, "whitespace")])
def test_rouge_is_rouge_score_on_many_generated_pairs_each_measure(kind, use_stemmer, tokenizer):
    """One scorer per setting over 300 (reply, reference) pairs, references repeated in runs of
    one to nine as in GRPO groups, so a kept reference is reused and then replaced."""
    from grpo_rewards_text.rouge_scores import WhitespaceTokenizer

    rng = random.Random(f"{kind}{use_stemmer}{tokenizer}")
    theirs = rouge_scorer.RougeScorer([kind], use_stemmer=use_stemmer,
                                      tokenizer=WhitespaceTokenizer() if tokenizer == "whitespace" else None)
    ours = {measure: Rouge(answer_format="whole", kind=kind, measure=measure, use_stemmer=use_stemmer,
                           tokenizer=tokenizer) for measure in ("f", "precision", "recall")}
    pairs = 0
    while pairs < 300:
        reference = _rouge_texts(rng, 1)[0]
        for reply in _rouge_texts(rng, rng.randint(1, 9)):
            score = theirs.score(reference, reply)[kind]
            expected = {"f": score.fmeasure, "precision": score.precision, "recall": score.recall}
            got = {measure: rouge(reply, reference=reference) for measure, rouge in ours.items()}
            assert got == {m: (v, "ok") for m, v in expected.items()}, (reply, reference)
            pairs += 1


def test_rouge_l_equals_rouge_scores_on_1500_word_texts():
    a, b = " ".join(LONG_A.split()[:1500]), " ".join(LONG_B.split()[:1500])
    theirs = rouge_scorer.RougeScorer(["rougeL"]).score(b, a)["rougeL"]
    assert Rouge(answer_format="whole")(a, reference=b) == (theirs.fmeasure, "ok")
    assert Rouge(answer_format="whole", measure="recall")(a, reference=b) == (theirs.recall, "ok")


def test_rouges_default_tokeniser_drops_russian_and_the_whitespace_one_keeps_it():
    reply, reference = "Москва — столица России.", "Столица России — Москва."
    assert Rouge(answer_format="whole", kind="rouge1")(reply, reference=reference) == (0.0, "ok")
    assert Rouge(answer_format="whole", kind="rouge1", tokenizer="whitespace")(reply, reference=reference) == (
        0.5, "ok")  # {—, столица} of 4 tokens each ("россии." and "москва." keep their period)


@pytest.mark.parametrize(("reply", "reference"), PAIRS, ids=IDS)
@pytest.mark.parametrize("scorer", SCORERS)
@pytest.mark.parametrize("processor", ["none", "default"])
def test_fuzzy_is_rapidfuzz(reply, reference, scorer, processor):
    proc = utils.default_process if processor == "default" else None
    theirs = getattr(fuzz, scorer)(reply, reference, processor=proc) / 100
    assert Fuzzy(answer_format="whole", scorer=scorer, processor=processor)(reply, reference=reference) == (theirs, "ok")


@pytest.mark.parametrize("scorer", SCORERS)
def test_an_aligning_scorer_leaves_two_long_texts_uncompared_and_compares_a_short_one_in_a_long_one(scorer):
    # before: partial_ratio took 154 s on a 20,000-character reply against a reference as long (in the trainer)
    from grpo_rewards_text.fuzzy_match import ALIGN_MAX_CHARS, ALIGNING

    fuzzy = Fuzzy(answer_format="whole", scorer=scorer)
    long_a, long_b = LONG_A[:ALIGN_MAX_CHARS + 1], LONG_B[:5 * ALIGN_MAX_CHARS]
    expected = (None, "too_long") if scorer in ALIGNING else (getattr(fuzz, scorer)(long_a, long_b) / 100, "ok")
    assert fuzzy(long_a, reference=long_b) == expected
    assert fuzzy(long_a, reference=["Paris", long_b]) == expected  # any reference too long: the best is unknown
    needle = LONG_A[:ALIGN_MAX_CHARS]
    assert fuzzy(needle, reference=LONG_B) == (getattr(fuzz, scorer)(needle, LONG_B) / 100, "ok")
    assert ALIGNING < set(SCORERS)


def test_fuzzy_threshold_mode_pays_one_at_the_threshold_and_zero_below():
    reference, reply = "Eiffel Tower", "Eifel Tower"
    value = fuzz.ratio(reply, reference) / 100
    assert Fuzzy(answer_format="whole", threshold=value)(reply, reference=reference) == (1.0, "match")
    assert Fuzzy(answer_format="whole", threshold=value + 1e-9)(reply, reference=reference) == (0.0, "no_match")



# The registered text.fuzzy (batch form, one rapidfuzz call) against Fuzzy run sample by sample through the core.
BATCH_REPLIES = [reply for reply, _ in PAIRS] + [
    "<answer>The cat sat on the mat.</answer>", r"I think \boxed{\text{Eifel Tower}}", "<answer>Eiffel", "no box here",
    None, [{"role": "assistant", "content": "Eifel Tower"}], "x" * 200_001, "caf\udce9 au lait", "  padded reply \n",
    LONG_A[:1000], LONG_A[:1001], f"<answer>{LONG_A[:900]}</answer>{LONG_A}"]
BATCH_REFERENCES = [reference for _, reference in PAIRS] + [
    "The cat sat on the mat.", ["Eiffel Tower", "The Eiffel Tower"], ["Tower", "Eiffel"], None, "anything",
    "Eiffel Tower", "x", "café au lait", [], LONG_B[:1000], ["Paris", LONG_B[:1500]], LONG_B[:3000]]


@pytest.mark.parametrize("scorer", SCORERS)
@pytest.mark.parametrize(("answer_format", "threshold", "processor"), [
    ("any", None, "none"), ("whole", None, "default"), ("boxed", None, "none"), ("answer_tag", 0.8, "default"),
    ("any", 0.95, "none")])
def test_the_batch_form_gives_the_values_and_labels_of_the_per_sample_path(scorer, answer_format, threshold, processor):
    from grpo_rewards import Reward
    from grpo_rewards_text.definitions import OPTIONS, make_fuzzy

    params = {"scorer": scorer, "answer_format": answer_format, "threshold": threshold, "processor": processor}
    per_sample = Reward(Fuzzy, metric="fuzzy_per_sample", params=params, options=OPTIONS)
    for completions, references in [(BATCH_REPLIES, BATCH_REFERENCES), (["Whole reply only"] * 3, ["Whole reply"] * 3)]:
        columns = {"prompts": [None] * len(completions), "completions": completions, "reference": references}
        ours, theirs = make_fuzzy(**params).score(**columns), per_sample.score(**columns)
        assert (ours.values, ours.labels) == (theirs.values, theirs.labels)


@pytest.mark.parametrize("max_chars", [None, 11, 200_000])
def test_the_batch_form_applies_the_registered_options_as_the_per_sample_path_does(monkeypatch, max_chars):
    # text.fuzzy's options decide too_large and unreadable (no copy of their numbers in the batch class)
    from types import SimpleNamespace

    from grpo_rewards import Reward
    from grpo_rewards_text import definitions
    from grpo_rewards_text.fuzzy_match import BatchFuzzy

    options = definitions.OPTIONS.replace(max_chars=max_chars, too_large_value=0.25, invalid_value=0.5)
    monkeypatch.setattr(definitions, "FUZZY", SimpleNamespace(options=options))
    completions = ["Eifel Tower", "Eifel Towers", None, "x" * 200_001]  # 11, 12 characters, unreadable, 200,001
    columns = {"prompts": [None] * 4, "completions": completions, "reference": ["Eiffel Tower"] * 4}
    result = BatchFuzzy()(**columns)
    theirs = Reward(Fuzzy, metric="fuzzy_per_sample", options=options).score(**columns)
    assert (result.values, result.labels) == (theirs.values, theirs.labels)
    long_label = {None: "ok", 11: "too_large", 200_000: "ok"}[max_chars]
    assert result.labels == ["ok", long_label, "unreadable", "ok" if max_chars is None else "too_large"]
    assert result.values[1:3] == [0.25 if max_chars == 11 else fuzz.ratio("Eifel Towers", "Eiffel Tower") / 100, 0.5]
    # all strings: the path without a loop per sample reads the same limit
    assert BatchFuzzy()(**{**columns, "completions": ["Eifel Tower"] * 4}).labels == ["ok"] * 4
    assert BatchFuzzy()(**{**columns, "completions": ["Eifel Towers"] * 4}).labels == [
        "too_large" if max_chars == 11 else "ok"] * 4


# The options a reward set entry or get_reward puts over text.fuzzy's registered ones reach its batch class
# (the core passes them as reward_options), in-process and in a worker (a timeout).
_LIMITED = ["Eifel Tower", "Eifel Towers", None, "<answer>Eiffel</answer>"]  # 11, 12 characters, unreadable, 23


def _limited_result(reward):
    result = reward.score(prompts=[None] * 4, completions=_LIMITED, reference=["Eiffel Tower"] * 4,
                          reward_options=["a column of that name is never passed"] * 4)
    return result.values, result.labels


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_a_reward_sets_max_chars_reaches_the_batch_form(tmp_path, timeout):
    import grpo_rewards

    path = tmp_path / "rewards.yaml"
    path.write_text("rewards:\n  - use: text.fuzzy\n    with: {answer_format: any}\n"
                    "    max_chars: 11\n    too_large_value: 0.25\n    invalid_value: 0.5\n"
                    + (f"    timeout: {timeout}\n" if timeout else ""), encoding="utf-8")
    (reward,) = grpo_rewards.load_reward_set(path).reward_funcs
    assert _limited_result(reward) == ([fuzz.ratio("Eifel Tower", "Eiffel Tower") / 100, 0.25, 0.5, 0.25],
                                       ["ok", "too_large", "unreadable", "too_large"])


@pytest.mark.parametrize("timeout", [None, 30.0])
def test_get_rewards_options_reach_the_batch_form(timeout):
    import grpo_rewards
    from grpo_rewards_text.definitions import MAX_CHARS

    options = {"max_chars": 12, "too_large_value": 0.75, "timeout": timeout}
    reward = grpo_rewards.get_reward("text.fuzzy", options=options, scorer="token_sort_ratio")
    assert _limited_result(reward) == (
        [fuzz.token_sort_ratio("Eifel Tower", "Eiffel Tower") / 100, fuzz.token_sort_ratio("Eifel Towers", "Eiffel Tower") / 100,
         0.0, 0.75], ["ok", "ok", "unreadable", "too_large"])
    # the registered limit when nothing is put over it: the 23-character reply is read
    default = grpo_rewards.get_reward("text.fuzzy", options={"timeout": timeout})
    assert default.options.max_chars == MAX_CHARS
    assert _limited_result(default)[1] == ["ok", "ok", "unreadable", "ok"]


def test_the_batch_form_reads_each_value_from_rapidfuzz():
    from grpo_rewards_text import fuzzy

    result = fuzzy.score(prompts=[None] * 3, completions=["Eifel Tower", "<answer>Tower</answer>", None],
                         reference=["Eiffel Tower", ["Eiffel Tower", "Tower"], "Eiffel Tower"])
    assert result.values == [fuzz.ratio("Eifel Tower", "Eiffel Tower") / 100, 1.0, 0.0]
    assert result.labels == ["ok", "ok", "unreadable"]


def test_the_batch_form_without_its_reference_column_is_an_error_naming_it():
    from grpo_rewards import RewardError
    from grpo_rewards_text import fuzzy

    with pytest.raises(RewardError, match=r"'reference'.*the batch has: answers"):
        fuzzy(prompts=[None], completions=["Paris"], answers=["Paris"])

# SQuAD v2.0's official evaluation (normalize_answer, compute_exact, compute_f1), worked by hand.
SQUAD_CASES = [
    # (prediction, gold, exact, f1)
    ("the Eiffel Tower", "Eiffel Tower", 1.0, 1.0),
    ("Eiffel Tower!", "The eiffel  tower", 1.0, 1.0),
    ("an apple a day", "apple day", 1.0, 1.0),
    ("the cat sat", "a cat sat down", 0.0, 0.8),           # P = 2/2, R = 2/3
    ("Denver Broncos", "Broncos", 0.0, 2 / 3),             # P = 1/2, R = 1/1
    ("Broncos Broncos Broncos", "Broncos", 0.0, 0.5),      # the shared count is clipped to 1: P = 1/3, R = 1
    ("the", "a", 1.0, 1.0),                                 # both normalise to nothing: SQuAD v2 counts them equal
    ("", "Paris", 0.0, 0.0),
    ("«Paris»", "Paris", 0.0, 0.0),                         # « and » are not in string.punctuation
    ("Zürich", "zürich", 1.0, 1.0),                         # lowercasing is Unicode's
]


@pytest.mark.parametrize(("prediction", "gold", "exact", "f1"), SQUAD_CASES)
def test_exact_match_and_f1_are_squads(prediction, gold, exact, f1):
    assert ExactMatch(answer_format="whole")(prediction, reference=gold)[0] == exact
    assert F1(answer_format="whole")(prediction, reference=gold)[0] == pytest.approx(f1, abs=0, rel=1e-15)


def test_the_normaliser_is_squads_normalize_answer_on_every_ascii_character_and_on_unicode_text():
    """SQuAD's normalize_answer written out as its script has it (ASCII texts take a bytes path here)."""
    from grpo_rewards_text import Normalizer

    def squad(s: str) -> str:
        s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())

    texts = ["".join(map(chr, range(128))), "The (quick) fox's tail, a.k.a. #7!", "«Où?» dit-il, l'an 2000.",
             "Zürich's \x7f\x00 the-end", "A\tan\nthe"]
    for text in texts:
        assert Normalizer()(text) == squad(text), text


def test_unicode_punctuation_mode_removes_guillemets():
    assert ExactMatch(answer_format="whole", punctuation="unicode")("«Paris»", reference="Paris") == (1.0, "match")


@pytest.mark.parametrize(("step", "prediction", "gold"), [
    ({"lowercase": False}, "paris", "Paris"),
    ({"punctuation": "keep"}, "Paris.", "Paris"),
    ({"remove_articles": False}, "the Louvre", "Louvre"),
    ({"collapse_whitespace": False}, "New  York", "New York"),
])
def test_each_normalisation_step_can_be_turned_off(step, prediction, gold):
    assert ExactMatch(answer_format="whole")(prediction, reference=gold) == (1.0, "match")
    assert ExactMatch(answer_format="whole", **step)(prediction, reference=gold) == (0.0, "no_match")


def test_other_articles_can_be_named():
    em = ExactMatch(answer_format="whole", articles=["le", "la", "les"])
    assert em("la Tour Eiffel", reference="Tour Eiffel") == (1.0, "match")
    assert em("the Eiffel Tower", reference="Eiffel Tower") == (0.0, "no_match")


def test_the_best_reference_counts():
    assert F1(answer_format="whole")("the cat sat", reference=["dog", "a cat sat down", "cat"])[0] == 0.8
