"""Random play's regret beside a figure's results (:func:`dpbandits.audit.ordering_data.with_caps`),
so that an ordering between two series at their cap is untestable.

The cells are on the two-action gap-scaling instance: arms with means ``1`` and ``1 - Delta_T``,
``Delta_T = gap_scale T^{-gap_power}``. Random play loses ``Delta_T / 2`` a round, so at
``T = 100`` with ``gap_scale = 1``, ``gap_power = 1/2`` (``Delta = 0.1``) the cap is
``100 * 0.05 = 5``, and half of it (the saturation share) is 2.5.
"""

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.checklist import evaluate_orderings
from dpbandits.audit.ordering_data import with_caps

from .two_action import two_action_cell

T = 100
CAP = 5.0


def _cell(series, trials=20):
    return two_action_cell(
        T, trials, experiment="x", figure="fig", panel="p", configuration="c", series=series,
        sweep="", schedule="", point="", epsilon=1.0, checkpoints=1, kind="figure",
    )  # fmt: skip


def _frame(finals: dict) -> pd.DataFrame:
    rows = []
    for series, values in finals.items():
        for trial, v in enumerate(values):
            place = dict(configuration="c", panel="p", series=series, trial=trial)
            setting = dict(t=T, T=T, d=2, K=2, instances="two_action")
            rows.append(place | setting | dict(regret_realized=v, regret_pseudo=v))
    return pd.DataFrame(rows)


def _verdict(df, metric="realized"):
    audit = dict(check="below", panels=["p"], a="A", b=["B"])
    claim = {"id": "x", "kind": "ordering", "audit": audit}
    res = evaluate_orderings([claim], df)
    return res[(res.metric == metric) & (res.comparison == "all")]["verdict"].iat[0]


def test_the_cap_is_random_plays_regret_at_the_horizon():
    df = with_caps(_frame({"A": np.ones(20), "B": np.ones(20)}), [_cell("A"), _cell("B")])
    assert df["regret_unif"].to_numpy() == pytest.approx(CAP, rel=1e-12)
    assert len(df) == 40  # one cap per row, no row added or lost


def test_a_frame_with_its_own_cap_is_kept_and_an_unknown_cell_has_none():
    df = _frame({"A": np.ones(20)}).assign(regret_unif=7.0)
    assert with_caps(df, [_cell("A")])["regret_unif"].eq(7.0).all()
    assert with_caps(_frame({"A": np.ones(20)}), [_cell("B")])["regret_unif"].isna().all()


def test_a_reversal_between_two_saturated_series_is_untestable():
    noise = 0.01 * np.tile([1.0, -1.0], 10)
    # planted: both at 0.8 and 0.96 of the cap, A surely above B against the claim "A below B"
    sat = _frame({"A": 4.8 + noise, "B": 4.0 + noise})
    cells = [_cell("A"), _cell("B")]
    assert _verdict(sat) == "FAIL"  # without the cap only an exact tie is recognised
    assert _verdict(with_caps(sat, cells)) == "UNTESTABLE"
    # meeting cases: in the learning regime (below half the cap) the cap changes nothing
    learning = _frame({"A": 2.0 + noise, "B": 0.5 + noise})
    assert _verdict(with_caps(learning, cells)) == "FAIL"
    assert _verdict(with_caps(_frame({"A": 0.5 + noise, "B": 2.0 + noise}), cells)) == "PASS"


def test_the_pseudo_regret_decides_saturation_under_both_metrics():
    # B's realized regret is at 0.6 of the cap, its pseudo-regret (what the cap measures) at 0.4:
    # B is learning, so A's reversal against it is a FAIL under both metrics
    noise = 0.01 * np.tile([1.0, -1.0], 10)
    df = with_caps(_frame({"A": 4.8 + noise, "B": 2.0 + noise}), [_cell("A"), _cell("B")])
    df.loc[df["series"] == "B", "regret_realized"] = 3.0 + noise
    assert _verdict(df, "realized") == "FAIL" and _verdict(df, "pseudo") == "FAIL"
    df.loc[df["series"] == "B", "regret_pseudo"] = 3.0 + noise  # now both at >= half the cap
    assert _verdict(df, "realized") == "UNTESTABLE" and _verdict(df, "pseudo") == "UNTESTABLE"
