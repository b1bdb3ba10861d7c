"""grpo_rewards.patterns.atomic: the lookahead-and-backreference group matches what Python 3.11's own atomic group
``(?>...)`` matches, and the plugins' shipped patterns are built with it."""

from __future__ import annotations

import doctest
import re
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

import grpo_rewards.patterns
from grpo_rewards.patterns import atomic

#: (inner pattern, what follows the group): runs that a plain group would give back to the part after it
CASES = [(r"a*", "a"), (r"[ \t]*", "x"), (r"(?:\s+|\d+|[-+*/()])*", r"$"), (r"(?:ab|a)*", "b"), (r"\s+", r"(?!because)")]


def test_the_module_examples_run():
    assert doctest.testmod(grpo_rewards.patterns).failed == 0


@pytest.mark.skipif(sys.version_info < (3, 11), reason="re reads (?>...) from Python 3.11 on")
@given(text=st.text(alphabet="ab \t1+x\nbecause", max_size=30))
def test_atomic_matches_what_pythons_own_atomic_group_matches(text):
    for inner, after in CASES:
        ours = re.compile(atomic(inner, "run") + after)
        python = re.compile(f"(?>{inner})" + after)
        for pos in range(len(text) + 1):
            found, expected = ours.match(text, pos), python.match(text, pos)
            assert (found and found.span()) == (expected and expected.span()), (inner, after, text, pos)
            if found:  # the group holds the inner pattern's own first match there, whole
                assert found.group("run") == re.compile(inner).match(text, pos).group()


def test_the_plugins_fence_grammar_and_sentence_patterns_are_built_with_it():
    from grpo_rewards_code.extract import _FENCE
    from grpo_rewards_gym.safety import _ARITHMETIC
    from grpo_rewards_math.extract.phrases import _SENTENCE_END

    assert atomic(r"[ \t]*", "blanks") + atomic(r"[^\s`]*", "tag") in _FENCE.pattern
    assert _ARITHMETIC.pattern == atomic(r"(?:\s+|\d+|[-+/()]|\*(?!\*))*", "tokens")
    assert _SENTENCE_END.timed.pattern.startswith("(?=(?P<skip>") and atomic(r"\s+", "blanks") in \
        _SENTENCE_END.timed.pattern
