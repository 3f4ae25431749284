"""The principle of the verdict vocabulary, each class planted so that the former rule (a
significant slope on any design is a violation; ``consistent`` at a detectable excess of 0.25)
fails on it: contradicted only by a demonstrated violation, supported only with power."""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.audit import minimax_rules
from dpbandits.audit import verdicts as vocab
from dpbandits.audit.rates import evaluate_rate_claims, fit_exponent, verdict
from dpbandits.config import load_yaml

T = np.array([2500, 5000, 10000, 20000, 40000], dtype=float)
GAPS = 2.0 ** -np.arange(0, 12, 0.5)  # ordered from the largest gap to the smallest


def _frame(values, caps, schedule="alg"):
    """Finals of one schedule (instances x horizons) with one cap per horizon."""
    return pd.DataFrame(
        [
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
            )  # fmt: skip
            for j, t in enumerate(T)
            for i in range(values.shape[0])
        ]
    )


def _claim(T_exp="1/2", cid="x.c", **audit):
    base = {"experiment": "x", "sweep": "s", "check": "slope", "schedules": ["alg"], "fit": ["T"]}
    return {"id": cid, "direction": "upper", "T_exp": T_exp, "eps_exp": None,
            "audit": {**base, **audit}}  # fmt: skip


def _rows(claims, df, **kw):
    res = evaluate_rate_claims(claims, df, n_boot=400, seed=3, **kw)
    return res[res["schedule"] != "all"], res[res["schedule"] == "all"].set_index("claim_id")


def _steep(exponent=0.9, n=40, seed=0):
    """Fixed instances whose regret grows like T^exponent, far below random play's."""
    rng = np.random.default_rng(seed)
    return 3.0 * T**exponent * rng.lognormal(0.0, 0.1, size=(n, T.size)), 1e3 * T


def _grid_frame(excess, prefix="g", c=10.0, seed=0, n=20, eps=1.0):
    """A gap grid whose regret at gap g is min(T g / 2, c T^(2 excess) / g): the worst case over
    the grid grows like T^(1/2 + excess), reached inside the grid at every horizon."""
    rng = np.random.default_rng(seed)
    rows = []
    for k, g in enumerate(GAPS):
        for t in T:
            mean = min(t * g / 2, c * t ** (2 * excess) / g)
            for i in range(n):
                rows.append(
                    dict(sweep="s", schedule=f"{prefix}{k}", epsilon=eps, d=2, T=int(t), t=int(t),
                         trial=i, regret_pseudo=mean * rng.lognormal(0, 0.05), cap=t * g / 2)
                )  # fmt: skip
    return pd.DataFrame(rows)


def _grid(prefix="g"):
    return [f"{prefix}{k}" for k in range(GAPS.size)]


# ---- contradiction needs a demonstrated violation ------------------------------------------------


def test_a_fixed_instance_slope_steeper_than_a_worst_case_bound_stays_inconclusive():
    Y, caps = _steep(0.9)
    fit = fit_exponent(T, Y, 400, 3)
    assert verdict(fit, 0.5) == "exceeds"  # the former rule: contradicted
    rows, summary = _rows([_claim("1/2")], _frame(Y, caps))
    row = rows.iloc[0]
    assert row["regime"] == "learning" and row["verdict"] == "inconclusive"
    assert "worst case over instances" in row["reason"]
    assert "instance (gap) grid" in row["reason"]
    assert row["robustness"] == "" and "robust" not in row["reason"]  # no violation to decorate
    assert summary.loc["x.c", "verdict"] == "inconclusive"


def test_an_instance_dependent_bound_is_violated_on_fixed_instances():
    Y, caps = _steep(0.9)
    rows, _ = _rows([_claim("1/2", bound_scope="instance")], _frame(Y, caps))
    assert rows.iloc[0]["verdict"] == "exceeds"
    assert rows.iloc[0]["robustness"] == "robust"


@pytest.mark.parametrize("start,expected", [(80000.0, "inconclusive"), (1000.0, "exceeds")])
def test_a_rate_whose_regime_starts_beyond_the_horizons_is_pre_asymptotic(start, expected):
    # a learner diagnostic growing like T^0.9 against a log rate that the algorithm's constants
    # say holds only from T = 80 000 on: no violation (planted: the same data with the regime
    # starting at 1 000, inside the horizons, is one)
    Y, caps = _steep(0.9)
    df = _frame(Y, caps).rename(columns={"regret_pseudo": "learner_regret"}).drop(columns="cap")
    df["lemma_regime_T"] = start
    claim = _claim("0", bound_scope="instance", metric="learner_regret")
    claim["audit"]["regime_from"] = "lemma_regime_T"
    claim["logT_pow"] = "3"
    rows, summary = _rows([claim], df)
    row = rows.iloc[0]
    assert row["verdict"] == expected and summary.loc["x.c", "verdict"] == expected
    if expected == "inconclusive":
        assert row["regime"] == "pre-asymptotic"
        assert "applies from T = 8e+04 on (lemma_regime_T" in row["reason"]
        assert "horizons below it (2500 to 40000)" in row["reason"]
    else:
        assert row["regime"] == "learning"


def test_a_fixed_instance_epsilon_slope_against_a_worst_case_bound_is_inconclusive():
    # the cz22.cite.ss18 case: the privacy cost on fixed gapped instances grows like 1/epsilon
    # (beta^2), steeper than the worst-case epsilon^(-1/2)
    rng = np.random.default_rng(4)
    rows = []
    base = 50.0 * rng.lognormal(0, 0.05, size=30)
    cells = [("linucb", np.nan, base)]  # the non-private baseline has no epsilon
    cells += [("alg", eps, base + 40.0 / eps) for eps in (0.2, 1.0, 10.0)]
    for sched, eps, values in cells:
        for i, value in enumerate(values):
            rows.append(dict(sweep="s", schedule=sched, epsilon=eps, d=5, T=40000, t=40000,
                             trial=i, regret_pseudo=value, cap=1e5))  # fmt: skip
    claim = {**_claim("1/2"), "T_exp": None, "eps_exp": "-1/2"}
    claim["audit"]["fit"] = ["epsilon"]
    fits, _ = _rows([claim], pd.DataFrame(rows))
    row = fits.iloc[0]
    assert row["variable"] == "1/epsilon" and row["slope"] == pytest.approx(1.0, abs=0.02)
    assert row["verdict"] == "inconclusive" and "worst case over instances" in row["reason"]


def test_a_worst_case_grid_with_a_real_excess_is_contradicted():
    df = _grid_frame(excess=0.2)  # worst case grows like T^0.7 against a claimed T^(1/2)
    claim = _claim("1/2", schedules=["grid"], worst_case=True)
    rows, summary = _rows([claim], df, grids={("s", "grid"): _grid()})
    row = rows.iloc[0]
    assert row["variable"] == "T (worst case)" and row["regime"] == "learning"
    assert row["slope"] == pytest.approx(0.7, abs=0.03)
    assert row["verdict"] == "exceeds" and row["robustness"] == "robust"
    assert summary.loc["x.c", "verdict"] == "exceeds"


def test_a_worst_case_grid_at_the_claimed_rate_is_not_contradicted():
    df = _grid_frame(excess=0.0)
    claim = _claim("1/2", schedules=["grid"], worst_case=True)
    rows, _ = _rows([claim], df, grids={("s", "grid"): _grid()})
    assert rows.iloc[0]["verdict"] == "consistent"


# ---- a sum bound is never violated by one term ---------------------------------------------------


def _one_term_frame(excess):
    private = _grid_frame(excess=excess, prefix="p", c=40.0)
    base = _grid_frame(excess=0.0, prefix="b", c=1.0, eps=np.nan)
    return pd.concat([private, base], ignore_index=True)


@pytest.mark.parametrize("excess", [0.3, 0.0])
def test_a_one_term_difference_is_never_a_verdict(excess):
    # the worst case minus the baseline's grows like T^(1/2 + excess): a flagrant excess over the
    # term's claimed log-like rate, or none; neither is a verdict on its own
    claim = _claim("0", schedules=["priv"], worst_case=True, T_fit="gap", baseline="base")
    claim["logT_pow"] = "3/2"
    grids = {("s", "priv"): _grid("p"), ("s", "base"): _grid("b")}
    rows, summary = _rows([claim], _one_term_frame(excess), grids=grids)
    row = rows.iloc[0]
    assert "minus base" in row["variable"]
    assert row["verdict"] == "inconclusive" and row["robustness"] == ""
    assert "one term of a sum bound" in row["reason"]
    assert summary.loc["x.c", "verdict"] == "inconclusive"


def test_a_claim_named_a_term_of_a_whole_bound_points_at_it():
    df = _grid_frame(excess=0.2)
    claim = _claim("1/2", schedules=["grid"], worst_case=True, term_of="x.whole")
    rows, _ = _rows([claim], df, grids={("s", "grid"): _grid()})
    assert rows.iloc[0]["verdict"] == "inconclusive"
    assert "tested by x.whole" in rows.iloc[0]["reason"]


def test_the_gate_never_lets_one_term_decide():
    for word in ("exceeds", "below", "consistent"):
        assert vocab.gate(word, "learning", 0.01, design="one-term")[0] == "inconclusive"


# ---- paraphrases through the theorem they restate ------------------------------------------------


def test_a_paraphrase_without_logs_passes_through_the_theorems_logs():
    # the regret is the theorem's sqrt(T) (ln T)^2; the remark writes T^(1/2) with no log
    rng = np.random.default_rng(0)
    Y = np.sqrt(T) * np.log(T) ** 2 * rng.lognormal(0, 0.05, size=(40, T.size))
    remark = {**_claim("1/2", bound_scope="instance"), "logT_pow": "2", "logT_pow_literal": "0"}
    rows, summary = _rows([remark], _frame(Y, 1e3 * T))
    by = rows.set_index("variable")
    assert by.loc["T", "verdict"] == "consistent"
    assert by.loc["T [literal]", "claimed"] == 0.5
    assert by.loc["T [literal]", "verdict"] == "exceeds"  # reported, not counted
    assert summary.loc["x.c", "verdict"] == "consistent"


# ---- power that means something ------------------------------------------------------------------


def test_one_required_power_everywhere():
    config = load_yaml("config/config.yaml")
    assert config["audit"]["max_detectable_excess"] == vocab.MAX_DETECTABLE == 0.1
    assert minimax_rules.MAX_DETECTABLE == vocab.MAX_DETECTABLE


def test_a_design_that_detects_only_0_2_is_not_consistent():
    final, why = vocab.gate("consistent", "learning", 0.2)
    assert final == "inconclusive"  # the former 0.25 let it through
    assert "0.200" in why and "0.1 required" in why


def test_a_design_at_0_08_is_not_consistent_against_a_contrast_0_1_away():
    assert vocab.gate("consistent", "learning", 0.08) == ("consistent", "")
    final, why = vocab.gate("consistent", "learning", 0.08, separation=0.1, tol=0.05)
    assert final == "inconclusive"
    assert "half the separation 0.100" in why
    assert "no design reaches it" in why  # the target 0.05 is the tolerance itself


def test_the_reason_says_what_would_reach_the_target():
    clause = vocab.reach(0.2, 0.1, 0.05, n_trials=20, levels=T)
    assert "180 trials instead of 20" in clause  # (0.15 / 0.05)^2 = 9 times the trials
    assert "factor 4.1e+03 instead of 16" in clause  # the span of ln T three times wider
    assert vocab.reach(0.08, 0.1, 0.05) == ""


def test_where_the_grid_step_sets_the_power_the_reason_names_a_finer_grid_not_more_trials():
    # floor = 0.05 + ln(sqrt 2) / ln 16 = 0.175: k = 2.5, so the step must shrink to
    # sqrt(2)^(1/2.5) = 1.149 or the span grow to 16^2.5 = 1024; trials do not help
    clause = vocab.reach(0.175, 0.1, 0.05, n_trials=20, levels=T, grid_step=np.log(np.sqrt(2)))
    assert "ratio 1.15 between neighbouring gaps instead of 1.41" in clause
    assert "factor 1.02e+03 instead of 16" in clause
    assert "trials" not in clause


def test_a_worst_case_fit_limited_by_its_grid_says_so():
    # 20 runs with 5 % spread: the grid's step (ratio sqrt 2 over a span of 16), not the
    # spread, sets the detectable excess
    df = _grid_frame(excess=0.0)
    steps = {("s", "grid"): float(np.log(np.sqrt(2)))}
    rows, _ = _rows([_claim("1/2", schedules=["grid"], worst_case=True)], df,
                    grids={("s", "grid"): _grid()}, grid_steps=steps)  # fmt: skip
    row = rows.iloc[0]
    assert row["verdict"] == "inconclusive"
    assert row["detectable_excess"] == pytest.approx(0.175, abs=1e-3)
    assert "a gap grid with at most a ratio 1.15" in row["reason"]
    assert "trials instead of" not in row["reason"]


def test_a_trend_reads_each_series_against_its_own_cap():
    # series b sits on instances whose cap is 1e4 times a's: against a's cap (the former rule)
    # its regret would read 0.6 of the cap at T = 2500, saturated; against its own, 6e-5
    rng = np.random.default_rng(1)
    Ya = 3.0 * T**0.5 * rng.lognormal(0.0, 0.05, size=(40, T.size))
    Yb = 100.0 * Ya
    df = pd.concat([_frame(Ya, 10.0 * T, "a"), _frame(Yb, 1e5 * T, "b")], ignore_index=True)
    claim = _claim(None, schedules=["a", "b"], check="slope_trend", trend="decreasing")
    rows, _ = _rows([claim], df)
    row = rows.iloc[0]
    assert row["regime"] == "learning", row["reason"]
    assert row["cap_share"] == pytest.approx(float((Ya.mean(axis=0) / (10.0 * T)).max()))


def test_contrasts_are_read_with_their_logs_over_the_fitted_horizons():
    Y, caps = _steep(0.5, n=80)
    far = _claim("1/2", contrasts=["1"])
    near = _claim("1/2", cid="x.near", contrasts=["x.shuffle"])
    shuffle = {**_claim("1/2", cid="x.shuffle"), "logT_pow": "1"}  # 1/2 + about 1/ln T
    rows, summary = _rows([far, near, shuffle], _frame(Y, caps))
    assert rows.set_index("claim_id").loc["x.c", "detectable_excess"] <= 0.1
    assert summary.loc["x.c", "verdict"] == "consistent"
    assert summary.loc["x.near", "verdict"] == "inconclusive"
    assert "nearest rate the paper contrasts" in rows.set_index("claim_id").loc["x.near", "reason"]


def test_an_unknown_contrast_is_an_error():
    Y, caps = _steep(0.5)
    with pytest.raises(ValueError, match="no claim id or fraction"):
        _rows([_claim("1/2", contrasts=["x.missing"])], _frame(Y, caps))


def test_the_gate_rejects_unknown_designs_and_scopes():
    with pytest.raises(ValueError, match="design"):
        vocab.violation_blocker("eyeballed")
    with pytest.raises(ValueError, match="bound_scope"):
        vocab.violation_blocker("worst-case", "typical")
    assert vocab.violation_blocker("worst-case") == ""
    assert vocab.violation_blocker("fixed-instance", "instance") == ""
    assert math.isclose(vocab.power_target(0.1, 0.12), 0.06)
