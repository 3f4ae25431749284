"""The fast engine: all trials of a cell in one compiled kernel call per chunk of trials."""

from .noise import draw_raw, noise_table
from .run import METRICS, SimulationResult, checkpoint_rounds, simulate

__all__ = [
    "METRICS",
    "SimulationResult",
    "checkpoint_rounds",
    "draw_raw",
    "noise_table",
    "simulate",
]
