"""Tests that kill mutants left alive in audit/controls.py (docs/mutation.md).

The planted controls decide whether a family's ``consistent`` verdicts stand; their seeds fix
the reported control fits, so the seed scheme is pinned, and the degenerate branches (no
finite planted excess, a level without positive mean) are exercised.
"""

import math
import zlib

import numpy as np
import pytest

from dpbandits.audit.controls import control_seed, redraw, run_controls
from dpbandits.audit.fits import fit_exponent

LEVELS = np.array([1000.0, 2000.0, 4000.0, 8000.0])


def _values(n=20, seed=0):
    rng = np.random.default_rng(seed)
    return 5.0 * LEVELS**0.5 * rng.lognormal(0.0, 0.2, size=(n, LEVELS.size))


def test_control_seed_values():
    # (seed * 2654435761 + crc32(names joined by "|")) mod 2^32: Knuth's multiplicative hash.
    assert control_seed(0, "a", "b") == zlib.crc32(b"a|b")
    assert control_seed(1) == 2654435761  # crc32(b"") = 0; above 2^31, below 2^32
    assert control_seed(2) == 2 * 2654435761 - 2**32  # wraps once


@pytest.mark.parametrize("direction", ["upper", "lower"])
def test_controls_use_documented_seeds(direction):
    # planted violation: redraw seed `seed`, meets claim: `seed + 1`; both fits: `seed + 2`.
    values, seed, n_boot, claimed, det = _values(), 11, 200, 0.5, 0.1
    rows = {
        r["control"]: r
        for r in run_controls(LEVELS, values, claimed, direction, 0.05, det, n_boot, seed)
    }
    sign = 1.0 if direction == "upper" else -1.0
    for name, excess, s in (
        ("planted violation", det + 0.05, seed),
        ("meets claim", 0.0, seed + 1),
    ):
        fit = fit_exponent(
            LEVELS, redraw(LEVELS, values, claimed + sign * excess, s), n_boot, seed + 2
        )
        assert rows[name]["slope"] == fit.slope
        assert rows[name]["ci_low"] == fit.ci_low and rows[name]["ci_high"] == fit.ci_high


def test_infinite_detectable_excess_fails_the_planted_control():
    rows = run_controls(LEVELS, _values(), 0.5, "upper", 0.05, math.inf, 100, 0)
    planted = next(r for r in rows if r["control"] == "planted violation")
    assert planted["passed"] is False and planted["verdict"] == "inconclusive"
    assert math.isnan(planted["slope"])


def test_level_without_positive_mean_gives_no_fit():
    values = _values()
    values[:, 2] = 0.0
    for row in run_controls(LEVELS, values, 0.5, "upper", 0.05, 0.1, 100, 0):
        assert row["verdict"] == "inconclusive" and row["detected"] is False
        assert math.isnan(row["slope"]) and math.isnan(row["ci_low"])
        assert math.isnan(row["ci_high"])
