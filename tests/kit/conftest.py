"""The kit's own fixtures, imported (a non-root conftest may not set ``pytest_plugins``)."""

from grpo_rewards.testing import (  # noqa: F401
    completion_format,
    make_completions,
    pathological_completions,
    plugins,
    registered_plugin,
    reward_contract,
)
