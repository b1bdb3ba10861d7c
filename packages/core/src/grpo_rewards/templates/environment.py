'''The ``--environment`` variant of ``grpo-rewards new-plugin``: an environment for TRL's tool loop that owns its
reward, inserted into the plain package's files (:mod:`.plain`).
'''

ENVIRONMENT_ROW = """\
| `$namespace.counter` | an environment (TRL's tool loop): the tool `add(k)`, and its own reward: 1.0 when the count reaches the row's `target` column | - |
"""

ENVIRONMENT_MODULE = '''

class Counter:
    """A counter the model adds to with its ``add`` tool; 1.0 when the count reaches the row's ``target``.

    An environment for TRL's tool loop (``grpo-rewards train`` with ``environment: $namespace.counter``,
    or ``GRPOTrainer(environment_factory=Counter)``): ``reset(**row)`` before each rollout, every public
    method a tool, ``get_reward()`` the rollout's reward (logged as ``$namespace.counter``).

    >>> env = Counter()
    >>> env.reset(target=3)
    >>> env.add(1), env.add(2), env.get_reward(), env.outcome
    ('1', '3', 1.0, 'hit')
    """

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.n = start
        self.target = None
        self.outcome = "none"

    def reset(self, **row: object) -> None:
        self.n = self.start
        self.target = row.get("target")

    def add(self, k: int) -> str:
        """Add k to the counter and return the new count.

        Args:
            k: how much to add
        """
        self.n += k
        return str(self.n)

    def get_reward(self) -> float:
        self.outcome = "hit" if self.n == self.target else "miss"
        return 1.0 if self.n == self.target else 0.0
'''

ENVIRONMENT_HOOK = '''

@grpo_rewards.hookimpl
def register_environments(register: grpo_rewards.RegisterEnvironment) -> None:
    register("counter", "$module:Counter")  # by reference: listing imports none of its code
'''

ENVIRONMENT_TESTS = '''

def test_the_counter_environment_has_one_tool_and_owns_its_reward(registered_plugin):
    with registered_plugin(plugin, "$namespace") as registry:
        info = registry.environments["$namespace.counter"]
        assert info.tool_names() == ["add"] and info.owns_reward
        assert info.tool_schemas()[0]["function"]["parameters"]["required"] == ["k"]


def test_offline_scoring_replays_a_recorded_trajectory(registered_plugin):
    from grpo_rewards import load_reward_set

    call = {"role": "assistant", "content": "", "tool_calls": [
        {"type": "function", "function": {"name": "add", "arguments": {"k": 3}}}]}
    result_message = {"role": "tool", "name": "add", "content": "3"}
    trajectory = [call, result_message, {"role": "assistant", "content": "Three."}]
    with registered_plugin(plugin, "$namespace"):
        reward = load_reward_set([{"use": "$namespace.counter"}]).rewards[0]
        result = reward.score(prompts=["Reach 3", "Reach 4"], completions=[trajectory, trajectory],
                              target=[3, 4])
    assert (result.values, result.labels) == ([1.0, 0.0], ["hit", "miss"])
'''

#: Template values of the --environment variant, and of a package without it.
ENVIRONMENT = {"environment_row": ENVIRONMENT_ROW, "environment_module": ENVIRONMENT_MODULE,
               "environment_hook": ENVIRONMENT_HOOK, "environment_tests": ENVIRONMENT_TESTS}
NO_ENVIRONMENT = dict.fromkeys(ENVIRONMENT, "")
