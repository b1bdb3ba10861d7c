"""text.language: langdetect's answer with a fixed seed, the expected language from a parameter or a column."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lanes import examples

from grpo_rewards_text import Language, language
from grpo_rewards_text.detect import _CHINESE, _CODES, language_code, probabilities

SENTENCES = {
    "en": "The committee will publish its final report on the new railway line next spring.",
    "fr": "Le comité publiera son rapport final sur la nouvelle ligne de chemin de fer au printemps prochain.",
    "de": "Der Ausschuss wird seinen Abschlussbericht über die neue Bahnstrecke im nächsten Frühjahr veröffentlichen.",
    "es": "El comité publicará su informe final sobre la nueva línea de ferrocarril la próxima primavera.",
    "ru": "Комитет опубликует свой окончательный доклад о новой железнодорожной линии следующей весной.",
    "ja": "委員会は来年の春に新しい鉄道路線に関する最終報告書を発表する予定です。",
    "zh-cn": "委员会将于明年春天发布关于新铁路线的最终报告。",
    "ar": "ستنشر اللجنة تقريرها النهائي عن خط السكك الحديدية الجديد في الربيع المقبل.",
}


@pytest.mark.parametrize("code", list(SENTENCES))
def test_each_sentence_is_detected_as_its_language(code):
    assert Language(language=code)(SENTENCES[code]) == (1.0, "match")
    other = "en" if code != "en" else "fr"
    assert Language(language=other)(SENTENCES[code]) == (0.0, "other")


def test_the_answer_equals_langdetects_own_with_the_same_seed():
    import langdetect

    langdetect.DetectorFactory.seed = 0
    for text in SENTENCES.values():
        theirs = [(str(p.lang), p.prob) for p in langdetect.detect_langs(text)]
        assert probabilities(text) == theirs


def test_detection_is_the_same_on_every_call():
    mixed = "Bonjour, the meeting is tomorrow, merci beaucoup et à bientôt."
    assert len({tuple(probabilities(mixed)) for _ in range(20)}) == 1


def test_zh_accepts_both_scripts_and_a_chinese_region_is_compared_whole():
    assert Language(language="zh")(SENTENCES["zh-cn"]) == (1.0, "match")
    assert Language(language="ZH_CN")(SENTENCES["zh-cn"]) == (1.0, "match")
    assert Language(language="zh-tw")(SENTENCES["zh-cn"]) == (0.0, "other")


@pytest.mark.parametrize(("given", "code"), [
    ("fr", "fr"), ("FR", "fr"), ("fr-FR", "fr"), ("fr_CA", "fr"), ("fra", "fr"), ("fre", "fr"), ("fra_Latn", "fr"),
    ("French", "fr"), (" french ", "fr"), ("en-US", "en"), ("pt-BR", "pt"), ("por_Latn", "pt"), ("de-CH", "de"),
    ("ger", "de"), ("mo", "ro"), ("arb_Arab", "ar"), ("jpn_Jpan", "ja"), ("iw", "he"), ("nb", "no"), ("Filipino", "tl"),
    ("zh", "zh"), ("zh-CN", "zh-cn"), ("zh-Hans", "zh-cn"), ("zho_Hans", "zh-cn"), ("zh-Hant-HK", "zh-tw"),
    ("zh-TW", "zh-tw"), ("Chinese", "zh"), ("xx", None), ("Klingon", None), ("", None), ("fr-", "fr"), (5, None),
])
def test_an_expected_language_is_read_as_datasets_write_it(given, code):
    assert language_code(given) == code


@settings(max_examples=examples(300, thorough=10_000))
@given(alias=st.sampled_from(sorted(_CODES)), upper=st.lists(st.booleans(), min_size=12, max_size=12),
       separator=st.sampled_from(["-", "_"]), subtag=st.sampled_from(["", "US", "fr", "Latn", "Cyrl", "419", "Hant",
                                                                      "hans", "TW", "cn", "HK", "Arab"]),
       padding=st.sampled_from(["", " ", "\t", " \n"]))
def test_every_alias_in_any_case_with_any_region_or_script_reads_as_its_language(alias, upper, separator, subtag,
                                                                              padding):
    # the family of the cases above: each code, three-letter code and name of the table, its letters' case drawn,
    # with a region or script subtag after either separator; only Chinese reads one (zh-cn or zh-tw)
    written = "".join(c.upper() if u else c for c, u in zip(alias, upper + [False] * len(alias)))
    if subtag:
        written += separator + subtag
    code = _CODES[alias]
    expected = code if code != "zh" or not subtag else _CHINESE.get(subtag.lower(), "zh")
    assert language_code(padding + written + padding) == expected


def test_a_language_the_detector_does_not_know_is_no_verdict_and_a_bad_parameter_is_refused():
    values = language.score(prompts=[None] * 5, completions=[SENTENCES["fr"]] * 3 + [SENTENCES["zh-cn"]] * 2,
                            language=["fr-FR", "French", "Klingon", "zh-Hant", "zho_Hans"])
    assert (values.values, values.labels) == ([1.0, 1.0, None, 0.0, 1.0],
                                              ["match", "match", "unknown_language", "other", "match"])
    with pytest.raises(ValueError, match="language 'xx' is none of the detector's languages"):
        Language(language="xx")


def test_the_expected_language_comes_from_the_column_when_no_parameter_is_given():
    values = language(prompts=[None] * 3, completions=[SENTENCES["fr"], SENTENCES["fr"], SENTENCES["fr"]],
                      language=["fr", "de", None])
    assert values == [1.0, 0.0, None]


def test_probability_mode_pays_langdetects_probability():
    value, label = Language(language="en", mode="probability")(SENTENCES["en"])
    assert (value, label) == (probabilities(SENTENCES["en"])[0][1], "match") and value > 0.99


@pytest.mark.parametrize("reply", ["", "12345 !!!", "🙂🙂🙂", "\u200b\u2060"])
def test_a_reply_without_letters_is_undetected(reply):
    assert Language(language="en")(reply) == (0.0, "undetected")


@pytest.mark.parametrize("reply", ["<think></think><answer></answer>", "<think>\n</think>\n<answer>\n</answer>",
                                   "<|im_end|>" * 300, "</s><s></s>", "<|endoftext|><br/>"])
def test_a_reply_of_tags_and_special_tokens_only_is_undetected(reply):
    # the tags' names are English words: langdetect read them as English, 1.0 for a reply with no words
    assert Language(language="en")(reply) == (0.0, "undetected")


def test_tags_around_a_short_reply_do_not_decide_its_language():
    # the standard GRPO layout around four French words was read as English (0.0, 'other') from the tag names
    reply = "<think>Je pense que oui</think><answer>Paris</answer><|im_end|>"
    assert Language(language="fr")(reply) == (1.0, "match")
    assert Language(language="en")(reply) == (0.0, "other")


def test_a_one_megabyte_reply_reads_only_its_start():
    huge = (SENTENCES["fr"] + " ") * 10_000 + SENTENCES["en"] * 10_000  # 2 MB, French for the first 1 MB
    assert Language(language="fr")(huge) == (1.0, "match")


def test_invalid_utf8_is_detected_after_replacement():
    assert Language(language="fr")(SENTENCES["fr"] + "\udcc3\udca9") == (1.0, "match")
