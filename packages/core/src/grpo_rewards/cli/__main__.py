"""``python -m grpo_rewards.cli ARGS``: the same as ``grpo-rewards ARGS``."""

import sys

from . import main

sys.exit(main())
