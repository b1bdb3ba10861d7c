"""A reward defined once: the ``register(...)`` entry and the TRL export come from one definition.

A plugin both registers its rewards (for reward sets, ``grpo-rewards score/train/show``) and
exports ready TRL reward functions (for ``GRPOTrainer(reward_funcs=[...])`` and
``trl grpo --reward_funcs package.name``). Written twice, the two drift: a ``timeout`` or
``output_range`` given to ``register`` is missing from the export. A :class:`RewardDefinition`
holds everything once; ``.register(register)`` is the plugin's registration and ``.reward(**params)``
builds the export with the same name, form, columns, units and options.

>>> from grpo_rewards import RewardDefinition
>>> def shout(text: str, *, min_ratio: float = 0.5, **row) -> float:
...     '''1.0 when at least min_ratio of the letters are upper case.'''
...     letters = [c for c in text if c.isalpha()]
...     return float(bool(letters) and sum(c.isupper() for c in letters) / len(letters) >= min_ratio)
>>> SHOUT = RewardDefinition("shout.shout", shout, output_range=(0.0, 1.0), max_chars=10_000)
>>> reward = SHOUT.reward(min_ratio=0.8)          # what a TRL script imports
>>> reward.__name__, reward.options.max_chars
('shout.shout', 10000)
>>> reward(prompts=["Say hi"], completions=["HI THERE"])
[1.0]
>>> # and in plugin.py:  @grpo_rewards.hookimpl  def register_rewards(register): SHOUT.register(register)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .options import RewardOptions

if TYPE_CHECKING:
    from .hookspecs import RegisterReward
    from .registry import RewardInfo


class RewardDefinition:
    """One reward: its full name (``namespace.short``), the scorer, and everything ``register`` takes.

    ``obj`` is a per-sample scorer (``score(text, **row)``), a class whose ``__init__`` takes the
    parameters, or (``form="batch"``) TRL's batch call. The other arguments are those of the
    ``register`` callable the ``register_rewards`` hook receives: ``form``, ``description``,
    ``columns``, ``output_range``, ``units``, ``example``, ``hacks`` and the execution options
    (``timeout=2.0`` or ``options=RewardOptions(...)``).
    """

    def __init__(self, name: str, obj: Any, *, options: RewardOptions | None = None, **metadata: Any) -> None:
        if not isinstance(name, str) or name.count(".") != 1 or not all(name.split(".")):
            raise ValueError(f"name must be 'namespace.reward' (like 'shout.shout'), not {name!r}")
        option_values = {k: metadata.pop(k) for k in list(metadata) if k in RewardOptions.__dataclass_fields__}
        self.name = name
        self.obj = obj
        self.metadata = metadata
        self.options = (options or RewardOptions()).merged(option_values) if option_values else (
            options or RewardOptions())

    def __repr__(self) -> str:
        return f"RewardDefinition({self.name!r}, {getattr(self.obj, '__qualname__', self.obj)!r})"

    def register(self, register: RegisterReward) -> RewardInfo:
        """Register this reward with the ``register`` callable a ``register_rewards`` hook receives."""
        return register(self.name.split(".", 1)[1], self.obj, options=self.options, **self.metadata)

    def _registry(self) -> Any:
        """A registry holding only this definition, registered exactly as its plugin registers it."""
        from .hookspecs import hookimpl
        from .plugins import Plugins
        from .registry import Registry

        namespace = self.name.split(".", 1)[0]
        definition = self

        class _Plugin:
            @hookimpl
            def register_rewards(self, register: RegisterReward) -> None:
                definition.register(register)

        plugins = Plugins()
        plugins.add(_Plugin(), namespace)
        registry = Registry(plugins)
        record = registry.records[namespace]
        if not record.ok:
            raise ValueError(f"{self.name}: {record.error}")
        return registry

    def info(self) -> Any:
        """The :class:`~grpo_rewards.registry.RewardInfo` the registry keeps for this definition."""
        return self._registry().rewards[self.name]

    def reward(self, **params: Any) -> Any:
        """The reward as TRL calls it, with ``params``: what a plugin exports for plain TRL scripts.

        Parameters are checked like a reward-set entry's (unknown, ill-typed, missing, or rejected
        by the class): a ``ValueError`` names each problem.
        """
        from .errors import RewardSetError
        from .rewardset import load_one

        try:
            return load_one(self.name, params, registry=self._registry())[0]
        except RewardSetError as exc:
            raise ValueError(str(exc)) from None
