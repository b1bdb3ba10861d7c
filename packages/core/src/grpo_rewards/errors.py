"""Every error grpo-rewards raises on purpose, in one place, and the one YAML reader.

The tree::

    GrpoRewardsError                 base of every error below; catch it to catch them all
    ├── PluginError                  a plugin failed to load, or two plugins claim one name
    ├── RewardNotFoundError          an unknown reward name (also a KeyError)
    ├── TaskNotFoundError            an unknown task name (also a KeyError)
    ├── EnvironmentNotFoundError     an unknown environment name (also a KeyError)
    ├── RewardError                  a reward raised or broke the contract on a batch
    ├── ExecutionError               an execution backend cannot be used (Ray missing or unreachable)
    │   └── RolloutLost              an environment's call on Ray did not run (actor or cluster lost, deadline)
    ├── ProblemsError                a list of problems found in one pass (``.problems``)
    │   ├── RewardSetError           a reward set failed validation
    │   └── ConfigError              a training config failed validation
    ├── DatasetError                 a training dataset cannot be loaded or lacks a column
    ├── ModelError                   a model cannot be found or prepared
    ├── RunDirError                  an output dir cannot be used as asked
    ├── RunComplete                  --resume of a run that already finished (not a failure: exit 0)
    ├── TrainError                   training stopped; says how to continue
    ├── PlotError                    nothing to plot, or no run to read
    ├── SchemaProblem                a JSON Schema that cannot be used: not one, a remote or broken $ref
    └── NotApplicable                a row a reward does not score (another task's row): not a failure

Messages quote user values through :func:`quote`, which caps their size without building the
whole text first (a YAML "billion laughs" stays a few hundred characters).

>>> err = RewardSetError(["entry 1: unknown reward 'x'"], "set.yaml")
>>> str(err)
"set.yaml: entry 1: unknown reward 'x'"
>>> isinstance(err, ProblemsError), err.problems
(True, ["entry 1: unknown reward 'x'"])
>>> quote("x" * 500)[:12], len(quote("x" * 500)) < 100
("'xxxxxxxxxxx", True)
"""

from __future__ import annotations

import difflib
import functools
import re
import reprlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

#: How many characters of a quoted value a message shows at most.
QUOTE_LIMIT = 80

_repr = reprlib.Repr()
_repr.maxlevel = 3
_repr.maxstring = QUOTE_LIMIT
_repr.maxother = QUOTE_LIMIT
_repr.maxlong = 40
for _attr in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque", "maxarray"):
    setattr(_repr, _attr, 6)


def quote(value: Any) -> str:
    """``repr(value)`` capped at about :data:`QUOTE_LIMIT` characters, never built in full.

    >>> quote([[1, 2, 3]] * 100)
    '[[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3], ...]'
    """
    text = _repr.repr(value)
    return text if len(text) <= QUOTE_LIMIT else text[: QUOTE_LIMIT - 3] + "..."


#: How many items of a list a message names before it says how many more there are.
LIST_LIMIT = 10


def capped(items: Iterable[Any], limit: int = LIST_LIMIT, sep: str = ", ") -> str:
    """The first ``limit`` items joined by ``sep``, then how many more: a message stays short.

    >>> capped(range(3)), capped(range(25), 2)
    ('0, 1, 2', '0, 1 and 23 more')
    """
    shown: list[str] = []
    more = 0
    for item in items:
        if len(shown) < limit:
            shown.append(str(item))
        else:
            more += 1
    return sep.join(shown) + (f" and {more} more" if more else "")


def did_you_mean(name: Any, known: Iterable[str], *, n: int = 1, cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest of the ``known`` names, or an empty string.

    The one spelling of a suggestion: config keys, reward and task names, plugin datasets.

    >>> did_you_mean("modle", ["model", "output_dir"]), did_you_mean("zzz", ["model"])
    (" (did you mean 'model'?)", '')
    """
    close = difflib.get_close_matches(str(name), list(known), n=n, cutoff=cutoff)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def missing_columns(missing: list[str], have: list[str], where: str, column_params: dict[str, str],
                    registered: str | None = None) -> str:
    """The one message for dataset columns a reward needs and ``where`` (the dataset, the batch) lacks.

    ``column_params`` maps a column to the parameter that names it (``solution_column``): the fix
    is then to point that parameter at the column the data has. Where no parameter names one and the reward is
    ``registered`` by a plugin under that name, the message says which command describes its columns.

    >>> missing_columns(["solution"], ["answer"], "the batch", {"solution": "solution_column"})
    "needs dataset column(s) 'solution'; the batch has: answer. To read another column, set solution_column \
(with: {solution_column: NAME} in a reward set, solution_column=NAME in Python)"
    >>> missing_columns(["gym_entry"], ["answer"], "the dataset", {}, registered="gym.accuracy")
    "needs dataset column(s) 'gym_entry'; the dataset has: answer. 'grpo-rewards show gym.accuracy' describes the \
columns it reads"
    """
    text = f"needs dataset column(s) {', '.join(map(repr, missing))}; {where} has: {capped(have) or 'none'}"
    params = [column_params[c] for c in missing if c in column_params]
    if params:
        p = params[0]
        text += (f". To read another column, set {' / '.join(params)} (with: {{{p}: NAME}} in a reward set, "
                 f"{p}=NAME in Python)")
    elif registered:
        text += f". 'grpo-rewards show {registered}' describes the columns it reads"
    return text


def unreadable_number(exc: ValueError) -> str:
    """The one message for a number Python refuses to read: an integer past its digit limit
    (``sys.get_int_max_str_digits``, 4300 by default), as JSON and YAML readers raise it.

    >>> unreadable_number(ValueError("Exceeds the limit (4300 digits) for integer string conversion: value has "
    ...                              "5000 digits; use sys.set_int_max_str_digits() to increase the limit"))
    'an integer of 5000 digits (Python reads at most 4300)'
    """
    import re

    found = re.search(r"limit \((\d+) digits\).*value has (\d+) digits", str(exc))
    if found:
        return f"an integer of {found.group(2)} digits (Python reads at most {found.group(1)})"
    return str(exc).split(";")[0]


class GrpoRewardsError(Exception):
    """Base class of every error the core raises on purpose."""


class PluginError(GrpoRewardsError):
    """A plugin failed to load, or two plugins claim the same name."""


class RewardNotFoundError(GrpoRewardsError, KeyError):
    """An unknown reward name (the message lists the closest names and an install hint)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class TaskNotFoundError(GrpoRewardsError, KeyError):
    """An unknown task name (the message lists the closest names and an install hint)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class EnvironmentNotFoundError(GrpoRewardsError, KeyError):
    """An unknown environment name (the message lists the closest names and an install hint)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class RewardError(GrpoRewardsError):
    """A reward raised or returned something outside the contract, with the reward and sample."""

    def __init__(self, reward: str, message: str, index: int | None = None) -> None:
        #: the metric name of the reward, the sample's index in the batch (if one), and what went wrong
        self.reward = reward
        self.index = index
        self.message = message
        where = f" on sample {index}" if index is not None else ""
        super().__init__(f"reward {reward!r}{where}: {message}")


class ExecutionError(GrpoRewardsError):
    """An execution backend cannot be used: Ray is not installed, or its cluster cannot be reached."""


class RolloutLost(ExecutionError, RuntimeError):
    """An environment's call on Ray did not run for a reason of Ray's (the actor or the cluster lost, a
    deadline): a tool error for TRL, and ``None`` (``env_error``) for the rollout's reward."""


class ProblemsError(GrpoRewardsError):
    """Every problem found in one pass over a file or mapping; ``problems`` lists them.

    One problem reads ``source: problem``; several read ``source has N problems:`` and one line
    each.
    """

    default_source = "input"

    def __init__(self, problems: list[str] | str, source: str | None = None) -> None:
        self.problems = [problems] if isinstance(problems, str) else list(problems)
        self.source = source or self.default_source
        if len(self.problems) == 1:
            super().__init__(f"{self.source}: {self.problems[0]}")
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            super().__init__(f"{self.source} has {len(self.problems)} problems:\n{lines}")


class RewardSetError(ProblemsError):
    """A reward set failed validation; ``problems`` lists every problem found."""

    default_source = "reward set"


class ConfigError(ProblemsError):
    """The training config has problems; the message lists every one with what to change."""

    default_source = "config"


class DatasetError(GrpoRewardsError):
    """The dataset cannot be loaded or lacks a column; the message says which and what exists."""


class ModelError(GrpoRewardsError):
    """The model cannot be found or prepared; the message says what to change."""


class RunDirError(GrpoRewardsError):
    """The output dir cannot be used as asked; the message says what to do instead."""


class RunComplete(GrpoRewardsError):
    """``--resume`` on a run that already reached its last step: nothing to do (exit 0)."""


class TrainError(GrpoRewardsError):
    """Training stopped; the message says why and how to continue from what was saved."""


class PlotError(GrpoRewardsError):
    """Nothing to plot, or no run to read; the message says where it looked."""


def read_text(path: str | Path, *, what: str = "a file", error: type[ProblemsError] = ProblemsError) -> str:
    """The UTF-8 text of ``path``, or ``error`` with one line saying why it cannot be read.

    ``what`` says what was expected there (for the message when ``path`` is a folder).
    """
    source = str(path) or "''"
    p = Path(path)
    if not str(path) or not p.exists():
        raise error("file not found", source)
    if not p.is_file():
        raise error(f"not a file (expected {what})", source)
    try:
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"not UTF-8 text: {exc.reason} at byte {exc.start}", source) from None
    except OSError as exc:
        raise error(f"cannot be read: {exc.strerror or exc}", source) from None


#: A float with an exponent that YAML 1.2 reads as a number and PyYAML's YAML 1.1 as text (no dot, or no
#: sign after the ``e``: ``1e-5``, ``1.5e3``), which a config would then refuse ("must be a number, got '1e-5'").
_EXPONENT_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$")


@functools.cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader, refusing a mapping that repeats a key (PyYAML keeps the last one silently:
    ``weight: 1`` then ``weight: 0`` would be weight 0) and reading ``1e-5`` and ``1.5e3`` as numbers."""
    import yaml

    class Loader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            if isinstance(node, yaml.MappingNode):
                seen: set[Any] = set()
                for key_node, _ in node.value:
                    if not isinstance(key_node, yaml.ScalarNode) or key_node.tag == "tag:yaml.org,2002:merge":
                        continue  # a merge (<<) may be overridden; an unhashable key is the base's error
                    key = self.construct_object(key_node)
                    if key in seen:
                        raise yaml.constructor.ConstructorError(
                            "while constructing a mapping", node.start_mark,
                            f"duplicate key {quote(key)}", key_node.start_mark)
                    seen.add(key)
            return super().construct_mapping(node, deep)

    Loader.add_implicit_resolver("tag:yaml.org,2002:float", _EXPONENT_FLOAT, list("-+.0123456789"))
    return Loader


def load_yaml(text: str) -> Any:
    """``text`` read as YAML, safely (PyYAML's safe loader), with two changes: a mapping that repeats a
    key is a ``yaml.YAMLError`` rather than its last value kept, and ``1e-5`` and ``1.5e3`` are numbers, as
    in YAML 1.2.

    >>> load_yaml("lr: 1e-5\\nsteps: 1.5e3\\nweight: 0.5")
    {'lr': 1e-05, 'steps': 1500.0, 'weight': 0.5}
    >>> try:
    ...     load_yaml("weight: 1\\nweight: 0")
    ... except Exception as exc:
    ...     print(exc.problem, exc.problem_mark.line + 1)
    duplicate key 'weight' 2
    """
    import yaml

    return yaml.load(text, Loader=_yaml_loader())  # a subclass of yaml.SafeLoader


def read_yaml(path: str | Path, *, what: str = "a YAML file", error: type[ProblemsError] = ProblemsError) -> Any:
    """The data in the YAML file ``path`` (``None`` when it is empty), or ``error`` in one line.

    Missing file, folder, bad encoding and bad YAML each give a one-line message naming the file
    (``set.yaml: not valid YAML: ... line 3, column 5``).

    >>> read_yaml("no-such-file.yaml", what="a reward set")
    Traceback (most recent call last):
    ...
    grpo_rewards.errors.ProblemsError: no-such-file.yaml: file not found
    """
    text = read_text(path, what=what, error=error)
    import yaml

    try:
        return load_yaml(text)
    except RecursionError:
        raise error("not read: nested too deeply", str(path)) from None
    except ValueError as exc:  # an integer past Python's digit limit (sys.get_int_max_str_digits)
        raise error(f"not read: {unreadable_number(exc)}", str(path)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or type(exc).__name__
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise error(f"not valid YAML: {problem}{where}", str(path)) from None


class NotApplicable(GrpoRewardsError):
    """What a :func:`check_each_row` check raises for a row the reward does not score at all: the columns it
    scores against are empty (``None``) or absent, as in a dataset that mixes tasks (its math rows have no tests,
    its code rows no gold answer). Not a problem of the row: the reward gives it ``None`` (TRL leaves it out of
    that reward's mean), labelled as the reward labels a row without its gold (``no_tests``, ``no_gold``), with
    no warning. A dataset in which *every* row is one is a problem: the reward applies to nothing.

    >>> str(NotApplicable("no tests"))
    'no tests'
    """


class SchemaProblem(GrpoRewardsError):
    """A JSON Schema that cannot be used (:mod:`grpo_rewards.jsonschemas`): not JSON, not a schema, a remote
    ``$ref`` (never fetched), a ``$ref`` to nowhere or a ``$ref`` cycle. The row's fault, never the reply's."""
