"""``grpo-rewards train`` with the toy plugin, for runs launched as subprocesses (torchrun)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from train_helpers import toy_registry

from grpo_rewards import GrpoRewardsError
from grpo_rewards.cli.train import train_command

if __name__ == "__main__":
    try:
        sys.exit(train_command(sys.argv[1:], registry=toy_registry()))
    except GrpoRewardsError as exc:
        print(f"grpo-rewards: error: {exc}", file=sys.stderr)
        sys.exit(2)
