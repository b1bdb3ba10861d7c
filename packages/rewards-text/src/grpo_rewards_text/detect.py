"""``text.language``: the reply is in the expected language (langdetect's verdict, deterministic).

The detector is the instructions package's (``grpo_rewards_instructions.language_probabilities``):
langdetect's algorithm (character n-gram profiles of 55 languages, Google's language-detection) on
langdetect's own profiles, with a fixed seed (0) and its arithmetic on numpy arrays, so a text always
gets ``langdetect.detect_langs``'s answer with ``DetectorFactory.seed = 0``, float for float, and
langdetect's global factory is left alone. One detector for both packages: IFEval's
``language:response_language`` and ``text.language`` cannot disagree on a text. The detector's codes are
ISO 639-1 (``en``, ``fr``, ...) except ``zh-cn`` and ``zh-tw``; the expected language is read by
:func:`language_code` (``fr-FR``, ``fra``, ``fra_Latn`` and ``French`` are all ``fr``; an expected ``zh``
accepts both Chinese).
"""

from __future__ import annotations

import re
from typing import Any

from grpo_rewards import params

from .answer import FORMATS, POSITIONS, read_answer, valid_text

MODES = ("top", "probability")
#: langdetect reads at most 10,000 characters; the text is cut to twice that before its URL and
#: e-mail regexes run, so a 1 MB reply costs no more than a long one.
MAX_DETECT_CHARS = 20_000
#: markup a policy writes around its words: XML-style tags (``<think>``, ``</answer>``, ``<br/>``) and chat special
#: tokens leaking as text (``<|im_end|>``, ``</s>``); their names are English words, so left in they decide the
#: language of a short reply (``<think>Je pense que oui</think><answer>Paris</answer>`` read as English) and
#: give an empty-tags reply a language. Each is read as a space (linear: no nested quantifier).
_MARKUP = re.compile(r"<\|[^<>|\n]{0,64}\|>|</?[A-Za-z][\w:.-]{0,64}\s*/?>")


def _words(text: str) -> str:
    """``text`` (its first :data:`MAX_DETECT_CHARS` characters) without markup tags and special tokens."""
    return _MARKUP.sub(" ", text[:MAX_DETECT_CHARS])


def probabilities(text: str) -> list[tuple[str, float]]:
    """``[(code, probability), ...]`` langdetect gives ``text``, most probable first (empty: no letters)."""
    from grpo_rewards_instructions import language_probabilities

    return language_probabilities(text[:MAX_DETECT_CHARS])


#: langdetect's 55 languages: its code (ISO 639-1; Chinese ``zh``, split by the detector into ``zh-cn`` and ``zh-tw``),
#: then the ISO 639-2/639-3 codes (FLORES-200 and NLLB name languages by these) and English names that mean it.
_NAMES = """
af afr Afrikaans; ar ara arb Arabic; bg bul Bulgarian; bn ben Bengali Bangla; ca cat Catalan; cs ces cze Czech;
cy cym wel Welsh; da dan Danish; de deu ger German; el ell gre Greek; en eng English; es spa Spanish Castilian;
et est ekk Estonian; fa fas per pes Persian Farsi; fi fin Finnish; fr fra fre French; gu guj Gujarati;
he heb iw Hebrew; hi hin Hindi; hr hrv Croatian; hu hun Hungarian; id ind in Indonesian; it ita Italian;
ja jpn Japanese; kn kan Kannada; ko kor Korean; lt lit Lithuanian; lv lav lvs Latvian; mk mkd mac Macedonian;
ml mal Malayalam; mr mar Marathi; ne nep npi Nepali; nl nld dut Dutch Flemish; no nor nob nno nb nn Norwegian;
pa pan Punjabi Panjabi; pl pol Polish; pt por Portuguese; ro ron rum mo mol Romanian Moldavian; ru rus Russian;
sk slk slo Slovak; sl slv Slovenian Slovene; so som Somali; sq sqi alb als Albanian; sv swe Swedish;
sw swa swh Swahili; ta tam Tamil; te tel Telugu; th tha Thai; tl tgl fil Tagalog Filipino; tr tur Turkish;
uk ukr Ukrainian; ur urd Urdu; vi vie Vietnamese; zh zho chi cmn Chinese Mandarin
"""
_CODES = {alias.lower(): names.split()[0] for names in _NAMES.split(";") for alias in names.split()}
#: the scripts and regions that name one of langdetect's two written Chinese (``zh-cn``: simplified)
_CHINESE = {"hans": "zh-cn", "cn": "zh-cn", "sg": "zh-cn", "my": "zh-cn", "hant": "zh-tw", "tw": "zh-tw",
            "hk": "zh-tw", "mo": "zh-tw"}


def language_code(value: Any) -> str | None:
    """The detector's code for an expected language as datasets and users write it, or None when it names none of
    langdetect's 55 languages: an ISO 639-1 code (``fr``), with a region or script (``fr-FR``, ``pt_BR``: the
    detector tells no regions apart, so they are dropped, except Chinese: ``zh-TW``, ``zh-Hant``, ``zh-HK`` are
    ``zh-tw``, ``zh-CN``, ``zh-Hans`` ``zh-cn``, and plain ``zh`` accepts either), an ISO 639-2/639-3 code (``fra``,
    ``ger``, FLORES-200's ``fra_Latn``, ``zho_Hant``) or an English name (``French``), in any case.

    >>> [language_code(v) for v in ["fr", "fr-FR", "pt_BR", "fra_Latn", "French", "zh", "zh-Hant", "zho_Hans", "xx"]]
    ['fr', 'fr', 'pt', 'fr', 'fr', 'zh', 'zh-tw', 'zh-cn', None]
    """
    if not isinstance(value, str):
        return None
    parts = value.strip().lower().replace("_", "-").split("-")
    code = _CODES.get(parts[0])
    if code is None:
        code = _CODES.get(value.strip().lower())  # a name of several words
    if code != "zh" or len(parts) == 1:
        return code
    return next((_CHINESE[p] for p in parts[1:] if p in _CHINESE), "zh")


def _matches(code: str, expected: str) -> bool:
    """Whether the detector's ``code`` is the :func:`language_code` ``expected`` (``zh``: either Chinese)."""
    return code == expected or (expected == "zh" and code.startswith("zh-"))


class Language:
    """1.0 when the reply's answer is in the expected language, else 0.0 (labels ``match``, ``other``, ``undetected``).

    None for a row without an expected language (``no_language``) or naming one the detector does not know
    (``unknown_language``).

    Unit: none (a score in its range; no length is measured).

    The expected language is the parameter ``language`` (``"fr"``; any form :func:`language_code` reads: ``fr-FR``,
    ``fra_Latn``, ``French``; one it cannot read is refused when the reward is built) or else the row's
    ``language_column`` (default ``language``; with ``language`` given, set ``language_column: null`` so that a
    dataset without that column is accepted; a row naming a language the detector does not know scores None,
    label ``unknown_language``, never a wrong 0.0). ``mode="top"`` (default) pays 1.0
    when langdetect's most probable language is the expected one; ``"probability"`` pays
    langdetect's probability of the expected language (0.0 when it is not among its candidates).
    A text without letters (digits, punctuation, emoji only) is ``undetected`` and scores 0.0. Markup tags
    (``<think>``, ``</answer>``) and special tokens (``<|im_end|>``, ``</s>``) are not words of the reply: they are
    read as spaces, so a reply of empty tags is ``undetected``.
    ``answer_format`` defaults to ``whole`` (the whole reply).

    >>> Language(language="fr", language_column=None)("Le chat est assis sur le tapis et regarde la fenêtre.")
    (1.0, 'match')
    >>> Language()("The cat sits on the mat and looks out of the window.", language="de")
    (0.0, 'other')
    >>> Language()("The cat sits on the mat and looks out of the window.", language="en-GB")
    (1.0, 'match')
    """

    def __init__(self, language: str | None = None, language_column: str | None = "language", mode: str = "top",
                 answer_format: str = "whole", answer_position: str = "last") -> None:
        self.language = params.text(language, "language", none_ok=True)
        self._expected = None if self.language is None else language_code(self.language)
        if self.language is not None and self._expected is None:
            raise ValueError(f"language {self.language!r} is none of the detector's languages: give an ISO 639 code "
                             f"(fr, fr-FR, fra) or an English name (French) of one of {', '.join(sorted(set(_CODES.values())))}")
        self.language_column = params.column(language_column, "language_column", none_ok=True)
        if self.language is None and self.language_column is None:
            raise ValueError("give the expected language: language (a code such as 'fr') or language_column")
        self.mode = params.choice(mode, "mode", MODES)
        self.answer_format = params.choice(answer_format, "answer_format", FORMATS)
        self.answer_position = params.choice(answer_position, "answer_position", POSITIONS)

    def __repr__(self) -> str:
        return f"<Language language={self.language!r} mode={self.mode!r}>"

    def warmup(self) -> None:
        probabilities("")  # loads langdetect's profiles

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        expected = self._expected
        if expected is None:
            given = row.get(self.language_column or "")
            if not isinstance(given, str) or not given.strip():
                return None, "no_language"
            expected = language_code(given)
            if expected is None:  # a language the detector cannot tell: no verdict rather than a wrong 0.0
                return None, "unknown_language"
        answer = read_answer(text, self.answer_format, self.answer_position)
        if answer is None:
            return 0.0, "no_answer"
        found = probabilities(_words(valid_text(answer)))
        if not found:
            return 0.0, "undetected"
        if self.mode == "probability":
            value = sum(p for code, p in found if _matches(code, expected))
            return value, "match" if _matches(found[0][0], expected) else "other"
        return (1.0, "match") if _matches(found[0][0], expected) else (0.0, "other")
