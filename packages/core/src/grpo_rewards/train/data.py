"""The training dataset: a plugin task, a local JSONL/Parquet/CSV file or ``save_to_disk`` folder, or a Hub dataset.

After loading, ``columns:`` renames dataset columns to the names the trainer and the rewards read
(``{prompt: question}``: the trainer's ``prompt`` is the dataset's ``question``), ``n`` keeps the
first rows, and ``system_prompt`` turns every prompt into a conversation that starts with it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..errors import DatasetError, GrpoRewardsError
from ..scoring_input import load_saved, saved_dataset
from .config import path_rule

FILE_FORMATS = {".jsonl": "json", ".json": "json", ".parquet": "parquet", ".csv": "csv"}


def describe(dataset_cfg: dict[str, Any]) -> str:
    """A short name for messages: ``task math:arithmetic``, ``file data.jsonl``, ``hub gsm8k/main``."""
    if dataset_cfg.get("task"):
        return f"task {dataset_cfg['task']}"
    if dataset_cfg.get("path"):
        return f"file {dataset_cfg['path']}"
    hub = dataset_cfg.get("hub") or {}
    return "hub " + "/".join(str(hub[k]) for k in ("name", "config") if hub.get(k))


#: the most rows a task generates for a run (``dataset.n``; a data file's rows are not limited)
MAX_TASK_ROWS = 1_000_000


def _task_rows(dataset_cfg: dict[str, Any], registry: Any) -> list[dict[str, Any]]:
    task = registry.task(dataset_cfg["task"])
    params = dict(dataset_cfg.get("params") or {})
    unknown = task.unknown_params(params)
    if unknown:
        raise DatasetError(f"dataset.params: task {task.name} has no parameter(s) {', '.join(map(repr, unknown))}; "
                           f"its parameters: {', '.join(task.params) or 'none'}")
    n = int(dataset_cfg.get("n") or 512)
    if n > MAX_TASK_ROWS:  # (100,000,000 rows took about an hour and more memory than a 24 GB machine has)
        raise DatasetError(f"dataset.n: {n:,} rows asked of task {task.name}; a task generates at most "
                           f"{MAX_TASK_ROWS:,} (about 40 s on 2 CPU cores), and a run reads max_steps x "
                           "per_device_train_batch_size / num_generations prompts per process")
    try:
        rows = task.factory(n, int(dataset_cfg.get("seed") or 0), **params)
    except (TypeError, ValueError) as exc:
        raise DatasetError(f"task {task.name} rejected its parameters {params}: {exc}") from exc
    if not isinstance(rows, list) or not rows or not all(isinstance(r, dict) for r in rows):
        raise DatasetError(f"task {task.name} returned no rows (a list of dicts was expected)")
    return rows


def _load_file(path_text: str) -> Any:
    from datasets import load_dataset

    path = Path(path_text).expanduser()
    if path.is_dir() and saved_dataset(path):
        try:
            return load_saved(path)
        except GrpoRewardsError as exc:
            raise DatasetError(f"dataset.path: {exc}") from None
    if path.is_dir():
        raise DatasetError(f"dataset.path: not a file: {path_text}{path_rule(path_text)} (a file, or a folder written "
                           "by datasets' save_to_disk)")
    if not path.is_file():
        raise DatasetError(f"dataset.path: file not found: {path_text}{path_rule(path_text)}")
    kind = FILE_FORMATS.get(path.suffix.lower())
    if kind is None:
        raise DatasetError(f"dataset.path: {path.name}: unsupported file type {path.suffix!r}; "
                           f"use one of {', '.join(FILE_FORMATS)}")
    try:
        # a CSV's empty cell is a missing value and nothing else: pandas' default also reads the words "NA", "None",
        # "null", "N/A", "nan" as missing, so a gold answer "NA" (sodium) or "None" (of the above) became None and
        # its row was not scored (score's reader, scoring_input.py, reads a CSV the same way)
        extra = {"keep_default_na": False, "na_values": [""]} if kind == "csv" else {}
        return load_dataset(kind, data_files=str(path), split="train", **extra)
    except StopIteration:  # what the JSON builder raises on a file without one row
        raise DatasetError(f"dataset.path: {path_text} has no rows") from None
    except Exception as exc:  # a malformed file: say which file and why
        raise DatasetError(f"dataset.path: cannot read {path_text} as {kind}: {type(exc).__name__}: {exc}") from exc


def _load_hub(hub: dict[str, Any]) -> Any:
    from datasets import load_dataset

    split = hub.get("split") or "train"
    try:
        return load_dataset(hub["name"], hub.get("config"), split=split, revision=hub.get("revision"))
    except Exception as exc:  # offline, unknown name or config, missing split
        raise DatasetError(f"dataset.hub: cannot load {hub['name']!r} (config {hub.get('config')!r}, split "
                           f"{split!r}): {type(exc).__name__}: {exc}") from exc


def _conversational(prompt: Any) -> bool:
    return isinstance(prompt, list) and all(isinstance(m, dict) and "role" in m for m in prompt)


def _has_text(prompt: Any) -> bool:
    """Whether a prompt says something: text that is not blank, or a conversation with a message that is."""
    if isinstance(prompt, str):
        return bool(prompt.strip())
    if _conversational(prompt):
        return any((isinstance(m.get("content"), str) and m["content"].strip()) or
                   (isinstance(m.get("content"), list) and m["content"]) for m in prompt)
    return False


def with_system_prompt(prompt: Any, system_prompt: str) -> list[dict[str, str]]:
    """A prompt as a conversation that starts with ``system_prompt``.

    >>> with_system_prompt("What is 2 + 2?", "Answer briefly.")
    [{'role': 'system', 'content': 'Answer briefly.'}, {'role': 'user', 'content': 'What is 2 + 2?'}]
    """
    if _conversational(prompt):
        rest = [m for m in prompt if m.get("role") != "system"]
        return [{"role": "system", "content": system_prompt}, *rest]
    return [{"role": "system", "content": system_prompt}, {"role": "user", "content": str(prompt)}]


def load_dataset_from_config(dataset_cfg: dict[str, Any], registry: Any) -> Any:
    """The ``datasets.Dataset`` the trainer will read, with TRL's ``prompt`` column checked."""
    from datasets import Dataset

    if dataset_cfg.get("task"):
        dataset = Dataset.from_list(_task_rows(dataset_cfg, registry))
    elif dataset_cfg.get("path"):
        dataset = _load_file(dataset_cfg["path"])
    else:
        dataset = _load_hub(dataset_cfg["hub"])
    where = describe(dataset_cfg)
    mapping = dict(dataset_cfg.get("columns") or {})
    missing = sorted(source for source in mapping.values() if source not in dataset.column_names)
    if missing:
        raise DatasetError(f"dataset.columns: {where} has no column(s) {', '.join(map(repr, missing))}; "
                           f"its columns: {', '.join(dataset.column_names)}")
    if mapping:
        renamed = {source: target for target, source in mapping.items() if source != target}
        clashes = [t for s, t in renamed.items() if t in dataset.column_names and t not in renamed]
        dataset = dataset.remove_columns(clashes) if clashes else dataset
        dataset = dataset.rename_columns(renamed)
    if "prompt" not in dataset.column_names:
        raise DatasetError(f"{where} has no 'prompt' column; map one with dataset.columns, e.g. "
                           f"columns: {{prompt: question}} (its columns: {', '.join(dataset.column_names)})")
    n = dataset_cfg.get("n")
    if n and not dataset_cfg.get("task") and len(dataset) > n:
        dataset = dataset.select(range(int(n)))
    if len(dataset) == 0:
        raise DatasetError(f"{where} has no rows")
    first = dataset[0]["prompt"]
    if not isinstance(first, str) and not _conversational(first):
        raise DatasetError(f"{where}: 'prompt' must be text or a list of chat messages, got {type(first).__name__}")
    empty = [i + 1 for i, prompt in enumerate(dataset["prompt"]) if not _has_text(prompt)]
    if empty:
        shown = ", ".join(map(str, empty[:10])) + (f" and {len(empty) - 10} more" if len(empty) > 10 else "")
        raise DatasetError(f"{where}: {len(empty)} of {len(dataset)} rows have no prompt (null, empty or only "
                           f"spaces; rows {shown}): remove them or fill them in")
    system_prompt = dataset_cfg.get("system_prompt")
    if system_prompt:
        from datasets.utils import logging as ds_logging

        shown = ds_logging.is_progress_bar_enabled()
        ds_logging.disable_progress_bar()  # keep the run's header the first thing on screen
        try:
            dataset = dataset.map(lambda row: {"prompt": with_system_prompt(row["prompt"], system_prompt)})
        finally:
            if shown:
                ds_logging.enable_progress_bar()
    return dataset


#: Tokens a chat template may add around a conversation's messages (role markers, a default system prompt).
TEMPLATE_TOKENS = 256


def _prompt_text(prompt: Any) -> str:
    if isinstance(prompt, str):
        return prompt
    return "".join(str(m.get("content") or "") for m in prompt if isinstance(m, dict))


def prompt_length_problem(dataset: Any, model_path: str, max_completion_length: int) -> str | None:
    """Why some prompts cannot be trained on with this model, or ``None``: a prompt whose tokens and
    ``max_completion_length`` do not fit in the model's context (TRL has no prompt-length limit: a
    200,000-character prompt stalls generation without a word). Only prompts whose UTF-8 size could
    exceed the room left are tokenised (a token holds at least one byte), so the check costs little.
    """
    from transformers import AutoConfig, AutoTokenizer

    try:
        config = AutoConfig.from_pretrained(model_path)
        tokenizer = AutoTokenizer.from_pretrained(model_path)
    except Exception:  # the model's own loading says what is wrong, a moment later
        return None
    context = getattr(config, "max_position_embeddings", None)
    if not isinstance(context, int) or context <= 0:
        limit = getattr(tokenizer, "model_max_length", None)
        context = limit if isinstance(limit, int) and 0 < limit < 10**7 else None
    if context is None:
        return None
    room = context - max_completion_length
    if room <= 0:
        return (f"grpo.max_completion_length {max_completion_length} leaves no room for a prompt in the model's "
                f"context of {context} tokens")
    long: list[tuple[int, int]] = []
    for i, prompt in enumerate(dataset["prompt"]):
        text = _prompt_text(prompt)
        overhead = 0 if isinstance(prompt, str) else TEMPLATE_TOKENS
        if len(text.encode("utf-8")) + overhead <= room:
            continue
        if isinstance(prompt, str):
            n = len(tokenizer(text, add_special_tokens=False)["input_ids"])
        else:
            n = len(tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=True))
        if n > room:
            long.append((i + 1, n))
    if not long:
        return None
    rows = ", ".join(f"{row} ({n:,} tokens)" for row, n in long[:5]) + (
        f" and {len(long) - 5} more" if len(long) > 5 else "")
    return (f"dataset: {len(long)} prompt(s) do not fit the model: its context is {context:,} tokens, "
            f"{max_completion_length} of them for the completion (grpo.max_completion_length), leaving {room:,} "
            f"for the prompt; rows {rows}. Shorten or remove them")

