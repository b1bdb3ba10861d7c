"""Tests of the keywords plugin, written with the grpo-rewards plugin-author kit.

Run with the package installed: ``pip install -e examples/third-party-plugin`` then
``python -m pytest examples/third-party-plugin/tests``.
"""

from __future__ import annotations

import doctest

import grpo_rewards_keywords
import pytest
from grpo_rewards_keywords import KeywordCoverage, column_coverage, coverage, make_coverage, plugin

from grpo_rewards import RewardSetError, get_reward, load_registry, load_reward_set
from grpo_rewards.testing import assert_reward_contract


def test_coverage_is_the_fraction_of_default_keywords_present():
    completions = ["Because 2 + 2 = 4, therefore 4.", "It is 4 because I said so.", "4."]
    assert coverage(prompts=["Q?"] * 3, completions=completions) == [1.0, 0.5, 0.0]


def test_coverage_reads_the_final_assistant_message_in_both_formats(make_completions):
    reward = make_coverage(keywords=["step", "answer"])
    values = reward(prompts=["Q?", "Q?"], completions=make_completions(["Step 1, then the answer.", "Step 1."]))
    assert values == [1.0, 0.5]


def test_coverage_ignores_case_unless_asked():
    text = ["THEREFORE it holds."]
    assert make_coverage(keywords=["therefore"])(prompts=["Q?"], completions=text) == [1.0]
    assert make_coverage(keywords=["therefore"], case_sensitive=True)(prompts=["Q?"], completions=text) == [0.0]


def test_whole_words_keeps_a_keyword_from_matching_inside_a_longer_word():
    assert make_coverage(keywords=["cat"])(prompts=["Q?"], completions=["concatenate"]) == [0.0]
    assert make_coverage(keywords=["cat"], whole_words=False)(prompts=["Q?"], completions=["concatenate"]) == [1.0]


def test_keywords_with_regex_characters_match_literally():
    assert make_coverage(keywords=["x^2", "(a+b)"])(prompts=["Q?"], completions=["x^2 equals (a+b)"]) == [1.0]
    assert make_coverage(keywords=["a.c"])(prompts=["Q?"], completions=["abc"]) == [0.0]


@pytest.mark.parametrize("keywords", [[], "because", ["because", ""], [3]])
def test_bad_keywords_are_rejected(keywords):
    with pytest.raises(ValueError, match="keywords must be a non-empty list of non-empty strings"):
        KeywordCoverage(keywords=keywords)


def test_column_coverage_reads_each_rows_keywords():
    values = column_coverage(
        prompts=["Q?"] * 3,
        completions=["Paris is in France.", "Paris.", "Anything."],
        keywords=[["Paris", "France"], "paris, lyon", []],
    )
    assert values == [1.0, 0.5, None]


def test_docstring_examples_run():
    result = doctest.testmod(grpo_rewards_keywords)
    assert result.attempted >= 7
    assert result.failed == 0


def test_coverage_keeps_the_reward_contract():
    assert_reward_contract(coverage, output_range=(0.0, 1.0))


def test_column_coverage_keeps_the_reward_contract():
    assert_reward_contract(column_coverage, columns={"keywords": ["answer", "because"]}, output_range=(0.0, 1.0))


def test_the_plugin_registers_both_rewards_with_parameters_and_columns(registered_plugin):
    with registered_plugin(plugin, "keywords") as registry:
        assert sorted(registry.rewards) == ["keywords.column_coverage", "keywords.coverage"]
        assert list(registry.rewards["keywords.coverage"].params) == ["keywords", "case_sensitive", "whole_words"]
        assert registry.rewards["keywords.column_coverage"].columns == ("keywords",)
        assert get_reward("keywords.coverage", keywords=["4"])(prompts=["Q?"], completions=["4"]) == [1.0]


def test_a_reward_set_rejects_a_keywords_value_of_the_wrong_type(registered_plugin):
    with registered_plugin(plugin, "keywords"), pytest.raises(RewardSetError, match="parameter 'keywords'"):
        load_reward_set({"rewards": [{"use": "keywords.coverage", "with": {"keywords": 3}}]})


def test_the_installed_package_is_discovered_through_its_entry_point():
    registry = load_registry()
    assert registry.records["keywords"].distribution == "grpo-rewards-keywords"
    assert "keywords.coverage" in registry.rewards
