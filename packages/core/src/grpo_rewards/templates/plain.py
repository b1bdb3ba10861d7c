'''The plain package ``grpo-rewards new-plugin`` writes: its files as ``string.Template`` strings.

``$batch_*`` and ``$environment_*`` mark where the ``--batch`` (:mod:`.batch`) and ``--environment``
(:mod:`.environment`) variants insert their parts; without them those fields are empty.
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

#: The plain package's files: ``{relative path: template}``.
FILES = {
    "pyproject.toml": PYPROJECT,
    "README.md": README,
    "src/$module/__init__.py": MODULE,
    "src/$module/plugin.py": PLUGIN,
    "tests/conftest.py": CONFTEST,
    "tests/test_$namespace.py": TESTS,
}
