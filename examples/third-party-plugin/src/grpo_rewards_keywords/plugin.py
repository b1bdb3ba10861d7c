"""The ``keywords`` plugin: registers the keyword rewards with grpo-rewards."""

from __future__ import annotations

from typing import Any

import grpo_rewards

from . import KeywordCoverage, score_column_coverage


@grpo_rewards.hookimpl
def register_rewards(register: Any) -> None:
    register("coverage", KeywordCoverage, output_range=(0.0, 1.0),
             description="Fraction of the given keywords that occur in the completion.",
             example="{use: keywords.coverage, with: {keywords: [because, therefore]}}")
    register("column_coverage", score_column_coverage, output_range=(0.0, 1.0),
             description="Fraction of the row's 'keywords' column that occurs in the completion; None if it lists none.",
             example="{use: keywords.column_coverage}  # dataset rows carry keywords: [Paris, France]")
