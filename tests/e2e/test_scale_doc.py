"""docs/scale.md says which rewards decide part of their samples in the calling process: keep it true."""

from __future__ import annotations

import inspect
from pathlib import Path

from grpo_rewards import load_registry

DOC = Path(__file__).resolve().parents[2] / "docs" / "scale.md"


def test_the_rewards_with_a_quick_path_are_the_ones_docs_scale_names():
    registry = load_registry()
    quick = set()
    for name in registry.rewards:
        info = registry.reward(name)
        scorer = info.scorer
        if inspect.isclass(scorer) and callable(getattr(scorer, "quick", None)):
            quick.add(name)
    assert quick == {"math.accuracy", "math.reasoning_accuracy"}
    text = DOC.read_text(encoding="utf-8")
    assert "`math.accuracy` and `math.reasoning_accuracy` decide most samples there" in text
    assert "Every other\nfirst-party reward sends every sample" in text
