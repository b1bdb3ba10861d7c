"""What counts as blank: a rule over Unicode properties (is_blank) and LaTeX that prints nothing (renders_blank)."""

from __future__ import annotations

import pytest

import grpo_rewards_format as fmt
from grpo_rewards_format.boxes import renders_blank
from grpo_rewards_format.text_utils import is_blank

BLANK = {
    "space and newline": " \n\t",
    "zero-width space, word joiner, BOM, soft hyphen (Cf)": "\u200b\u2060\ufeff\u00ad",
    "NUL and other controls (Cc)": "\x00\x07\x1b",
    "combining grapheme joiner (default ignorable mark)": "\u034f",
    "combining marks on nothing": "\u0301\u20dd",
    "Hangul fillers (default ignorable letters)": "\u3164\u115f\u1160\uffa0",
    "braille pattern with no dots": "\u2800",
    "variation selectors": "\ufe0f\U000e0100",
    "tag characters": "\U000e0041\U000e007f",
    "ideographic and other spaces (Zs)": "\u3000\u2003\u00a0",
    "a lone surrogate": "\ud800",
    "private use (Co)": "\ue000\U000f0000",
    "unassigned (Cn)": "\u0378\U000e0080",
    "the invisible musical symbols (U+1D159 So, U+1D173 Cf)": "\U0001d159\U0001d173\U0001d17a",
    "line and paragraph separators (Zl, Zp)": "\u2028\u2029",
}
VISIBLE = {"a digit": "4", "a letter with a combining mark": "e\u0301", "a braille pattern with dots": "\u2801",
           "a CJK ideograph": "\u6570", "punctuation": ".", "an emoji": "\U0001f642"}


#: One character of every Unicode general category, and whether it is visible: only letters (L),
#: numbers (N), punctuation (P) and symbols (S) are.
BY_CATEGORY = {
    "Lu": "A", "Ll": "a", "Lt": "\u01c5", "Lm": "\u02b0", "Lo": "\u6570",
    "Mn": "\u0301", "Mc": "\u0903", "Me": "\u20dd",
    "Nd": "7", "Nl": "\u2160", "No": "\u00bd",
    "Pc": "_", "Pd": "-", "Ps": "(", "Pe": ")", "Pi": "\u00ab", "Pf": "\u00bb", "Po": "!",
    "Sm": "+", "Sc": "\u20ac", "Sk": "^", "So": "\u00a9",
    "Zs": "\u3000", "Zl": "\u2028", "Zp": "\u2029",
    "Cc": "\x07", "Cf": "\u200e", "Cs": "\udfff", "Co": "\U00100000", "Cn": "\u0378",
}


@pytest.mark.parametrize("category", list(BY_CATEGORY))
def test_visible_means_a_letter_number_punctuation_or_symbol_by_general_category(category):
    import unicodedata

    char = BY_CATEGORY[category]
    assert unicodedata.category(char) == category
    assert is_blank(char) is (category[0] not in "LNPS")
    assert is_blank(f" {char}\u3164 ") is (category[0] not in "LNPS")


@pytest.mark.parametrize("label", list(BLANK))
def test_characters_that_render_nothing_are_blank(label):
    assert is_blank(BLANK[label])


@pytest.mark.parametrize("label", list(VISIBLE))
def test_characters_that_render_something_are_not_blank(label):
    assert not is_blank(BLANK["Hangul fillers (default ignorable letters)"] + VISIBLE[label])


@pytest.mark.parametrize("inside", [r"\ ", "~", "{}", r"\text{}", r"\phantom{4}", r"\quad", r"\qquad", r"\,\;\:\!",
                                    r"\hspace{1cm}", r"\hspace*{2em}", r"\kern 2em", r"\mkern3mu", r"\left.\right.",
                                    r"\color{red}{}", r"\textcolor{blue}{\ }", r"\mathrm{\text{ }}", r"\vphantom{x}",
                                    r"{}^{}_{}", "\\text{\u3164}", r"\displaystyle", r"\\"])
def test_latex_that_prints_nothing_is_blank(inside):
    assert renders_blank(inside)
    assert fmt.boxed(prompts=[None], completions=[f"The answer is \\boxed{{{inside}}}."]) == [0.0]


@pytest.mark.parametrize("inside", ["0", r"\emptyset", r"\{\}", r"\text{no}", r"\phantom{4}5", r"\pi", r"\infty",
                                    r"\left(1\right)", "-", r"\varnothing", r"\hspace{1cm}x", r"\%"])
def test_latex_that_prints_something_is_not_blank(inside):
    assert not renders_blank(inside)
    assert fmt.boxed(prompts=[None], completions=[f"The answer is \\boxed{{{inside}}}."]) == [1.0]


def test_allow_empty_still_pays_a_box_that_prints_nothing():
    assert fmt.make_boxed(allow_empty=True)(prompts=[None], completions=[r"\boxed{\phantom{4}}"]) == [1.0]


def test_a_blank_block_fails_the_structure_rewards_whatever_the_blank_character():
    for blank in BLANK.values():
        completion = f"<think>{blank}</think><answer>4</answer>"
        assert fmt.think_answer(prompts=[None], completions=[completion]) == [0.0], repr(blank)
        assert fmt.think(prompts=[None], completions=[completion]) == [0.0], repr(blank)
        assert fmt.xml_fields(prompts=[None], completions=[completion]) == [0.5], repr(blank)
