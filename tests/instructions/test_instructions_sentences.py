"""The package's Punkt gives NLTK's sentences: its written-out ``text_contains_sentbreak`` decides every
candidate break as NLTK's ``PunktSentenceTokenizer`` does with the same parameters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards_instructions import text

DATA = Path(__file__).parent / "data"
#: characters and words that reach every branch of Punkt's two passes: abbreviations ("dr", "e.g",
#: "u.s"), initials ("J."), numbers ("1."), ellipses, collocation and sentence-starter words, case
PIECES = [*"aAzZ09 .....??!!--,;:'\"()\n\n", "Dr", "dr", "U.S", "etc", "Mr", "e.g", "J", "No", "The", "i.e", "vs",
          "St", "1.", "A.", "However", "jan", "Inc"]


def _nltk() -> Any:
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(text._punkt()._params)


def _contexts(value: str) -> list[str]:
    return [context for _, context in _nltk()._match_potential_end_contexts(value)]


def test_every_candidate_break_of_gpt4s_ifeval_replies_is_decided_as_nltk_decides_it():
    ours, theirs = text._punkt(), _nltk()
    replies = [json.loads(line)["response"] for line in (DATA / "ifeval_gpt4.jsonl").read_text("utf-8").splitlines()]
    contexts = [context for reply in replies for context in _contexts(reply)]
    assert len(contexts) > 5000
    assert [ours.text_contains_sentbreak(c) for c in contexts] == \
        [theirs.text_contains_sentbreak(c) for c in contexts]
    assert [ours.tokenize(r) for r in replies] == [theirs.tokenize(r) for r in replies]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_generated_texts_get_nltks_sentences(value):
    theirs = _nltk()
    for context in _contexts(value):
        assert text._punkt().text_contains_sentbreak(context) == \
            theirs.text_contains_sentbreak(context), context
    assert text.sentences(value) == theirs.tokenize(value)


def test_word_tokens_tokenize_each_distinct_sentence_once_and_give_nltks_tokens(monkeypatch):
    from nltk.tokenize.destructive import NLTKWordTokenizer

    value = "A. " * 2000 + "Dr. Smith can't go. \"Why?\" she asked (twice). A. Dr. Smith can't go."
    plain = NLTKWordTokenizer()
    expected = [token for sentence in text.sentences(value) for token in plain.tokenize(sentence)]
    tokenizer = text._word_tokenizer()
    calls: list[str] = []

    def counted(sentence: str) -> list[str]:
        calls.append(sentence)
        return type(tokenizer).tokenize(tokenizer, sentence)

    monkeypatch.setattr(tokenizer, "tokenize", counted)
    text._word_tokens.cache_clear()
    try:
        assert text.word_tokens(value) == expected
    finally:
        text._word_tokens.cache_clear()
    assert len(expected) == 1999 * 2 + 7 + 4 + 6 + 7  # Punkt keeps the initial "A." with "Dr. Smith can't go."
    assert calls == ["A.", "A. Dr. Smith can't go.", '"Why?"', "she asked (twice)."]


def _plain_word_tokens(value: str) -> list[str]:
    from nltk.tokenize.destructive import NLTKWordTokenizer

    plain = NLTKWordTokenizer()
    return [token for sentence in text.sentences(value) for token in plain.tokenize(sentence)]


def test_word_tokens_of_gpt4s_ifeval_replies_are_the_per_sentence_tokens():
    replies = [json.loads(line)["response"] for line in (DATA / "ifeval_gpt4.jsonl").read_text("utf-8").splitlines()]
    assert [text.word_tokens(r) for r in replies] == [_plain_word_tokens(r) for r in replies]


#: sentences a collapsing reply repeats: each distinct one is tokenized once, wherever it comes again
REPEATED = ["A.", "Dr. Smith can't go.", '"Why?" she asked (twice).', "It's 3.5 -- no, 4!", "e.g. THIS. J. Doe",
            "Done...", "U.S. troops left. They're gone."]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REPEATED + PIECES), max_size=60).map(" ".join))
def test_texts_repeating_sentences_get_the_per_sentence_tokens(value):
    assert text.word_tokens(value) == _plain_word_tokens(value)
