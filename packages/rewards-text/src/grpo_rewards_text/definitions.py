"""The text rewards, each defined once: what the plugin registers and what the package exports come from here.

Each scorer is named by reference (``"grpo_rewards_text.overlap:ExactMatch"``), so registering the
plugin (``grpo-rewards list``) imports none of the metric libraries; they are imported when a
reward is first built or first scores.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from grpo_rewards import RewardDefinition, RewardOptions

from .hacks import corpus

if TYPE_CHECKING:  # the reward module (and its execution layer) is imported when a reward is built
    from grpo_rewards import Reward

#: A reply longer than this many characters is not read: 0.0, label ``too_large`` (a 1 MB reply
#: costs nothing). ROUGE-Lsum's longest common subsequences are rouge-score's quadratic tables in pure
#: Python (ROUGE-L's is bit-parallel, still quadratic over 64), so text.rouge reads at most :data:`ROUGE_MAX_CHARS`.
MAX_CHARS = 200_000
ROUGE_MAX_CHARS = 20_000
#: How the core runs the per-sample text rewards: in the calling process (each is linear or bounded),
#: unreadable and oversized replies 0.0.
OPTIONS = RewardOptions(invalid_value=0.0, max_chars=MAX_CHARS, too_large_value=0.0)


def _define(short: str, scorer: str, example: str, **metadata: Any) -> RewardDefinition:
    metadata.setdefault("options", OPTIONS)
    metadata.setdefault("output_range", (0.0, 1.0))
    return RewardDefinition(f"text.{short}", f"grpo_rewards_text.{scorer}", hacks=corpus, example=example, **metadata)


EXACT_MATCH = _define("exact_match", "overlap:ExactMatch", "{use: text.exact_match, with: {punctuation: unicode}}")
F1 = _define("f1", "overlap:F1", "{use: text.f1, with: {reference_column: answers}}")
# text.fuzzy scores the whole batch in one rapidfuzz call (the core's per-sample path cost 50 times
# rapidfuzz's work); BatchFuzzy gives the per-sample values and labels, unreadable and too_large included.
FUZZY = _define("fuzzy", "fuzzy_match:BatchFuzzy", "{use: text.fuzzy, with: {scorer: token_sort_ratio, threshold: 0.9}}",
                form="batch")
BLEU = _define("bleu", "sacre:Bleu", "{use: text.bleu, with: {tokenize: intl, smooth_method: floor, smooth_value: 0.1}}")
CHRF = _define("chrf", "sacre:Chrf", "{use: text.chrf, with: {word_order: 2}}")
ROUGE = _define("rouge", "rouge_scores:Rouge", "{use: text.rouge, with: {kind: rouge2, measure: recall}}",
                options=OPTIONS.replace(max_chars=ROUGE_MAX_CHARS))
SIMILARITY = _define("similarity", "embeddings:Similarity", "{use: text.similarity, with: {device: 'cuda:1'}}",
                     form="batch", output_range=(-1.0, 1.0), options=OPTIONS.replace(worker_safe=False))
LANGUAGE = _define("language", "detect:Language", "{use: text.language, with: {language: fr, language_column: null}}")
# A schema's `pattern`/`patternProperties` are regular expressions applied (by jsonschema, and by the
# partial-credit walk) to the model's strings with Python's re: a hard deadline in a worker bounds them.
JSON = _define("json", "structured:Json", "{use: text.json, with: {credit: partial, reference_column: reference}}",
               options=OPTIONS.replace(timeout=10.0, timeout_value=0.0))

#: Every text reward, in the order the plugin registers them.
DEFINITIONS = (EXACT_MATCH, F1, FUZZY, BLEU, CHRF, ROUGE, SIMILARITY, LANGUAGE, JSON)


def make_exact_match(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.exact_match`` with parameters (see :class:`~grpo_rewards_text.overlap.ExactMatch`).

    >>> em = make_exact_match(metric="em_strict", remove_articles=False)
    >>> em(prompts=[None, None], completions=["The Louvre", "Louvre"], reference=["the louvre", "the louvre"])
    [1.0, 0.0]
    """
    return EXACT_MATCH.reward(metric=metric, **params)


def make_f1(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.f1`` with parameters (see :class:`~grpo_rewards_text.overlap.F1`)."""
    return F1.reward(metric=metric, **params)


def make_fuzzy(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.fuzzy`` with parameters (see :class:`~grpo_rewards_text.fuzzy_match.Fuzzy`)."""
    return FUZZY.reward(metric=metric, **params)


def make_bleu(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.bleu`` with parameters (see :class:`~grpo_rewards_text.sacre.Bleu`)."""
    return BLEU.reward(metric=metric, **params)


def make_chrf(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.chrf`` with parameters (see :class:`~grpo_rewards_text.sacre.Chrf`)."""
    return CHRF.reward(metric=metric, **params)


def make_rouge(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.rouge`` with parameters (see :class:`~grpo_rewards_text.rouge_scores.Rouge`)."""
    return ROUGE.reward(metric=metric, **params)


def make_similarity(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.similarity`` with parameters (see :class:`~grpo_rewards_text.embeddings.Similarity`)."""
    return SIMILARITY.reward(metric=metric, **params)


def make_language(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.language`` with parameters (see :class:`~grpo_rewards_text.detect.Language`)."""
    return LANGUAGE.reward(metric=metric, **params)


def make_json(*, metric: str | None = None, **params: Any) -> Reward:
    """``text.json`` with parameters (see :class:`~grpo_rewards_text.structured.Json`)."""
    return JSON.reward(metric=metric, **params)
