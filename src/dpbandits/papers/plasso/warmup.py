"""plasso's part of ``dpb warmup`` (:mod:`dpbandits.dev.warmup`): PrivateLASSO's TBAP round
kernel and the trust-region solver. Loaded by name: no job runs it."""

from dpbandits.engine.private_lasso import simulate_cell


def run() -> None:
    """Compile the kernels of plasso's runs with one tiny cell."""
    simulate_cell("PL-E1", "F1", 10, 2, 2, 16, "private_lasso", 1e4, 3, 1)
