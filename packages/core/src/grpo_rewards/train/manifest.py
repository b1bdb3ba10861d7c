"""What a run records about itself: ``manifest.json``, ``config.yaml`` and the resume records.

``RUN_DIR/config.yaml`` is the resolved config; ``RUN_DIR/manifest.json`` holds the reward set with
each reward's parameters, weight, plugin distribution and version, every loaded plugin, library
versions and the config. Both are written when the first training step begins (a start that fails
earlier leaves nothing of ours behind); a resume appends a record to the manifest at that moment.
Which files a run owns and which checkpoints are whole: :mod:`.rundir`.
"""

from __future__ import annotations

import json
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from ..errors import RunDirError
from .rundir import CONFIG, MANIFEST, record_files, write_marker


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def plugin_table(registry: Any) -> dict[str, dict[str, Any]]:
    """Every plugin the registry knows: distribution, version, module, hooks, error."""
    return {
        name: {"distribution": r.distribution, "version": r.version, "module": r.module, "hooks": list(r.hooks),
               "error": r.error}
        for name, r in sorted(registry.records.items())
    }


def header_line(registry: Any) -> str:
    """The one line printed at start: the core version and every plugin with its version."""
    from .. import __version__

    parts = []
    for name, record in sorted(registry.records.items()):
        origin = f"{record.distribution} {record.version}" if record.distribution else (record.module or "?")
        parts.append(f"{name} ({origin}{', BROKEN' if record.error else ''})")
    trl = _version("trl")
    return (f"grpo-rewards {__version__} · trl {trl or '?'} · plugins: " + (", ".join(parts) or "none"))


def build_manifest(config: dict[str, Any], reward_set: Any, registry: Any, *, model_path: str) -> dict[str, Any]:
    """The manifest written to ``RUN_DIR/manifest.json`` at the start of a run."""
    from .. import __version__

    return {
        "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "grpo_rewards": __version__,
        "libraries": {name: _version(name) for name in ("trl", "transformers", "torch", "accelerate", "datasets")},
        "model": {"config": config.get("model"), "resolved": model_path},
        "rewards": reward_set.manifest(),
        "plugins": plugin_table(registry),
        "config": config,
    }


def reward_changes(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    """How the reward set of ``new`` differs from ``old`` (names, rewards, weights, params, versions)."""
    keyed_old = {r["name"]: r for r in old.get("rewards", [])}
    keyed_new = {r["name"]: r for r in new.get("rewards", [])}
    changes = [f"reward {n!r} was removed" for n in keyed_old if n not in keyed_new]
    changes += [f"reward {n!r} was added" for n in keyed_new if n not in keyed_old]
    for name in keyed_old.keys() & keyed_new.keys():
        a, b = keyed_old[name], keyed_new[name]
        for key in ("use", "weight", "params", "inputs", "options", "distribution", "version"):
            if a.get(key) != b.get(key):
                changes.append(f"reward {name!r}: {key} was {a.get(key)!r}, now {b.get(key)!r}")
    return sorted(changes)


def read_manifest(run_dir: Path) -> dict[str, Any] | None:
    path = run_dir / MANIFEST
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RunDirError(f"{path} is not valid JSON ({exc}); restore it or start a new run") from exc


def check_resume(run_dir: Path, new: dict[str, Any], *, force: bool) -> list[str]:
    """Compare the saved manifest's reward set with the current one; an error unless ``force``."""
    old = read_manifest(run_dir)
    if old is None:
        if force:
            return [f"{run_dir} has no {MANIFEST}; resuming without a reward-set check (--force)"]
        raise RunDirError(f"--resume: {run_dir} has no {MANIFEST}, so the reward set cannot be checked; "
                          "add --force to resume anyway")
    changes = reward_changes(old, new)
    if changes and not force:
        lines = "\n".join(f"  - {c}" for c in changes)
        raise RunDirError(f"--resume: the reward set differs from the one this run was started with:\n{lines}\n"
                          "Resume with the same rewards and plugin versions, or add --force to continue anyway")
    return changes


def write_start(run_dir: Path, manifest: dict[str, Any], config: dict[str, Any], *,
                resumed_from: Path | None, changes: list[str]) -> None:
    """Write ``config.yaml`` and ``manifest.json`` (rank 0 only); a resume appends, never replaces."""
    import yaml

    run_dir.mkdir(parents=True, exist_ok=True)
    text = yaml.safe_dump(config, sort_keys=False, allow_unicode=True)
    if resumed_from is None:
        if "run_id" in manifest:  # the proof this run made the folder, before any other file of it
            write_marker(run_dir, manifest["run_id"])
        record_files(run_dir, CONFIG, MANIFEST)
        (run_dir / CONFIG).write_text(text, encoding="utf-8")
        (run_dir / MANIFEST).write_text(json.dumps(manifest, indent=2, default=str) + "\n", encoding="utf-8")
        return
    step = resumed_from.name.split("-")[-1]
    record_files(run_dir, CONFIG, f"config.resume-{step}.yaml", f".{MANIFEST}.tmp", MANIFEST)
    config_path = run_dir / CONFIG
    if not config_path.is_file():
        config_path.write_text(text, encoding="utf-8")
    elif config_path.read_text(encoding="utf-8") != text:
        (run_dir / f"config.resume-{step}.yaml").write_text(text, encoding="utf-8")
    old = read_manifest(run_dir) or {key: value for key, value in manifest.items() if key != "resumes"}
    old.setdefault("resumes", []).append({
        "at": manifest["created"], "checkpoint": resumed_from.name, "changes": changes,
        "rewards": manifest["rewards"] if changes else None, "plugins": manifest["plugins"],
    })
    tmp = run_dir / f".{MANIFEST}.tmp"
    tmp.write_text(json.dumps(old, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(run_dir / MANIFEST)
