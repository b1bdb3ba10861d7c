"""``text.language``: the reply is in the expected language (langdetect's verdict, deterministic).

The detector is the instructions package's (``grpo_rewards_instructions.language_probabilities``):
langdetect's algorithm (character n-gram profiles of 55 languages, Google's language-detection) on
langdetect's own profiles, with a fixed seed (0) and its arithmetic on numpy arrays, so a text always
gets ``langdetect.detect_langs``'s answer with ``DetectorFactory.seed = 0``, float for float, and
langdetect's global factory is left alone. One detector for both packages: IFEval's
``language:response_language`` and ``text.language`` cannot disagree on a text. Codes are ISO 639-1
(``en``, ``fr``, ...) except ``zh-cn`` and ``zh-tw``; an expected ``zh`` accepts both, and an expected
code is compared case-insensitively on its primary subtag unless it names a region (``zh-tw``).
"""

from __future__ import annotations

from typing import Any

from grpo_rewards import params

from .answer import FORMATS, POSITIONS, read_answer, valid_text

MODES = ("top", "probability")
#: langdetect reads at most 10,000 characters; the text is cut to twice that before its URL and
#: e-mail regexes run, so a 1 MB reply costs no more than a long one.
MAX_DETECT_CHARS = 20_000


def probabilities(text: str) -> list[tuple[str, float]]:
    """``[(code, probability), ...]`` langdetect gives ``text``, most probable first (empty: no letters)."""
    from grpo_rewards_instructions import language_probabilities

    return language_probabilities(text[:MAX_DETECT_CHARS])


def _matches(code: str, expected: str) -> bool:
    code, expected = code.lower(), expected.lower().replace("_", "-")
    return code == expected if "-" in expected else code.split("-")[0] == expected


class Language:
    """1.0 when the reply's answer is in the expected language, else 0.0 (labels ``match``, ``other``, ``undetected``).

    Unit: none (a score in its range; no length is measured).

    The expected language is the parameter ``language`` (an ISO 639-1 code such as ``"fr"``) or
    else the row's ``language_column`` (default ``language``; with ``language`` given, set
    ``language_column: null`` so that a dataset without that column is accepted). ``mode="top"`` (default) pays 1.0
    when langdetect's most probable language is the expected one; ``"probability"`` pays
    langdetect's probability of the expected language (0.0 when it is not among its candidates).
    A text without letters (digits, punctuation, emoji only) is ``undetected`` and scores 0.0.
    ``answer_format`` defaults to ``whole`` (the whole reply).

    >>> Language(language="fr", language_column=None)("Le chat est assis sur le tapis et regarde la fenêtre.")
    (1.0, 'match')
    >>> Language()("The cat sits on the mat and looks out of the window.", language="de")
    (0.0, 'other')
    """

    def __init__(self, language: str | None = None, language_column: str | None = "language", mode: str = "top",
                 answer_format: str = "whole", answer_position: str = "last") -> None:
        self.language = params.text(language, "language", none_ok=True)
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
        expected = self.language if self.language is not None else row.get(self.language_column or "")
        if not isinstance(expected, str) or not expected.strip():
            return None, "no_language"
        answer = read_answer(text, self.answer_format, self.answer_position)
        if answer is None:
            return 0.0, "no_answer"
        found = probabilities(valid_text(answer))
        if not found:
            return 0.0, "undetected"
        if self.mode == "probability":
            value = sum(p for code, p in found if _matches(code, expected.strip()))
            return value, "match" if _matches(found[0][0], expected.strip()) else "other"
        return (1.0, "match") if _matches(found[0][0], expected.strip()) else (0.0, "other")
