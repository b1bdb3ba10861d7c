"""The reasoning-gym datasets and their generator parameters, as data.

``grpo-rewards list`` must not import reasoning-gym (it takes about a second and imports sympy), so
the task names, descriptions and parameters (name, type, default) are read from ``catalog.json``,
written from the installed reasoning-gym by ``python -m grpo_rewards_gym.catalog`` and checked
against it by the tests (``tests/gym/test_gym_catalog.py``).

>>> "chain_sum" in dataset_names() and "composite" not in dataset_names()
True
>>> catalog()["datasets"]["chain_sum"]["params"]["min_terms"] == {"type": "int", "default": 2}
True
"""

from __future__ import annotations

import dataclasses
import json
import typing
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

#: reasoning-gym's composite dataset, offered as ``gym:mix`` rather than under its own name
COMPOSITE = "composite"


@lru_cache(maxsize=1)
def catalog() -> dict[str, Any]:
    """``{"reasoning_gym": version, "datasets": {name: {"description": ..., "params": {...}}}}``."""
    text = resources.files(__package__).joinpath("catalog.json").read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def dataset_names() -> list[str]:
    """Every reasoning-gym dataset registered as a task ``gym:<name>`` (the composite is ``gym:mix``)."""
    return sorted(catalog()["datasets"])


def _type_text(annotation: Any) -> str:
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "")


def _json_default(value: Any) -> Any:
    """A default as JSON holds it (tuples as lists); a value JSON cannot hold as its repr."""
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def build_catalog() -> dict[str, Any]:
    """The catalog of the installed reasoning-gym (imports it)."""
    from importlib import metadata

    from reasoning_gym.factory import DATASETS

    datasets: dict[str, Any] = {}
    for name, (dataset_cls, config_cls) in sorted(DATASETS.items()):
        if name == COMPOSITE:
            continue
        params = {}
        for f in dataclasses.fields(config_cls):
            if f.name in ("seed", "size"):  # given by the task's n and seed
                continue
            if f.default is not dataclasses.MISSING:
                default = f.default
            elif f.default_factory is not dataclasses.MISSING:
                default = f.default_factory()
            else:
                params[f.name] = {"type": _type_text(f.type)}
                continue
            params[f.name] = {"type": _type_text(f.type), "default": _json_default(default)}
        doc = (dataset_cls.__doc__ or "").strip()
        description = doc.split("\n\n")[0].replace("\n", " ").strip()
        datasets[name] = {"description": description, "params": params}
    return {"reasoning_gym": metadata.version("reasoning-gym"), "datasets": datasets}


def main() -> None:
    """Rewrite ``catalog.json`` beside this module from the installed reasoning-gym."""
    path = Path(__file__).with_name("catalog.json")
    path.write_text(json.dumps(build_catalog(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
