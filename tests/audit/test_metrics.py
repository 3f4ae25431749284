"""The audit metrics of cz22 (docs/papers/cz22.md; docs/mutation.md): the privacy-cost ratio
``rho_A = gap_A / gap_LDP`` at the horizon with ``gap_A = mean_i(R_i^A - R_i^LinUCB)``, its
prediction ``sqrt(sigma~_A / sigma~_LDP)`` from Lemma 3.9's privacy term, and the log-log slope
of each mean curve over ``t in [T/10, T]``.

Predicted ratios use two LinUCB-LDP cells that differ only in epsilon: the Gaussian mechanism's
standard deviation is proportional to ``1/epsilon`` (the same sensitivity and delta), so
``sigma~(eps = 1/4) / sigma~(eps = 1) = 4`` and ``rho_predicted = sqrt(4) = 2`` exactly (up to
rounding). P_Vec's noise is proportional to the encoding range, the instances' largest arm norm
(``sqrt(2)`` for the script's instances, 1 after the paper's normalisation, docs/papers/cz22.md),
which the LDP noise does not depend on: its predicted ratio shrinks by ``2**(1/4)`` under the
paper's normalisation.
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.metrics import curve_slopes, privacy_cost_ratios
from dpbandits.config import Cell

T = 2000


def _cell(series, algorithm, epsilon, panel="p1", configuration="r1", instances="script"):
    return Cell(
        experiment="cz22",
        figure="cz22_fig1",
        panel=panel,
        configuration=configuration,
        series=series,
        algorithm=algorithm,
        calibration="experiment",
        fidelity="script",
        instances=instances,
        T=T,
        trials=2,
        K=100,
        d=5,
        epsilon=epsilon,
        delta=0.1,
        B=20,
        instance_seed=2,
        reward_seed_offset=0,
        checkpoints=200,
        root_seed=1,
        scale="quick",
    )


# Regret at the earlier checkpoint t = T/2 (realized, pseudo), the same in every trial: gaps to
# LinUCB of 30 and 15 for the private series, 6 and 5 for LDP, so a ratio computed there (or
# over both checkpoints) differs from the one at the horizon.
EARLY = {"LinUCB": (0.0, 0.0), "LinUCB-LDP": (6.0, 5.0)}


def _rows(series, realized, pseudo, panel="p1", configuration="r1"):
    """Final rows (t = T) per trial, plus an earlier checkpoint whose values must be ignored."""
    out = []
    early = EARLY.get(series, (30.0, 15.0))
    for trial, (r, p) in enumerate(zip(realized, pseudo, strict=True)):
        for t, (rr, pp) in ((T // 2, early), (T, (r, p))):
            out.append(
                {
                    "configuration": configuration,
                    "panel": panel,
                    "series": series,
                    "trial": trial,
                    "t": t,
                    "T": T,
                    "regret_realized": rr,
                    "regret_pseudo": pp,
                }
            )
    return out


def _cells(panel="p1", instances="script", other=("LinUCB-A", "ldp", 0.25)):
    return [
        _cell("LinUCB", "linucb", None, panel, instances=instances),
        _cell("LinUCB-LDP", "ldp", 1.0, panel, instances=instances),
        _cell(*other, panel, instances=instances),
    ]


def test_privacy_cost_ratio_uses_the_gap_to_linucb_at_the_horizon():
    # realized: gap_A = mean(16-10, 26-20) = 6, gap_LDP = mean(30-10, 60-20) = 30: rho = 0.2;
    # pseudo: gap_A = mean(5-1, 9-3) = 5, gap_LDP = mean(11-1, 23-3) = 15: rho = 1/3.
    df = pd.DataFrame(
        _rows("LinUCB-A", [16, 26], [5, 9])
        + _rows("LinUCB", [10, 20], [1, 3])
        + _rows("LinUCB-LDP", [30, 60], [11, 23])
    )
    out = privacy_cost_ratios(df, _cells())
    assert list(out["series"]) == ["LinUCB-A"]
    row = out.iloc[0]
    assert (row["configuration"], row["panel"]) == ("r1", "p1")
    assert row["rho_realized"] == pytest.approx(0.2, rel=1e-12)
    assert row["rho_pseudo"] == pytest.approx(1 / 3, rel=1e-12)
    assert row["rho_predicted"] == pytest.approx(2.0, rel=1e-9)  # sqrt(1 / 0.25)


def test_ratio_is_nan_without_a_local_gap_or_a_noise_scale():
    # LDP equal to the baseline: gap_LDP = 0, no ratio; JDP's tree noise is no sum of
    # independent per-batch draws: no prediction
    df = pd.DataFrame(
        _rows("LinUCB-JDP", [16, 26], [5, 9])
        + _rows("LinUCB", [10, 20], [1, 3])
        + _rows("LinUCB-LDP", [10, 20], [1, 3])
    )
    out = privacy_cost_ratios(df, _cells(other=("LinUCB-JDP", "jdp_tree", 1.0)))
    row = out.iloc[0]
    assert math.isnan(row["rho_realized"]) and math.isnan(row["rho_pseudo"])
    assert math.isnan(row["rho_predicted"])


def test_predicted_ratio_of_pvec_scales_with_the_instances_arm_norm():
    df = pd.DataFrame(
        _rows("LinUCB-Vec", [16, 26], [5, 9])
        + _rows("LinUCB", [10, 20], [1, 3])
        + _rows("LinUCB-LDP", [30, 60], [11, 23])
    )
    other = ("LinUCB-Vec", "sdp_vec", 1.0)
    script = privacy_cost_ratios(df, _cells(other=other)).iloc[0]["rho_predicted"]
    paper = privacy_cost_ratios(df, _cells(instances="paper_text", other=other))
    # sigma~_Vec proportional to L: sqrt(2) vs 1, so the ratio of the square roots is 2^(1/4)
    assert script / paper.iloc[0]["rho_predicted"] == pytest.approx(2**0.25, rel=1e-9)


def test_panels_without_baseline_or_local_series_are_skipped():
    df = pd.DataFrame(
        _rows("LinUCB-A", [16, 26], [5, 9], panel="p1")
        + _rows("LinUCB", [10, 20], [1, 3], panel="p1")  # p1: no local series
        + _rows("LinUCB-A", [16, 26], [5, 9], panel="p2")
        + _rows("LinUCB-LDP", [30, 60], [11, 23], panel="p2")  # p2: no baseline
        + _rows("LinUCB-A", [16, 26], [5, 9], panel="p3")
        + _rows("LinUCB", [10, 20], [1, 3], panel="p3")
        + _rows("LinUCB-LDP", [30, 60], [11, 23], panel="p3")
        + _rows("LinUCB-A", [16, 26], [5, 9], panel="p0")
        + _rows("LinUCB", [10, 20], [1, 3], panel="p0")
        + _rows("LinUCB-LDP", [30, 60], [11, 23], panel="p0")
    )
    cells = _cells("p1") + _cells("p2") + _cells("p3") + _cells("p0")
    out = privacy_cost_ratios(df, cells)
    assert list(out["panel"]) == ["p3", "p0"]  # complete panels only, in the results' order


def test_curve_slope_uses_the_last_nine_tenths_of_the_horizon():
    # two trials 2 sqrt(t) and 4 sqrt(t) at t = 100 (= T/10) and 1000: mean 3 sqrt(t), slope 1/2
    # exactly; the points before T/10 (t = 10, 50) lie far off that curve and must be left out
    rows = []
    for series, T_ in (("A", 1000), ("B", 1000)):
        for trial, c in enumerate((2.0, 4.0)):
            for t in (10, 50, 100, 1000):
                value = c * math.sqrt(t) if t >= 100 else 1e6 / t
                rows.append(
                    {
                        "configuration": "r1",
                        "panel": "p",
                        "series": series,
                        "trial": trial,
                        "t": t,
                        "T": T_,
                        "regret_realized": value,
                        "regret_pseudo": value**2,
                    }
                )
    df = pd.DataFrame(rows)
    out = curve_slopes(df)
    assert list(out["series"]) == ["A", "B"] and set(out["metric"]) == {"regret_realized"}
    assert np.allclose(out["slope"], 0.5, rtol=1e-12)
    assert list(out["configuration"]) == ["r1", "r1"] and list(out["panel"]) == ["p", "p"]
    # pseudo: mean of 4 t and 16 t = 10 t, slope 1
    assert curve_slopes(df, "regret_pseudo")["slope"].to_numpy() == pytest.approx(1.0, rel=1e-12)
    # start = 0.5: only t = 1000 is left, one point gives no slope
    assert math.isnan(curve_slopes(df, start=0.5)["slope"].iat[0])
