"""Rate audit: exponent fits, verdicts and claim evaluation (issue: claim audit).

Also pinned (docs/mutation.md): :func:`~dpbandits.audit.rates.judge`'s normal approximation when
no per-instance values are given, the batch exponent of one schedule and dimension, the local
exponent of a log factor, and which fits a claim gets, with their labels, robustness and summary.
The sweeps of those tests are noiseless power laws with instance factors: trial ``i`` has regret
``c_i T^e (1/epsilon)^(1/2) d`` (``c_i = 1 + i / 10``). Every bootstrap resample of the rows then
has column means ``mean(c) T^e ...``, so each fitted T-exponent and its whole interval equal ``e``
up to rounding (1e-9 relative), and a slope difference of two schedules is the difference of
their exponents. The rate audit's rules are those of docs/auditing.md (module docstring of
:mod:`dpbandits.audit.rates`).
"""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit.rates import (
    RATE_COLUMNS,
    Fit,
    batch_exponent,
    combine,
    evaluate_rate_claims,
    fit_exponent,
    judge,
    log_factor_slope,
    verdict,
)

T = np.array([2500, 5000, 10000, 20000, 40000], dtype=float)


def _curves(exponent, n=30, noise=0.05, seed=0, scale=3.0):
    """c_i T^exponent with multiplicative instance effects and noise."""
    rng = np.random.default_rng(seed)
    c = scale * rng.lognormal(0.0, 0.2, size=(n, 1))
    return c * T**exponent * rng.lognormal(0.0, noise, size=(n, T.size))


@pytest.mark.parametrize("exponent", [0.5, 0.6, 0.75])
def test_fit_recovers_known_exponents(exponent):
    fit = fit_exponent(T, _curves(exponent), n_boot=2000, seed=1)
    assert fit.ci_low <= exponent <= fit.ci_high
    assert abs(fit.slope - exponent) < 0.03
    assert fit.n_levels == 5 and fit.n_trials == 30


def test_bootstrap_interval_shrinks_with_more_instances():
    narrow = fit_exponent(T, _curves(0.6, n=200, noise=0.3), n_boot=1000, seed=2)
    wide = fit_exponent(T, _curves(0.6, n=10, noise=0.3), n_boot=1000, seed=2)
    assert narrow.ci_high - narrow.ci_low < wide.ci_high - wide.ci_low


def test_fit_is_nan_when_a_mean_is_not_positive():
    Y = _curves(0.5)
    Y[:, 2] = -1.0
    fit = fit_exponent(T, Y)
    assert np.isnan(fit.slope) and verdict(fit, 0.5) == "inconclusive"
    with pytest.raises(ValueError):
        fit_exponent([1.0, 1.0], np.ones((3, 2)))


def _fit(lo, hi):
    return Fit((lo + hi) / 2, lo, hi, 0.0, 5, 20)


@pytest.mark.parametrize(
    "lo,hi,upper,lower",
    [
        # claimed 0.75, tol 0.05: upper needs hi <= 0.80; lower needs lo >= 0.70
        (0.60, 0.78, "consistent", "inconclusive"),
        (0.70, 0.85, "inconclusive", "consistent"),
        (0.81, 0.90, "exceeds", "consistent"),
        (0.55, 0.72, "consistent", "inconclusive"),
        (0.40, 0.65, "consistent", "below"),
    ],
)
def test_verdicts_for_both_directions(lo, hi, upper, lower):
    assert verdict(_fit(lo, hi), 0.75, "upper", 0.05) == upper
    assert verdict(_fit(lo, hi), 0.75, "lower", 0.05) == lower


def test_combine_takes_the_worst():
    assert combine(["consistent", "inconclusive"]) == "inconclusive"
    assert combine(["consistent", "exceeds", "inconclusive"]) == "exceeds"
    assert combine(["consistent", "consistent"]) == "consistent"


def _sweep_frame(exponents: dict[str, float], eps_exponent=0.5, n=25, seed=3):
    """Final pseudo-regret of schedules at every (epsilon, T): LinUCB-like baseline plus a
    privacy cost a * T^e * (1/epsilon)^eps_exponent."""
    rng = np.random.default_rng(seed)
    rows = []
    base = 2.0 * T**0.5
    for trial in range(n):
        u = rng.lognormal(0, 0.1)
        for j, t in enumerate(T):
            rows.append(
                dict(
                    sweep="s",
                    schedule="linucb",
                    epsilon=np.nan,
                    d=5,
                    T=int(t),
                    t=int(t),
                    trial=trial,
                    regret_pseudo=base[j] * u,
                )
            )
        for sched, e in exponents.items():
            for eps in (0.2, 1.0, 10.0):
                for j, t in enumerate(T):
                    cost = 0.5 * t**e * (1 / eps) ** eps_exponent * rng.lognormal(0, 0.05)
                    rows.append(
                        dict(
                            sweep="s",
                            schedule=sched,
                            epsilon=eps,
                            d=5,
                            T=int(t),
                            t=int(t),
                            trial=trial,
                            regret_pseudo=base[j] * u + cost,
                        )
                    )
    return pd.DataFrame(rows)


def _claim(cid, schedules, T_exp, eps_exp, fit=("T", "epsilon"), check="slope", **extra):
    audit = {"experiment": "x", "sweep": "s", "check": check, "schedules": schedules, **extra}
    if check == "slope":
        audit["fit"] = list(fit)
    return {"id": cid, "direction": "upper", "T_exp": T_exp, "eps_exp": eps_exp, "audit": audit}


def test_claims_are_evaluated_against_synthetic_sweeps():
    df = _sweep_frame({"slow": 0.5, "fast": 0.9, "mid": 0.65})
    claims = [
        _claim("x.ok", ["fast"], "1", "-1/2"),
        _claim("x.bad", ["fast"], "1/2", "-1/2", fit=("T",), bound_scope="instance"),
        _claim(
            "x.between", ["mid"], "3/5", "-1/2", check="slope_between", lower="slow", upper="fast"
        ),
        _claim(
            "x.reversed",
            ["fast"],
            "3/5",
            "-1/2",
            check="slope_between",
            lower="slow",
            upper="mid",
            bound_scope="instance",
        ),
        {
            "id": "x.none",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"none": "n/a"},
        },
    ]
    res = evaluate_rate_claims(claims, df, n_boot=500, seed=0)
    assert list(res.columns) == RATE_COLUMNS
    summary = res[res["schedule"] == "all"].set_index("claim_id")["verdict"].to_dict()
    assert summary == {
        "x.ok": "consistent",
        "x.bad": "exceeds",
        "x.between": "consistent",
        "x.reversed": "below",
    }
    eps_rows = res[(res["claim_id"] == "x.ok") & (res["variable"] == "1/epsilon")]
    assert len(eps_rows) == 1 and eps_rows["claimed"].iat[0] == 0.5
    # the privacy cost grows like (1/epsilon)^0.5 by construction
    assert eps_rows["ci_low"].iat[0] <= 0.5 <= eps_rows["ci_high"].iat[0]
    assert (res["caveat"].str.contains("finite-horizon")).all()


def test_a_between_claim_needs_the_power_to_tell_the_rates_it_contrasts():
    # the same fits read consistent where the contrasted separation is wide (half of 1 is above
    # the power target 0.1) and inconclusive where no design could tell it (half of 1/100)
    df = _sweep_frame({"slow": 0.5, "fast": 0.9, "mid": 0.65})
    between = dict(check="slope_between", lower="slow", upper="fast")
    claims = [
        _claim("x.wide", ["mid"], "3/5", "-1/2", contrasts=["1"], **between),
        _claim("x.narrow", ["mid"], "3/5", "-1/2", contrasts=["1/100"], **between),
    ]
    res = evaluate_rate_claims(claims, df, n_boot=500, seed=0)
    fits = res[res["schedule"] != "all"]
    assert set(fits.loc[fits["claim_id"] == "x.wide", "verdict"]) == {"consistent"}
    narrow = fits[fits["claim_id"] == "x.narrow"]
    assert set(narrow["verdict"]) == {"inconclusive"}
    assert narrow["reason"].str.contains("half the separation 0.010").all()


def test_empty_sweeps_give_an_empty_table_with_the_columns():
    assert list(evaluate_rate_claims([], None).columns) == RATE_COLUMNS


def test_a_claim_on_an_unknown_sweep_is_an_error():
    df = _sweep_frame({"fast": 0.9}, n=5)
    claim = _claim("x.c", ["fast"], "1", None, fit=("T",))
    claim["audit"]["sweep"] = "other"
    with pytest.raises(ValueError, match="no data of sweep 'other'"):
        evaluate_rate_claims([claim], df, n_boot=50)


def test_report_overview_summary_and_index(tmp_path):
    from dpbandits.audit.overview import claim_overview, plain_summary, write_index

    df = _sweep_frame({"fast": 0.9})
    claims = [
        _claim("x.rate", ["fast"], "1/2", "-1/2", fit=("T",), bound_scope="instance"),
        {
            "id": "x.order",
            "kind": "ordering",
            "source": "s",
            "algorithm": "A",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"experiment": "x", "check": "below"},
        },
        {
            "id": "x.priv",
            "kind": "privacy",
            "source": "s",
            "algorithm": "A",
            "direction": "upper",
            "T_exp": None,
            "eps_exp": None,
            "audit": {"none": "separate audit"},
        },
    ]
    claims[0].update(kind="rate", source="s", algorithm="fast")
    rates = evaluate_rate_claims(claims, df, n_boot=200)
    orderings = pd.DataFrame(
        [
            {
                "claim_id": "x.order",
                "configuration": "r1",
                "metric": "realized",
                "comparison": "all",
                "verdict": "PASS",
            }
        ]
    )
    overview = claim_overview(claims, rates, orderings, "r1")
    assert overview.set_index("claim_id")["verdict"].to_dict() == {
        "x.rate": "exceeds",
        "x.order": "PASS",
        "x.priv": "not audited",
    }
    from dpbandits.audit.scoreboard import scoreboard

    board = scoreboard([("x", overview)])
    text = plain_summary(board, rates, "r1")
    assert "`x.rate`" in text and "finite-horizon" in text and "1 contradicted" in text
    out = tmp_path / "report.html"
    write_index(
        board, [{"name": "x", "title": "Paper X", "page": "x.html"}], str(out), str(tmp_path)
    )
    page = out.read_text()
    assert 'href="x.html"' in page and "x.priv" in page and "supported" in page
    assert 'data-claim="x.rate" data-status="contradicted"' in page


def test_overview_marks_a_comparison_whose_verdict_depends_on_the_configuration():
    from dpbandits.audit.overview import claim_overview

    claim = {
        "id": "x.beats",
        "kind": "ordering",
        "source": "s",
        "algorithm": "A",
        "direction": "upper",
        "T_exp": None,
        "eps_exp": None,
        "audit": {"experiment": "x", "check": "below", "configurations": ["main", "fair"]},
    }
    row = dict(claim_id="x.beats", comparison="all", metric="realized")
    orderings = pd.DataFrame(
        [
            {**row, "configuration": "main", "verdict": "PASS"},
            {**row, "configuration": "fair", "verdict": "FAIL"},
        ]
    )
    ov = claim_overview([claim], pd.DataFrame(), orderings, "main").iloc[0]
    assert ov["verdict"] == "PASS" and ov["all_configurations"] == "INCONCLUSIVE"
    assert "fair FAIL" in ov["how"]
    same = orderings.assign(verdict="PASS")
    assert (
        claim_overview([claim], pd.DataFrame(), same, "main").iloc[0]["all_configurations"]
        == "PASS"
    )


def test_overview_shows_the_privacy_audits_finding_for_privacy_claims():
    from dpbandits.audit.overview import claim_overview

    claim = {
        "id": "x.priv",
        "kind": "privacy",
        "source": "s",
        "algorithm": "A",
        "direction": "upper",
        "T_exp": None,
        "eps_exp": None,
        "audit": {"none": "noise scale from the theorem", "privacy_audit": [{"experiment": "x"}]},
    }
    privacy = pd.DataFrame(
        [{"claim_id": "x.priv", "status": "contradicted", "reason": "delivered 18.4 at nominal 10"}]
    )
    ov = claim_overview([claim], pd.DataFrame(), pd.DataFrame(), "main", privacy=privacy).iloc[0]
    assert ov["verdict"] == "contradicted" and "18.4" in ov["how"]
    assert (
        claim_overview([claim], pd.DataFrame(), pd.DataFrame(), "main").iloc[0]["verdict"]
        == "not audited"
    )


# ---- noiseless power-law sweeps ------------------------------------------------------------------


HORIZONS = (100, 1000, 10000)
N_TRIALS = 6


def _power_law_sweep(exponents: dict, eps=(1.0, 4.0), dims=(5,)):
    """Final regrets of a sweep ``s``: a non-private ``linucb`` (``0.1 c_i T^(1/2) d``, below
    every private schedule) and one private schedule per entry of ``exponents``."""
    rows = []
    for i in range(N_TRIALS):
        c = 1.0 + i / 10
        for d in dims:
            for T in HORIZONS:
                base = dict(sweep="s", d=d, T=T, t=T, trial=i)
                rows.append(dict(base, schedule="linucb", epsilon=np.nan,
                                 regret_pseudo=0.1 * c * T**0.5 * d))  # fmt: skip
                for name, e in exponents.items():
                    for ep in eps:
                        value = c * T**e * ep**-0.5 * d
                        rows.append(dict(base, schedule=name, epsilon=ep, regret_pseudo=value))
    return pd.DataFrame(rows)


def _power_law_claim(
    cid, schedules, T_exp="1/2", eps_exp="-1/2", fit=("T",), check="slope", **extra
):
    audit = {"experiment": "x", "sweep": "s", "check": check, "schedules": schedules, **extra}
    if check == "slope":
        audit["fit"] = list(fit)
    claim = {"id": cid, "direction": "upper", "T_exp": T_exp, "eps_exp": eps_exp, "d_exp": "1"}
    return {**claim, "audit": audit}


def _fits(res, cid):
    return res[(res["claim_id"] == cid) & (res["schedule"] != "all")]


# ---- judge without per-instance values: the normal approximation of the interval -------------


def test_judge_without_values_uses_the_normal_approximation_on_the_violating_side():
    # interval (0.3, 0.3 + 2 z_0.975 0.1): se = width / (2 z_0.975) = 0.1 exactly. Detectable
    # excess = tol + half + z_0.8 se with z_0.8 = 0.841621 (80 % power, docs/auditing.md):
    # upper bound: half = slope - lo = 0.2 -> 0.05 + 0.2 + 0.0841621 = 0.3341621;
    # lower bound: half = hi - slope = 0.1919928 -> 0.05 + 0.1919928 + 0.0841621 = 0.3261549
    fit = Fit(0.5, 0.3, 0.3 + 2 * 1.959964 * 0.1, math.nan, 2, 10)
    up = judge(fit, 0.5, "upper", 0.05, [1.0, 2.0], [1.0, 1.0], None)
    low = judge(fit, 0.5, "lower", 0.05, [1.0, 2.0], [1.0, 1.0], None)
    assert up["detectable_excess"] == pytest.approx(0.3341621, abs=1e-12)
    assert low["detectable_excess"] == pytest.approx(0.3261549, abs=1e-12)


# ---- batch_exponent: the simulated batch schedule of one schedule (and one d) -----------------


def test_batch_exponent_reads_only_the_named_schedule_and_dimension():
    # schedule "a" at d = 2: B = 2, 4, 8 at T = 4, 16, 64, i.e. B = T^(1/2) exactly; at d = 3 and
    # in schedule "b" B is constant (no growth: None)
    rows = []
    for T, B in ((4, 2), (16, 4), (64, 8)):
        rows.append(dict(schedule="a", epsilon=np.nan, d=2, T=T, B=B))
        rows.append(dict(schedule="a", epsilon=np.nan, d=3, T=T, B=1))
        rows.append(dict(schedule="b", epsilon=np.nan, d=2, T=T, B=1))
    finals = pd.DataFrame(rows)
    assert batch_exponent(finals, "a", None, d=2) == pytest.approx(0.5, rel=1e-12)
    assert batch_exponent(finals, "a", None, d=3) is None
    assert batch_exponent(finals, "b", None) is None


# ---- log_factor_slope: a (ln T)^p factor's local exponent, for any sign of p -----------------


@pytest.mark.parametrize("power", [-1.0, 0.0, 2.0])
def test_log_factor_slope_is_p_over_e_minus_1_between_e_and_e_to_the_e(power):
    # ln x = 1, e and ln ln x = 0, 1: the OLS slope of p ln ln x on ln x is p / (e - 1); a
    # negative power (a 1 / ln T factor) is a slope like any other
    got = log_factor_slope([math.e, math.e**math.e], power)
    assert got == pytest.approx(power / (math.e - 1), rel=1e-12, abs=1e-15)


# ---- evaluate_rate_claims: which fits a claim gets, their labels and summary ------------------


def test_a_claim_gets_only_the_fits_it_asks_for():
    # two epsilon levels and two dimensions: a claim with eps_exp and d_exp that asks only for
    # the T fit gets one T row per (epsilon, d) and no 1/epsilon or d rows
    df = _power_law_sweep({"p": 0.5}, dims=(2, 4))
    res = evaluate_rate_claims([_power_law_claim("x.t", ["p"])], df, n_boot=50)
    fits = _fits(res, "x.t")
    assert set(fits["variable"]) == {"T"}
    assert len(fits) == 4


def test_the_T_fit_label_names_the_gap_baseline_only_for_a_gap_fit():
    df = _power_law_sweep({"p": 0.5}, eps=(1.0,))
    plain = _power_law_claim("x.plain", ["p"])
    gap = _power_law_claim("x.gap", ["p"], T_fit="gap", baseline="linucb")
    res = evaluate_rate_claims([plain, gap], df, n_boot=50)
    assert list(_fits(res, "x.plain")["variable"]) == ["T"]
    assert list(_fits(res, "x.gap")["variable"]) == ["T (gap to linucb)"]


def test_a_literal_epsilon_exponent_adds_a_row_only_when_it_differs():
    df = _power_law_sweep({"p": 0.5})
    # the registry's literal reading sits next to eps_exp: "-0.5" is the same exponent as -1/2
    same = {**_power_law_claim("x.same", ["p"], fit=("epsilon",)), "eps_exp_literal": "-0.5"}
    other = {**_power_law_claim("x.other", ["p"], fit=("epsilon",)), "eps_exp_literal": "-1"}
    res = evaluate_rate_claims([same, other], df, n_boot=50)
    assert list(_fits(res, "x.same")["variable"]) == ["1/epsilon"]
    rows = _fits(res, "x.other").set_index("variable")
    assert list(rows.index) == ["1/epsilon", "1/epsilon [literal]"]
    assert rows.loc["1/epsilon [literal]", "claimed"] == 1.0  # exponent of 1/epsilon


def test_a_robust_violation_says_so_and_the_summary_takes_the_largest_detectable_excess():
    # T^0.9 against a claimed T^(1/2): the interval is the point 0.9 > 0.5 + 0.05 (exceeds), and
    # without the smallest horizon the slope is still 0.9 (robust)
    df = _power_law_sweep({"p": 0.9})
    bad = _power_law_claim("x.bad", ["p"])
    bad["audit"]["bound_scope"] = "instance"  # fixed instances can violate an instance bound
    res = evaluate_rate_claims([bad], df, n_boot=50)
    fits = _fits(res, "x.bad")
    assert (fits["verdict"] == "exceeds").all() and (fits["robustness"] == "robust").all()
    for reason in fits["reason"]:
        assert "robust: the violation holds without the smallest level" in reason
        assert "fragile" not in reason
    summary = res[(res["claim_id"] == "x.bad") & (res["schedule"] == "all")].iloc[0]
    assert np.isfinite(fits["detectable_excess"]).all()
    assert summary["detectable_excess"] == fits["detectable_excess"].max()


def test_a_violation_resting_on_the_smallest_horizon_is_inconclusive():
    # T^(1/2) with the smallest horizon's regret divided by 8: the full window's slope exceeds
    # the claimed 1/2, the larger horizons alone follow it exactly (a transient, not a violation)
    df = _power_law_sweep({"p": 0.5})
    low = (df["schedule"] == "p") & (df["T"] == min(HORIZONS))
    df.loc[low, "regret_pseudo"] /= 8.0
    claim = _power_law_claim("x.t", ["p"])
    claim["audit"]["bound_scope"] = "instance"
    fits = _fits(evaluate_rate_claims([claim], df, n_boot=50), "x.t")
    fits = fits[fits["variable"] == "T"]
    assert (fits["slope"] > 0.55).all()  # planted: the whole window's slope is above the claim
    assert (fits["verdict"] == "inconclusive").all() and (fits["robustness"] == "").all()
    assert all(
        r.startswith("the violation holds only with the smallest level") for r in fits["reason"]
    )


def test_a_slope_trend_compares_each_consecutive_pair_of_schedules():
    # schedules T^0.9 then T^0.5: slope(second) - slope(first) = -0.4 at each epsilon, exactly
    df = _power_law_sweep({"fast": 0.9, "slow": 0.5})
    claim = _power_law_claim("x.trend", ["fast", "slow"], check="slope_trend", trend="decreasing")
    res = evaluate_rate_claims([claim], df, n_boot=50)
    fits = _fits(res, "x.trend")
    assert list(fits["schedule"]) == ["slow vs fast"] * 2
    assert list(fits["fixed"]) == ["epsilon=1", "epsilon=4"]
    for col in ("slope", "ci_low", "ci_high"):
        assert fits[col].to_numpy() == pytest.approx([-0.4, -0.4], rel=1e-9)
    assert (fits["verdict"] == "consistent").all()  # an upper bound at 0: -0.4 <= 0.05
