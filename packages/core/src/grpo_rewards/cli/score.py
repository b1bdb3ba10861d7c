"""``grpo-rewards score FILE --rewards SET.yaml``: a JSONL file of completions scored as training scores it."""

from __future__ import annotations

import argparse

from ..scoring import score_file
from .command import Command, new_parser, positive_int


def parser() -> argparse.ArgumentParser:
    p = new_parser("score", "Score a JSONL file of completions with a reward set, as training would score them.")
    p.add_argument("file", help="JSONL, one object per line with 'completion' (and 'prompt', dataset columns); or Parquet, CSV, a JSON "
                   "array, or a folder written by datasets' save_to_disk, with those columns")
    p.add_argument("--rewards", required=True,
                   help="reward set YAML (a file with a 'rewards:' list), or one reward's name (math.accuracy)")
    p.add_argument("--out", help="write each row with its scores ('rewards', 'labels', 'reward') to this JSONL file")
    p.add_argument("--explain", action="store_true",
                   help="with --out: also write what each reward that can explain itself says about the row")
    p.add_argument("--batch-size", type=positive_int, default=256,
                   help="rows per reward call (default 256); a prompt's rows always share one call")
    p.add_argument("--tokenizer", metavar="NAME_OR_PATH",
                   help="make completion_ids for rows without them, as GRPOTrainer passes them (needs [train])")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    return p


def run(args: argparse.Namespace) -> int:
    if args.explain and not args.out:
        parser().error("--explain writes into the --out rows: give --out FILE")
    return score_file(args.file, args.rewards, out=args.out, progress=not args.no_progress,
                      batch_size=args.batch_size, tokenizer=args.tokenizer, explain=args.explain)


COMMANDS = (Command("score", parser, run),)
