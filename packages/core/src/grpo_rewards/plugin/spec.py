"""The hooks a grpo-rewards plugin can implement.

A plugin is a module or object with functions marked ``@grpo_rewards.hookimpl``, exposed through
an entry point in the ``grpo_rewards`` group; the entry-point name is the plugin's namespace
(``math`` → rewards ``math.accuracy``, tasks ``math:arithmetic``).
"""

from __future__ import annotations

from ..registration import EnvironmentRegister, RewardRegister, TaskRegister
from . import hookspec

#: The type of the ``register`` that :func:`register_rewards` receives (documented there). For a
#: plugin's own annotations: ``def register_rewards(register: grpo_rewards.RegisterReward) -> None``.
RegisterReward = RewardRegister


#: The type of the ``register`` that :func:`register_tasks` receives (documented there).
RegisterTask = TaskRegister


#: The type of the ``register`` that :func:`register_environments` receives (documented there).
RegisterEnvironment = EnvironmentRegister


@hookspec
def register_rewards(register: RegisterReward) -> None:
    """Register this plugin's rewards by calling ``register`` once per reward.

    ``register(name, scorer, *, form="sample", description=None, columns=None, output_range=None,
    units="none", example=None, hacks=None, options=None, **option_values)``

    - ``name``: short name, prefixed with the plugin's namespace (``"target"`` → ``length.target``);
      it has no dot of its own.
    - ``scorer``: for ``form="sample"``, a per-sample scorer ``score(text, **row)`` returning a
      ``float``, ``None`` or ``(value, "label")`` (a module-level function whose keyword-only
      parameters with defaults are the reward's parameters and keyword-only parameters without
      defaults its required dataset columns) or a class whose ``__init__`` takes the parameters
      and whose instances are such scorers; for ``form="batch"``, TRL's call
      ``f(prompts, completions, completion_ids=None, **kwargs)`` returning a list or a
      :class:`grpo_rewards.RewardResult` (values and labels), or a class whose instances are. It may
      also be given as a ``"package.module:Attribute"`` reference, imported on first use, so
      ``grpo-rewards list`` loads none of the reward's code (give ``description=`` or a docstring).
      Labels are counted and logged by the core as ``outcomes/<metric>/<label>``; a reward never
      logs outcomes itself. No parameter may be named like an option (``timeout``, ...).
    - ``columns``: dataset columns the reward reads (inferred for sample functions).
    - ``output_range``: ``(low, high)`` of the values it returns, ``low <= high``.
    - ``units``: what lengths are measured in: ``chars``, ``words``, ``tokens`` or ``none``.
    - ``options``: a :class:`grpo_rewards.RewardOptions`, the defaults of how the core runs it
      (``timeout``, ``timeout_value``, ``on_error``, ``error_value``, ``workers``, ``max_chars``,
      ``too_large_value``, ``worker_safe``, ``invalid_value``); its fields may also be given as
      keywords (``register("slow", slow, timeout=2.0)``). ``worker_safe=False`` says the code
      cannot run in a worker process, so it can have no ``timeout``.
    - ``example``: a one-line example shown by ``grpo-rewards show``.
    - ``hacks``: the reward's hack corpus: degenerate completions and the most it may pay each
      (see :mod:`grpo_rewards.hacks`; ``()`` when no exploit is known), run by
      ``grpo-rewards check NAME --hacks``.

    Example::

        @grpo_rewards.hookimpl
        def register_rewards(register):
            register("shout", shout, description="1.0 when the answer is upper case")
    """


@hookspec
def register_tasks(register: RegisterTask) -> None:
    """Register datasets (verifiable tasks) that ``grpo-rewards train`` can use by name.

    ``register(name, factory, *, description=None, columns=None, default_rewards=None, params=None)``

    - ``name``: short name, prefixed with the namespace and a colon (``"arithmetic"`` →
      ``math:arithmetic``).
    - ``factory(n: int, seed: int, **params) -> list[dict]``: rows with a ``prompt`` column plus the
      columns the task's rewards read (``solution`` for math). Deterministic for a seed.
    - ``columns``: the columns every row has.
    - ``default_rewards``: a reward-set list (``[{"use": ..., "weight": ...}]``) suited to the task.
    - ``environment``: the environment its rows need (a registered name, ``"tools.calculator"``, or
      ``{"use": name, "with": {...}}``): ``grpo-rewards train`` then runs TRL's tool loop with it
      unless the config names another (``environment:``).
    - ``params``: the task's parameters, ``{name: {"type": int, "default": 2}}`` (a type or its
      name as text; no ``default``: required). Without it they are read from the factory's
      signature after ``n`` and ``seed``. ``grpo-rewards show`` lists them and a training config
      that names another is refused; only a factory that takes ``**params`` and declares none
      receives any parameter unchecked.

    Example::

        @grpo_rewards.hookimpl
        def register_tasks(register):
            register("arithmetic", make_arithmetic, columns=["prompt", "solution"])
    """


@hookspec
def register_environments(register: RegisterEnvironment) -> None:
    """Register environments for TRL's tool loop (``GRPOTrainer(environment_factory=...)``).

    ``register(name, factory, *, description=None, reward=None, default_rewards=None, example=None,
    hacks=None)``

    - ``name``: short name, prefixed with the namespace and a dot like a reward's (``"calculator"``
      → ``tools.calculator``); a plugin cannot register a reward and an environment of one name.
    - ``factory``: a class (or a function returning an instance), or a ``"package.module:Class"``
      reference imported on first use. Its keyword parameters are the environment's parameters
      (``environment: {use: ..., with: {...}}`` in a training config). An instance follows TRL's
      contract: ``reset(**row)`` before each rollout (it gets the dataset row; a string it returns
      is appended to the prompt), every public method is a tool (type hints and a docstring with an
      ``Args:`` section give its JSON schema), and an optional ``get_reward()`` scores the rollout
      from the environment's state; it may set ``self.outcome`` to a label first. Such a reward is
      logged under the environment's name and counted once.
    - ``description``: one line (default: the first paragraph of the docstring).
    - ``reward``: whether it owns a reward (default: whether the class defines ``get_reward``).
    - ``default_rewards``: a reward-set list a run with this environment adds when the config gives none.
    - ``example``, ``hacks``: as for a reward; the hack corpus of an environment that owns a reward
      is run by ``grpo-rewards check NAME --hacks``.

    Example::

        @grpo_rewards.hookimpl
        def register_environments(register):
            register("calculator", "my_plugin.calc:Calculator")
    """
