"""The sweep on a sample of tasks: golds pay 1.0, nonsense and other rows' golds less; findings named."""

from __future__ import annotations

import pytest

from grpo_rewards_gym import BROKEN
from grpo_rewards_gym.sweep import NONSENSE, markdown, sweep

SAMPLE = ["arc_agi", "basic_arithmetic", "boxnet", "game_of_life_halting", "prime_factorization", "puzzle24",
          "rearc", "word_sorting"]


@pytest.fixture(scope="module")
def results():
    return {r.name: r for r in sweep(SAMPLE, n=3, seed=0)}


def test_the_sweep_on_a_sample_names_missing_golds_and_broken_scorers(results):
    assert {name: r.verdict for name, r in results.items() if r.verdict != "ok"} == {
        "boxnet": "no gold answer in 3/3 rows (a checker scores them)",
        "game_of_life_halting": f"pays 1.0 for {NONSENSE!r}; pays 1.0 for another row's gold answer (3/3)",
        "puzzle24": "pays 1.0 for another row's gold answer (3/3)",
    }
    assert all(r.gold_scores == [1.0] * 3 for name, r in results.items() if name != "boxnet")
    assert all(v is not None and v < 1.0 for name in ("arc_agi", "rearc", "prime_factorization")
               for v in results[name].nonsense_scores + results[name].other_gold_scores)
    assert "| puzzle24 | 3 | pays 1.0 for another row's gold answer (3/3) |" in markdown(list(results.values()))


def test_every_scorer_the_sweep_finds_paying_junk_is_kept_out_of_mix(results):
    flagged = {r.name for r in results.values() if r.pays_nonsense or any(
        v == 1.0 for v in r.other_gold_scores)}
    assert flagged <= set(BROKEN)
