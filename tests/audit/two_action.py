"""Cells on the two-action gap-scaling instance (arms with means ``1`` and ``1 - Delta_T``,
``Delta_T = gap_scale T^{-gap_power}``; ``gap_scale = 1``, ``gap_power = 1/2``), whose random-play
regret at horizon ``T`` is ``T Delta_T / 2`` by hand: the tests of the saturation caps use it."""

from dpbandits.config import Cell


def two_action_cell(T: int, trials: int, **fields) -> Cell:
    """A cell of the dpdpe experiment on the two-action instance; ``fields`` override the
    defaults (a sweep cell of schedule ``sched_a`` unless they say otherwise)."""
    base = dict(
        experiment="dpdpe", figure="", panel="", configuration="", series="", sweep="rates",
        schedule="sched_a", point=f"T{T}", algorithm="dpe", calibration="experiment",
        fidelity="corrected", instances="two_action", T=T, trials=trials, K=2, d=2,
        epsilon=None, delta=0.1, B=1, instance_seed=0, reward_seed_offset=0, checkpoints=2,
        root_seed=1, scale="quick", options={}, kind="sweep",
        instance_options={"gap_scale": 1.0, "gap_power": 0.5},
    )  # fmt: skip
    return Cell(**{**base, **fields})
