"""``python -m grpo_rewards.train [args]``: the same as ``grpo-rewards train``, for ``torchrun -m``."""

import sys

from ..cli import main

sys.exit(main(["train", *sys.argv[1:]]))
