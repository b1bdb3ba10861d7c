"""grpo-rewards-instructions: verifiable instruction following (IFEval's constraints) as GRPO rewards.

``followed`` (the share of a row's constraints a reply satisfies) and ``all_followed`` (1.0 when all
hold) are plain TRL reward functions; ``make_followed(mode="loose")`` and ``make_all_followed(...)``
take parameters. The same rewards are registered as ``instructions.followed`` and
``instructions.all_followed``, with the task ``instructions:synthetic``. ``detect_language`` and
``language_probabilities`` are the language detector (langdetect's, seeded, on numpy), which
``text.language`` uses too. Importing this package is light: each name is imported from its module on
first use.

>>> from grpo_rewards_instructions import all_followed
>>> all_followed(prompts=[None], completions=['"I love owls."'], instruction_id_list=[["startend:quotation"]],
...              kwargs=[[{}]])
[1.0]
>>> all_followed.__name__
'instructions.all_followed'
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from grpo_rewards.lazy import lazy_exports

#: public name -> module that defines it
_EXPORTS = {
    "AllFollowed": "rewards",
    "Followed": "rewards",
    "Constraint": "constraints",
    "ConstraintError": "constraints",
    "read_row": "constraints",
    "check_rows": "constraints",
    "make_synthetic": "tasks",
    "INVALID_VALUE": "definitions",
    "make_followed": "definitions",
    "make_all_followed": "definitions",
    "detect_language": "text",
    "language_probabilities": "text",
}
#: the ready-made rewards with default parameters, built once on first use
_BUILT = {
    "followed": "definitions:make_followed",
    "all_followed": "definitions:make_all_followed",
}

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, built=_BUILT, distribution="grpo-rewards-instructions")

__all__ = [
    "INVALID_VALUE",
    "AllFollowed",
    "Constraint",
    "ConstraintError",
    "Followed",
    "all_followed",
    "check_rows",
    "detect_language",
    "followed",
    "language_probabilities",
    "make_all_followed",
    "make_followed",
    "make_synthetic",
    "read_row",
]

if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    __version__: str
    from grpo_rewards import Reward

    from .constraints import Constraint, ConstraintError, check_rows, read_row
    from .definitions import INVALID_VALUE, make_all_followed, make_followed
    from .rewards import AllFollowed, Followed
    from .tasks import make_synthetic
    from .text import detect_language, language_probabilities

    followed: Reward
    all_followed: Reward
