"""``grpo-rewards train`` with the toy plugin, for runs launched as subprocesses (torchrun)."""

import sys

from train_helpers import toy_registry  # this folder is on sys.path: a script's own folder comes first

from grpo_rewards import GrpoRewardsError
from grpo_rewards.cli.train import train_command

if __name__ == "__main__":
    try:
        sys.exit(train_command(sys.argv[1:], registry=toy_registry()))
    except GrpoRewardsError as exc:
        print(f"grpo-rewards: error: {exc}", file=sys.stderr)
        sys.exit(2)
