"""This session's readings over their families (hypothesis) rather than the examples each was found on: a code row's
time and memory limits written with a unit, a judge's grade with the scale's top (``/``, ``out of``, ``(out of``),
and a CSV's cells as ``grpo-rewards score`` reads them (an empty cell missing, any other text itself)."""

from __future__ import annotations

import csv
import io

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from grpo_rewards.scoring_input import _table_records
from grpo_rewards_code.scoring import MEMORY_UNITS, TIME_UNITS, _row_number
from grpo_rewards_judge.parse import ScoreFormat

FAMILY = settings(max_examples=200, deadline=None, database=None, derandomize=True)
NUMBERS = st.one_of(st.integers(1, 10 ** 7), st.floats(1e-3, 1e7, allow_nan=False, allow_infinity=False))


@FAMILY
@given(number=NUMBERS, units=st.sampled_from([TIME_UNITS, MEMORY_UNITS]), data=st.data(),
       blank=st.sampled_from(["", " ", "  ", "\t"]), tail=st.sampled_from(["", " per test", ".", " (each)"]),
       upper=st.booleans())
def test_a_limit_written_with_a_unit_is_the_number_times_the_unit(number, units, data, blank, tail, upper):
    unit = data.draw(st.sampled_from(sorted(units)))
    written = f"{number!r}{blank if unit else ''}{unit.upper() if upper else unit}{tail}"
    if not unit and tail.strip()[:1].isalpha():  # a bare number then a word: the word is read as its unit
        written = f"{number!r}{blank}"
    assert _row_number(written, units) == float(repr(number)) * units[unit]


@FAMILY
@given(number=NUMBERS, word=st.sampled_from(["hours", "days", "parsecs", "tb", "kbytes", "secondz"]))
def test_a_limit_in_a_unit_not_listed_leaves_the_default(number, word):
    assert _row_number(f"{number!r} {word}", TIME_UNITS) is None
    assert _row_number(f"{number!r} {word}", MEMORY_UNITS) is None


@FAMILY
@given(low=st.integers(-3, 3), span=st.integers(1, 20), offset=st.integers(-3, 25), top_off=st.integers(-2, 2),
       form=st.sampled_from(["{n}/{top}", "{n} / {top}", "{n} out of {top}", "{n} OUT OF {top}", "{n} (out of {top})",
                             "{n} ( out of {top} )", "{n}  out\tof  {top}."]))
def test_a_grade_with_the_scales_top_reads_as_the_grade_only_on_that_scale(low, span, offset, top_off, form):
    high = low + span
    assume(high > 0)  # (a scale whose top is 0 or below has no "out of" to write)
    n, top = low + offset, high + top_off
    scale = ScoreFormat("scale", low=low, high=high)
    value, label = scale.parse(f"Score: {form.format(n=n, top=top)}")
    if top == high and low <= n <= high:
        assert (value, label) == ((n - low) / (high - low) + 0.0, "scored")
    else:
        assert (value, label) == (None, "unparsable")


CELL = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00\r"), max_size=12)


@FAMILY
@given(cells=st.lists(st.tuples(CELL, CELL), min_size=1, max_size=6))
def test_a_csvs_cells_are_read_as_written_and_an_empty_one_as_missing(tmp_path_factory, cells):
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(["completion", "reference"])
    writer.writerows(cells)
    path = tmp_path_factory.mktemp("csv") / "rows.csv"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    records = _table_records(path)
    assert [(r["completion"], r["reference"]) for r in records] == [
        tuple(None if cell == "" else cell for cell in row) for row in cells]
