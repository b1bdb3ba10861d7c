"""What a reward returns, checked: a finite float or ``None``, optionally with an outcome label.

>>> split_label("r", (1.0, "correct"), 0)
(1.0, 'correct')
>>> check_value("r", 2, 0)
2.0
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from .errors import RewardError, quote

#: (module, name) of the other libraries' containers a column or a reward's values come in, and the library's
#: name: numpy's ``ndarray`` and torch's ``Tensor`` (arrays) and pandas' ``Series`` (not a ``Sequence``)
_CONTAINERS = {("numpy", "ndarray"): "numpy", ("torch", "Tensor"): "torch",
               ("pandas.core.series", "Series"): "pandas", ("pandas", "Series"): "pandas"}


def container_kind(value: Any) -> str | None:
    """``"numpy"``, ``"torch"`` or ``"pandas"`` for one of :data:`_CONTAINERS` (the type itself: not a numpy masked
    array, not a subclass), else None: read from the value's type, so none of the libraries is imported here.

    >>> import numpy as np
    >>> container_kind(np.zeros(2)), container_kind(np.ma.array([1.0])), container_kind([1.0])
    ('numpy', None, None)
    """
    kind = type(value)
    return _CONTAINERS.get((kind.__module__, kind.__name__))


def array_kind(value: Any) -> str | None:
    """``"numpy"`` for a numpy ``ndarray`` itself (not a masked array), ``"torch"`` for a torch tensor, else None
    (:func:`container_kind` without pandas)."""
    kind = container_kind(value)
    return None if kind == "pandas" else kind


def check_value(name: str, value: Any, index: int) -> float | None:
    """``value`` as a finite ``float`` (or ``None``), else a :class:`RewardError` naming the sample."""
    if value is None:
        return None
    if type(value) is float and math.isfinite(value):  # the usual case, without the numbers.Real check
        return value
    if array_kind(value) is not None and value.ndim == 0:
        value = value.item()  # a 0-dimensional torch tensor or numpy array, as TRL takes one (not a masked one)
    if isinstance(value, bool) or not isinstance(value, numbers.Real):  # numpy floats are Real
        raise RewardError(name, f"returned {type(value).__name__} {quote(value)}, expected a float or None", index)
    try:
        value = float(value)
    except OverflowError:  # an integer such as 10**400: as invalid as inf
        raise RewardError(name, f"returned {quote(value)}, too large for a float; expected a finite float or None",
                          index) from None
    if math.isnan(value) or math.isinf(value):
        raise RewardError(name, f"returned {value}, expected a finite float or None", index)
    return value


def split_label(name: str, value: Any, index: int) -> tuple[Any, str | None]:
    """``(value, label)`` from what a scorer returned: a value, or a ``(value, "label")`` pair."""
    if isinstance(value, tuple):
        if len(value) != 2 or not isinstance(value[1], str):
            raise RewardError(name, f"returned {quote(value)}, expected a float, None or (value, 'label')", index)
        value, label = value
        check_label(name, label, index)
        return value, label
    return value, None


def check_label(name: str, label: Any, index: int | None) -> None:
    """A label is a short word (it becomes the metric ``outcomes/<name>/<label>``)."""
    if type(label) is str and label in _GOOD_LABELS:  # checked before: a reward reuses a few labels
        return
    if not isinstance(label, str) or not label or len(label) > 40 or "/" in label or any(c.isspace() for c in label):
        raise RewardError(name, f"returned the outcome label {quote(label)}; a label is a short word "
                                "without spaces or '/' (like 'correct')", index)
    if len(_GOOD_LABELS) < 1024:
        _GOOD_LABELS.add(label)


def is_checked_label(label: Any) -> bool:
    """Whether ``label`` already passed :func:`check_label` (a quick test, no error)."""
    return type(label) is str and label in _GOOD_LABELS


#: labels that passed :func:`check_label` (bounded)
_GOOD_LABELS: set[str] = set()
