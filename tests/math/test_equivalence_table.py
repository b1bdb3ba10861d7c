"""Table-driven equivalence cases (tests/math/equivalence_cases.tsv) run through ``is_equal``.

Each row is ``category  gold  prediction  expected``; the table is written from GSM8K and MATH
answer styles and covers every notation the parser supports with positive and negative cases.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from grpo_rewards_math import bounded, equivalence
from grpo_rewards_math.equivalence import is_equal, quick_equal, symbolic_equal

TABLE = Path(__file__).with_name("equivalence_cases.tsv")


def _load() -> list[tuple[str, str, str, bool]]:
    rows = []
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        category, gold, pred, expected = line.split("\t")
        rows.append((category, gold, pred, expected == "1"))
    return rows


CASES = _load()


@pytest.mark.parametrize(
    ("category", "gold", "pred", "expected"),
    CASES,
    ids=[f"{c}-{i}" for i, (c, *_rest) in enumerate(CASES)],
)
def test_table_case_is_judged_as_expected(category: str, gold: str, pred: str, expected: bool) -> None:
    assert is_equal(gold, pred) is expected


def test_table_has_at_least_300_cases_with_both_outcomes_in_every_category() -> None:
    assert len(CASES) >= 300
    outcomes = Counter((c, e) for c, _, _, e in CASES)
    categories = {c for c, *_ in CASES}
    one_sided = sorted(c for c in categories if not (outcomes[(c, True)] and outcomes[(c, False)]))
    # the only one-sided category is pure spacing/formatting noise that never changes a value
    assert one_sided == ["spacing"]


def test_quick_equal_never_contradicts_the_table() -> None:
    for _, gold, pred, expected in CASES:
        quick = quick_equal(gold, pred)
        assert quick is None or quick is expected, (gold, pred)


def test_symbolic_equal_alone_agrees_with_the_table() -> None:
    wrong = [(g, p) for _, g, p, e in CASES if symbolic_equal(g, p) is not e]
    assert wrong == []


def test_quick_equal_decides_numeric_answers_without_symbolic_work() -> None:
    numeric = {"integer", "thousands", "decimal", "scientific", "percent", "mixed", "units", "choice", "text"}
    undecided = [(g, p) for c, g, p, _ in CASES if c in numeric and quick_equal(g, p) is None]
    assert undecided == []


def test_checks_give_the_table_answers_from_several_threads_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from grpo_rewards_math.parse import clear_cache

    clear_cache()
    bounded._bounded.cache_clear()
    equivalence._symbolic.cache_clear()
    sample = CASES[::3]
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda row: is_equal(row[1], row[2]), sample))
    assert results == [expected for *_, expected in sample]


WRAPPERS = [r"\boxed{%s}", "$%s$", "%s.", "  %s  ", r"\[ %s \]", r"\( %s \)", r"\displaystyle %s", r"$\boxed{%s}$."]


@pytest.mark.parametrize("wrapper", WRAPPERS)
def test_every_gold_equals_itself_boxed_or_in_math_delimiters(wrapper: str) -> None:
    golds = sorted({gold for _, gold, _, _ in CASES})
    assert [g for g in golds if is_equal(g, wrapper % g) is not True] == []
