"""``grpo-rewards compare FILE --rewards A --rewards B``: where two graders (or a grader and a label column) disagree."""

from __future__ import annotations

import argparse

from ..compare import compare_file
from .command import Command, new_parser, positive_int


def parser() -> argparse.ArgumentParser:
    p = new_parser("compare", "Score a JSONL file with two rewards (or a reward and a label column) and show where "
                              "they disagree.")
    p.add_argument("file", help="JSONL, one object per line with 'completion' (and 'prompt', dataset columns); or Parquet, CSV, a JSON "
                   "array, or a folder written by datasets' save_to_disk, with those columns")
    p.add_argument("--rewards", action="append", required=True, metavar="SIDE",
                   help="a reward name, a reward-set file (each entry a side), SET.yaml:ENTRY, or a column of "
                        "verdicts such as 'label'; give two sides")
    p.add_argument("--out", help="write the disagreeing rows here (default FILE.disagreements.jsonl, "
                                 "replaced only when compare wrote it)")
    p.add_argument("--threshold", type=float, default=0.5, help="a value pays when >= this (default 0.5)")
    p.add_argument("--label", default=None,
                   help="the column of true verdicts for precision and recall (default 'label', when present; "
                        "a column named here must exist)")
    p.add_argument("--show", type=int, default=10, help="disagreeing rows to print (default 10)")
    p.add_argument("--batch-size", type=positive_int, default=256, help="rows per call (default 256)")
    return p


def run(args: argparse.Namespace) -> int:
    if args.show < 0:
        parser().error("--show must be >= 0")
    return compare_file(args.file, args.rewards, out=args.out, threshold=args.threshold, label_column=args.label,
                        show=args.show, batch_size=args.batch_size)


COMMANDS = (Command("compare", parser, run),)
