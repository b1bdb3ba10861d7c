"""Behavioural sentinel: completions and gold answers that would run code if evaluated, through EVERY reward.

Each payload would create a SENTINEL file if anything evaluated, executed or unpickled it. Every
discovered reward scores them (in-process, and per-sample rewards also in worker processes, where
no spy can look); afterwards the file must not exist, and no payload reached eval/exec/compile or
sympy's string parsers in this process.
"""

from __future__ import annotations

import builtins

import pytest
from fuzz_inputs import REQUIRED_PARAMS, build_reward, call_reward, token_ids, watchdog

from grpo_rewards import load_registry, load_reward_set

NAMES = sorted(load_registry().rewards)

PAYLOADS = [
    "__import__('os').system('touch {s}')",
    "__import__(\"os\").system(\"touch {s}\")",
    "(lambda f: f('touch {s}'))(__import__('os').system)",
    "().__class__.__bases__[0].__subclasses__()[0].__init__.__globals__['os'].system('touch {s}')",
    "S('__import__(\"os\").system(\"touch {s}\")')",
    "sympify(\"__import__('os').system('touch {s}')\")",
    "exec(\"import os; os.system('touch {s}')\")",
    "eval(\"__import__('os').system('touch {s}')\")",
    "open('{s}', 'w').write('pwned')",
    "import os; os.system('touch {s}')",
    "cos\nsystem\n(S'touch {s}'\ntR.",  # a protocol-0 pickle of os.system('touch ...')
    "!!python/object/apply:os.system ['touch {s}']",
]
WRAPS = ["{}", "\\boxed{{{}}}", "The answer is ${}$.", "<think>{}</think><answer>{}</answer>", "#### {}"]


def _quote_free(sentinel) -> list[str]:
    """Payloads with no quote, dot or '__': exec of a bytes tuple, and the same in full-width letters
    (Python's tokenizer folds ``ｅｘｅｃ`` to ``exec``; an ASCII-only name check does not)."""
    code = tuple(f"import os; os.system('touch {sentinel}')".encode())
    plain = f"exec(bytes({code}))"
    wide = plain.replace("exec", "\uff45\uff58\uff45\uff43").replace("bytes", "\uff42\uff59\uff54\uff45\uff53")
    return [plain, wide.encode().decode("unicode_escape")]


def _texts(sentinel) -> list[str]:
    payloads = [p.format(s=sentinel) for p in PAYLOADS] + _quote_free(sentinel)
    return [w.format(p, p) for p in payloads for w in WRAPS]


@pytest.fixture
def spies(monkeypatch):
    """Every source string carrying the payload marker handed to eval/exec/compile or sympy's parsers."""
    import sympy
    import sympy.parsing.sympy_parser as sympy_parser

    seen: list[str] = []

    def spy(real):
        def call(source, *args, **kwargs):
            if isinstance(source, (str, bytes)) and b"SENTINEL" in (source if isinstance(source, bytes)
                                                                   else source.encode("utf-8", "replace")):
                seen.append(str(source))
            return real(source, *args, **kwargs)
        return call

    for owner, name in [(builtins, "eval"), (builtins, "exec"), (builtins, "compile"),
                        (sympy_parser, "parse_expr"), (sympy, "sympify")]:
        monkeypatch.setattr(owner, name, spy(getattr(owner, name)))
    return seen


def _gym_row(gold: str) -> tuple[str, str, str]:
    """A reasoning-gym ``countdown`` row (its scorer runs sympy's ``parse_expr`` on the answer) whose gold is ``gold``."""
    import json

    entry = {"question": "Make 119 from 67, 50, 20, 82.", "answer": gold,
             "metadata": {"source_dataset": "countdown", "source_index": 0, "numbers": [67, 50, 20, 82],
                          "target": 119, "expression": gold}}
    return "countdown", json.dumps({"seed": 3, "size": 1}), json.dumps(entry)


def _columns(reward, texts: list[str]) -> dict[str, list]:
    """Each column the reward reads, carrying the payloads wherever a gold answer goes."""
    gym = [_gym_row(t) for t in texts]
    where = {"solution": texts, "gym_dataset": [r[0] for r in gym], "gym_config": [r[1] for r in gym],
             "gym_entry": [r[2] for r in gym]}
    return {c: where.get(c, [True] * len(texts)) for c in reward.columns}


#: Rewards known to run payloads, each with its finding (/tmp/integration-findings.md); strict, so
#: the mark must go when the reward is fixed.
KNOWN_TO_RUN_CODE: dict[str, str] = {}


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=KNOWN_TO_RUN_CODE[n]))
                                  if n in KNOWN_TO_RUN_CODE else n for n in NAMES])
def test_code_in_completions_and_gold_answers_never_runs(tmp_path, spies, hardening_registry, name):
    sentinel = tmp_path / "SENTINEL"
    texts = _texts(sentinel)
    reward = build_reward(hardening_registry, name)
    columns = _columns(reward, texts)
    completions = texts[: len(texts) // 2] + [[{"role": "assistant", "content": t}] for t in texts[len(texts) // 2:]]
    values = call_reward(reward, completions, columns, with_ids=True)
    assert values != "contract"
    info = hardening_registry.reward(name)
    if info.form == "sample":  # the same in worker processes (pool started on the main thread, as in test_fuzz_rewards)
        from grpo_rewards.execution import get_pool

        assert [o.status for o in get_pool(2).map(divmod, [(7, 2)], timeout=60)] == ["ok"]
        in_workers = load_reward_set([{"use": name, "with": REQUIRED_PARAMS.get(name, {}), "timeout": 30.0,
                                       "workers": 2}], registry=hardening_registry).rewards[0]
        ids = [token_ids(c) for c in completions]
        assert watchdog(lambda: in_workers(completions=list(completions), completion_ids=ids,
                                           **{c: list(v) for c, v in columns.items()})) == values
    assert not sentinel.exists()
    assert spies == []


def test_the_sentinel_would_catch_evaluation(tmp_path):
    sentinel = tmp_path / "SENTINEL"
    exec(compile(PAYLOADS[0].format(s=sentinel), "<payload>", "exec"))  # what a reward must never do
    assert sentinel.exists()


def test_a_user_regex_that_backtracks_forever_is_stopped_by_its_timeout(hardening_registry):
    from grpo_rewards import get_reward

    reward = get_reward("format.regex", registry=hardening_registry, pattern=r"(a|aa)+$", regex_timeout=0.2,
                        unmatched_value=-1.0)
    logged: dict[str, float] = {}
    values = watchdog(lambda: reward(completions=["a" * 64 + "b", "aaa"], log_metric=logged.__setitem__))
    assert values == [-1.0, 1.0]
    assert logged["outcomes/format.regex/regex_timeout"] == 1.0
