'''Templates of the package ``grpo-rewards new-plugin`` writes: ``{relative path: content}``.

Both are ``string.Template`` strings over ``$namespace`` (``shout``), ``$module``
(``grpo_rewards_shout``), ``$distribution`` (``grpo-rewards-shout``), ``$title`` (``Shout``) and
``$core_requirement`` (``grpo-rewards>=0.1,<0.2``). Kept as Python strings so they ship in the
core's wheel without package-data configuration.
'''

PYPROJECT = """\
[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "$distribution"
version = "0.1.0"
description = "$title rewards for GRPO training with TRL, as a grpo-rewards plugin."
readme = "README.md"
license = "Apache-2.0"
requires-python = ">=3.10"
authors = [{ name = "Your Name" }]
keywords = ["grpo", "trl", "reward", "grpo-rewards"]
dependencies = ["$core_requirement"]

[project.optional-dependencies]
test = ["pytest>=7"]

# The entry-point name is the plugin's namespace: rewards are named $namespace.<reward>.
[project.entry-points.grpo_rewards]
$namespace = "$module.plugin"

[tool.setuptools.packages.find]
where = ["src"]

[tool.pytest.ini_options]
testpaths = ["tests"]
"""

README = """\
# $distribution

$title rewards for GRPO training with [TRL](https://github.com/huggingface/trl), as a
[grpo-rewards](https://pypi.org/project/grpo-rewards/) plugin.

| reward | what it gives | unit |
|---|---|---|
| `$namespace.mentions` | 1.0 when the completion mentions `word` (default `"answer"`), else 0.0 | none |
$batch_row$environment_row
## Install and check

```bash
pip install -e ".[test]"
grpo-rewards list                        # shows the $namespace plugin and its rewards
grpo-rewards show $namespace.mentions
grpo-rewards check $namespace.mentions --with word=because
grpo-rewards check $namespace.mentions --hacks   # the completions it must not pay for (HACKS)
pytest
```

## Use

In a reward set (`grpo-rewards train run.yaml`, `grpo-rewards score`):

```yaml
rewards:
  - use: $namespace.mentions
    weight: 0.5
    with: {word: because}
```

Or directly with TRL:

```python
from trl import GRPOTrainer
from $module import make_mentions

trainer = GRPOTrainer(..., reward_funcs=[make_mentions(word="because")])
```
"""

MODULE = '''\
"""$title rewards for GRPO training with TRL.

Each reward is a per-sample scorer registered with grpo-rewards (see ``plugin.py``), and a
ready-made TRL reward function (``mentions``) with a factory for other parameters.
"""

from __future__ import annotations

${batch_std}from importlib import metadata
from typing import Any

from grpo_rewards import Reward, RewardDefinition${batch_core}

__version__ = metadata.version("$distribution")  # the one literal is in pyproject.toml


class Mentions:
    """1.0 when the completion mentions ``word``, else 0.0.

    Unit: none. Formula: ``1.0 if word in text else 0.0``, compared in lower case unless
    ``case_sensitive``. Parameters: ``word`` (non-empty), ``case_sensitive``.

    >>> score = Mentions(word="answer")
    >>> score("The Answer is 4.")
    1.0
    >>> score("No idea.")
    0.0
    """

    def __init__(self, word: str = "answer", case_sensitive: bool = False) -> None:
        if not isinstance(word, str) or not word:
            raise ValueError(f"word must be a non-empty string, not {word!r}")
        self.word = word if case_sensitive else word.lower()
        self.case_sensitive = case_sensitive

    def __call__(self, text: str, **row: Any) -> float:
        haystack = text if self.case_sensitive else text.lower()
        return 1.0 if self.word in haystack else 0.0


#: The hack corpus of ``$namespace.mentions``: completions a policy could learn to write that must not be paid
#: more than ``max_pay``. ``grpo-rewards check $namespace.mentions --hacks`` and the test
#: ``test_mentions_pays_no_hack_more_than_its_bound`` run it; add an entry for every exploit you find
#: (look-alike characters, the prompt echoed, a wall of candidates, an empty or huge completion).
HACKS = [
    {"name": "word_split_by_a_zero_width_space", "completion": "The ans\\u200bwer is 4.",
     "max_pay": {"$namespace.mentions": 0.0},
     "note": "reads as 'answer' on screen, but U+200B splits it: not the word"},
]

#: The one definition of ``$namespace.mentions``: ``plugin.py`` registers it, and the exports below
#: are built from it, so its range, units and options (a ``timeout=``, say) are the same in both.
MENTIONS = RewardDefinition(
    "$namespace.mentions",
    Mentions,
    description="1.0 when the completion mentions a word, else 0.0.",
    output_range=(0.0, 1.0),
    units="none",
    hacks=HACKS,
    example="{use: $namespace.mentions, with: {word: because}}",
)


def make_mentions(**params: Any) -> Reward:
    """``$namespace.mentions`` with parameters, as a TRL reward function.

    >>> make_mentions(word="because")(prompts=["Why?"], completions=["Because it is."])
    [1.0]
    """
    return MENTIONS.reward(**params)


#: ``GRPOTrainer(reward_funcs=[mentions])`` or ``trl grpo --reward_funcs $module.mentions``.
mentions = make_mentions()
$batch_module$environment_module'''

PLUGIN = '''\
"""The ``$namespace`` plugin: registers its rewards with grpo-rewards."""

from __future__ import annotations

import grpo_rewards

from . import MENTIONS$batch_import


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    MENTIONS.register(register)  # the same definition the module's TRL exports are built from$batch_register
$environment_hook'''

CONFTEST = '''\
"""Turn on the grpo-rewards plugin-author kit (fixtures and assert_reward_contract)."""

pytest_plugins = ["grpo_rewards.testing"]
'''

TESTS = '''\
"""Tests of the $namespace plugin, written with the grpo-rewards plugin-author kit."""

from __future__ import annotations

import doctest

import pytest
from grpo_rewards import get_reward, load_registry
from grpo_rewards.testing import assert_no_overpaid_hacks, assert_reward_contract

import $module
from $module import Mentions, make_mentions, mentions, plugin${batch_test_import}


def test_mentions_gives_one_when_the_word_is_there():
    assert mentions(prompts=["Q?"], completions=["The answer is 4."]) == [1.0]


def test_mentions_gives_zero_when_the_word_is_missing():
    assert mentions(prompts=["Q?"], completions=["No idea."]) == [0.0]


def test_mentions_reads_the_completion_in_both_formats(make_completions):
    completions = make_completions(["The ANSWER is 4.", "No idea."])
    assert mentions(prompts=["Q?", "Q?"], completions=completions) == [1.0, 0.0]


def test_case_sensitive_mentions_needs_the_exact_case():
    reward = make_mentions(word="Answer", case_sensitive=True)
    assert reward(prompts=["Q?", "Q?"], completions=["the answer", "The Answer"]) == [0.0, 1.0]


def test_an_empty_word_is_rejected():
    with pytest.raises(ValueError, match="word must be a non-empty string"):
        Mentions(word="")


def test_docstring_examples_run():
    result = doctest.testmod($module)
    assert result.attempted > 0
    assert result.failed == 0


def test_mentions_keeps_the_reward_contract():
    assert_reward_contract(mentions, output_range=(0.0, 1.0))


def test_the_plugin_registers_mentions_with_its_parameters(registered_plugin):
    with registered_plugin(plugin, "$namespace") as registry:
        info = registry.rewards["$namespace.mentions"]
        assert info.params["word"].default == "answer"
        reward = get_reward("$namespace.mentions", word="because")
        assert reward(prompts=["Why?"], completions=["Because."]) == [1.0]


def test_mentions_pays_no_hack_more_than_its_bound(registered_plugin):
    with registered_plugin(plugin, "$namespace"):
        assert_no_overpaid_hacks("$namespace.mentions")  # what grpo-rewards check --hacks runs


def test_the_installed_package_is_discovered_through_its_entry_point():
    assert "$namespace.mentions" in load_registry().rewards
$batch_tests$environment_tests'''

# -- the --batch variant: a batch-form reward with a parameter (a class) and a required column ------
BATCH_ROW = """\
| `$namespace.unique_mentions` | batch form, reads the `keyword` column: 1.0 for a completion that mentions its row's keyword and that no other completion of its prompt repeats, `repeat_value` for a repeat, 0.0 without the keyword | none |
"""

BATCH_MODULE = '''

class UniqueMentions:
    """A batch-form reward: it sees the whole group of completions of each prompt.

    1.0 for a completion that mentions its row's ``keyword`` (a required dataset column) and
    that no other completion of the same prompt repeats word for word; ``repeat_value`` for
    one that repeats another; 0.0 when the keyword is missing; ``None`` without readable text
    or a keyword. A batch reward takes its parameters in ``__init__`` (a class), receives TRL's
    call, and returns one value per completion.

    >>> reward = UniqueMentions(repeat_value=0.25)
    >>> reward(prompts=["Q", "Q", "Q"], completions=["sun is up", "sun is up", "no"], keyword=["sun"] * 3)
    [0.25, 0.25, 0.0]
    """

    def __init__(self, repeat_value: float = 0.0) -> None:
        if isinstance(repeat_value, bool) or not isinstance(repeat_value, (int, float)):
            raise ValueError(f"repeat_value must be a number, not {repeat_value!r}")
        self.repeat_value = float(repeat_value)

    def __call__(self, prompts: Any, completions: Any, completion_ids: Any = None, *, keyword: Any,
                 **kwargs: Any) -> list[float | None]:
        texts = [completion_text(c) for c in completions]
        prompts = list(prompts) if prompts is not None else [None] * len(texts)
        seen = Counter((repr(p), t) for p, t in zip(prompts, texts, strict=True) if t is not None)
        values: list[float | None] = []
        for prompt, text, word in zip(prompts, texts, keyword, strict=True):
            if text is None or not isinstance(word, str) or not word:
                values.append(None)
            elif word.lower() not in text.lower():
                values.append(0.0)
            else:
                values.append(self.repeat_value if seen[(repr(prompt), text)] > 1 else 1.0)
        return values


UNIQUE_MENTIONS = RewardDefinition(
    "$namespace.unique_mentions",
    UniqueMentions,
    form="batch",
    columns=["keyword"],
    description="1.0 for a completion that mentions its keyword and is not repeated in its group.",
    output_range=(0.0, 1.0),
)


def make_unique_mentions(**params: Any) -> Reward:
    """``$namespace.unique_mentions`` with parameters, as a TRL reward function (batch form)."""
    return UNIQUE_MENTIONS.reward(**params)


#: ``GRPOTrainer(reward_funcs=[unique_mentions])`` (the dataset needs a ``keyword`` column), or
#: ``trl grpo --reward_funcs $module.unique_mentions``.
unique_mentions = make_unique_mentions()
'''

BATCH_TESTS = '''

def test_unique_mentions_scores_a_prompts_completions_together():
    completions = ["sun up", "sun up", "sun set", "sun up"]
    values = unique_mentions(prompts=["Q", "Q", "Q", "R"], completions=completions, keyword=["sun"] * 4)
    assert values == [0.0, 0.0, 1.0, 1.0]


def test_unique_mentions_needs_the_keyword_column(registered_plugin):
    from grpo_rewards import RewardSetError, load_reward_set

    with registered_plugin(plugin, "$namespace"), pytest.raises(RewardSetError, match="needs dataset column"):
        load_reward_set([{"use": "$namespace.unique_mentions"}], columns=["prompt"])


def test_unique_mentions_keeps_the_reward_contract():
    assert_reward_contract(unique_mentions, columns={"keyword": "sun"}, output_range=(0.0, 1.0))
'''

# -- the --environment variant: an environment for TRL's tool loop that owns its reward -------------
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

#: Template values of the plain package and of the --batch variant.
PLAIN = {"batch_row": "", "batch_module": "", "batch_tests": "", "batch_import": "", "batch_register": "",
         "batch_std": "", "batch_core": "", "batch_test_import": ""}
BATCH = {"batch_row": BATCH_ROW, "batch_module": BATCH_MODULE, "batch_tests": BATCH_TESTS,
         "batch_import": ", UNIQUE_MENTIONS", "batch_register": "\n    UNIQUE_MENTIONS.register(register)",
         "batch_std": "from collections import Counter\n", "batch_core": ", completion_text",
         "batch_test_import": ", unique_mentions"}

FILES = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "src/$module/__init__.py": MODULE,
    "src/$module/plugin.py": PLUGIN,
    "tests/conftest.py": CONFTEST,
    "tests/test_$namespace.py": TESTS,
}
