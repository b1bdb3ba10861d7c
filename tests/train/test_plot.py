"""Reward curves from TRL's log history."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards.train import plot
from grpo_rewards.train.plot import PlotError, draw, load_log_history, plot_run, reward_series

HISTORY = [
    {"step": 1, "rewards/math.accuracy/mean": 0.125, "rewards/format.boxed/mean": 0.5, "reward": 0.225, "loss": 0.1},
    {"step": 2, "rewards/math.accuracy/mean": 0.5, "rewards/format.boxed/mean": 1.0, "reward": 0.7},
    {"step": 2, "train_runtime": 12.0},
]


def test_reward_series_has_one_curve_per_reward_then_the_total():
    assert reward_series(HISTORY) == {
        "math.accuracy": [(1, 0.125), (2, 0.5)],
        "format.boxed": [(1, 0.5), (2, 1.0)],
        "reward": [(1, 0.225), (2, 0.7)],
    }


def test_draw_writes_a_png(tmp_path):
    out = draw(HISTORY, tmp_path / "curves.png", title="run")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert [p.name for p in tmp_path.iterdir()] == ["curves.png"]  # no temporary file left


def test_a_history_without_rewards_is_an_error():
    with pytest.raises(PlotError, match=r"no rewards/<name>/mean values yet"):
        draw([{"step": 1, "loss": 0.3}], "unused.png")


def test_the_newest_checkpoint_state_is_read_when_the_run_has_not_finished(tmp_path):
    for step, history in ((1, HISTORY[:1]), (2, HISTORY[:2])):
        folder = tmp_path / f"checkpoint-{step}"
        folder.mkdir()
        (folder / "trainer_state.json").write_text(json.dumps({"log_history": history}))
    assert load_log_history(tmp_path) == HISTORY[:2]
    assert plot_run(tmp_path) == tmp_path / "reward_curves.png"


def test_plotting_a_folder_that_is_not_a_run_says_where_it_looked(tmp_path):
    with pytest.raises(PlotError, match=r"has no metrics.jsonl, no trainer_state.json and no "
                                        r"checkpoint-N/trainer_state.json: not a run directory"):
        plot_run(tmp_path)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.floats(-10, 10), st.just(math.nan)), max_size=60), st.integers(1, 12))
def test_the_moving_average_is_the_mean_of_the_finite_values_in_its_window(values, window):
    expected = []
    for i in range(len(values)):
        finite = [v for v in values[max(0, i - window + 1):i + 1] if not math.isnan(v)]
        expected.append(sum(finite) / len(finite) if finite else math.nan)
    got = plot._smooth(values, window)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert (math.isnan(g) and math.isnan(e)) or g == pytest.approx(e, abs=1e-9)


def test_the_moving_average_looks_at_each_value_at_most_twice_whatever_the_window(monkeypatch):
    looked = []

    class Counting:
        nan = math.nan

        @staticmethod
        def isfinite(v):
            looked.append(v)
            if len(looked) > 2 * len(values):
                raise AssertionError("the moving average looked at a value more than twice")
            return math.isfinite(v)

        @staticmethod
        def isnan(v):
            return not Counting.isfinite(v) and v != v

    monkeypatch.setattr(plot, "math", Counting)
    values = [float(i % 7) for i in range(50_000)]
    smoothed = plot._smooth(values, len(values) // 10)  # the window draw() uses: a tenth of the steps
    assert len(looked) <= 2 * len(values)
    assert smoothed[-1] == pytest.approx(sum(values[-5000:]) / 5000)
