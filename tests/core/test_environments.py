"""Environments as the third plugin kind: registration, lookup, isolation, list/show, the factory TRL
calls, and the reward of an environment that owns one (live, and replayed offline)."""

from __future__ import annotations

import json
import pickle
import re

import pytest

import grpo_rewards
from grpo_rewards.cli import main
from grpo_rewards.environment import EnvironmentFactory, call_get_reward, tool_methods
from grpo_rewards.errors import EnvironmentNotFoundError
from grpo_rewards.plugin.manager import get_plugins
from grpo_rewards.registry import load_registry, use_registry


class Counter:
    """A counter the model adds to."""

    def __init__(self, start: int = 0) -> None:
        self.start = start
        self.n = start
        self.target = None

    def reset(self, **row):
        self.n = self.start
        self.target = row.get("target")

    def add(self, k: int) -> str:
        """Add k to the counter and return the new count.

        Args:
            k: how much to add
        """
        self.n += k
        return str(self.n)

    def _private(self) -> None:
        """Not a tool."""


class Guess(Counter):
    """A counter that owns its reward: 1.0 when the count reaches the row's target."""

    def get_reward(self) -> float:
        self.outcome = "hit" if self.n == self.target else "miss"
        return 1.0 if self.n == self.target else 0.0


class EnvPlugin:
    @grpo_rewards.hookimpl
    def register_environments(self, register):
        register("counter", Counter)
        register("guess", Guess, example="add(k=2) twice reaches target 4")
        register("guess_ref", f"{__name__}:Guess")


class Clash:
    @grpo_rewards.hookimpl
    def register_rewards(self, register):
        register("same", lambda text, **row: 1.0)

    @grpo_rewards.hookimpl
    def register_environments(self, register):
        register("same", Counter)


class BrokenHook:
    @grpo_rewards.hookimpl
    def register_environments(self, register):
        raise RuntimeError("cannot start")


@pytest.fixture
def env_registry():
    plugins = get_plugins(load_entry_points=False)
    plugins.add(EnvPlugin(), "env")
    plugins.add(Clash(), "clash")
    plugins.add(BrokenHook(), "brokenenv")
    return load_registry(plugins)


def test_environments_register_under_dotted_names_with_tools_params_and_reward(env_registry):
    assert sorted(env_registry.environments) == ["env.counter", "env.guess", "env.guess_ref"]
    counter, guess = env_registry.environment("env.counter"), env_registry.environment("env.guess")
    assert counter.tool_names() == ["add"]
    assert (counter.owns_reward, guess.owns_reward) == (False, True)
    assert {n: (p.annotation, p.default) for n, p in counter.params.items()} == {"start": (int, 0)}
    assert counter.description == "A counter the model adds to."


def test_environment_by_reference_is_read_from_source_without_importing(env_registry):
    info = env_registry.environment("env.guess_ref")
    assert info.owns_reward is True and info.reference == f"{__name__}:Guess"
    assert info._factory is None  # owns_reward came from the source
    assert info.factory is Guess


def test_unknown_environment_names_the_closest(env_registry):
    with pytest.raises(EnvironmentNotFoundError, match=r"unknown environment 'env.gues'.*'env.guess'"):
        env_registry.environment("env.gues")


def test_an_environment_asked_for_as_a_reward_and_a_reward_as_an_environment_say_which_they_are(env_registry):
    # before: "unknown reward 'env.counter'" and a list of rewards, for a name `grpo-rewards list` shows
    from grpo_rewards.errors import RewardNotFoundError

    with pytest.raises(RewardNotFoundError) as caught:
        env_registry.reward("env.counter")
    assert caught.value.args[0] == (
        "'env.counter' is an environment without a reward of its own, not a reward: give it as a training config's "
        "environment: env.counter and score its rollouts with rewards (grpo-rewards show env.counter lists its tools)")
    assert env_registry.reward("env.guess").name == "env.guess"  # one that owns a reward is one
    with pytest.raises(EnvironmentNotFoundError) as caught:
        load_registry().environment("math.accuracy")
    assert caught.value.args[0] == ("'math.accuracy' is a reward, not an environment: list it under rewards:; an "
                                    "environment gives the model tools (grpo-rewards list shows them)")


def test_a_reward_and_an_environment_of_one_name_break_only_that_plugin(env_registry):
    record = env_registry.records["clash"]
    assert record.error == ("PluginError: plugin 'clash' registered 'clash.same' both as a reward and as an "
                            "environment; one name, one thing")
    assert "clash.same" not in env_registry.rewards and "clash.same" not in env_registry.environments
    assert "env.counter" in env_registry.environments


def test_a_broken_environment_hook_is_isolated(env_registry):
    assert env_registry.records["brokenenv"].error == "RuntimeError in register_environments: cannot start"
    assert env_registry.records["env"].ok


def test_tool_schema_is_transformers_reader_output(env_registry):
    from transformers.utils import get_json_schema

    schemas = env_registry.environment("env.counter").tool_schemas()
    assert schemas == [get_json_schema(Counter().add)]
    assert schemas[0]["function"]["parameters"] == {
        "type": "object", "properties": {"k": {"type": "integer", "description": "how much to add"}},
        "required": ["k"]}


def test_factory_hides_get_reward_from_trl_and_the_core_still_reads_it(env_registry):
    factory = EnvironmentFactory(env_registry.environment("env.guess"), {"start": 1})
    env = factory()
    assert env.get_reward is None  # TRL's inspect.getmembers(ismethod) finds no get_reward
    assert [m.__name__ for m in tool_methods(env)] == ["add"]
    assert isinstance(env, Guess) and type(env).__name__ == "Guess"
    env.reset(target=3)
    env.add(2)
    assert (call_get_reward(env), env.outcome) == (1.0, "hit")
    again = pickle.loads(pickle.dumps(factory))()
    assert again.n == 1 and again._grpo_rewards_environment == "env.guess"


def test_environment_reward_scores_live_environments_with_labels(env_registry):
    reward = grpo_rewards.load_reward_set([{"use": "env.guess"}], registry=env_registry).rewards[0]
    envs = [EnvironmentFactory(env_registry.environment("env.guess"))() for _ in range(3)]
    for env, target, adds in zip(envs, (2, 2, 5), (2, 1, 5)):
        env.reset(target=target)
        env.add(adds)
    other = EnvironmentFactory(env_registry.environment("env.counter"))()
    result = reward.score(prompts=["p"] * 4, completions=["c"] * 4, environments=[*envs, other])
    assert result.values == [1.0, 0.0, 1.0, None]
    assert result.labels == ["hit", "miss", "hit", "other_environment"]


def env_reward(name: str, cls: type, namespace: str):
    """The reward of environment ``cls`` registered as ``namespace.name`` by a plugin of its own."""
    plugins = get_plugins(load_entry_points=False)
    plugins.add(type("P", (), {"register_environments": grpo_rewards.hookimpl(
        lambda self, register: register(name, cls))})(), namespace)
    return grpo_rewards.load_reward_set([{"use": f"{namespace}.{name}"}], registry=load_registry(plugins)).rewards[0]


#: what the Returns environment's get_reward returns, by the row's ``value``
RETURNS = {"nan": float("nan"), "true": True, "zero": 0, "text": "1.0", "inf": float("inf"),
           "big": 10 ** 400, "list": [1.0]}


class Returns:
    """An environment whose get_reward returns what the row's ``value`` names."""

    def reset(self, **row):
        self.value = row.get("value")

    def noop(self) -> str:
        """Nothing."""
        return ""

    def get_reward(self):
        return RETURNS[self.value]


def test_get_rewards_value_is_read_as_trl_reads_it_and_what_trl_cannot_take_is_env_error_not_a_crash():
    # before: NaN or inf raised RewardError out of the reward (one rollout ended the run); "1.0" paid 1.0
    reward = env_reward("returns", Returns, "ret")
    names = list(RETURNS)
    with pytest.warns(RuntimeWarning) as caught:
        result = reward.score(prompts=["p"] * len(names), completions=[[]] * len(names), value=names)
    assert dict(zip(names, zip(result.values, result.labels))) == {
        "nan": (None, "none"), "true": (1.0, "ok"), "zero": (0.0, "ok"), "text": (None, "env_error"),
        "inf": (None, "env_error"), "big": (None, "env_error"), "list": (None, "env_error")}
    assert [str(w.message) for w in caught][:2] == [
        "environment ret.returns: raised RewardError: reward 'ret.returns.get_reward' on sample 3: returned str "
        "'1.0', expected a float or None",
        "environment ret.returns: raised RewardError: reward 'ret.returns.get_reward' on sample 4: returned inf, "
        "expected a finite float or None"]


class Labelled:
    """An environment whose get_reward pays 0.5 and sets the outcome the row's ``label`` names."""

    def reset(self, **row):
        self.label = row.get("label")

    def noop(self) -> str:
        """Nothing."""
        return ""

    def get_reward(self):
        self.outcome = self.label
        return 0.5


def test_an_outcome_that_is_not_a_label_keeps_its_value_with_a_warning():
    # before: an outcome with a space or a '/' raised RewardError out of the reward (the run ended); TRL pays the value
    reward = env_reward("labelled", Labelled, "lab")
    labels = ["right answer", "a/b", "correct", 7, ""]
    with pytest.warns(RuntimeWarning) as caught:
        result = reward.score(prompts=["p"] * len(labels), completions=[[]] * len(labels), label=labels)
    assert (result.values, result.labels) == ([0.5] * 5, ["ok", "ok", "correct", "ok", "ok"])
    assert [str(w.message) for w in caught] == [
        "environment lab.labelled: reward 'lab.labelled.outcome' on sample 0: returned the outcome label "
        "'right answer'; a label is a short word without spaces or '/' (like 'correct')",
        "environment lab.labelled: reward 'lab.labelled.outcome' on sample 1: returned the outcome label 'a/b'; a "
        "label is a short word without spaces or '/' (like 'correct')"]


def test_offline_a_row_without_an_environment_is_another_environments_as_in_training():
    # before: replayed into a fresh instance and paid its reward (Labelled pays 0.5 to anything), where training
    # gave that row no environment (NoEnvironment) and the reward None
    reward = env_reward("labelled", Labelled, "lab")
    result = reward.score(prompts=["p", "q"], completions=[[], []], label=["hit", "hit"], environment=["lab", None])
    assert (result.values, result.labels) == ([0.5, None], ["hit", "other_environment"])

def _trajectory(*calls: tuple[int, str]) -> list[dict]:
    messages: list[dict] = []
    for k, output in calls:
        messages.append({"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "add", "arguments": {"k": k}}}]})
        messages.append({"role": "tool", "name": "add", "content": output})
    messages.append({"role": "assistant", "content": "done"})
    return messages


def test_offline_score_replays_recorded_tool_calls_into_a_fresh_environment(env_registry):
    reward = grpo_rewards.load_reward_set([{"use": "env.guess", "with": {"start": 1}}],
                                          registry=env_registry).rewards[0]
    completions = [
        _trajectory((1, "2"), (2, "4")),            # 1 + 1 + 2 = 4: hit
        _trajectory((1, "2")),                      # 2: miss
        _trajectory((1, "7")),                      # recorded output differs from the replay
        [{"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "add", "arguments": "{\"k\": 3}"}}]}],  # JSON text: 4
        [{"role": "assistant", "content": "", "tool_calls": [
            {"type": "function", "function": {"name": "os_system", "arguments": {}}}]}],  # no such tool: error result
    ]
    with pytest.warns(RuntimeWarning, match="replayed tool call gave another output"):
        result = reward.score(prompts=["p"] * 5, completions=completions, target=[4] * 5)
    assert result.values == [1.0, 0.0, None, 1.0, 0.0]
    assert result.labels == ["hit", "miss", "replay_mismatch", "hit", "miss"]


def test_list_shows_environments_in_their_own_lines_and_json(env_registry, capsys):
    with use_registry(env_registry):
        assert main(["list"]) == 0
        text = capsys.readouterr().out
        assert "  env.counter                  (environment) A counter the model adds to.\n" in text
        assert "brokenenv (test_environments) — BROKEN: RuntimeError in register_environments: cannot start" in text
        assert main(["list", "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert main(["show", "env.counter", "--json"]) == 0
        shown = json.loads(capsys.readouterr().out)
    env = next(p for p in data["plugins"] if p["name"] == "env")
    counter = next(e for e in env["environments"] if e["name"] == "env.counter")
    assert counter["owns_reward"] is False
    assert counter["params"] == {"start": {"type": "int", "required": False, "default": 0}}
    assert "tools" not in counter  # the schemas import the class (and transformers): show --json has them
    assert [t["function"]["name"] for t in shown["tools"]] == ["add"]


def test_show_prints_each_tool_schema(env_registry, capsys):
    with use_registry(env_registry):
        assert main(["show", "env.guess"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("env.guess  (environment, from plugin env)\n\n"
                          "A counter that owns its reward: 1.0 when the count reaches the row's target.\n\n"
                          "reward:    owns one (get_reward), logged as env.guess\n"
                          "parameters (environment.with):\n  start: int (default 0)\n"
                          "tools (JSON schemas, as TRL puts them into the prompt):\n")
    assert '"name": "add"' in out and '"description": "how much to add"' in out
    assert out.endswith("example:   add(k=2) twice reaches target 4\n")


def test_score_command_replays_recorded_trajectories_of_a_jsonl_file(env_registry, tmp_path, capsys):
    rows = [{"prompt": "reach 4", "completion": _trajectory((1, "2"), (2, "4")), "target": 4},
            {"prompt": "reach 4", "completion": _trajectory((2, "3")), "target": 4},
            {"prompt": "reach 9", "completion": [{"role": "assistant", "content": "Score: 1.0"}], "target": 9}]
    data = tmp_path / "trajectories.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    reward_set = tmp_path / "set.yaml"
    reward_set.write_text("rewards:\n  - use: env.guess\n    with: {start: 1}\n")
    out = tmp_path / "scored.jsonl"
    with use_registry(env_registry):
        assert main(["score", str(data), "--rewards", str(reward_set), "--out", str(out), "--no-progress"]) == 0
    scored = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["rewards"]["env.guess"] for r in scored] == [1.0, 0.0, 0.0]
    assert "outcomes of env.guess: hit 1, miss 2\n" in capsys.readouterr().out


def test_the_python_blocks_of_docs_agentic_md_run():
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "agentic.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/agentic.md", "exec"), {"__name__": "agentic_doc"})
