"""Turn on the grpo-rewards plugin-author kit (fixtures and assert_reward_contract)."""

pytest_plugins = ["grpo_rewards.testing"]
