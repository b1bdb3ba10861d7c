"""What ``grpo-rewards score`` reads and writes: rows, token ids, and the ``--out`` file (checked and
written by :mod:`.outfile`).

Rows come from a JSONL file, or from a table as a dataset is saved: Parquet (``.parquet``, needs
``datasets``), CSV (``.csv``, every field a string), a JSON file holding one
array of objects (``.json``; one object per line is JSONL), or a folder ``Dataset.save_to_disk`` wrote
(needs ``datasets``). A JSONL line is read on its own, so one bad line never stops the others: a line
that is not UTF-8, not JSON, nested too deeply, not an object, or without a usable ``completion`` is a
*bad row*, reported with its line number (a table's row: its row number, :func:`unit`) and left out.
A UTF-8 byte-order mark at the start of the file is skipped.

>>> rows, bad = parse_lines([b'\\xef\\xbb\\xbf{"completion": "4"}\\n', b'[1]\\n', b'{"completion": "5", "prompt": "p"}\\n'])
>>> [(row.line, row.data["completion"]) for row in rows]
[(1, '4'), (3, '5')]
>>> bad
[(2, "expected an object with a 'completion' field")]
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import GrpoRewardsError, unreadable_number
from .outfile import atomic_writer, check_out
from .protocol import completion_text

BOM = b"\xef\xbb\xbf"

#: Row keys that cannot reach a reward as keyword arguments: the reward call's own argument names.
RESERVED_COLUMNS = frozenset({"self", "text", "prompts", "completions"})

__all__ = ["FORMATS", "RESERVED_COLUMNS", "Row", "TokenIds", "atomic_writer", "check_out", "dump_row", "parse_lines",
           "read_rows", "unit"]


@dataclass
class Row:
    """One JSONL line: its 1-based line number and the object read from it."""

    line: int
    data: dict[str, Any]


def _completion_problem(completion: Any) -> str | None:
    if isinstance(completion, str):
        return None
    if isinstance(completion, list) and all(isinstance(m, dict) for m in completion):
        return None
    return (f"'completion' must be a string or a list of messages, not {type(completion).__name__}")


def _ids_problem(ids: Any) -> str | None:
    if ids is None:
        return None
    if isinstance(ids, list) and all(isinstance(i, int) and not isinstance(i, bool) for i in ids):
        return None
    return "'completion_ids' must be a list of integer token ids"


def parse_line(raw: bytes) -> dict[str, Any] | str:
    """The object on one line, or why it is a bad row."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return f"not JSON ({exc.msg})"
    except RecursionError:
        return "not read: JSON nested too deeply"
    except ValueError as exc:  # an integer past Python's digit limit (sys.get_int_max_str_digits)
        return f"not read: {unreadable_number(exc)}"
    return checked_row(value)


def checked_row(value: Any) -> dict[str, Any] | str:
    """A row read from a file, or why it is a bad row (no ``completion``, or one that is not a string or
    a list of messages; ``completion_ids`` that are not token ids)."""
    if not isinstance(value, dict) or "completion" not in value:
        return "expected an object with a 'completion' field"
    problem = _completion_problem(value["completion"]) or _ids_problem(value.get("completion_ids"))
    return problem if problem else value


def parse_lines(lines: Iterable[bytes]) -> tuple[list[Row], list[tuple[int, str]]]:
    """Rows and ``(line, problem)`` pairs from raw JSONL lines (blank lines are skipped)."""
    rows: list[Row] = []
    bad: list[tuple[int, str]] = []
    for number, raw in enumerate(lines, 1):
        if number == 1 and raw.startswith(BOM):
            raw = raw[len(BOM):]
        if not raw.strip():
            continue
        parsed = parse_line(raw)
        if isinstance(parsed, str):
            bad.append((number, parsed))
        else:
            rows.append(Row(number, parsed))
    return rows, bad


class Unreadable(str):
    """A table's record that could not be read, as why (a string of another type than a row's)."""


def check_records(records: Iterable[Any]) -> tuple[list[Row], list[tuple[int, str]]]:
    """Rows and ``(row number, problem)`` pairs from a table's records (numbered from 1)."""
    rows: list[Row] = []
    bad: list[tuple[int, str]] = []
    for number, record in enumerate(records, 1):
        checked = str(record) if type(record) is Unreadable else checked_row(record)
        if isinstance(checked, str):
            bad.append((number, checked))
        else:
            rows.append(Row(number, checked))
    return rows, bad


#: The suffixes of the files read as tables (and a ``.json`` file holding an array); anything else is JSONL.
TABLES = (".parquet", ".csv")
FORMATS = "JSONL, Parquet, CSV, a JSON array, or a folder written by datasets' save_to_disk"


def saved_dataset(folder: Path) -> bool:
    """Whether ``folder`` is one ``Dataset.save_to_disk`` (or ``DatasetDict.save_to_disk``) wrote."""
    return any((folder / name).is_file() for name in ("state.json", "dataset_info.json", "dataset_dict.json"))


def load_saved(folder: Path) -> Any:
    """The ``Dataset`` saved in ``folder``; a GrpoRewardsError for a ``DatasetDict`` (naming its splits) or without
    ``datasets``."""
    datasets = _datasets(folder)
    try:
        loaded = datasets.load_from_disk(str(folder))
    except Exception as exc:  # a folder save_to_disk left unfinished, files of another datasets version, ...
        raise GrpoRewardsError(f"cannot read {folder} as a saved dataset: {type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:300] if str(exc) else ''}") from exc
    if isinstance(loaded, datasets.DatasetDict):
        raise GrpoRewardsError(f"{folder} holds the splits {', '.join(loaded)}: give one of their folders "
                               f"({folder / next(iter(loaded))})")
    return loaded


def unit(path: str | Path) -> str:
    """What a row's number counts in the file at ``path``: ``line`` (JSONL), else ``row``."""
    file = Path(path)
    if file.is_dir() or file.suffix.lower() in TABLES:
        return "row"
    if file.suffix.lower() == ".json" and _json_array(file):
        return "row"
    return "line"


def _json_array(file: Path) -> bool:
    try:
        with file.open("rb") as fh:
            start = fh.read(4096).lstrip()
    except OSError:
        return False
    return start.removeprefix(BOM).lstrip().startswith(b"[")


def _datasets(file: Path) -> Any:
    try:
        import datasets
    except ImportError as exc:
        raise GrpoRewardsError(f"reading {file} needs datasets: pip install 'grpo-rewards[train]' (or datasets)") from exc
    return datasets


def _table_records(file: Path) -> list[Any]:
    """The records of a Parquet or CSV file, a JSON array, or a ``save_to_disk`` folder (raises GrpoRewardsError)."""
    suffix = file.suffix.lower()
    if file.is_dir():
        return load_saved(file).to_list()
    if suffix == ".parquet":
        # read by pyarrow into memory (nothing cached on disk), then as a datasets Dataset, which decodes the
        # columns datasets wrote in its own types (a message list with tool calls is stored as JSON text)
        datasets = _datasets(file)
        import pyarrow.parquet as pq
        from datasets.table import InMemoryTable

        try:
            return datasets.Dataset(InMemoryTable(pq.read_table(file))).to_list()
        except Exception as exc:  # pyarrow's ArrowInvalid for a file that is not Parquet, OSError, ...
            raise GrpoRewardsError(f"cannot read {file} as Parquet: {str(exc).splitlines()[0][:300]}") from exc
    if suffix == ".csv":
        import csv

        try:
            with file.open(encoding="utf-8-sig", newline="") as fh:
                records = list(csv.DictReader(fh))
        except (UnicodeDecodeError, csv.Error) as exc:
            raise GrpoRewardsError(f"cannot read {file} as CSV: {exc}") from exc
        # a line with more fields than the header: csv puts the rest under the key None (not a column name); an
        # empty cell is a missing value (None), as training's loader reads it (train/data.py), any word is text
        return [{k: None if v == "" else v for k, v in record.items()} if None not in record
                else Unreadable("more fields than the header line") for record in records]
    try:  # a JSON array of objects
        value = json.loads(file.read_bytes().removeprefix(BOM))
    except (ValueError, RecursionError) as exc:
        raise GrpoRewardsError(f"cannot read {file} as a JSON array of rows: {str(exc)[:300]}") from exc
    return list(value)


def read_rows(path: str | Path) -> tuple[list[Row], list[tuple[int, str]]]:
    """Read the rows of a file of completions (this module's docstring says which files): ``(rows, bad
    rows)``. A missing file, a folder that is no saved dataset, or a file of no readable row is an error."""
    file = Path(path)
    if not file.exists():
        raise GrpoRewardsError(f"file not found: {path}")
    if not (file.is_file() or (file.is_dir() and saved_dataset(file))):
        raise GrpoRewardsError(f"not a file: {path} (expected {FORMATS})")
    where = unit(file)
    try:
        if where == "row":
            rows, bad = check_records(_table_records(file))
        else:
            with file.open("rb") as fh:
                rows, bad = parse_lines(fh)
    except OSError as exc:
        raise GrpoRewardsError(f"cannot read {path}: {exc.strerror or exc}") from exc
    if not rows:
        first = "; ".join(f"{where} {n}: {why}" for n, why in bad[:3])
        raise GrpoRewardsError(f"no row of {path} can be scored" + (f" ({len(bad)} bad: {first})" if bad else
                                                                       " (it is empty)")
                               + (f"; expected {FORMATS}, each row with a 'completion'" if bad else ""))
    return rows, bad


# -- token ids ------------------------------------------------------------------------------------
class TokenIds:
    """``completion_ids`` for rows that have none, as TRL's GRPOTrainer passes them to rewards.

    The trainer passes the generated ids up to and including the first end-of-sequence token,
    and the completion is those ids decoded without special tokens. Offline, the completion's text
    (for a conversational completion, its final assistant message) is tokenised without special
    tokens and the EOS id is appended, unless the row says ``"truncated": true`` (a completion cut
    off at ``max_completion_length`` ends without EOS).
    """

    def __init__(self, name_or_path: str) -> None:
        try:
            from transformers import AutoTokenizer
        except ImportError as exc:
            raise GrpoRewardsError("--tokenizer needs transformers: pip install 'grpo-rewards[train]'") from exc
        from .train.model import is_local_path

        if is_local_path(name_or_path) and not Path(name_or_path).expanduser().exists():
            raise GrpoRewardsError(f"--tokenizer {name_or_path!r}: no such folder (give a Hugging Face id, or a local "
                                   "folder holding a tokenizer)")
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        except Exception as exc:  # OSError for a missing folder or an unreachable Hub name, ValueError, ...
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise GrpoRewardsError(f"cannot load tokenizer {name_or_path!r}: {first}") from exc
        eos = self.tokenizer.eos_token_id
        self.eos: int | None = eos if isinstance(eos, int) else None

    def ids(self, completion: Any, truncated: bool = False) -> list[int]:
        text = completion_text(completion) or ""
        ids = list(self.tokenizer(text, add_special_tokens=False)["input_ids"])
        if self.eos is not None and not truncated:
            ids.append(self.eos)
        return ids

    def fill(self, rows: list[Row]) -> int:
        """Give every row without ``completion_ids`` its ids; returns how many rows were filled."""
        filled = 0
        for row in rows:
            if row.data.get("completion_ids") is None:
                row.data["completion_ids"] = self.ids(row.data["completion"], row.data.get("truncated") is True)
                filled += 1
        return filled


# -- the --out file -------------------------------------------------------------------------------
def dump_row(row: dict[str, Any]) -> str:
    """One output line; a lone surrogate (valid JSON ``"\\ud800"``) stays escaped."""
    line = json.dumps(row, ensure_ascii=False)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = json.dumps(row)
    return line
