"""The plain-number fast path of ``quick_equal`` gives exactly the full path's (value, label).

Every (prediction, gold, parameters) of the mined peer cases (bench/peers/cases.jsonl) and of the
hand table (tests/math/equivalence_cases.tsv) is scored by ``math.accuracy`` twice: with the fast
path, and with it switched off (every pair parsed and compared by ``Comparer``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_rewards_math import bounded, equivalence
from grpo_rewards_math.correctness import Accuracy
from grpo_rewards_math.parse import read_answer

ROOT = Path(__file__).resolve().parents[2]


def _cases() -> list[tuple[str, str, dict[str, Any]]]:
    out: list[tuple[str, str, dict[str, Any]]] = []
    for line in (ROOT / "bench/peers/cases.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        precision = row["config"].get("precision")
        params = {"precision": precision} if precision not in (None, 6) else {}
        out.append((str(row["pred"]), str(row["gold"]), params))
    for line in (ROOT / "tests/math/equivalence_cases.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        _, gold, pred, _ = line.split("\t")
        for params in ({}, {"precision": 2}, {"rel_tol": 0.01}):
            out.append((pred, gold, params))
            out.append((rf"\boxed{{{pred}}}", gold, params))
    return out


def _full_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(equivalence, "_plain_equal", lambda *a: None)


def _score(pred: str, gold: str, params: dict[str, Any]) -> tuple[float | None, str]:
    return Accuracy(**params)(pred, solution=gold)


def test_fast_path_gives_the_full_paths_value_and_label_on_every_case(monkeypatch: pytest.MonkeyPatch) -> None:
    cases = _cases()
    fast = [_score(*c) for c in cases]
    taken = 0
    with monkeypatch.context() as m:
        _full_path(m)
        bounded._bounded.cache_clear()
        full = [_score(*c) for c in cases]
    diffs = [(c, f, s) for c, f, s in zip(cases, fast, full) if f != s]
    assert diffs == []
    for pred, gold, _ in cases:
        taken += equivalence._plain_number(pred) is not None and equivalence._plain_number(gold) is not None
    assert taken >= 100  # the fast path is exercised, not skipped


_number = st.builds(
    lambda sign, body: sign + body,
    st.sampled_from(["", "-"]),
    st.one_of(
        st.integers(0, 10**12).map(str),
        st.builds(lambda i, d: f"{i}.{d}", st.integers(0, 10**6), st.from_regex(r"[0-9]{1,8}", fullmatch=True)),
        st.builds(lambda d, w: "." + str(d).zfill(w), st.integers(0, 10**8 - 1), st.integers(1, 8)),  # .5: no leading 0
        st.builds(lambda n, d: f"{n}/{d}", st.integers(1, 999), st.integers(1, 999)),
        st.builds(lambda n, d: rf"\frac{{{n}}}{{{d}}}", st.integers(1, 999), st.integers(1, 999)),
    ),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])  # a busy machine: no failure
@given(gold=_number, pred=_number, params=st.sampled_from([(1e-6, None), (0.01, None), (1e-6, 2), (0.0, 0)]))
def test_fast_path_equals_the_full_comparison_on_random_numbers(gold: str, pred: str,
                                                                params: tuple[float, int | None]) -> None:
    rel_tol, precision = params
    for number in (gold, pred):  # rewards._parsable says yes to a plain number without parsing it: it parses
        read_answer(number)  # (the light parse, as _parsable's: no CPU budget, so no failure on a busy machine)
    conventions = equivalence.conventions_of(rel_tol, precision)
    plain = equivalence._plain_equal(gold, pred, conventions)
    full = equivalence._symbolic.__wrapped__(gold, pred, conventions, equivalence.DEFAULT_LIMITS)
    if equivalence._plain_number(gold) is not None and equivalence._plain_number(pred) is not None:
        assert plain is not None
    assert plain is None or plain == full
