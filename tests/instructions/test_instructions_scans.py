"""The linear scans give what the original's regular expressions give, on generated text, and stay linear."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards_instructions import scans

TEXT = st.text(alphabet=st.sampled_from(list("[]<>*-a \t\n\x1c\u3000")), max_size=30)


@settings(max_examples=800, deadline=None)
@given(TEXT)
def test_placeholders_match_the_original_pattern(text):
    assert scans.count_placeholders(text) == len(re.findall(r"\[.*?\]", text))


@settings(max_examples=800, deadline=None)
@given(TEXT)
def test_titles_match_the_original_pattern(text):
    assert scans.titles(text) == re.findall(r"<<[^\n]+>>", text)


@settings(max_examples=800, deadline=None)
@given(TEXT)
def test_bullet_lines_match_the_original_patterns(text):
    assert scans.count_line_starts(text, "*") == len(re.findall(r"^\s*\*[^\*].*$", text, flags=re.MULTILINE))
    assert scans.count_line_starts(text, "-") == len(re.findall(r"^\s*-.*$", text, flags=re.MULTILINE))


def test_hostile_megabytes_are_counted():
    assert scans.count_placeholders("[" * 1_000_000) == 0
    assert scans.titles("<" * 1_000_000) == []
    assert scans.count_line_starts("\n" * 1_000_000 + "* x", "*") == 1
