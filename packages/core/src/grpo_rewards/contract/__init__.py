"""The reward contract, checked: what ``assert_reward_contract`` and ``grpo-rewards check`` run.

Three rooms: :mod:`.cases` (the contract points and the calls that test them), :mod:`.runner`
(calls the reward on each case in a worker process under a hard deadline) and :mod:`.verdicts`
(what the calls gave, judged: one :class:`Problem` per broken point). ``grpo-rewards check`` is
:mod:`grpo_rewards.cli.check`. The point names are constants in :mod:`.cases`.

>>> def shout(prompts, completions, completion_ids=None, **kwargs):
...     return [1.0 if str(c).isupper() else 0.0 for c in completions]
>>> result = run_contract(shout, pathological=False)  # defined here, not in an importable module
>>> [problem.point for problem in result.problems]
['pickle round trip']
>>> len(result.points)  # no declared output range and no pathological inputs: 13 of the 15 points ran
13
"""

from __future__ import annotations

from .cases import COLUMN_VALUES, DEFAULT_COLUMN_VALUE, PATHOLOGICAL_INPUTS, POINTS, Case
from .runner import contract_problems, run_contract
from .verdicts import ContractResult, Problem

__all__ = ["COLUMN_VALUES", "DEFAULT_COLUMN_VALUE", "PATHOLOGICAL_INPUTS", "POINTS", "Case", "ContractResult",
           "Problem", "contract_problems", "run_contract"]
