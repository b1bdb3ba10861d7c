"""Calls matched against gold calls: an unordered multiset, paired by maximum bipartite matching.

A call *fits* a gold call when the names are equal (BFCL's dotted names also match OpenAI's
underscored ones: ``math.factorial`` and ``math_factorial``), every argument it gives is one the
gold accepts with an accepted value (:class:`~grpo_rewards_tools.arguments.Comparison`), and it
gives every argument the gold does not let it leave out. Calls and gold calls are then paired so
that as many as possible are matched (Kuhn's augmenting paths): the order of parallel calls does
not matter, and a repeated call matches one gold call once.

>>> from grpo_rewards_tools.calls import Call
>>> from grpo_rewards_tools.rows import GoldCall
>>> from grpo_rewards_tools.arguments import Comparison
>>> gold = [GoldCall("f", {"x": (1,)}), GoldCall("f", {"x": (1, 2)})]
>>> match([Call("f", {"x": 2}), Call("f", {"x": 1})], gold, 0, Comparison()).matched
2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .arguments import Comparison
from .calls import Call
from .rows import GoldCall

MODES = ("f1", "fraction", "exact")


def names_equal(a: str, b: str) -> bool:
    return a == b or a.replace(".", "_") == b.replace(".", "_")


def fits(call: Call, gold: GoldCall, rule: Comparison) -> bool:
    """Whether ``call`` is an acceptable form of ``gold``."""
    if call.name != gold.name and not names_equal(call.name, gold.name):
        return False
    arguments, accepted = call.arguments, gold.accepted
    equal = rule.equal
    for key, value in arguments.items():
        values = accepted.get(key)
        if values is None:
            return False
        for option in values:
            if equal(value, option):
                break
        else:
            return False
    if len(arguments) < len(accepted):
        optional = gold.optional
        for key in accepted:
            if key not in arguments and key not in optional:
                return False
    return True


def max_matching(edges: Sequence[Sequence[int]], n_right: int) -> list[int]:
    """For each right vertex, the left vertex it is paired with (-1: none), in a maximum matching.

    >>> max_matching([[0, 1], [0]], 2)
    [1, 0]
    """
    owner = [-1] * n_right

    def augment(left: int, seen: list[bool]) -> bool:
        for right in edges[left]:
            if not seen[right]:
                seen[right] = True
                if owner[right] < 0 or augment(owner[right], seen):
                    owner[right] = left
                    return True
        return False

    for left in range(len(edges)):
        if edges[left]:
            augment(left, [False] * n_right)
    return owner


@dataclass(frozen=True)
class Match:
    """How a completion's calls compare with the gold: counts and the outcome label."""

    matched: int
    gold: int
    made: int
    label: str

    def value(self, mode: str) -> float:
        """The reward under ``mode``: ``exact`` 1.0 only when every call matches and none is extra;
        ``fraction`` matched / max(gold, made); ``f1`` 2·matched / (gold + made). No gold and no call: 1.0."""
        if self.gold == 0 and self.made == 0:
            return 1.0
        if mode == "exact":
            return 1.0 if self.matched == self.gold == self.made else 0.0
        if mode == "fraction":
            return self.matched / max(self.gold, self.made)
        return 2.0 * self.matched / (self.gold + self.made)


def match(calls: Sequence[Call], gold: Sequence[GoldCall], malformed: int, rule: Comparison,
          max_calls: int = 64) -> Match:
    """Match ``calls`` (and ``malformed`` unreadable calls, which match nothing) against ``gold``.

    At most ``max_calls`` calls are compared; the rest count as made calls that match nothing.
    """
    made = len(calls) + malformed
    if not gold:
        return Match(0, 0, made, "unexpected_call" if made else "matched")
    if not made:
        return Match(0, len(gold), 0, "no_call")
    compared = calls[:max_calls]
    edges = [[j for j, g in enumerate(gold) if fits(call, g, rule)] for call in compared]
    owner = max_matching(edges, len(gold))
    matched = sum(1 for o in owner if o >= 0)
    if matched == len(gold) == made:
        label = "matched"
    elif malformed and matched == len(calls):
        label = "malformed_call"  # every readable call is right (or there is none): the unreadable ones cost
    elif matched == len(gold):
        label = "extra_call"
    elif matched == made:
        label = "missing_call"
    elif matched:
        label = "partial"
    else:
        gold_names = {g.name.replace(".", "_") for g in gold}
        named = any(call.name.replace(".", "_") in gold_names for call in compared)
        label = "wrong_arguments" if named else "wrong_tool"
    return Match(matched, len(gold), made, label)
