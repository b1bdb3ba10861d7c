"""The gym tasks: rows of reasoning-gym datasets that survive Arrow and JSONL round trips.

A row is ``{"prompt", "answer", "gym_dataset", "gym_config", "gym_entry"}``: the prompt (a
conversation that starts with reasoning-gym's system prompt, which asks for ``<answer>...</answer>``;
the question alone with ``system_prompt=None``), the gold answer as text (``None`` for the
datasets a checker scores), the dataset's name, and two JSON strings written by
:mod:`grpo_rewards_gym.codec`: the generator's config (to rebuild the scorer, a method of the
dataset) and the whole entry reasoning-gym scores against (question, answer and ``metadata``,
types restored: tuples stay tuples). Plain string columns: Arrow, Parquet and JSONL keep them as
they are.

reasoning-gym is imported when rows are made, never when the tasks are registered.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from grpo_rewards import params as checks
from grpo_rewards.errors import did_you_mean

from . import codec
from .catalog import catalog, dataset_names

#: reasoning-gym scorers the sweep (``bench/gym.md``) found paying nonsense: kept out of ``gym:mix``
#: unless ``allow_broken: true``; ``gym:<name>`` still works, and ``grpo-rewards show`` says why.
BROKEN: dict[str, str] = {
    "game_of_life_halting": "its score_answer compares bool(answer) with bool(gold), and every non-empty "
                            "text is true, so any answer scores 1.0",
    "puzzle24": "its score_answer checks that the expression makes 24 with four numbers in range, not that they "
                "are the numbers given, so one fixed answer (such as another row's) scores 1.0 on every row",
}

COLUMNS = ("prompt", "answer", "gym_dataset", "gym_config", "gym_entry")
DEFAULT_SYSTEM_PROMPT = "default"


def _system_prompt(system_prompt: str | None) -> str | None:
    """``system_prompt`` as text: a key of reasoning-gym's ``SYSTEM_PROMPTS``, other text as it is, or None."""
    if system_prompt is None or system_prompt == "":
        return None
    if not isinstance(system_prompt, str):
        raise ValueError(f"system_prompt must be text, a name of reasoning-gym's system prompts or null, "
                         f"got {system_prompt!r}")
    from reasoning_gym.utils import SYSTEM_PROMPTS

    return str(SYSTEM_PROMPTS.get(system_prompt, system_prompt))


def _generator_config(name: str, given: Mapping[str, Any]) -> dict[str, Any]:
    """The generator's keyword arguments: the known parameters, lists turned into tuples where the
    parameter is a tuple (YAML has no tuples)."""
    known = catalog()["datasets"][name]["params"]
    unknown = [k for k in given if k not in known]
    if unknown:
        raise ValueError(f"gym:{name} has no parameter(s) {', '.join(map(repr, unknown))}; "
                         f"its parameters: {', '.join(known) or 'none'}")
    config = {}
    for key, value in given.items():
        tuple_typed = "tuple" in known[key]["type"].lower() and not known[key]["type"].startswith("list")
        config[key] = tuple(value) if isinstance(value, list) and tuple_typed else value
    return config


def _create(name: str, config: Mapping[str, Any]) -> Any:
    from reasoning_gym import create_dataset

    try:
        return create_dataset(name, **config)
    except (AssertionError, TypeError, ValueError, KeyError) as exc:
        shown = {k: v for k, v in config.items() if k not in ("seed", "size")}
        raise ValueError(f"gym:{name}: reasoning-gym refused the parameters {shown}: "
                         f"{type(exc).__name__}: {exc}") from exc


def _row(name: str, config_text: str, entry: dict[str, Any], system_prompt: str | None) -> dict[str, Any]:
    question = str(entry["question"])
    prompt: Any = question if system_prompt is None else [
        {"role": "system", "content": system_prompt}, {"role": "user", "content": question}]
    answer = entry.get("answer")
    return {"prompt": prompt, "answer": None if answer is None else str(answer), "gym_dataset": name,
            "gym_config": config_text, "gym_entry": codec.dumps(entry)}


def _check_name(name: Any) -> str:
    short = name.removeprefix("gym:") if isinstance(name, str) else name
    if short not in catalog()["datasets"]:
        hint = did_you_mean(f"gym:{short}", [f"gym:{n}" for n in dataset_names()], n=3, cutoff=0.75)
        raise ValueError(f"unknown reasoning-gym dataset {name!r}{hint}")
    return str(short)


def make_rows(name: str, n: int, seed: int = 0, params: Mapping[str, Any] | None = None,
              system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """``n`` rows of the reasoning-gym dataset ``name`` built with ``seed`` and generator ``params``.

    >>> row = make_rows("chain_sum", 1, seed=1, params={"min_terms": 2, "max_terms": 2}, system_prompt=None)[0]
    >>> row["gym_dataset"], row["answer"], row["prompt"].splitlines()[-1]
    ('chain_sum', '3', 'State the final answer to the following arithmetic problem: 4 - 1 =')
    """
    name = _check_name(name)
    n = checks.integer(n, "n", low=0)
    seed = checks.integer(seed, "seed")
    text = _system_prompt(system_prompt)
    config = {**_generator_config(name, params or {}), "seed": seed, "size": max(n, 1)}
    dataset = _create(name, config)
    config_text = codec.dumps(config)
    return [_row(name, config_text, dataset[i], text) for i in range(n)]


def _registered_name(dataset: Any) -> str:
    """The name reasoning-gym registered ``dataset``'s class under (``create_dataset``'s first argument)."""
    from reasoning_gym.factory import DATASETS

    names = [name for name, (cls, _) in DATASETS.items() if type(dataset) is cls]
    if len(names) != 1:
        raise ValueError(f"rows_from takes a dataset reasoning-gym's create_dataset builds; a "
                         f"{type(dataset).__module__}.{type(dataset).__name__} is not a registered reasoning-gym dataset")
    return names[0]


def _config_text(name: str, dataset: Any) -> str:
    """The keyword arguments that rebuild ``dataset`` (``create_dataset(name, **config)``) as text: the fields of
    its config that differ from the config class's defaults (a default may be an object no row can hold)."""
    import dataclasses

    config = getattr(dataset, "config", None)
    if not dataclasses.is_dataclass(config) or isinstance(config, type):
        raise ValueError(f"rows_from: the reasoning-gym dataset {name!r} has no config dataclass to rebuild its scorer from")
    defaults = type(config)()
    given = {field.name: getattr(config, field.name) for field in dataclasses.fields(config)
             if field.init and getattr(config, field.name) != getattr(defaults, field.name)}
    try:
        return codec.dumps(given)
    except TypeError as exc:
        raise ValueError(f"rows_from: the config of {name!r} cannot be stored in a row: {exc}") from exc


def rows_from(dataset: Any, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """The rows of a reasoning-gym dataset built by the user (``reasoning_gym.create_dataset(...)``, a composite
    one included), in the form ``gym.accuracy`` scores: each row names its own dataset and that dataset's config,
    so its entry is scored by the same ``score_answer`` as ``dataset.score_answer(answer, entry)``.

    Rows taken straight from reasoning-gym (``question``, ``answer``, a ``metadata`` dict) do not survive
    ``datasets``: Arrow fills other rows' keys with ``None`` and turns tuples into lists, which some scorers
    compare by type; these rows keep the entry as text that restores its types.

    >>> import reasoning_gym
    >>> data = reasoning_gym.create_dataset("chain_sum", size=2, seed=1, min_terms=2, max_terms=2)
    >>> row = rows_from(data, system_prompt=None)[0]
    >>> row["gym_dataset"], row["answer"], row["prompt"] == data[0]["question"]
    ('chain_sum', '3', True)
    """
    from reasoning_gym.composite import CompositeDataset

    text = _system_prompt(system_prompt)
    _registered_name(dataset)  # refuses what reasoning-gym did not build, before any entry is read
    composite = isinstance(dataset, CompositeDataset)
    sources: dict[int, tuple[str, str]] = {}  # (name, config) of each dataset an entry comes from, made once
    rows = []
    for i in range(len(dataset)):
        entry = dataset[i]
        # a composite's entry is scored by the dataset it came from
        part = dataset.datasets[entry["metadata"]["source_dataset"]] if composite else dataset
        if id(part) not in sources:
            name = _registered_name(part)
            sources[id(part)] = name, _config_text(name, part)
        rows.append(_row(*sources[id(part)], entry, text))
    return rows


class GymTask:
    """The factory of the task ``gym:<name>``: ``factory(n, seed, system_prompt=..., **generator_params)``."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"GymTask({self.name!r})"

    def __call__(self, n: int, seed: int = 0, system_prompt: str | None = DEFAULT_SYSTEM_PROMPT,
                 **params: Any) -> list[dict[str, Any]]:
        return make_rows(self.name, n, seed, params, system_prompt)

    def params(self) -> dict[str, dict[str, Any]]:
        """The parameters the task registers: the generator's, then ``system_prompt``."""
        return {**catalog()["datasets"][self.name]["params"],
                "system_prompt": {"type": "str | None", "default": DEFAULT_SYSTEM_PROMPT}}


def _mix_specs(tasks: Any, allow_broken: bool) -> list[tuple[str, float, dict[str, Any]]]:
    if tasks is None:
        return [(name, 1.0, {}) for name in dataset_names() if name not in BROKEN]
    if not isinstance(tasks, list) or not tasks:
        raise ValueError("tasks must be a non-empty list of {task: gym:<name>, weight: 1.0, params: {...}}")
    specs: list[tuple[str, float, dict[str, Any]]] = []
    for i, spec in enumerate(tasks, 1):
        if isinstance(spec, str):
            spec = {"task": spec}
        if not isinstance(spec, dict) or "task" not in spec or set(spec) - {"task", "weight", "params"}:
            raise ValueError(f"tasks[{i}] must be {{task: gym:<name>, weight: ..., params: {{...}}}}, got {spec!r}")
        name = _check_name(spec["task"])
        if name in BROKEN and not allow_broken:
            raise ValueError(f"tasks[{i}]: gym:{name} is kept out of gym:mix: {BROKEN[name]} "
                             "(allow_broken: true takes it anyway)")
        if any(name == s[0] for s in specs):
            raise ValueError(f"tasks[{i}]: gym:{name} is named twice")
        weight = checks.number(spec.get("weight", 1.0), f"tasks[{i}].weight", positive=True)
        params = spec.get("params") or {}
        if not isinstance(params, dict):
            raise ValueError(f"tasks[{i}].params must be a mapping of generator parameters, got {params!r}")
        specs.append((name, weight, _generator_config(name, params)))
    return specs


def make_mix(n: int, seed: int = 0, tasks: list[Any] | None = None, allow_broken: bool = False,
             system_prompt: str | None = DEFAULT_SYSTEM_PROMPT) -> list[dict[str, Any]]:
    """``n`` rows drawn from several datasets by weight, as reasoning-gym's composite dataset draws them.

    ``tasks`` is a list of ``{task, weight, params}`` (default: every dataset but those in
    :data:`BROKEN`, weight 1). Dataset ``i`` is built with seed ``seed + i + 1`` and row ``idx`` comes
    from the dataset ``Random(seed + idx)`` picks by weight, as in ``reasoning_gym.composite``; each
    row records its own dataset and config, so it is scored by the scorer of that dataset.

    >>> rows = make_mix(4, seed=1, tasks=[{"task": "gym:chain_sum"}, {"task": "leg_counting", "weight": 3}])
    >>> sorted({r["gym_dataset"] for r in rows})
    ['chain_sum', 'leg_counting']
    """
    n = checks.integer(n, "n", low=0)
    seed = checks.integer(seed, "seed")
    allow_broken = checks.boolean(allow_broken, "allow_broken")
    text = _system_prompt(system_prompt)
    built = []
    for i, (name, weight, config) in enumerate(_mix_specs(tasks, allow_broken)):
        full = {**config, "seed": seed + i + 1, "size": max(n, 1)}
        built.append((name, weight, _create(name, full), codec.dumps(full)))
    weights = [w for _, w, _, _ in built]
    rows = []
    for idx in range(n):
        k = random.Random(seed + idx).choices(range(len(built)), weights=weights, k=1)[0]
        name, _, dataset, config_text = built[k]
        rows.append(_row(name, config_text, dataset[idx], text))
    return rows


MIX_PARAMS: dict[str, dict[str, Any]] = {
    "tasks": {"type": "list[{task, weight, params}] | None", "default": None},
    "allow_broken": {"type": "bool", "default": False},
    "system_prompt": {"type": "str | None", "default": DEFAULT_SYSTEM_PROMPT},
}
