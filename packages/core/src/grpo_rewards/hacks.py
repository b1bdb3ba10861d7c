"""Hack corpora: degenerate and adversarial completions a reward must not overpay, and their runner.

GRPO optimises whatever a reward pays for, so a reward that pays for junk is a bug the model
will find. A reward package ships, with each reward, a corpus through
``register(name, scorer, hacks=CORPUS)``: a list of entries (plain dicts, so a plugin needs no import
from the core), or a function of no arguments that returns them, so large inputs are only built
when the corpus is run. Each entry names the rewards it targets and the most each may pay::

    {"name": "blank_think_hangul_filler",
     "completion": "<think>\\u3164</think><answer>4</answer>",
     "max_pay": {"format.think_answer": 0.0, "format.xml_fields": 0.5},
     "note": "the reasoning is U+3164 HANGUL FILLER"}

Optional keys: ``prompt``; ``columns`` (dataset column values, such as ``{"solution": "4"}``);
``completion_ids``; ``params`` (``{reward: {parameter: value}}``, the parameters the bound holds
for); ``reference`` and ``reference_ids`` (a real completion: a bound written ``"reference"`` means
"at most what the reward pays the reference", for rewards that pay short junk by design, such as
length rewards); ``note``. ``hacks=()`` declares an explicitly empty corpus: no known exploit.
A reward registered without ``hacks`` has no corpus, which ``grpo-rewards check NAME --hacks``
reports as such.

>>> corpus = read_corpus([{"name": "blank", "completion": " ", "max_pay": {"x.y": 0.0}}], "x")
>>> [(h.name, h.bound_for("x.y")) for h in corpus]
[('blank', 0.0)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from . import params
from .errors import PluginError
from .execution.threads import call_with_deadline
from .records import RewardInfo
from .registry import Registry, load_registry
from .rewardset import get_reward

#: A bound meaning "at most what the reward pays the entry's ``reference`` completion".
REFERENCE = "reference"
_KEYS = {"name", "completion", "max_pay", "prompt", "columns", "completion_ids", "params", "reference",
         "reference_ids", "note"}
#: Slack allowed above a bound (float rounding in the reward's arithmetic).
TOLERANCE = 1e-9


@dataclass(frozen=True)
class Hack:
    """One corpus entry: a completion and, per targeted reward, the most it may pay."""

    name: str
    completion: Any
    max_pay: Mapping[str, float | str]
    prompt: Any = None
    columns: Mapping[str, Any] = field(default_factory=dict)
    completion_ids: list[int] | None = None
    params: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    reference: Any = None
    reference_ids: list[int] | None = None
    note: str = ""

    def bound_for(self, reward: str) -> float | str:
        return self.max_pay[reward]


def _entry_problems(raw: Any, where: str) -> list[str]:
    if not isinstance(raw, Mapping):
        return [f"{where}: expected a dict, got {type(raw).__name__}"]
    problems = [f"{where}: unknown key {k!r}" for k in raw if k not in _KEYS]
    if not isinstance(raw.get("name"), str) or not raw.get("name"):
        problems.append(f"{where}: 'name' must be a non-empty string")
    if "completion" not in raw:
        problems.append(f"{where}: 'completion' is missing")
    max_pay = raw.get("max_pay")
    if not isinstance(max_pay, Mapping) or not max_pay:
        problems.append(f"{where}: 'max_pay' must be a non-empty dict of reward name -> most it may pay")
        return problems
    for reward, bound in max_pay.items():
        if bound == REFERENCE:
            if "reference" not in raw:
                problems.append(f"{where}: the bound of {reward!r} is 'reference' but the entry has no 'reference'")
        elif not params.finite(bound):
            problems.append(f"{where}: the bound of {reward!r} must be a finite number or 'reference', got {bound!r}")
    for key in ("columns", "params"):
        if key in raw and not isinstance(raw[key], Mapping):
            problems.append(f"{where}: {key!r} must be a dict")
    return problems


def read_corpus(raw: Any, source: str) -> list[Hack]:
    """Validate a corpus (a list of entry dicts, or a function returning one) into :class:`Hack` entries.

    Raises :class:`~grpo_rewards.PluginError` listing every bad entry, naming ``source``.
    """
    if callable(raw):
        raw = raw()
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        raise PluginError(f"{source}: the hack corpus must be a list of entries, got {type(raw).__name__}")
    entries = list(raw)
    problems: list[str] = []
    names: set[str] = set()
    for i, entry in enumerate(entries):
        where = f"entry {i + 1}" + (f" ({entry.get('name')})" if isinstance(entry, Mapping) else "")
        problems += _entry_problems(entry, where)
        if isinstance(entry, Mapping) and entry.get("name") in names:
            problems.append(f"{where}: the name is used by another entry")
        if isinstance(entry, Mapping):
            names.add(entry.get("name"))  # type: ignore[arg-type]
    if problems:
        raise PluginError(f"{source}: bad hack corpus:\n" + "\n".join(f"  - {p}" for p in problems))
    return [Hack(**{k: v for k, v in e.items()}) for e in entries]


@dataclass
class HackResult:
    """One entry run against one reward: what it paid, its bound, and whether that is overpaid."""

    hack: Hack
    paid: float | None
    bound: float | None
    error: str | None = None
    #: the bound is what the reward paid the entry's reference (a real answer of the same length)
    from_reference: bool = False

    @property
    def overpaid(self) -> bool:
        if self.error is not None:
            return True
        if self.paid is None or self.bound is None:
            return False
        return self.paid > self.bound + TOLERANCE

    def line(self) -> str:
        if self.error is not None:
            return f"ERROR {self.hack.name}: {self.error}"
        paid = "None" if self.paid is None else f"{self.paid:g}"
        bound = "-" if self.bound is None else f"{self.bound:g}" + (" (a real answer's pay)" if self.from_reference else "")
        label = "OVER " if self.overpaid else "ok   "
        note = f"  ({self.hack.note})" if self.hack.note and self.overpaid else ""
        return f"{label} {self.hack.name:<36} paid {paid:<8} max {bound}{note}"


@dataclass
class HackReport:
    """Every corpus entry that targets one reward, run: ``corpus`` is None when the reward ships none."""

    reward: str
    corpus: list[Hack] | None
    results: list[HackResult]

    @property
    def overpaid(self) -> list[HackResult]:
        return [r for r in self.results if r.overpaid]


def corpus_of(info: RewardInfo) -> list[Hack] | None:
    """The corpus a registered reward shipped (``None``: it shipped none), validated."""
    raw = getattr(info, "hacks", None)
    if raw is None:
        return None
    return read_corpus(raw, f"the hack corpus of {info.name} ({info.distribution or info.plugin})")


def _score(reward: Any, hack: Hack, completion: Any, ids: list[int] | None, deadline: float) -> float | None:
    """The reward's value for one completion, under ``deadline`` (see :func:`call_with_deadline`)."""
    columns = {k: [v] for k, v in hack.columns.items()}
    values = call_with_deadline(lambda: reward(prompts=[hack.prompt], completions=[completion],
                                               completion_ids=None if ids is None else [ids], **columns), deadline)
    return values[0]


def run_hacks(name: str, *, params: Mapping[str, Any] | None = None, registry: Registry | None = None,
              build: Callable[..., Any] | None = None, deadline: float = 30.0) -> HackReport:
    """Run every entry of ``name``'s corpus that targets it; ``params`` override the entries' own.

    A call that gives no result within ``deadline`` seconds is reported as an error line.
    """
    registry = registry or load_registry()
    info = registry.reward(name)
    corpus = corpus_of(info)
    results: list[HackResult] = []
    build = build or (lambda **p: get_reward(name, registry=registry, **p))
    built: dict[str, Any] = {}
    for hack in corpus or ():
        if name not in hack.max_pay:
            continue
        merged = {**dict(hack.params.get(name, {})), **dict(params or {})}
        key = repr(sorted(merged.items()))
        try:
            reward = built.get(key) or built.setdefault(key, build(**merged))
            paid = _score(reward, hack, hack.completion, hack.completion_ids, deadline)
            bound_spec = hack.max_pay[name]
            bound = (_score(reward, hack, hack.reference, hack.reference_ids, deadline) if bound_spec == REFERENCE
                     else float(bound_spec))
        except Exception as exc:  # a reward that raises on junk is reported, and the run goes on
            results.append(HackResult(hack, None, None, f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"))
            continue
        from_reference = bound_spec == REFERENCE
        if bound is None:  # the reference is not applicable either: the hack may not be paid at all
            results.append(HackResult(hack, paid, None if paid is None else -math.inf, None, from_reference))
        else:
            results.append(HackResult(hack, paid, bound, None, from_reference))
    return HackReport(name, corpus, results)


def print_report(report: HackReport) -> int:
    """Print a report; 0 when nothing is overpaid, 1 otherwise."""
    if report.corpus is None:
        print(f"{report.reward}: ships no hack corpus (register it with hacks=[...], or hacks=() when no "
              f"exploit is known)")
        return 0
    if not report.results:
        print(f"{report.reward}: explicitly empty hack corpus (no known exploit)")
        return 0
    print(f"{report.reward}: {len(report.results)} hack entries")
    for result in report.results:
        print(f"  {result.line()}")
    over = report.overpaid
    print(f"{len(over)} overpaid" if over else "no entry is overpaid")
    return 1 if over else 0
