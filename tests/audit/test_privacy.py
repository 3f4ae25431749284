"""The delivered-epsilon table of the privacy audit (docs/audit/privacy.md;
docs/mutation.md): the verdict at its 1e-9 relative boundary, the three delivered epsilons of a row
(nominal delta, delta = 1/T only when 1/T is below the nominal delta, the paper's bounds), the
row's place (figure cells vs sweep cells), the accounting shared by cells that differ only in where
they are shown, and the per-series summary.

Rows built from stub releases use ``extra["epsilon_at"]`` (a release that computes its own
epsilon), so the expected values are closed forms: ``ln(1/delta)`` and ``2 ln(1/delta)``. Rows of
real cells use LinUCB-LDP of cz22 (CZ22) at eps = 1, whose delivered epsilons are the
independently computed values of tests/test_privacy.py, printed to 3 decimals (hence abs 5e-4,
half a unit of the last digit).
"""

import math
from types import SimpleNamespace

import pandas as pd
import pytest

from dpbandits.audit import privacy as pa
from dpbandits.config import Cell
from dpbandits.privacy import releases as rel

LN10 = math.log(10.0)  # 2.302585


def _stub(name="stub", scale=1.0, **kw):
    """A release whose delivered epsilon at delta is ``scale * ln(1/delta)``."""
    return rel.Release(name, extra={"epsilon_at": lambda d: scale * math.log(1.0 / d)}, **kw)


def _runtime(s: str) -> str:
    """The same string built at run time (not the interned literal)."""
    return "".join(list(s))


# --- verdict ---------------------------------------------------------------------------------


def test_verdict_boundary_is_inclusive_at_one_part_in_a_billion():
    # 1 + 1e-9 is exactly nominal * (1 + 1e-9) at nominal 1: still delivered
    assert pa.verdict(1.0, 1.000000001, True) == "DELIVERED"
    assert pa.verdict(1.0, 1.000000003, True) == "NOT-CERTIFIED"
    assert pa.verdict(1.0, 1.000000001, False) == "NOT-CERTIFIED"  # no certificate
    assert pa.verdict(1.0, math.inf, True) == "NOT-CERTIFIED"  # no lower bound: not shown
    assert pa.verdict(1.0, math.inf, True, math.inf) == "NOT-PRIVATE"
    assert pa.verdict(1.0, 2.0, True, 1.000000001) == "NOT-CERTIFIED"
    assert pa.verdict(1.0, 2.0, True, 1.000000003) == "VIOLATED"


# --- release_row -----------------------------------------------------------------------------


def test_release_row_has_the_three_delivered_epsilons():
    # delta = 0.1, T = 1000: ln 10 = 2.302585, ln 1000 = 6.907755, paper 2 ln 10 = 4.605170
    row = pa.release_row(
        {"figure": "f"}, _stub(method="m", notes=" a note "), 3.0, 0.1, 1000, _stub("p", 2.0)
    )
    assert row["figure"] == "f" and row["T"] == 1000
    assert row["nominal_epsilon"] == 3.0 and row["nominal_delta"] == 0.1
    assert row["delivered_epsilon"] == pytest.approx(2.302585, rel=1e-6)
    assert row["delivered_epsilon_delta_1_over_T"] == pytest.approx(6.907755, rel=1e-6)
    assert row["delivered_epsilon_paper_bounds"] == pytest.approx(4.605170, rel=1e-6)
    assert row["verdict"] == "DELIVERED"  # 2.30 <= 3
    assert (row["mechanism"], row["method"], row["notes"]) == ("stub", "m", "a note")


@pytest.mark.parametrize("T", [5, 10])
def test_no_epsilon_at_one_over_T_unless_one_over_T_is_below_the_nominal_delta(T):
    # 1/T = 0.2 and 0.1 are not below delta = 0.1: the column is empty (NaN), as is the paper's
    # column without a paper release
    row = pa.release_row({}, _stub(), 3.0, 0.1, T)
    assert math.isnan(row["delivered_epsilon_delta_1_over_T"])
    assert math.isnan(row["delivered_epsilon_paper_bounds"])
    assert row["delivered_epsilon"] == pytest.approx(LN10, rel=1e-12)
    # T = 11: 1/T < 0.1, eps = ln 11 = 2.397895
    row = pa.release_row({}, _stub(), 3.0, 0.1, 11)
    assert row["delivered_epsilon_delta_1_over_T"] == pytest.approx(2.397895, rel=1e-6)


def test_a_release_that_says_why_is_not_accounted_at_one_over_T():
    release = _stub()
    release.extra["no_small_delta"] = "too costly"
    row = pa.release_row({}, release, 3.0, 0.1, 1000)
    assert math.isnan(row["delivered_epsilon_delta_1_over_T"])
    assert row["delivered_epsilon"] == pytest.approx(LN10, rel=1e-12)
    assert row["notes"] == "epsilon at delta = 1/T not computed: too costly"
    # where 1/T is not below delta the column is empty anyway, and the note is not given
    assert pa.release_row({}, release, 3.0, 0.1, 10)["notes"] == ""


def test_dpdpe_shuffle_says_why_it_is_not_accounted_at_one_over_T():
    from dpbandits.policies import Setting, make_policy

    policy = make_policy("sdp_dpe", Setting(T=2**14, d=2, epsilon=10.0, delta=0.1, K=2))
    release = rel.dpdpe_release(policy)
    assert "every phase and support size" in release.extra["no_small_delta"]
    pe = rel.dpdpe_release(make_policy("sdp_pe", policy.setting))
    assert "user count" in pe.extra["no_small_delta"]
    # the Gaussian privatizers are accounted at any delta
    assert "no_small_delta" not in rel.dpdpe_release(make_policy("cdp_pe", policy.setting)).extra


def test_release_row_of_a_non_private_mechanism_joins_its_notes():
    row = pa.release_row({}, rel.Release("m", private=False, notes="no noise"), 1.0, 0.1, 100)
    assert row["delivered_epsilon"] == math.inf and row["verdict"] == "NOT-PRIVATE"
    assert row["notes"] == "no noise; not a private mechanism"


# --- experiment_rows -------------------------------------------------------------------------


def _cell(**kw) -> Cell:
    base = dict(
        experiment="cz22",
        figure="cz22_fig1",
        panel="cz22_fig1a",
        configuration="r1",
        series="LinUCB-LDP",
        algorithm="ldp",
        calibration="experiment",
        fidelity="script",
        instances="script",
        T=20000,
        trials=5,
        K=100,
        d=5,
        epsilon=1.0,
        delta=0.1,
        B=20,
        instance_seed=2,
        reward_seed_offset=0,
        checkpoints=200,
        root_seed=1,
        scale="quick",
    )
    return Cell(**(base | kw))


def _experiment(cells, sweep_cells=()):
    return SimpleNamespace(cells=list(cells), sweeps=[SimpleNamespace(cells=list(sweep_cells))])


def test_figure_and_sweep_cells_are_placed_by_their_kind():
    fig = _cell(kind=_runtime("figure"))  # a kind read from a file compares by value
    sweep = _cell(
        **dict.fromkeys(("figure", "panel", "configuration", "series"), ""),
        sweep="rates",
        schedule="ldp_sched",
        point="p",
        kind=_runtime("sweep"),
    )
    rows = pa.experiment_rows(_experiment([fig], [sweep]))
    assert [(r["figure"], r["configuration"], r["series"]) for r in rows] == [
        ("cz22_fig1", "r1", "LinUCB-LDP"),  # figure cell: its configuration and series
        ("rates", "ldp_sched", "ldp"),  # sweep cell: its series (schedule) and algorithm
    ]
    for r in rows:
        # LinUCB-LDP at eps = 1, script universe: 3.715 (delta 0.1), 9.060 (delta = 1/20000),
        # 1.559 under the paper's bounds; 3.715 > 1 and the pair attains it: violated
        assert r["delivered_epsilon"] == pytest.approx(3.715, abs=5e-4)
        assert r["delivered_epsilon_delta_1_over_T"] == pytest.approx(9.060, abs=5e-4)
        assert r["delivered_epsilon_paper_bounds"] == pytest.approx(1.559, abs=5e-4)
        assert r["lower_epsilon"] == pytest.approx(r["delivered_epsilon"], rel=1e-12)
        assert r["verdict"] == "VIOLATED" and r["calibration"] == "experiment/script"
        assert r["universe"] == rel.instance_universe("script").name
        assert (r["experiment"], r["algorithm"], r["d"], r["B"]) == ("cz22", "ldp", 5, 20)


def test_cells_differing_in_noise_get_their_own_accounting():
    # same place, different epsilon: eps = 0.2 delivers 0.150, eps = 1 delivers 3.715
    rows = pa.experiment_rows(_experiment([_cell(epsilon=0.2), _cell(epsilon=1.0)]))
    assert [r["delivered_epsilon"] for r in rows] == pytest.approx([0.150, 3.715], abs=5e-4)
    assert [r["nominal_epsilon"] for r in rows] == [0.2, 1.0]


def test_non_private_and_unlabelled_cells_have_no_row():
    cells = [_cell(algorithm="linucb", series="LinUCB"), _cell(epsilon=None), _cell()]
    rows = pa.experiment_rows(_experiment(cells))
    assert [r["series"] for r in rows] == ["LinUCB-LDP"]


def test_cells_differing_only_in_place_or_gap_are_accounted_once(monkeypatch):
    calls = []
    real = rel.delivered_epsilon

    def counting(release, delta):
        calls.append(delta)
        return real(release, delta)

    monkeypatch.setattr(rel, "delivered_epsilon", counting)
    cells = [
        _cell(instance_options={"gap_scale": 1.0, "gap_power": 0.5}),
        _cell(panel="other"),  # the same row: no second row
        _cell(configuration="r2", instance_options={"gap_scale": 2.0, "gap_power": 0.5}),
    ]
    rows = pa.experiment_rows(_experiment(cells))
    assert [r["configuration"] for r in rows] == ["r1", "r2"]
    # one accounting: delta 0.1, 1/T and the paper's bounds (3 calls), shared by both rows
    assert len(calls) == 3
    assert rows[0]["delivered_epsilon"] == rows[1]["delivered_epsilon"]


def test_sweep_cells_differing_only_in_sweep_schedule_or_point_are_accounted_once(monkeypatch):
    calls = []
    real = rel.delivered_epsilon
    monkeypatch.setattr(rel, "delivered_epsilon", lambda r, d: calls.append(d) or real(r, d))
    empty = dict.fromkeys(("figure", "panel", "configuration", "series"), "")
    cells = [
        _cell(**empty, kind="sweep", sweep=sw, schedule=sched, point=point)
        for sw, sched, point in (("a", "s1", "p1"), ("a", "s2", "p2"), ("b", "s1", "p1"))
    ]
    rows = pa.experiment_rows(_experiment([], cells))
    shown = [(r["figure"], r["configuration"]) for r in rows]
    assert shown == [("a", "s1"), ("a", "s2"), ("b", "s1")]
    assert len(calls) == 3  # one accounting (three deltas) for the three rows


# --- summary and the page --------------------------------------------------------------------


def _table(delivered, nominal, verdicts, series="S"):
    n = len(delivered)
    return pd.DataFrame(
        {
            "experiment": ["e"] * n,
            "figure": ["f"] * n,
            "series": [series] * n,
            "calibration": ["c/x"] * n,
            "nominal_epsilon": nominal,
            "nominal_delta": [0.1] * n,
            "delivered_epsilon": delivered,
            "verdict": verdicts,
        }
    )


def test_summary_lists_at_most_eight_nominal_epsilons_and_the_delivered_range():
    # nine distinct nominal epsilons 1..9 (repeated 9 once more): the first eight, then "..."
    nominal = [9.0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    delivered = [0.5, 4.0, 1.0, 2.0, 3.0, 0.25, 1.5, 2.5, 3.5, 0.75]
    verdicts = ["VIOLATED", "DELIVERED"] * 5
    out = pa.summary(_table(delivered, nominal, verdicts))
    row = out.iloc[0]
    assert row["nominal"] == "1, 2, 3, 4, 5, 6, 7, 8 ..."
    assert row["delta"] == "0.1"
    assert (row["delivered_min"], row["delivered_max"]) == (0.25, 4.0)
    assert row["verdicts"] == "DELIVERED, VIOLATED" and row["rows"] == 10
    # eight distinct values: all listed, no ellipsis
    out = pa.summary(_table([1.0] * 8, [1, 2, 3, 4, 5, 6, 7, 8], ["DELIVERED"] * 8))
    assert out.iloc[0]["nominal"] == "1, 2, 3, 4, 5, 6, 7, 8"


def test_page_shows_a_single_delivered_value_or_its_range(tmp_path):
    table = pd.concat(
        [
            _table([0.125, 0.125], [1.0, 1.0], ["DELIVERED"] * 2, "A"),
            _table([0.25, 0.5], [1.0, 1.0], ["DELIVERED"] * 2, "B"),
        ]
    )
    out = tmp_path / "privacy.html"
    pa.write_page(table, pd.DataFrame(), str(out))
    page = out.read_text()
    assert "<td>0.125</td>" in page and "0.125 .. 0.125" not in page
    assert "<td>0.25 .. 0.5</td>" in page
