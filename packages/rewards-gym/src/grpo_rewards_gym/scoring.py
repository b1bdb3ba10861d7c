r"""``gym.accuracy``: a completion scored by the scorer of its row's own reasoning-gym dataset.

The answer is read the way reasoning-gym's system prompts ask for it: the last
``<answer>...</answer>`` block (stripped, as reasoning-gym's ``extract_answer`` does), else the last
``\boxed{...}``. Blocks that disagree with each other are not an answer (a model that writes three
candidates must not be paid for the right one). The value is what the dataset's ``score_answer``
returns, partial credit included, clipped to [0, 1].

Each sample carries a label: ``correct`` (1.0), ``partial`` (between 0 and 1), ``wrong`` (0.0),
``no_answer`` (0.0: no block), ``several_answers`` (0.0), ``refused`` (0.0: an answer the
dataset's scorer could run as code, see below), ``unscorable`` (0.0: the dataset's
scorer raised on the answer, or returned something that is not a number), and ``None`` with
``no_gym_metadata`` for a row without the gym columns (a row from another source) or
``bad_gym_metadata`` when they cannot be read or the dataset cannot be rebuilt, ``sandbox_error`` when
the sandbox could not run a scorer, ``scorer_error`` when the scorer failed for a reason of this machine
(an ``ImportError``: a module it imports is missing; an ``OSError``), never the answer's, and
``unevaluated`` (0.0) for an integration answer that holds an unevaluated ``Integral``, ``Derivative``,
``Sum``, ``Limit`` or ``Product`` (the problem restated, not solved).

Some reasoning-gym scorers evaluate the answer or a field of the row (``sympy.parse_expr``, which calls
``eval``, in countdown, puzzle24, the integration and polynomial datasets; Python's ``eval`` in n_queens,
bitwise_arithmetic and the grid and string datasets). Which ones is found by reading the installed
reasoning-gym (:mod:`grpo_rewards_gym.scan`), and those scorers run in grpo-rewards-code's sandbox by
default (``sandbox: false``: in the worker process). Before that, an answer that is not made of its
dataset's grammar (numbers, brackets, commas, the dataset's own names) is ``refused``
(:mod:`grpo_rewards_gym.safety`), and a row whose evaluated fields (a gold answer, an ``integrand``, a
``problem``) do not fit theirs gives ``bad_gym_metadata``.
"""

from __future__ import annotations

import math
import re
import threading
import warnings
from collections import OrderedDict
from typing import Any

from grpo_rewards import completion_text
from grpo_rewards import params as checks

from . import codec
from .definitions import COLUMNS
from .safety import unevaluated_answer, unsafe_answer, unsafe_entry
from .sandboxed import SandboxFailed, score_in_sandbox
from .scan import evaluators

OUTCOMES = ("correct", "partial", "wrong", "no_answer", "several_answers", "refused", "unevaluated", "unscorable",
            "no_gym_metadata", "bad_gym_metadata", "sandbox_error", "scorer_error")


_ANSWER = re.compile(r"<answer>\s?(.*?)\s?</answer>", re.DOTALL)
_CACHE_SIZE = 256
_datasets: OrderedDict[tuple[str, str], Any] = OrderedDict()
_lock = threading.Lock()


def _answer_blocks(text: str) -> list[str]:
    """The contents of the ``<answer>`` blocks, each found from its closing tag backwards (linear time)."""
    blocks = []
    end = text.find("</answer>")
    start_from = 0
    while end != -1:
        start = text.rfind("<answer>", start_from, end)
        if start != -1:
            blocks.append(text[start + len("<answer>"):end].strip())
        start_from = end + len("</answer>")
        end = text.find("</answer>", start_from)
    return blocks


def _boxed_blocks(text: str) -> list[str]:
    r"""The contents of every ``\boxed{...}`` with balanced braces."""
    blocks = []
    at = text.find("\\boxed{")
    while at != -1:
        depth, i = 0, at + len("\\boxed")
        for i in range(at + len("\\boxed"), len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    blocks.append(text[at + len("\\boxed{"):i].strip())
                    break
        else:
            break
        at = text.find("\\boxed{", i)
    return blocks


def extract_answer(text: str, boxed: bool = True) -> tuple[str | None, str | None]:
    r"""``(answer, None)``, or ``(None, label)``: ``no_answer`` or ``several_answers``.

    >>> extract_answer("I think... <answer> 42 </answer>")
    ('42', None)
    >>> extract_answer(r"so \boxed{\frac{1}{2}}"), extract_answer("<answer>3</answer><answer>4</answer>")
    (('\\frac{1}{2}', None), (None, 'several_answers'))
    """
    blocks = _answer_blocks(text) or (_boxed_blocks(text) if boxed else [])
    if not blocks:
        return None, "no_answer"
    if len(set(blocks)) > 1:
        return None, "several_answers"
    return blocks[-1], None


def scorer_dataset(name: str, config_text: str) -> Any:
    """The reasoning-gym dataset a row's scorer belongs to, rebuilt once per (name, config) and kept."""
    key = (name, config_text)
    with _lock:
        dataset = _datasets.get(key)
        if dataset is not None:
            _datasets.move_to_end(key)
            return dataset
    from reasoning_gym import create_dataset

    dataset = create_dataset(name, **codec.loads(config_text))
    with _lock:
        _datasets[key] = dataset
        while len(_datasets) > _CACHE_SIZE:
            _datasets.popitem(last=False)
    return dataset


def cached_datasets() -> int:
    """How many rebuilt datasets this process holds."""
    with _lock:
        return len(_datasets)


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """A RuntimeWarning, once per message and process (at most 64): why samples get None."""
    if message in _warned or len(_warned) >= 64:
        return
    _warned.add(message)
    warnings.warn(message, RuntimeWarning, stacklevel=3)


def _warn_sandbox(name: str, exc: Exception) -> None:
    """Once per cause and process: the sandbox failed, so the samples of scorers that evaluate get None."""
    _warn_once(f"gym.accuracy: the sandbox could not run {name}'s scorer ({exc}); samples of the datasets whose "
               "scorers evaluate get None (label sandbox_error). Install grpo-rewards-code and bubblewrap, or set "
               "sandbox: false to score them in the worker behind the answer checks alone")


def _labelled(value: float) -> tuple[float, str]:
    return value, "correct" if value >= 1.0 else "wrong" if value <= 0.0 else "partial"


class Accuracy:
    r"""The score reasoning-gym's own dataset gives the completion's answer, in [0, 1] (unit: none).

    Exact rule: the answer is the last ``<answer>...</answer>`` block (else, with ``boxed``, the last
    ``\boxed{...}``); blocks that disagree score 0.0. The row's dataset (``gym_dataset``, rebuilt
    from ``gym_config`` once per process) scores it against the row's entry (``gym_entry``) with its
    own ``score_answer``, partial credit kept; the scorers that evaluate (:mod:`grpo_rewards_gym.scan`) run in
    grpo-rewards-code's sandbox unless ``sandbox`` is false. A scorer that raises gives 0.0 (``unscorable``); a
    row without gym columns gives ``None``. Rows come from :func:`~grpo_rewards_gym.make_rows`, ``gym:<name>``
    tasks, or a reasoning-gym dataset of the user's through :func:`~grpo_rewards_gym.rows_from`.

    >>> from grpo_rewards_gym import make_rows
    >>> row = make_rows("basic_arithmetic", 1, seed=3)[0]
    >>> score = Accuracy()
    >>> gold = row["answer"]
    >>> score(f"<think>...</think><answer>{gold}</answer>", **row)
    (1.0, 'correct')
    >>> score("<answer>banana</answer>", **row), score("no tags", **row)
    ((0.0, 'wrong'), (0.0, 'no_answer'))
    >>> score("<answer>4</answer>", solution="4")
    (None, 'no_gym_metadata')
    """

    def __init__(self, boxed: bool = True, sandbox: bool = True) -> None:
        self.boxed = checks.boolean(boxed, "boxed")
        #: scorers that evaluate (found by grpo_rewards_gym.scan) run in grpo-rewards-code's sandbox
        self.sandbox = checks.boolean(sandbox, "sandbox")

    def __repr__(self) -> str:
        return f"<{type(self).__name__} boxed={self.boxed}>"

    def warmup(self) -> None:
        """Import reasoning-gym (about a second) before the first sample's deadline starts."""
        import reasoning_gym  # noqa: F401

    def _dataset_and_entry(self, row: dict[str, Any]) -> tuple[Any, Any, str | None]:
        values = [row.get(c) for c in COLUMNS]
        if not all(isinstance(v, str) and v for v in values):
            return None, None, "no_gym_metadata"
        name, config_text, entry_text = (str(v) for v in values)
        try:
            return scorer_dataset(name, config_text), codec.loads(entry_text), None
        except Exception:  # a corrupt column, or a dataset this reasoning-gym does not have
            return None, None, "bad_gym_metadata"

    def __call__(self, text: str, **row: Any) -> tuple[float | None, str]:
        dataset, entry, problem = self._dataset_and_entry(row)
        if problem is not None:
            return None, problem
        answer, label = extract_answer(text, self.boxed)
        if answer is None:
            return 0.0, label or "no_answer"
        name = str(row["gym_dataset"])
        if unsafe_entry(name, entry) is not None:
            return None, "bad_gym_metadata"  # a tampered row: a field its own scorer evaluates is not what it writes
        if unsafe_answer(name, answer, entry):
            return 0.0, "refused"
        if unevaluated_answer(name, answer, entry):
            return 0.0, "unevaluated"
        try:
            if self.sandbox and evaluators(name):
                value = score_in_sandbox(name, str(row["gym_config"]), str(row["gym_entry"]), answer)
            else:
                value = float(dataset.score_answer(answer, entry))
        except SandboxFailed as exc:  # the environment, not the answer: left out of training, and said why
            _warn_sandbox(name, exc)
            return None, "sandbox_error"
        except (ImportError, OSError) as exc:  # this machine (a module the scorer imports is missing), not the answer
            _warn_once(f"gym.accuracy: {name}'s scorer cannot run here ({type(exc).__name__}: {exc}); its samples get "
                       "None (label scorer_error)")
            return None, "scorer_error"
        except Exception:  # reasoning-gym scorers raise on free text (prime_factorization, ...)
            return 0.0, "unscorable"
        if not math.isfinite(value):
            return 0.0, "unscorable"
        return _labelled(min(1.0, max(0.0, value)))

    def explain(self, completion: Any, **row: Any) -> dict[str, Any]:
        """What the reward read and decided: the extracted ``answer``, the ``gold``, ``label`` and ``value``."""
        text = completion_text(completion)
        answer = None if text is None else extract_answer(text, self.boxed)[0]
        value, label = (0.0, "unreadable") if text is None else self(text, **row)
        return {"answer": answer, "gold": row.get("answer"), "label": label, "value": value}
