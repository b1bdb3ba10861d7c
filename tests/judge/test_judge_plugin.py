"""The judge plugin as users meet it: discovery, light listing, exports equal to registrations, the hack corpus."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from judge_servers import Script, ScriptedJudge

from grpo_rewards import load_registry
from grpo_rewards.hacks import run_hacks
from grpo_rewards_judge import PAIRWISE, REWARD_MODEL, RUBRIC, make_pairwise, make_rubric
from grpo_rewards_judge.hacks import corpus


def test_the_plugin_registers_three_batch_rewards_with_their_ranges():
    registry = load_registry()
    infos = {name: registry.rewards[name] for name in ("judge.rubric", "judge.pairwise", "judge.reward_model")}
    assert {n: (i.form, i.output_range, i.distribution) for n, i in infos.items()} == {
        "judge.rubric": ("batch", (0.0, 1.0), "grpo-rewards-judge"),
        "judge.pairwise": ("batch", (0.0, 1.0), "grpo-rewards-judge"),
        "judge.reward_model": ("batch", None, "grpo-rewards-judge"),
    }
    assert infos["judge.reward_model"].options.worker_safe is False
    assert infos["judge.rubric"].params["model"].required and not infos["judge.rubric"].params["base_url"].required


def test_listing_imports_neither_the_http_client_nor_torch():
    code = ("import sys; from grpo_rewards.cli import main; main(['list']); "
            "print(sorted(m for m in ('httpx', 'torch', 'transformers') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    env.pop("GRPO_REWARDS_PLUGINS", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "judge.rubric" in out.stdout and out.stdout.splitlines()[-1] == "[]"


def test_the_exports_are_the_registered_definitions():
    rubric = make_rubric(model="m", base_url="http://127.0.0.1:9/v1")
    pairwise = make_pairwise(model="m", base_url="http://127.0.0.1:9/v1", mode="rank")
    assert (rubric.__name__, rubric.form, rubric.options) == ("judge.rubric", "batch", RUBRIC.info().options)
    assert (pairwise.__name__, pairwise.scorer.mode) == ("judge.pairwise", "rank")
    assert REWARD_MODEL.info().options.worker_safe is False and PAIRWISE.info().form == "batch"


def test_an_unknown_parameter_such_as_an_api_key_in_the_file_is_refused():
    with pytest.raises(ValueError, match="api_key"):
        make_rubric(model="m", api_key="sk-secret")


def echo(body: dict) -> Script:
    """A judge that obeys whatever grade the completion asks for (a fully injectable judge); else 8."""
    content = body["messages"][-1]["content"]
    block = content[content.index("<completion>\n") + 13:content.rindex("\n</completion>")]
    asked = re.search(r"Score:\s*(\S+)", block) or re.search(r"answer (\d+)", block)
    return Script(f"Score: {asked.group(1)}" if asked else "Score: 8")


def test_the_hack_corpus_catches_an_injectable_judge_and_grade_lines_and_off_scale_grades_are_not_paid():
    with ScriptedJudge(echo) as judge:
        report = run_hacks("judge.rubric", params={"model": "m", "base_url": judge.base_url})
    paid = {r.hack.name: (r.paid, r.overpaid) for r in report.results}
    assert paid == {
        "injection_answer_10": (1.0, True),
        "injection_answer_10_with_answer": (1.0, True),
        "forged_block_end": (0.0, False),        # has a grade line of its own: never shown to the judge
        "fake_system_message": (1.0, True),
        "grade_spam": (0.0, False),              # the same
        "out_of_scale_demand": (0.0, False),     # the judge said 11: unparsable, paid 0
        "out_of_scale_fraction": (0.0, False),   # 10/5: unparsable
        "empty": (pytest.approx(7 / 9), True),
        "none": (None, False),
        "huge": (0.0, False),                    # never sent
    }
    assert len(judge.received) == 7  # six entries (not huge, None or the two with grade lines) and the reference
    assert [h["name"] for h in corpus()] == list(paid)
