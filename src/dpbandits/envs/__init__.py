"""Bandit environments: instance generators and reward tables."""

from .linear import (
    HORIZON_DEPENDENT,
    FixedArmInstances,
    make_instances,
    paper_text_instances,
    population_lambda_min,
    script_instances,
)
from .rewards import bernoulli_reward_table, reward_tables

__all__ = [
    "HORIZON_DEPENDENT",
    "FixedArmInstances",
    "bernoulli_reward_table",
    "make_instances",
    "paper_text_instances",
    "population_lambda_min",
    "reward_tables",
    "script_instances",
]
