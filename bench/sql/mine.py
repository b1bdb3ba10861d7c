"""Mine Spider dev rows with a real model's predictions and the peer's verdicts (nothing typed by hand).

Writes ``tests/code/data/spider/mined.jsonl`` and copies the databases it needs into
``tests/code/data/spider/database/<db_id>/<db_id>.sqlite`` (Spider's layout). Each row keeps where it came from:

- the gold query and the prediction: ``taoyds/test-suite-sql-eval``'s ``evaluation_examples/gold.txt`` (gold SQL
  and db_id) and ``predict.txt`` (a model's SQL, same line), at the commit recorded in the row;
- the database: ``hyukkyukang/text2SQL``'s copy of Spider's ``datasets/spider/database/<db_id>/<db_id>.sqlite``;
- ``peer_match``: the peer's verdict, test-suite-sql-eval's own ``exec_eval.result_eq`` (imported from the mirror,
  never copied) on both queries' rows as its ``exec_on_db`` fetches them (``text_factory`` decoding with errors
  ignored), ``order_matters`` as its ``eval_exec_match`` sets it (``'order by' in gold.lower()``); a prediction
  that raises is the peer's False (``peer_error`` says why). Rows whose gold raises are left out.

The peer needs ``sqlparse`` and ``tqdm`` (its ``parse`` module imports them), in a venv of its own::

    python3 -m venv /work/peers/code-sql && /work/peers/code-sql/bin/pip install sqlparse tqdm
    /work/peers/code-sql/bin/python bench/sql/mine.py --mirrors /work/.mirror

Mirrors come from the ``fetch`` tool (or ``git clone --mirror URL DIR/owner+name/repo``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "code" / "data" / "spider"
PEER = "taoyds/test-suite-sql-eval"
DATA = "hyukkyukang/text2SQL"
#: the dev databases of gold.txt small enough to keep in the repository (world_1, 320 KB, is left out)
DATABASES = ("flight_2", "pets_1", "tvshow")


def git(mirror: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(mirror), *args], check=True, capture_output=True).stdout


def rows_of(db: str, query: str) -> list[tuple[Any, ...]]:
    """As the peer's ``exec_on_db_`` runs a query (its connection, text factory and fetchall)."""
    conn = sqlite3.connect(db)
    conn.text_factory = lambda b: b.decode(errors="ignore")
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    args = parser.parse_args()
    peer, data = (args.mirrors / (name.replace("/", "+")) / "repo" for name in (PEER, DATA))
    peer_commit, data_commit = (git(m, "rev-parse", "HEAD").decode().strip() for m in (peer, data))
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("exec_eval.py", "parse.py"):
            (Path(tmp) / name).write_bytes(git(peer, "show", f"{peer_commit}:{name}"))
        sys.path.insert(0, tmp)
        from exec_eval import result_eq  # the peer's own function

    for db in DATABASES:
        target = OUT / "database" / db / f"{db}.sqlite"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(git(data, "show", f"{data_commit}:datasets/spider/database/{db}/{db}.sqlite"))
    gold_lines = git(peer, "show", f"{peer_commit}:evaluation_examples/gold.txt").decode().splitlines()
    pred_lines = git(peer, "show", f"{peer_commit}:evaluation_examples/predict.txt").decode().splitlines()
    out = []
    for number, (gold_line, predicted) in enumerate(zip(gold_lines, pred_lines), start=1):
        if "\t" not in gold_line:
            continue
        query, db_id = gold_line.rsplit("\t", 1)
        if db_id not in DATABASES:
            continue
        db = str(OUT / "database" / db_id / f"{db_id}.sqlite")
        try:
            gold = rows_of(db, query)
        except sqlite3.Error:
            continue
        row: dict[str, Any] = {
            "project": PEER, "path": "evaluation_examples/gold.txt", "predicted_path": "evaluation_examples/predict.txt",
            "commit": peer_commit, "line": number, "db_id": db_id, "query": query, "predicted": predicted.strip(),
            "database": {"project": DATA, "path": f"datasets/spider/database/{db_id}/{db_id}.sqlite",
                         "commit": data_commit},
            "order_matters": "order by" in query.lower()}
        try:
            got = rows_of(db, predicted)
        except sqlite3.Error as exc:
            row |= {"peer_match": False, "peer_error": f"{type(exc).__name__}: {exc}"}
        else:
            row["peer_match"] = bool(result_eq(gold, got, order_matters=row["order_matters"]))
        out.append(row)
    path = OUT / "mined.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
    matched = sum(r["peer_match"] for r in out)
    print(f"{len(out)} rows ({matched} matched by the peer) -> {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
