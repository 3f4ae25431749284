"""Bandit environments: instance generators and reward tables."""

from .linear import FixedArmInstances, make_instances, paper_text_instances, script_instances
from .rewards import bernoulli_reward_table

__all__ = [
    "FixedArmInstances",
    "bernoulli_reward_table",
    "make_instances",
    "paper_text_instances",
    "script_instances",
]
