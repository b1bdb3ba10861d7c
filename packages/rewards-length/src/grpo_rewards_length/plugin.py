"""The ``length`` plugin: registers the length rewards with grpo-rewards."""

from __future__ import annotations

import grpo_rewards

from .cosine import CosineLength
from .group import GroupRelativeLength
from .hacks import corpus
from .overlong import SoftOverlong
from .target import TargetLength
from .truncated import Truncated


@grpo_rewards.hookimpl
def register_rewards(register: grpo_rewards.RegisterReward) -> None:
    register("target", TargetLength, hacks=corpus, units="chars",
             description="Closeness to a target length: -|L - target| beyond a tolerance, or normalised to [-1, 0].",
             example="length.target with {target: 200, unit: words, normalise: true}")
    register("soft_overlong", SoftOverlong, hacks=corpus, units="tokens",
             description="DAPO soft overlong punishment: 0, then linear to -1 over the last `buffer` before max_length.", output_range=(-1.0, 0.0),
             example="length.soft_overlong with {max_length: 1024, buffer: 256}")
    register("cosine", CosineLength, hacks=corpus, units="tokens",
             description="Cosine length scaling by correctness: short correct best, short wrong worst; clamped.", output_range=(-1.0, 1.0),
             example="length.cosine with {max_length: 1024}, inputs: {correct: math.accuracy}")
    register("group_relative", GroupRelativeLength, hacks=corpus, form="batch", units="tokens",
             description="Kimi k1.5 group-relative length: 0.5 - (L - min)/(max - min) per prompt group; wrong capped at 0.", output_range=(-0.5, 0.5),
             example="length.group_relative, inputs: {correct: math.accuracy}")
    register("truncated", Truncated, hacks=corpus, units="tokens",
             description="Penalty (or multiplier on another reward) for completions cut off at the generation limit.",
             example="length.truncated with {max_length: 1024, eos_token_ids: [2]}")
