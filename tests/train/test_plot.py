"""Reward curves from TRL's log history."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grpo_rewards.train import plot
from grpo_rewards.train.plot import PlotError, draw, load_log_history, plot_run, reward_series
from grpo_rewards.train.rundir import FILES

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


def test_plot_replaces_only_pictures_it_drew_or_its_run_recorded(tmp_path):
    # whatever the flags: a picture (or any file) of the user's is never overwritten
    run = tmp_path / "run"
    run.mkdir()
    (run / "trainer_state.json").write_text(json.dumps({"log_history": HISTORY}))
    mine = tmp_path / "mine.png"
    draw([{"step": 1, "reward": 1.0}], mine)
    data = mine.read_bytes().replace(plot.SOFTWARE.encode(), b"Matplotlib v3.9.0")  # a PNG of the user's (same length)
    mine.write_bytes(data)
    notes = tmp_path / "notes.txt"
    notes.write_text("keep me")
    for out in (mine, notes):
        with pytest.raises(PlotError) as err:
            plot_run(run, out)
        assert str(err.value) == (f"{out} exists and was not drawn by grpo-rewards, so it is left as it is: give "
                                  "another --out, or move it away")
    assert mine.read_bytes() == data and notes.read_text() == "keep me"
    drawn = plot_run(run, tmp_path / "curves.png")
    assert plot.drawn_here(drawn) and not plot.drawn_here(mine)
    assert plot_run(run, drawn) == drawn  # its own picture, drawn again
    (run / "reward_curves.png").write_bytes(data)  # a run folder without a record of what it wrote
    with pytest.raises(PlotError, match="was not drawn by grpo-rewards"):
        plot_run(run)
    (run / FILES).write_text("reward_curves.png\n")  # ... and with one that names it
    assert plot_run(run) == run / "reward_curves.png" and plot.drawn_here(run / "reward_curves.png")


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
