"""Every registered reward, found through discovery, under random, mutated, LaTeX, huge and empty inputs.

No exception escapes but a documented contract error, every value is a finite float or None inside
the declared range, a second call on fresh copies gives the same values, and no call hangs (each
runs under a watchdog thread). ``bench/bench_fuzz.py`` runs the same with many more examples.
"""

from __future__ import annotations

import pytest
from fuzz_inputs import (
    COLUMN_VALUES,
    GOOD_COLUMN_VALUES,
    MB,
    REQUIRED_PARAMS,
    build_reward,
    call_reward,
    completions_of,
    huge_text,
    in_range,
    latex_answers,
    mutations,
    texts,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grpo_rewards import RewardError, load_registry

REGISTRY = load_registry()
NAMES = sorted(REGISTRY.rewards)
SETTINGS = settings(max_examples=12, deadline=None, database=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))

#: The row columns of the rewards that read a row's tool calls: they declare none, so the tables of fuzz_inputs pass
#: them nothing, and without these every sample was a bad_row that never reached their reading and comparisons. A tool
#: ``f`` (the name the fuzzed calls use) whose number argument JSON Schema divides, and a second tool.
TOOL_COLUMNS = {"gold_calls": [{"name": "f", "arguments": {"x": 4, "s": "a b"}}], "tools": [
    {"name": "f", "parameters": {"type": "object", "properties": {
        "x": {"type": "number", "multipleOf": 0.5, "maximum": 10}, "s": {"type": "string", "pattern": "^[a-z ]*$"}}}},
    {"name": "g", "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}}}]}


def tool_columns(name: str, n: int) -> dict[str, list]:
    """:data:`TOOL_COLUMNS`, one value per completion, for a ``tools.*`` reward; nothing for the others."""
    return {c: [value] * n for c, value in TOOL_COLUMNS.items()} if name.startswith("tools.") else {}

def _extra_values(reward) -> tuple:
    return tuple(v for v in (reward.options.invalid_value, reward.options.error_value, reward.options.too_large_value,
                             reward.options.timeout_value) if v is not None)


def _fuzz(registry, name: str, batches: st.SearchStrategy, with_ids: st.SearchStrategy) -> None:
    reward = build_reward(registry, name)
    info = registry.reward(name)

    @SETTINGS
    @given(data=st.data())
    def run(data):
        completions = data.draw(batches, label="completions")
        n = len(completions)
        columns = {c: data.draw(st.lists(COLUMN_VALUES[c], min_size=n, max_size=n), label=c) for c in reward.columns}
        columns.update(tool_columns(name, n))
        values = call_reward(reward, completions, columns, data.draw(with_ids, label="with_ids"))
        if values != "contract":
            assert in_range(values, info.output_range, _extra_values(reward)), (name, values, info.output_range)

    run()


def test_discovery_finds_the_first_party_rewards():
    assert {"math.accuracy", "format.boxed", "format.regex", "length.target", "length.group_relative"} <= set(NAMES)


def test_every_reward_has_fuzz_values_for_its_required_params_and_columns(hardening_registry):
    for name in NAMES:
        build_reward(hardening_registry, name)  # LookupError names what the tables lack
    assert set(REQUIRED_PARAMS) <= set(NAMES)


def test_a_reward_needing_an_unknown_param_fails_loudly(hardening_registry, monkeypatch):
    import fuzz_inputs

    monkeypatch.setattr(fuzz_inputs, "REQUIRED_PARAMS", {})
    with pytest.raises(LookupError, match=r"format\.regex needs parameter\(s\) \['pattern'\]"):
        build_reward(hardening_registry, "format.regex")


@pytest.mark.parametrize("name", NAMES)
def test_reward_survives_random_text_and_latex(hardening_registry, name):
    _fuzz(hardening_registry, name, completions_of(texts), st.booleans())


@pytest.mark.parametrize("name", NAMES)
def test_reward_survives_mutated_real_completions(hardening_registry, name):
    _fuzz(hardening_registry, name, completions_of(st.one_of(mutations(), latex_answers)), st.just(True))


HUGE = [huge_text("a"), huge_text("\\boxed{", tail="4}"), huge_text("{"), huge_text("<think>", tail="</think>4"),
        huge_text("9"), huge_text("\\frac{1}{", MB // 10), huge_text("the "), ""]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("conversational", [False, True], ids=["str", "messages"])
def test_reward_survives_huge_and_empty_completions(hardening_registry, name, conversational):
    reward = build_reward(hardening_registry, name)
    info = hardening_registry.reward(name)
    completions = [[{"role": "assistant", "content": t}] if conversational else t for t in HUGE]
    columns = {c: [GOOD_COLUMN_VALUES[c]] * len(HUGE) for c in reward.columns} | tool_columns(name, len(HUGE))
    values = call_reward(reward, completions, columns, with_ids=True)
    assert values != "contract"
    assert in_range(values, info.output_range, _extra_values(reward)), (name, values)


#: Numbers at the edges of what JSON text and Python read: 4,000 digits (Python reads it, a float cannot hold it),
#: 5,000 (past Python's int-to-str limit), an overflow to infinity, NaN and Infinity (Python's JSON reader takes them)
EDGE_NUMBERS = ["9" * 4000, "9" * 5000, "1e999", "-1e999", "1e-999", "NaN", "Infinity"]
EDGE = [form.format(n=n) for n in EDGE_NUMBERS for form in (
    '<tool_call>{{"name": "f", "arguments": {{"x": {n}}}}}</tool_call>', "[f(x={n})]", '{{"x": {n}, "a": {n}}}',
    "\\boxed{{{n}}}", "The answer is {n}.")]


@pytest.mark.parametrize("name", NAMES)
def test_reward_survives_numbers_at_the_edges_of_json(hardening_registry, name):
    # found by trying: a 4,000-digit argument raised OverflowError out of tools.call_match, NaN was a valid argument
    # of tools.schema_valid and 1e999 raised out of jsonschema's multipleOf
    reward = build_reward(hardening_registry, name)
    info = hardening_registry.reward(name)
    columns = {c: [GOOD_COLUMN_VALUES[c]] * len(EDGE) for c in reward.columns} | tool_columns(name, len(EDGE))
    values = call_reward(reward, EDGE, columns, with_ids=True)
    assert values != "contract"
    assert in_range(values, info.output_range, _extra_values(reward)), (name, values)


@pytest.mark.parametrize("name", NAMES)
def test_missing_column_is_a_contract_error_naming_the_column(hardening_registry, name):
    """A reward that reads columns names each one when the batch lacks it; one that reads none scores without."""
    reward = build_reward(hardening_registry, name)
    call = {"prompts": ["q"], "completions": ["\\boxed{4}"], "completion_ids": [[1, 2]]}
    if not reward.columns:
        values = call_reward(reward, call["completions"], {}, with_ids=True)
        assert values != "contract" and len(values) == 1, (name, values)
        return
    with pytest.raises(RewardError) as caught:
        reward(**call)
    assert all(repr(c) in str(caught.value) for c in reward.columns), str(caught.value)


SAMPLE_NAMES = [n for n in NAMES if REGISTRY.rewards[n].form == "sample"]


@pytest.mark.parametrize("name", SAMPLE_NAMES)
def test_per_sample_reward_gives_the_same_values_in_worker_processes(hardening_registry, name):
    from grpo_rewards import load_reward_set
    from grpo_rewards.execution import get_pool

    # the shared pool is started here, on the main thread (before commit fff893d a worker started from a
    # watchdog thread died with that thread: test_workers_started_from_a_thread_that_ended_stay_alive)
    assert [o.status for o in get_pool(2).map(divmod, [(7, 2), (9, 3)], timeout=60)] == ["ok", "ok"]
    in_process = build_reward(hardening_registry, name)
    in_workers = load_reward_set([{"use": name, "with": REQUIRED_PARAMS.get(name, {}), "timeout": 30.0,
                                   "workers": 2}], registry=hardening_registry).rewards[0]

    @settings(max_examples=4, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(data=st.data())
    def run(data):
        completions = data.draw(completions_of(st.one_of(texts, mutations())), label="completions")
        n = len(completions)
        columns = {c: data.draw(st.lists(COLUMN_VALUES[c], min_size=n, max_size=n), label=c)
                   for c in in_process.columns}
        expected = call_reward(in_process, completions, columns, with_ids=True)
        assert call_reward(in_workers, completions, columns, with_ids=True) == expected

    run()
