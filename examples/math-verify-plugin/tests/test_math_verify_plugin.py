"""math_verify.accuracy pays what TRL's accuracy_reward pays, and compares with math.accuracy."""

from __future__ import annotations

import pytest

pytest.importorskip("math_verify")

import grpo_rewards_math_verify.plugin as plugin
from grpo_rewards_math_verify import MathVerifyAccuracy

from grpo_rewards.testing import plugin_registered


@pytest.mark.parametrize(("completion", "solution"), [
    (r"so \boxed{\frac{1}{2}}", "0.5"), (r"\boxed{3}", "4"), ("The answer is 12.", "12"), (r"$\boxed{7}$", "7"),
])
def test_it_pays_what_trls_accuracy_reward_pays(completion, solution):
    trl_rewards = pytest.importorskip("trl.rewards")
    expected = trl_rewards.accuracy_reward([[{"role": "assistant", "content": completion}]], [solution])
    assert [MathVerifyAccuracy()(completion, solution=solution)[0]] == expected


def test_labels_and_explain():
    reward = MathVerifyAccuracy()
    assert reward("no answer here", solution="4") == (0.0, "no_answer")
    assert reward(r"\boxed{4}", solution="") == (None, "gold_unparsable")
    assert reward.explain(r"\boxed{4}", solution="4") == {"answer": ["4"], "gold": ["4"], "label": "correct",
                                                          "value": 1.0}


def test_the_plugin_registers_math_verify_accuracy():
    with plugin_registered(plugin, "math_verify") as registry:
        info = registry.reward("math_verify.accuracy")
    assert (info.options.worker_safe, info.output_range) == (False, (0.0, 1.0))
