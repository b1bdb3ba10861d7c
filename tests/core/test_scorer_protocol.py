"""The scorer protocol is stated once (``protocol.Scorer``) and read through one module (``scorer_hooks``)."""

from __future__ import annotations

import ast
from pathlib import Path

import grpo_rewards
from grpo_rewards import protocol, scorer_hooks
from grpo_rewards.outcomes import Tally
from grpo_rewards.signatures import takes_options

CORE = Path(protocol.__file__).parent


def _reads_of_scorer_methods(path: Path, source: str | None = None) -> list[str]:
    """``file:line name`` of each ``getattr``/``hasattr`` of an optional scorer method by name, and each
    ``scorer.<method>`` / ``x.scorer.<method>`` / ``func.<method>``."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8") if source is None else source)
    for node in ast.walk(tree):
        name = None
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("getattr", "hasattr")
                and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
            name = node.args[1].value
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load):
            base = node.value
            base_name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
            if base_name in ("scorer", "func", "built", "obj"):
                name = node.attr
        if name in protocol.SCORER_METHODS:
            found.append(f"{path.name}:{node.lineno} {name}")
    return found


def test_only_scorer_hooks_reads_a_scorers_optional_methods():
    reads = [r for p in sorted(CORE.rglob("*.py")) if p.name != "scorer_hooks.py" for r in _reads_of_scorer_methods(p)]
    assert reads == []
    seen = _reads_of_scorer_methods(CORE / "x.py", "f = getattr(s, 'quick', None)\nself.scorer.warmup()\n")
    assert seen == ["x.py:1 quick", "x.py:2 warmup"]  # the check can see a read


def test_every_optional_method_has_its_contract_in_the_scorer_docstring():
    doc = protocol.Scorer.__doc__ or ""
    source = Path(scorer_hooks.__file__).read_text(encoding="utf-8")
    for name in protocol.SCORER_METHODS:
        assert f"- ``{name}(" in doc, name
        assert f'"{name}"' in source, name
    assert grpo_rewards.Scorer is protocol.Scorer


def test_a_scorer_without_an_optional_method_gets_each_default():
    def plain(text, **row):
        return 1.0

    assert scorer_hooks.quick(plain) is None and scorer_hooks.explainer(plain) is None
    assert scorer_hooks.runtime_note(plain) is None and scorer_hooks.row_problems(plain, [{"a": 1}]) == []
    assert scorer_hooks.own_columns(plain) is None and scorer_hooks.own_units(plain) is None
    assert scorer_hooks.warm_up(plain) is None


def test_a_scorers_optional_methods_and_attributes_are_found():
    class Full:
        units = "words"

        def __init__(self):
            self.columns = ["answer", 3]
            self.answer_column = "answer"
            self.warmed = 0

        def __call__(self, text, **row):
            return 1.0

        def quick(self, text, **row):
            return None

        def warmup(self):
            self.warmed += 1

        def explain(self, completion, **row):
            return {"seen": completion}

        @staticmethod
        def describe_runtime():
            raise OSError("no sandbox")

        @staticmethod
        def check_rows(rows):
            return [f"row {i}: empty" for i, row in enumerate(rows) if not row]

    full = Full()
    scorer_hooks.warm_up(full)
    assert full.warmed == 1
    assert scorer_hooks.quick(full) == full.quick and scorer_hooks.explainer(full)("x") == {"seen": "x"}
    assert scorer_hooks.runtime_note(Full) == "unknown (OSError: no sandbox)"
    assert scorer_hooks.row_problems(Full, [{"a": 1}, {}]) == ["row 1: empty"]
    assert scorer_hooks.own_columns(full) == ("answer",) and scorer_hooks.own_units(full) == "words"
    assert scorer_hooks.column_attributes(full) == {"answer_column": "answer"}


def test_a_batch_scorer_asks_for_the_options_by_declaring_the_keyword():
    def asks(prompts, completions, *, reward_options=None, **kwargs): ...

    def open_ended(prompts, completions, **kwargs): ...

    class Asks:
        def __call__(self, prompts, completions, completion_ids=None, reward_options=None, **kwargs): ...

    assert protocol.OPTIONS_KEYWORD == "reward_options" and "``reward_options``" in (protocol.Scorer.__doc__ or "")
    assert [takes_options(s) for s in (asks, open_ended, Asks(), len)] == [True, False, True, False]


def test_the_row_fields_and_unlogged_labels_are_stated_once():
    for path in sorted(CORE.rglob("*.py")):
        if path.name == "protocol.py":
            continue
        text = path.read_text(encoding="utf-8")
        assert '{"ok", "none"}' not in text, path
        assert '"prompt", "completion", "completion_ids"}' not in text, path


def test_a_tally_counts_labels_from_many_calls_and_a_copy_keeps_only_the_seconds():
    tally = Tally()
    for _ in range(40):
        tally.add(0.5, ["correct", "ok"])
    assert tally.counts == {"correct": 40, "ok": 40} and tally.seconds == 20.0
    assert tally.reported() == {"correct": 40}
    copy = tally.copy()
    assert copy.counts == {} and copy.seconds == 20.0 and copy.seen == set()


def test_the_protocol_modules_examples_run():
    import doctest

    from grpo_rewards import outcomes
    from grpo_rewards.execution import calls  # (checking what a batch reward returns)

    for module in (protocol, scorer_hooks, outcomes, calls):
        result = doctest.testmod(module)
        assert result.attempted > 0 and result.failed == 0, module.__name__
