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

from typing import Any

from .errors import RewardSetError
from .options import RewardOptions
from .plugin.spec import RegisterReward
from .records import RewardInfo
from .registration import RewardRegister

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from .reward import Reward


class RewardDefinition:
    """One reward: its full name (``namespace.short``), the scorer, and everything ``register`` takes.

    ``scorer`` is a per-sample scorer (``score(text, **row)``), a class whose ``__init__`` takes the
    parameters, (``form="batch"``) TRL's batch call, or a ``"package.module:Attribute"`` reference
    to one of them, imported on first use (so that registering it imports none of the reward's
    code). The other arguments are those of the ``register`` callable the ``register_rewards`` hook
    receives: ``form``, ``description``, ``columns``, ``output_range``, ``units``, ``example``,
    ``hacks`` and the execution options (``timeout=2.0`` or ``options=RewardOptions(...)``).
    """

    def __init__(self, name: str, scorer: Any, *, options: RewardOptions | None = None, **metadata: Any) -> None:
        if not isinstance(name, str) or name.count(".") != 1 or not all(name.split(".")):
            raise ValueError(f"name must be 'namespace.reward' (like 'shout.shout'), not {name!r}")
        option_values = {k: metadata.pop(k) for k in list(metadata) if k in RewardOptions.__dataclass_fields__}
        self.name = name
        self.scorer = scorer
        self.metadata = metadata
        self.options = (options or RewardOptions()).merged(option_values)
        self._info: RewardInfo | None = None

    def __repr__(self) -> str:
        return f"RewardDefinition({self.name!r}, {getattr(self.scorer, '__qualname__', self.scorer)!r})"

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]

    def register(self, register: RegisterReward) -> RewardInfo:
        """Register this reward with the ``register`` callable a ``register_rewards`` hook receives."""
        return register(self.name.split(".", 1)[1], self.scorer, options=self.options, **self.metadata)

    def info(self) -> RewardInfo:
        """The :class:`~grpo_rewards.RewardInfo` the registry keeps for this definition (built once,
        checked as registration checks it; a ``ValueError`` names each problem)."""
        if self._info is None:
            try:
                self._info = self.register(RewardRegister(self.namespace))
            except Exception as exc:  # PluginError, or a metadata keyword register does not take
                raise ValueError(f"{self.name}: {exc}") from None
        return self._info

    def reward(self, *, metric: str | None = None, options: RewardOptions | dict[str, Any] | None = None,
               inputs: dict[str, Reward] | None = None, **params: Any) -> Reward:
        """The reward as TRL calls it, with ``params``: what a plugin exports for plain TRL scripts.

        ``metric`` is the name TRL logs it under (default: the reward's name); ``options`` go over
        the registered ones; ``inputs`` maps a column to the reward whose values fill it (computed
        once per batch when that reward is also in ``reward_funcs``). Parameters are checked like a
        reward-set entry's (unknown, ill-typed, missing, or rejected by the class): a
        ``ValueError`` names each problem.
        """
        # Imported here, not at the top: a plugin's registration (``grpo-rewards list``) imports this
        # module, and the reward and its execution layer (worker pools, asyncio) are needed only
        # once a reward is built.
        from .rewardset import reward_from_info

        if isinstance(options, RewardOptions):
            options = options.changed()
        try:
            return reward_from_info(self.info(), params, metric=metric, options=options, inputs=inputs)
        except RewardSetError as exc:
            raise ValueError(str(exc)) from None
