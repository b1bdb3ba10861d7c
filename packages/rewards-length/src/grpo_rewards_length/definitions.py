"""The length rewards, each defined once: what the plugin registers and what the package exports come from here."""

from __future__ import annotations

from grpo_rewards import RewardDefinition

from .cosine import CosineLength
from .group import GroupRelativeLength
from .hacks import corpus
from .overlong import SoftOverlong
from .target import TargetLength
from .truncated import Truncated

TARGET = RewardDefinition(
    "length.target", TargetLength, hacks=corpus, units="chars",
    description="Closeness to a target length: -|L - target| beyond a tolerance, or normalised to [-1, 0].",
    example="length.target with {target: 200, unit: words, normalise: true}")
SOFT_OVERLONG = RewardDefinition(
    "length.soft_overlong", SoftOverlong, hacks=corpus, units="tokens", output_range=(-1.0, 0.0),
    description="DAPO soft overlong punishment: 0, then linear to -1 over the last `buffer` before max_length.",
    example="length.soft_overlong with {max_length: 1024, buffer: 256}")
COSINE = RewardDefinition(
    "length.cosine", CosineLength, hacks=corpus, units="tokens", output_range=(-1.0, 1.0),
    description="Cosine length scaling by correctness: short correct best, short wrong worst; clamped.",
    example="length.cosine with {max_length: 1024}, inputs: {correct: math.accuracy}")
GROUP_RELATIVE = RewardDefinition(
    "length.group_relative", GroupRelativeLength, hacks=corpus, form="batch", units="tokens", output_range=(-0.5, 0.5),
    description="Kimi k1.5 group-relative length: 0.5 - (L - min)/(max - min) per prompt group; wrong capped at 0.",
    example="length.group_relative, inputs: {correct: math.accuracy}")
TRUNCATED = RewardDefinition(
    "length.truncated", Truncated, hacks=corpus, units="tokens",
    description="Penalty (or multiplier on another reward) for completions cut off at the generation limit.",
    example="length.truncated with {max_length: 1024, eos_token_ids: [2]}")

#: Every length reward, in the order the plugin registers them.
DEFINITIONS = (TARGET, SOFT_OVERLONG, COSINE, GROUP_RELATIVE, TRUNCATED)
