"""The training config: read from YAML, overridden from the command line, validated before loading.

A config has up to seven sections; each one given replaces the default's whole section::

    model: embedded                 # a Hugging Face id, a local folder, or the embedded SmolLM2
    output_dir: runs/arithmetic
    dataset:                        # one of task / path / hub, then optional n, columns, system_prompt
      task: math:arithmetic
      n: 512
      seed: 0
      params: {ops: "+"}
    rewards:                        # a reward set, or a reward-set YAML file, whole (rewards: set.yaml)
      - {use: math.accuracy, weight: 1.0}
    grpo:                           # passed unchanged to trl.GRPOConfig (values range-checked first)
      learning_rate: 1.0e-5
    peft: {r: 16, merge: true}      # optional: peft.LoraConfig fields (+ merge), GRPOTrainer(peft_config=...)
    environment: tools.calculator   # optional: TRL's environment_factory (default: the task's); see .environment

Relative paths (``output_dir``, ``dataset.path``, ``rewards: set.yaml``) are read from the current
folder, like the command line's; paths inside a reward-set file are relative to that file.

Overrides are ``key=value`` with a dotted key (``grpo.learning_rate=1e-5``, ``dataset.n=64``,
``rewards.0.weight=0.5``); the value is read as YAML (numbers like ``1e-5`` included).
"""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

from ..errors import (
    ConfigError,
    GrpoRewardsError,
    did_you_mean,
    load_yaml,
    quote,
    read_yaml,
    unreadable_number,
)
from ..local import absolute_reference
from ..outfile import atomic_writer
from .checks import grpo_range_problems, integration_problems, peft_problems
from .model import cache_dir

TOP_KEYS = ("model", "output_dir", "dataset", "rewards", "grpo", "peft", "environment")
SOURCE_KEYS = ("task", "path", "hub")
DATASET_KEYS = (*SOURCE_KEYS, "n", "seed", "params", "columns", "system_prompt")
HUB_KEYS = ("name", "config", "split", "revision")
#: GRPOConfig fields the command sets itself, with where to set them instead.
OWNED_GRPO_KEYS = {
    "output_dir": "set the top-level output_dir (or --output-dir)",
    "reward_weights": "weights come from the rewards: entries (weight:)",
}

#: The embedded default: SmolLM2-135M-Instruct on a+b, 40 steps of 2 prompts x 4 completions x at most
#: 48 tokens, about 20 minutes on 2 CPU cores; the reward curves of the recorded runs are in bench/train.md.
DEFAULT_CONFIG: dict[str, Any] = {
    "model": "embedded",
    "output_dir": "runs/arithmetic",
    "dataset": {
        "task": "math:arithmetic",
        "n": 512,
        "seed": 0,
        "params": {"ops": "+", "max_value": 20},
        # a one-line example: SmolLM2-135M then answers in one short line instead of rambling; the sum
        # is worked out before the box (with the box right after "=", it boxed wrong sums: bench/train.md)
        "system_prompt": "Reply in one line like this: 2 + 3 = 5, so the answer is \\boxed{5}",
    },
    "rewards": [
        # strict: only a \boxed{} answer counts, so the run learns the format along with the sums
        {"use": "math.accuracy", "weight": 1.0, "with": {"answer_format": "boxed"}},
        {"use": "format.boxed", "weight": 0.2},
        {"use": "length.soft_overlong", "weight": 0.2, "with": {"max_length": 48, "buffer": 16}},
    ],
    "grpo": {
        "max_steps": 40,
        "learning_rate": 1.0e-5,
        "lr_scheduler_type": "constant",
        "per_device_train_batch_size": 8,
        "num_generations": 4,
        "max_completion_length": 48,
        "temperature": 1.0,
        "beta": 0.0,
        "bf16": False,
        "activation_checkpointing": False,
        "logging_steps": 1,
        "save_steps": 20,
        "save_total_limit": 2,
        "seed": 0,
        "report_to": "none",
        "disable_tqdm": True,
    },
}


#: The one rule for relative paths in a training config, said in every error about such a path.
PATH_RULE = "relative paths in a training config (output_dir, dataset.path, rewards: FILE.yaml) are read " \
    "from the current folder, as on the command line"


def path_rule(path_text: str) -> str:
    """`` (PATH_RULE: /the/current/folder)`` for a relative path, ``""`` for an absolute one.

    >>> path_rule("/data/train.jsonl")
    ''
    """
    if Path(path_text).expanduser().is_absolute():
        return ""
    return f" ({PATH_RULE}: {Path.cwd()})"


def reward_file_set(path_text: str) -> dict[str, Any]:
    """The reward-set file a config names (``rewards: set.yaml``), whole, as the run records it.

    The run folder's ``config.yaml`` holds the set that ran, not a reference to a file that may
    change: each entry as the file writes it, a file reward's path (relative to the set file) made
    absolute, and the file's own keys (``execution:``, ``concurrent:``), which a set file means as
    much as its entries. Call it once the set has loaded (the file is known to be readable).
    """
    data = read_yaml(path_text, what="a YAML file with a 'rewards:' list", error=ConfigError)
    entries = data.get("rewards") if isinstance(data, dict) else data
    base = Path(path_text).expanduser().resolve().parent
    out = []
    for raw in entries if isinstance(entries, list) else []:
        entry = {"use": raw} if isinstance(raw, str) else dict(raw)
        if isinstance(entry.get("use"), str):
            entry["use"] = absolute_reference(entry["use"], base)
        out.append(entry)
    settings = {k: v for k, v in data.items() if k != "rewards"} if isinstance(data, dict) else {}
    return {"rewards": out, **settings}


def parse_value(text: str) -> Any:
    """A command-line value read as YAML (:func:`~grpo_rewards.errors.load_yaml`: ``1e-5`` is a number); text YAML
    cannot read is kept as text, but an integer past Python's digit limit raises ``ValueError`` and a value nested
    past the recursion limit ``RecursionError``, which :func:`apply_override` names in one line."""
    import yaml

    try:
        value = load_yaml(text) if text.strip() else ""
    except yaml.YAMLError:
        return text
    if isinstance(value, (dict, list)) and not text.lstrip().startswith(("{", "[")):
        return text  # "Answer like this: 2 + 3 = 5" is a sentence, not a mapping
    if isinstance(value, str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
    return value


def apply_override(config: dict[str, Any], item: str) -> None:
    """Apply one ``dotted.key=value`` override in place."""
    if "=" not in item:
        raise ConfigError(f"override {item!r} is not key=value (for example grpo.learning_rate=1e-5)", "command line")
    key, text = item.split("=", 1)
    parts = [p for p in key.strip().split(".")]
    if not all(parts):
        raise ConfigError(f"override {item!r} has an empty key part", "command line")
    if parts[0] not in TOP_KEYS:
        raise ConfigError(f"override {item!r}: unknown section {parts[0]!r}{did_you_mean(parts[0], TOP_KEYS)}; "
                          f"sections: {', '.join(TOP_KEYS)}", "command line")
    node: Any = config
    for i, part in enumerate(parts[:-1]):
        nxt = node[int(part)] if isinstance(node, list) and part.isdigit() and int(part) < len(node) else (
            node.get(part) if isinstance(node, dict) else None)
        if nxt is None:
            if not isinstance(node, dict):
                raise ConfigError(f"override {item!r}: {'.'.join(parts[:i + 1])} does not exist", "command line")
            nxt = node[part] = {}
        node = nxt
    last = parts[-1]
    try:
        value = parse_value(text)
    except RecursionError:
        raise ConfigError(f"override {quote(item)}: the value is nested too deeply", "command line") from None
    except ValueError as exc:
        raise ConfigError(f"override {quote(item)}: {unreadable_number(exc)}", "command line") from None
    if isinstance(node, list):
        if not (last.isdigit() and int(last) < len(node)):
            raise ConfigError(f"override {item!r}: no entry {last} in {'.'.join(parts[:-1])}", "command line")
        node[int(last)] = value
    elif isinstance(node, dict):
        node[last] = value
    else:
        raise ConfigError(f"override {item!r}: {'.'.join(parts[:-1])} is not a section", "command line")


def read_config(path: str | Path | None) -> tuple[dict[str, Any], str]:
    """The config from a YAML file merged section-wise over :data:`DEFAULT_CONFIG` (a deep copy).

    Without an ``output_dir`` of the file's, the config's is None: :func:`build_config` names the
    run folder after the dataset (:func:`default_output_dir`) once the overrides are in.
    """
    config = copy.deepcopy(DEFAULT_CONFIG)
    if path is None:
        config["output_dir"] = None  # named after the dataset once overrides are applied (build_config)
        return config, "default config"
    path = Path(path)
    source = str(path)
    data = read_yaml(path, what="a training config", error=ConfigError)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(f"expected a mapping with sections {', '.join(TOP_KEYS)}, got {type(data).__name__}",
                          source)
    if "output_dir" not in data:
        config["output_dir"] = None  # named after the dataset once overrides are applied (build_config)
    if "dataset" in data and "rewards" not in data:
        data["rewards"] = None  # the task's default rewards, or an error naming the missing section
    if data.get("grpo") is None and "grpo" in data:
        data["grpo"] = {}
    config.update(data)
    return config, source


def default_output_dir(dataset: Any) -> str:
    """The run folder of a config that names none: ``runs/`` and its task's, data file's or Hub dataset's name.

    >>> default_output_dir({"task": "math:arithmetic"}), default_output_dir({"task": "tools:sqlite"})
    ('runs/arithmetic', 'runs/sqlite')
    >>> default_output_dir({"path": "data/train.jsonl"}), default_output_dir({"hub": {"name": "openai/gsm8k"}})
    ('runs/train', 'runs/gsm8k')
    """
    name = ""
    if isinstance(dataset, dict):
        hub = dataset.get("hub")  # (another task never lands in, or is refused by, the default task's run)
        if isinstance(dataset.get("task"), str):
            name = dataset["task"].rsplit(":", 1)[-1]
        elif isinstance(dataset.get("path"), str):
            name = Path(dataset["path"].rstrip("/\\")).stem
        elif isinstance(hub, (str, dict)):
            hub_name = hub if isinstance(hub, str) else hub.get("name")
            name = hub_name.rstrip("/").rsplit("/", 1)[-1] if isinstance(hub_name, str) else ""
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "run"
    return f"runs/{name}"


def check_dataset_section(dataset: Any) -> list[str]:
    """Problems in the ``dataset:`` section's shape (its contents are checked when it loads)."""
    if not isinstance(dataset, dict):
        return [f"dataset: expected a mapping with one of {', '.join(SOURCE_KEYS)}, got {dataset!r}"]
    problems = [f"dataset: unknown key {k!r}{did_you_mean(k, DATASET_KEYS)}; keys: {', '.join(DATASET_KEYS)}"
                for k in dataset if k not in DATASET_KEYS]
    sources = [k for k in SOURCE_KEYS if dataset.get(k) is not None]
    if len(sources) != 1:
        problems.append(f"dataset: give exactly one of task:, path: or hub: (found {', '.join(sources) or 'none'})")
    hub = dataset.get("hub")
    if hub is not None:
        if isinstance(hub, str):
            hub = dataset["hub"] = {"name": hub}
        if not isinstance(hub, dict) or not isinstance(hub.get("name"), str):
            problems.append("dataset.hub: expected {name: ..., config: ..., split: ...}")
        else:
            problems += [f"dataset.hub: unknown key {k!r}{did_you_mean(k, HUB_KEYS)}; keys: {', '.join(HUB_KEYS)}"
                         for k in hub if k not in HUB_KEYS]
    n = dataset.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        problems.append(f"dataset.n: expected a positive integer, got {n!r}")
    columns = dataset.get("columns")
    if columns is not None and (not isinstance(columns, dict)
                                or not all(isinstance(k, str) and isinstance(v, str) for k, v in columns.items())):
        problems.append("dataset.columns: expected a mapping {column the trainer needs: column of the dataset}, "
                        "like {prompt: question, solution: answer}")
    if dataset.get("params") is not None and not isinstance(dataset["params"], dict):
        problems.append("dataset.params: expected a mapping of task parameters")
    system_prompt = dataset.get("system_prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        problems.append("dataset.system_prompt: expected a string")
    return problems


#: the source files that define ``GRPOConfig``'s fields: (distribution's top package, file inside it)
_GRPO_CONFIG_SOURCES = (("trl", "trainer/grpo_config.py"), ("trl", "trainer/base_config.py"),
                        ("transformers", "training_args.py"))


def _grpo_fields_key() -> str | None:
    """What the installed ``GRPOConfig`` is made of, as a short digest: the size and modification time of the
    files that define its fields (found without importing them); None when one cannot be found."""
    parts = []
    for package, relative in _GRPO_CONFIG_SOURCES:
        spec = importlib.util.find_spec(package)
        if spec is None or not spec.submodule_search_locations:
            return None
        path = Path(next(iter(spec.submodule_search_locations))) / relative
        try:
            stat = path.stat()
        except OSError:
            return None
        parts.append(f"{path}:{stat.st_size}:{stat.st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def grpo_field_names() -> frozenset[str]:
    """The fields a config's ``grpo:`` section may set (``GRPOConfig``'s ``__init__`` fields).

    Importing TRL for them takes ~5 s (torch, transformers), which made a typo in a config and
    ``--print-config`` wait that long; so the names are also written to the cache folder
    (``$GRPO_REWARDS_CACHE``, else ``~/.cache/grpo-rewards``) under a digest of the files that define them, and read
    from there while those files are unchanged. The file is never trusted beyond that: unreadable or of another
    shape, TRL is imported. Writing it is best effort (a read-only cache folder only costs the import).
    """
    key = _grpo_fields_key()
    path = cache_dir() / f"grpo-config-fields-{key}.json" if key else None
    if path is not None:
        try:
            names = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(names, list) and names and all(isinstance(n, str) for n in names):
                return frozenset(names)
        except (OSError, ValueError):
            pass
    from trl import GRPOConfig

    names = sorted(f.name for f in dataclasses.fields(GRPOConfig) if f.init)
    if path is not None and not path.is_symlink():  # a link there is not this file: what it points to is left alone
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_writer(path) as out:  # a file of this name is only ever this one's (its digest in the name)
                out.write(json.dumps(names))
        except (OSError, GrpoRewardsError):  # a read-only cache folder, or a folder of that name: not written
            pass
    return frozenset(names)


def check_grpo_section(grpo: Any) -> list[str]:
    """Unknown GRPOConfig keys and keys the command owns, each with a suggestion."""
    if not isinstance(grpo, dict):
        return [f"grpo: expected a mapping of GRPOConfig fields, got {grpo!r}"]
    if not grpo:
        return []
    fields = grpo_field_names()
    problems = []
    for key in grpo:
        if key in OWNED_GRPO_KEYS:
            problems.append(f"grpo.{key}: {OWNED_GRPO_KEYS[key]}")
        elif key not in fields:
            problems.append(f"grpo.{key}: not a GRPOConfig field{did_you_mean(key, sorted(fields))}")
    return problems


def config_problems(config: dict[str, Any]) -> list[str]:
    """Every shape and range problem of a config (rewards, data and model are checked when resolved)."""
    problems = [f"unknown key {k!r}{did_you_mean(k, TOP_KEYS)}; the sections are {', '.join(TOP_KEYS)}"
                for k in config if k not in TOP_KEYS]
    if not isinstance(config.get("output_dir"), str) or not config["output_dir"]:
        problems.append("output_dir: expected a folder path (or --output-dir)")
    problems += check_dataset_section(config.get("dataset"))
    rewards = config.get("rewards")
    if rewards is not None and not isinstance(rewards, (list, str, dict)):
        problems.append("rewards: expected a list of entries ({use: name, weight: w}) or a reward-set file")
    grpo = config.get("grpo") or {}
    problems += check_grpo_section(grpo)
    if isinstance(grpo, dict):
        problems += grpo_range_problems(grpo) + integration_problems(grpo)
    problems += peft_problems(config.get("peft"))
    return problems


def check_config(config: dict[str, Any], source: str = "config") -> None:
    """Raise every problem of :func:`config_problems` together."""
    problems = config_problems(config)
    if problems:
        raise ConfigError(problems, source)


def build_config(
    path: str | Path | None = None,
    overrides: list[str] | None = None,
    *,
    output_dir: str | None = None,
    max_steps: int | None = None,
    seed: int | None = None,
    check: bool = True,
) -> tuple[dict[str, Any], str]:
    """Read, override and (with ``check``) shape-check a config; returns ``(config, source)``."""
    config, source = read_config(path)
    if config.get("grpo") is None:
        config["grpo"] = {}
    for item in overrides or []:
        apply_override(config, item)
    if output_dir is not None:
        config["output_dir"] = output_dir
    if config.get("output_dir") is None:
        config["output_dir"] = default_output_dir(config.get("dataset"))
    if max_steps is not None:
        config["grpo"]["max_steps"] = max_steps
    if seed is not None:
        config["grpo"]["seed"] = seed
    if check:
        check_config(config, source)
    return config, source
