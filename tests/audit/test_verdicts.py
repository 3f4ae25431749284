"""The verdict vocabulary of the rate audit: regime gates, power (detectable excess), planted
controls and log factors. Each gate is made to fire on purpose.

Also pinned (docs/mutation.md): the regime, the power (detectable excess) and the gates decide the
verdict users read for every rate claim; the tests of the last section pin one boundary or one
formula each against the math in the docstrings of :mod:`dpbandits.audit.verdicts`.
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit import verdicts as vocab
from dpbandits.audit.controls import redraw, run_controls
from dpbandits.audit.rates import (
    claimed_T_exponent,
    evaluate_rate_claims,
    fit_exponent,
    log_factor_slope,
    verdict,
)
from dpbandits.envs.caps import expected_best_projection, random_play_rate
from dpbandits.envs.contextual import fresh_sphere_instances, unit_sphere
from dpbandits.envs.linear import make_instances

T = np.array([2500, 5000, 10000, 20000, 40000], dtype=float)


def _curves(exponent, n=40, noise=0.3, seed=0, scale=3.0):
    rng = np.random.default_rng(seed)
    return scale * T**exponent * rng.lognormal(0.0, noise, size=(n, T.size))


def _frame(values, caps, schedule="alg"):
    """A sweep frame (finals only) with one cap per level."""
    n = values.shape[0]
    rows = [
        dict(
            sweep="s",
            schedule=schedule,
            epsilon=1.0,
            d=5,
            T=int(t),
            t=int(t),
            trial=i,
            regret_pseudo=values[i, j],
            cap=caps[j],
        )
        for j, t in enumerate(T)
        for i in range(n)
    ]
    return pd.DataFrame(rows)


def _claim(T_exp="1/2", **extra):
    return {
        "id": "x.c",
        "direction": "upper",
        "T_exp": T_exp,
        "eps_exp": None,
        "audit": {
            "experiment": "x",
            "sweep": "s",
            "check": "slope",
            "schedules": ["alg"],
            "fit": ["T"],
        },
        **extra,
    }


def _fit_row(df, claim, max_detectable=0.25, controls=None, grids=None):
    res = evaluate_rate_claims(
        [claim],
        df,
        n_boot=1000,
        seed=3,
        max_detectable=max_detectable,
        controls=controls,
        grids=grids,
    )
    return res[res["schedule"] != "all"].iloc[0], res[res["schedule"] == "all"].iloc[0]


def test_a_saturated_sweep_is_untestable_even_when_its_slope_matches_the_claim():
    # the dpdpe failure mode: the cap itself grows like T^{1/2} (gap-scaled instances) and the
    # regret sits at 0.6 of it, so the slope equals the claimed 1/2 by construction
    caps = 10 * T**0.5
    Y = 0.6 * caps * np.random.default_rng(1).lognormal(0, 0.05, size=(40, T.size))
    row, summary = _fit_row(_frame(Y, caps), _claim("1/2"))
    assert verdict(fit_exponent(T, Y, 1000, 3), 0.5) == "consistent"  # the statistics alone
    assert row["verdict"] == "untestable" and row["regime"] == "saturated"
    assert summary["verdict"] == "untestable"
    assert "saturated" in row["reason"]


def test_a_learning_sweep_at_the_claimed_rate_is_consistent():
    Y = _curves(0.5, noise=0.1)
    caps = 1.0 * T  # regret is 3 sqrt(T): 6 % of random play at T = 2500, 1.5 % at 40000
    row, _ = _fit_row(_frame(Y, caps), _claim("1/2"))
    assert row["regime"] == "learning"
    assert row["detectable_excess"] < 0.25
    assert row["verdict"] == "consistent"


def test_a_weak_design_cannot_say_consistent():
    Y = _curves(0.5, n=4, noise=1.0, seed=2)
    row, _ = _fit_row(_frame(Y, T * 1e3), _claim("3/2"), max_detectable=0.05)
    assert row["detectable_excess"] > 0.05
    assert row["verdict"] != "consistent"


def test_pre_asymptotic_regime_blocks_consistent():
    # regret grows as fast as its cap (share flat at 0.3): no learning visible
    Y = _curves(1.0, noise=0.05)
    caps = Y.mean(axis=0) / 0.3
    row, _ = _fit_row(_frame(Y, caps), _claim("1"))
    assert row["regime"] == "pre-asymptotic"
    assert row["verdict"] == "inconclusive"


def test_detectable_excess_is_calibrated_to_80_percent_power():
    # designs drawn at true exponent claimed + det must be flagged with probability ~0.8:
    # binomial s.e. over R = 200 designs is 0.028; allow 3 s.e. plus 0.05 for the percentile
    # interval's departure from the normal model behind the formula
    claimed, tol, R = 0.5, 0.05, 200
    ref = _curves(claimed, n=20, noise=0.4, seed=10)
    fit = fit_exponent(T, ref, 1000, 0)
    det = vocab.detectable_excess(T, vocab.log_mean_sd(ref), fit.slope - fit.ci_low, tol)
    hits = 0
    for r in range(R):
        Y = _curves(claimed + det, n=20, noise=0.4, seed=100 + r)
        hits += verdict(fit_exponent(T, Y, 400, r), claimed, "upper", tol) == "exceeds"
    assert abs(hits / R - vocab.POWER) <= 3 * 0.028 + 0.05


def test_planted_violation_above_the_detectable_excess_is_detected_and_meeting_one_is_not():
    Y = _curves(0.5, noise=0.2, seed=4)
    fit = fit_exponent(T, Y, 1000, 0)
    det = vocab.detectable_excess(T, vocab.log_mean_sd(Y), fit.slope - fit.ci_low, 0.05)
    rows = {r["control"]: r for r in run_controls(T, Y, 0.5, "upper", 0.05, det, 1000, 7)}
    plant, meet = rows["planted violation"], rows["meets claim"]
    assert plant["verdict"] == "exceeds" and plant["passed"]
    assert plant["planted_excess"] == pytest.approx(det + 0.05)
    assert meet["verdict"] != "exceeds" and meet["passed"]
    # lower-bound claims: the plant is a shortfall
    rows = {r["control"]: r for r in run_controls(T, Y, 0.5, "lower", 0.05, det, 1000, 7)}
    assert rows["planted violation"]["verdict"] == "below"


def test_an_overstated_power_fails_the_planted_control():
    # Stating detectable excess 0 plants claimed + 0.05 = claimed + tol: a fit flags
    # `exceeds` only when its whole interval lies above claimed + tol, so about half of the
    # redraws' slopes land there and far fewer intervals: the share flagged is well below 80 %.
    Y = _curves(0.5, noise=0.2, seed=4)
    plant, meet = run_controls(T, Y, 0.5, "upper", 0.05, 0.0, 1000, 7)
    assert plant["flag_rate"] < 0.5 and not plant["passed"]
    assert meet["passed"]


def test_redraw_has_the_planted_exponent_and_keeps_the_spread():
    Y = _curves(0.5, n=2000, noise=0.3, seed=5)
    Z = redraw(T, Y, 0.9, seed=1)
    assert fit_exponent(T, Z, 200, 0).slope == pytest.approx(0.9, abs=0.03)
    cv = lambda A: A.std(axis=0) / A.mean(axis=0)  # noqa: E731
    np.testing.assert_allclose(cv(Z), cv(Y), rtol=0.1)


def test_family_gate_fires_when_a_control_is_missed(monkeypatch):
    import dpbandits.audit.rate_judge as rate_judge

    def blind(*args, **kwargs):  # a design whose planted violation is never detected
        return [
            {
                "control": "planted violation",
                "claimed": 0.5,
                "planted_excess": 0.3,
                "slope": 0.5,
                "ci_low": 0.4,
                "ci_high": 0.6,
                "verdict": "consistent",
                "detected": False,
                "passed": False,
            }
        ]

    monkeypatch.setattr(rate_judge, "run_controls", blind)
    row, summary = _fit_row(_frame(_curves(0.5, noise=0.1), 1.0 * T), _claim("1/2"))
    assert row["verdict"] == "untestable" and summary["verdict"] == "untestable"


def test_log_factors_are_part_of_the_claimed_function():
    # R = sqrt(T) (ln T)^2 exactly: the raw slope exceeds 1/2 by about 2 / ln T
    Y = np.tile(np.sqrt(T) * np.log(T) ** 2, (10, 1))
    slope = fit_exponent(T, Y, 200, 0).slope
    assert slope == pytest.approx(0.5 + log_factor_slope(T, 2.0), abs=1e-12)
    assert log_factor_slope(T, 2.0) == pytest.approx(2 / np.log(T).mean(), rel=0.02)
    claim = _claim("1/2", logT_pow="2")
    assert claimed_T_exponent(claim, {}, T) == pytest.approx(slope, abs=1e-12)
    assert claimed_T_exponent(_claim("1/2"), {}, T) == 0.5
    caps = T * 1e3
    Yn = Y * np.random.default_rng(0).lognormal(0, 0.05, size=Y.shape)
    with_logs, _ = _fit_row(_frame(Yn, caps), claim)
    without = _claim("1/2")  # an instance-dependent bound: fixed instances can violate it
    without["audit"]["bound_scope"] = "instance"
    without, _ = _fit_row(_frame(Yn, caps), without)
    assert with_logs["verdict"] == "consistent" and without["verdict"] == "exceeds"


def test_gate_table():
    assert vocab.gate("exceeds", "saturated", 0.1, 0.25)[0] == "untestable"
    assert vocab.gate("consistent", "learning", 0.1, 0.25) == ("consistent", "")
    assert vocab.gate("consistent", "learning", 0.3, 0.25)[0] == "inconclusive"
    # a violation stands only in the learning regime
    assert vocab.gate("exceeds", "pre-asymptotic", 0.1, 0.25)[0] == "inconclusive"
    assert vocab.gate("exceeds", "learning", 0.1, 0.25)[0] == "exceeds"
    assert vocab.gate("consistent", "learning", math.inf, 0.25)[0] == "inconclusive"


def test_regime_boundaries():
    assert vocab.regime([10, 10], [20, 40])[0] == "saturated"  # exactly half
    assert vocab.regime([9.9, 10], [20, 40])[0] == "learning"
    assert vocab.regime([5, 10], [20, 40])[0] == "pre-asymptotic"  # share flat
    assert vocab.regime([5, 10], [20, 40], trend=False)[0] == "learning"
    with pytest.raises(ValueError):
        vocab.regime([1, 2], [0, 1])


def test_random_play_rate_of_fixed_arms_is_best_minus_average_mean():
    inst = make_instances("script", 6, 4, 3, seed=11)
    np.testing.assert_allclose(
        random_play_rate(inst), inst.means.max(axis=1) - inst.means.mean(axis=1)
    )
    two = make_instances("two_action", 3, 2, 2, seed=0, T=10000, gap_scale=1.0, gap_power=0.5)
    np.testing.assert_allclose(random_play_rate(two), 0.01 / 2)  # gap T^{-1/2}, half the rounds


def test_random_play_rate_of_fresh_arms_matches_a_direct_simulation():
    inst = fresh_sphere_instances(3, K=10, d=5, seed=2)
    rate = random_play_rate(inst)
    arms = unit_sphere(np.random.default_rng(9), (20000, 10), 5)
    means = arms @ inst.theta[0]
    direct = (means.max(axis=1) - means.mean(axis=1)).mean()
    # s.e. of the direct mean: sd(max) ~ 0.1 / sqrt(20000) < 1e-3; allow 5 s.e.
    assert rate[0] == pytest.approx(direct, abs=5e-3)
    assert expected_best_projection(5, 10) == pytest.approx(rate[0] / 0.5)


@pytest.mark.parametrize("d,K", [(5, 10), (3, 50), (20, 7)])
def test_expected_best_projection_does_not_depend_on_the_chunk(d, K):
    """The rounds drawn a chunk at a time give the value of drawing them all at once, bit for
    bit (the saturation caps of the rate audit use it), for chunks that split the rounds
    unevenly, one round per chunk and one chunk in all."""
    draws = 3001
    rng = np.random.default_rng([d, K, 1])
    whole = float(unit_sphere(rng, (draws, K), d)[..., 0].max(axis=1).mean())
    for chunk in (1, K * d * 7 + 3, K * d * draws):
        assert expected_best_projection.__wrapped__(d, K, draws, chunk) == whole


def _grid_frame(gaps, n=20, seed=0):
    """Elimination-like regret on a gap grid: min(T gap / 2, 40 / gap) per instance, so the
    worst case over gaps grows like sqrt(T) while every fixed gap flattens (slope 1 -> 0)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, gap in enumerate(gaps):
        for t in T:
            mean = min(t * gap / 2, 40.0 / gap)
            for i in range(n):
                rows.append(
                    dict(
                        sweep="s",
                        schedule=f"g{k}",
                        epsilon=1.0,
                        d=2,
                        T=int(t),
                        t=int(t),
                        trial=i,
                        regret_pseudo=mean * rng.lognormal(0, 0.1),
                        cap=t * gap / 2,
                    )
                )
    return pd.DataFrame(rows)


def _worst(schedules):
    """A worst-case claim over the grid entry ``grid`` made of ``schedules``."""
    claim = _claim("1/2")
    claim["audit"] = {**claim["audit"], "schedules": ["grid"], "worst_case": True}
    return claim, {("s", "grid"): schedules}


def test_worst_case_over_a_gap_grid_recovers_the_minimax_rate():
    gaps = 2.0 ** -np.arange(2, 12, 0.5)  # ordered from the largest gap to the smallest
    df = _grid_frame(gaps)
    names = [f"g{k}" for k in range(len(gaps))]
    claim, grids = _worst(names)
    row, _ = _fit_row(df, claim, grids=grids)
    assert row["variable"] == "T (worst case)" and row["regime"] == "learning"
    assert row["ci_low"] <= 0.5 + 0.05 and row["verdict"] == "consistent"
    # a single fixed gap is no minimax test: its slope is whatever the gap makes it
    fixed = fit_exponent(
        T,
        df[df.schedule == "g6"]
        .pivot(index="trial", columns="T", values="regret_pseudo")
        .to_numpy(),
    )
    assert abs(fixed.slope - 0.5) > 0.2


def test_worst_case_on_the_grid_edge_is_untestable():
    gaps = 2.0 ** -np.arange(2, 12, 0.5)
    df = _grid_frame(gaps)
    small = [f"g{k}" for k in range(14, len(gaps))]  # only gaps too small to be eliminated
    claim, grids = _worst(small)
    row, _ = _fit_row(df, claim, grids=grids)
    assert row["regime"] == "saturated" and row["verdict"] == "untestable"
    assert "edge of the instance grid" in row["reason"]


def test_a_fit_in_d_is_gated_on_saturation_at_each_dimension():
    rng = np.random.default_rng(8)
    rows = []
    for d in (5, 10, 20):
        for i in range(20):
            value = 30.0 * d**0.5 * rng.lognormal(0, 0.03)  # interval half-width ~0.02
            rows.append(
                dict(
                    sweep="s",
                    schedule="alg",
                    epsilon=1.0,
                    d=d,
                    T=20000,
                    t=20000,
                    trial=i,
                    regret_pseudo=value,
                    cap=1000.0,
                )
            )
    claim = _claim("1/2")
    claim.update(T_exp=None, d_exp="1/2")
    claim["audit"] = {**claim["audit"], "fit": ["d"]}
    row, _ = _fit_row(pd.DataFrame(rows), claim)
    assert row["variable"] == "d" and row["regime"] == "learning"
    assert row["verdict"] == "consistent"
    hot = pd.DataFrame(rows).assign(cap=250.0)  # d = 20 at 0.54 of its cap: saturated
    row, _ = _fit_row(hot, claim)
    assert row["regime"] == "saturated" and row["verdict"] == "untestable"


def test_a_worst_case_fit_cannot_see_below_its_grid_step():
    # noise-free regret: the interval has no width, but the worst gap can only move by whole
    # grid steps (ratio sqrt 2) over the horizons' range (factor 16): excess < ln sqrt2 / ln 16
    gaps = 2.0 ** -np.arange(2, 12, 0.5)
    df = _grid_frame(gaps, seed=1)
    df["regret_pseudo"] = [
        min(t * g / 2, 40.0 / g)
        for t, g in zip(df["T"], gaps[df["schedule"].str[1:].astype(int)], strict=True)
    ]
    names = [f"g{k}" for k in range(len(gaps))]
    claim, grids = _worst(names)
    res = evaluate_rate_claims(
        [claim],
        df,
        n_boot=200,
        seed=0,
        max_detectable=0.25,
        grids=grids,
        grid_steps={("s", "grid"): np.log(np.sqrt(2))},
    )
    row = res[res["schedule"] != "all"].iloc[0]
    assert row["ci_high"] - row["ci_low"] < 0.02
    assert row["detectable_excess"] == pytest.approx(0.05 + np.log(np.sqrt(2)) / np.log(16))


def test_a_worst_case_privacy_cost_is_the_difference_of_worst_cases():
    # private: min(T g / 2, 160 / g), baseline (non-private): min(T g / 2, 40 / g); worst cases
    # sqrt(80 T) and sqrt(20 T), so their difference is sqrt(20 T)
    gaps = 2.0 ** -np.arange(0, 12, 0.5)  # both worst cases inside the grid at every T
    rows = []
    for k, gap in enumerate(gaps):
        for t in T:
            for name, c, eps in (("p", 160.0, 1.0), ("b", 40.0, np.nan)):
                rows.append(
                    dict(
                        sweep="s",
                        schedule=f"{name}{k}",
                        epsilon=eps,
                        d=2,
                        T=int(t),
                        t=int(t),
                        trial=0,
                        regret_pseudo=min(t * gap / 2, c / gap),
                        cap=t * gap / 2,
                    )
                )
    df = pd.DataFrame(rows)
    df = pd.concat([df.assign(trial=i) for i in range(3)], ignore_index=True)
    claim = _claim("1/2")
    claim["audit"] = {
        **claim["audit"],
        "schedules": ["priv"],
        "worst_case": True,
        "T_fit": "gap",
        "baseline": "base",
    }
    grids = {
        ("s", "priv"): [f"p{k}" for k in range(len(gaps))],
        ("s", "base"): [f"b{k}" for k in range(len(gaps))],
    }
    res = evaluate_rate_claims([claim], df, n_boot=200, seed=0, grids=grids)
    row = res[res["schedule"] != "all"].iloc[0]
    # worst cases sqrt(80 T) and sqrt(20 T) on the grid: their difference grows like sqrt(T)
    assert row["slope"] == pytest.approx(0.5, abs=0.06)
    assert "minus base" in row["variable"] and row["regime"] == "learning"


def test_the_rate_figure_of_a_worst_case_claim_is_drawn_from_its_grid(tmp_path):
    from dpbandits.audit.plots import render_rate_claims

    gaps = 2.0 ** -np.arange(2, 12, 0.5)
    df = _grid_frame(gaps).assign(
        schedule=lambda f: "grid_g" + (f["schedule"].str[1:].astype(int) + 1).astype(str)
    )
    names = [f"grid_g{k + 1}" for k in range(len(gaps))]
    claim, grids = _worst(names)
    claim.update(kind="rate", bound="O(sqrt T)")
    rates = evaluate_rate_claims([claim], df, n_boot=100, seed=0, grids=grids)
    files = {"x.c": {"pdf": str(tmp_path / "c.pdf"), "png": str(tmp_path / "c.png")}}
    render_rate_claims([claim], rates, df, files)
    assert (tmp_path / "c.png").stat().st_size > 1000


def test_a_violation_that_rests_on_the_smallest_horizon_is_fragile():
    from dpbandits.audit.rates import robustness

    # exponent 0.8 throughout: exceeds the claimed 1/2 on every window -> robust
    steady = _curves(0.8, noise=0.1, seed=11)
    assert verdict(fit_exponent(T, steady, 1000, 0), 0.5, "upper", 0.05) == "exceeds"
    assert robustness(T, steady, 0.5, "upper", 0.05, 1000, 0, "exceeds") == "robust"
    # a transient: regret jumps from the first horizon to the second, then grows like T^(1/2);
    # the full-window slope exceeds 1/2, the larger horizons alone do not
    transient = _curves(0.5, noise=0.1, seed=12)
    transient[:, 0] /= 8.0
    assert verdict(fit_exponent(T, transient, 1000, 0), 0.5, "upper", 0.05) == "exceeds"
    assert robustness(T, transient, 0.5, "upper", 0.05, 1000, 0, "exceeds") == "fragile"
    # no violation: nothing to qualify; too few levels left: untested
    assert robustness(T, steady, 0.5, "upper", 0.05, 1000, 0, "consistent") == ""
    assert robustness(T[:2], steady[:, :2], 0.5, "upper", 0.05, 1000, 0, "exceeds") == "untested"


def test_the_scoreboard_says_whether_a_contradiction_is_robust():
    from dpbandits.audit.scoreboard import scoreboard

    ov = pd.DataFrame(
        {
            "claim_id": ["p.a", "p.b", "p.c"],
            "verdict": ["exceeds", "exceeds", "consistent"],
            "kind": "rate",
        }
    )
    board = scoreboard([("p", ov)], robustness={"p.a": "fragile"}).set_index("claim_id")
    assert board.loc["p.a", "robustness"] == "fragile"
    assert board.loc["p.b", "robustness"] == "untested"  # contradicted, never checked
    assert board.loc["p.c", "robustness"] == ""


# -- boundaries and formulas of the vocabulary -----------------------------------------------------


Z80 = 0.8416212335729143  # standard normal quantile at 0.8 (= -q_0.2)


def test_log_mean_sd_uses_the_sample_standard_deviation():
    # Y = (1, 2, 3): mean 2, sample sd (ddof=1) exactly 1, so sd/(sqrt(n) mean) = 1/(2 sqrt 3).
    got = vocab.log_mean_sd(np.array([[1.0], [2.0], [3.0]]))
    assert got[0] == pytest.approx(1.0 / (2.0 * math.sqrt(3.0)), rel=1e-12)


@pytest.mark.parametrize("sd", [0.05, 0.1, 0.3])
def test_detectable_excess_adds_z_80_times_the_sd_of_the_centred_slope(sd):
    # Levels 1, e, e^2: ln levels 0, 1, 2, centred sum of squares S = 2, so the OLS slope error
    # is N(0, sd^2 / S) and the detectable excess is tol + hw + z_0.8 sd / sqrt(S). The
    # Monte Carlo quantile of 4000 draws has SE sqrt(0.8*0.2/4000)/phi(z_0.8) = 0.0226 sigma;
    # allow 5 SE. Without centring, S would be 5 (sigma 37 % smaller, ~16 SE away).
    levels = np.exp([0.0, 1.0, 2.0])
    sigma = sd / math.sqrt(2.0)
    got = vocab.detectable_excess(levels, np.full(3, sd), half_width=0.1, tol=0.05)
    assert got == pytest.approx(0.05 + 0.1 + Z80 * sigma, abs=5 * 0.0226 * sigma)


def test_detectable_excess_does_not_depend_on_level_units():
    # A slope in ln levels is unchanged by rescaling the levels (horizons in thousands, say).
    levels = np.array([2500.0, 5000.0, 10000.0, 20000.0, 40000.0])
    sd = np.full(5, 0.1)
    a = vocab.detectable_excess(levels, sd, half_width=0.05, tol=0.05, seed=3)
    b = vocab.detectable_excess(levels / 1000.0, sd, half_width=0.05, tol=0.05, seed=3)
    assert b == pytest.approx(a, rel=1e-9)


def test_a_single_unsaturated_level_is_learning_without_a_trend():
    # One level: the pre-asymptotic trend (share at the last level >= share at the first) needs
    # two levels to mean anything; one unsaturated level is learning.
    assert vocab.regime([1.0], [10.0])[0] == "learning"
    assert vocab.regime([1.0, 1.0], [10.0, 10.0])[0] == "pre-asymptotic"


def test_the_power_gate_passes_a_detectable_excess_equal_to_the_maximum():
    # The docstring's condition is detectable <= max_detectable, boundary included.
    assert vocab.gate("consistent", "learning", 0.2, 0.2) == ("consistent", "")
    assert vocab.gate("consistent", "learning", 0.2000001, 0.2)[0] == "inconclusive"


@pytest.mark.parametrize("verdict", ["exceeds", "below", "inconclusive", "untestable"])
def test_the_power_gate_applies_only_to_consistent(verdict):
    # Violations and other verdicts stand outside saturation, whatever the power.
    assert vocab.gate(verdict, "learning", math.inf, 0.2) == (verdict, "")


def test_plain_reason_quotes_a_finite_interval_and_says_no_interval_otherwise():
    got = vocab.plain_reason("consistent", 0.5, 0.4, 0.6, 0.5, 0.05)
    assert got.startswith("fitted 0.500 [0.400, 0.600] against claimed 0.500")
    assert got.endswith("interval within the claim")
    assert vocab.plain_reason("exceeds", 0.5, 0.4, math.inf, 0.5, 0.05).startswith("no interval")


def test_log_mean_sd_accepts_means_below_one_and_is_infinite_at_zero():
    # Means below 1 are positive: Y = (0.1, 0.2, 0.3) has mean 0.2 and sd 0.1.
    got = vocab.log_mean_sd(np.array([[0.1], [0.2], [0.3]]))
    assert got[0] == pytest.approx(0.1 / (math.sqrt(3.0) * 0.2), rel=1e-12)
    assert vocab.log_mean_sd(np.array([[0.0], [0.0]]))[0] == math.inf


@pytest.mark.parametrize("means,caps", [([1.0, 2.0, 3.0], [10.0, 10.0]), ([1.0], [2.0, 3.0])])
def test_regime_needs_one_cap_per_level(means, caps):
    with pytest.raises(ValueError, match="one positive cap per level"):
        vocab.regime(means, caps)


def test_regime_reasons_quote_first_and_last_share():
    # shares 0.1, 0.2, 0.3 (rising: pre-asymptotic) and 0.3, 0.2, 0.1 (falling: learning)
    name, why = vocab.regime([1.0, 2.0, 3.0], [10.0, 10.0, 10.0])
    assert name == "pre-asymptotic" and "(0.10 -> 0.30)" in why
    name, why = vocab.regime([3.0, 2.0, 1.0], [10.0, 10.0, 10.0])
    assert name == "learning" and "regret is 0.30 -> 0.10 of the cap" in why


def test_plain_reason_without_a_claimed_exponent_says_n_a():
    got = vocab.plain_reason("inconclusive", 0.5, 0.4, 0.6, None, 0.05)
    assert "against claimed n/a" in got and got.endswith("straddles the claim's edge")


def test_why_undecided_counts_the_short_reasons_most_frequent_first():
    from dpbandits.audit.verdicts import plain_reason, regime, violation_blocker, why_undecided

    saturated = regime([60.0, 80.0], [100.0, 100.0])[1]  # 2 of 2 levels at >= 0.5 of the cap
    one_term = violation_blocker("one-term", "worst-case")
    other = "no interval: some level's mean is not positive"
    got = why_undecided([one_term, saturated, one_term, other])
    assert got == (
        "one term of a sum bound: 2 of 4; saturated at a fitted level: 1 of 4; no interval: 1 of 4"
    )
    assert why_undecided([]) == ""
    edge = plain_reason("inconclusive", 0.74, 0.58, 0.88, 0.749, 0.05)
    assert why_undecided([edge]) == "interval straddles the claim's edge: 1 of 1"
    # the short names follow the sentences where they are written (a reworded sentence would
    # fall back to its first clause)
    early = regime([10.0, 20.0], [100.0, 100.0])[1]  # share of the cap rising: pre-asymptotic
    fixed = violation_blocker("fixed-instance", "worst-case")
    assert why_undecided([early, fixed]) == (
        "pre-asymptotic: 1 of 2; fixed instances against a worst-case bound: 1 of 2"
    )
