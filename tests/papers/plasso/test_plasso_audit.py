"""The run plan and the verdict rules of the PrivateLASSO audit (plasso;
docs/papers/plasso.md), on the project's files and on synthetic regret tables whose
verdicts follow from the rules by construction."""

import math

import numpy as np
import pandas as pd
import pytest
import yaml

from dpbandits.bound_claims import load_bound_registry, t_secant_exponent
from dpbandits.config import ConfigError
from dpbandits.papers.plasso.plan import Run, load_plan
from dpbandits.papers.plasso.statements import constants_table, laplace_finding
from dpbandits.papers.plasso.verdicts import PlassoAudit, aggregate_upper, d_secant_exponent

PLAN = "config/experiments/plasso.yaml"
SCHEMA = "workflow/schemas/plasso.schema.yaml"
CLAIMS = "config/claims/plasso.yaml"
CLAIMS_SCHEMA = "workflow/schemas/bound_claims.schema.yaml"
INF = math.inf


@pytest.fixture(scope="module")
def claims():
    return {c["id"]: c for c in load_bound_registry(CLAIMS, CLAIMS_SCHEMA)["claims"]}


def test_core_plan_is_pl_e1_on_f1_and_f2():
    plan = load_plan(PLAN, SCHEMA)
    assert len(plan.runs) == 12 and plan.fit_points == 4
    pl = plan.run("e1_F1_d100_K2_s5_private_lasso")
    assert pl.eps == (1.0, 1e2, 1e4, 1e5, 1e6, 1e7, 1e8, INF)
    assert pl.eps_index == (1, 2, 3, 4, 5, 6, 7, 0)
    assert pl.horizons == tuple(2**k for k in range(9, 15)) and pl.trials == 5
    assert plan.run("e1_F2_d100_K2_s5_oracle_tbap").eps_index == (1, 2, 3)
    assert plan.run("e1_F1_d100_K2_s5_oracle_ols").eps == (INF,)
    # 15 algorithm configurations per family
    # plus the support-block tree ablation at the svt-noise-off ablation's 2 eps, indexed in
    # PrivateLASSO's grid (paired with its cells)
    assert sum(len(r.eps) for r in plan.runs if r.family == "F1") == 15 + 2
    abl = plan.run("e1_F1_d100_K2_s5_support_block_tree")
    assert abl.eps == (1e4, 1e6) and abl.eps_index == (3, 5)
    assert [pl.eps_index[pl.eps.index(e)] for e in abl.eps] == list(abl.eps_index)
    assert Run.from_dict(pl.as_dict()) == pl


def test_full_plan_scans_share_the_base_configuration_once():
    plan = load_plan(PLAN, SCHEMA, "full")
    e2 = [r for r in plan.runs if r.experiment == "PL-E2"]
    configs = {(r.d, r.K, r.s0) for r in e2}
    assert configs == {(100, 2, 5), (300, 2, 5), (1000, 2, 5), (100, 5, 5), (100, 10, 5),
                       (100, 2, 10)}  # fmt: skip
    assert len(e2) == 6 * 4 and all(r.horizons == (2**15,) for r in e2)
    assert plan.run("e2_F1_d1000_K2_s5_private_lasso").eps_index == (5, 7, 0)
    assert plan.run("e2_F1_d1000_K2_s5_support_block_tree").eps_index == (5, 7)
    e1 = [r for r in plan.runs if r.experiment == "PL-E1"]
    assert {r.family for r in e1} == {"F1", "F2", "F3"} and len(e1) == 21


def test_quick_scale_shrinks_horizons_and_trials():
    plan = load_plan(PLAN, SCHEMA, "core", "quick")
    assert all(r.horizons == (512, 1024, 2048) and r.trials == 2 for r in plan.runs)
    assert plan.fit_points == 3


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["tiers"]["core"]["experiments"][0]["algorithms"].update(
            private_lasso=[3.0]), "algorithms.private_lasso = 3.0: not in grids.private_lasso"),
        (lambda d: d["tiers"]["core"]["experiments"][0]["algorithms"].update(
            oracle_ols=[1.0]), "oracle_ols is non-private; allowed [.inf]"),
        (lambda d: d["tiers"]["core"]["experiments"][0].update(log2_T=[13, 14]),
         "PL-E1 needs at least fit_points = 4 horizons"),
        (lambda d: d["tiers"]["core"]["experiments"][0].update(families=["F4"]),
         "families.0 = 'F4'"),
        (lambda d: d["tiers"]["core"]["experiments"][0]["algorithms"].update(
            support_block_tree=[1.0e4, INF]), "support_block_tree at eps = inf is private_lasso"),
        (lambda d: d["tiers"]["core"]["experiments"][0]["algorithms"].update(
            support_block_tree=[3.0]), "support_block_tree = 3.0: not in grids.private_lasso"),
    ],
)  # fmt: skip
def test_bad_plans_are_refused_with_key_and_value(tmp_path, edit, message):
    with open(PLAN) as fh:
        data = yaml.safe_load(fh)
    edit(data)
    bad = tmp_path / "plasso.yaml"
    bad.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=None) as err:
        load_plan(str(bad), SCHEMA)
    assert message in str(err.value)


def test_bad_tier_is_refused():
    with pytest.raises(ConfigError, match="tier = 'huge'"):
        load_plan(PLAN, SCHEMA, "huge")


def test_claimed_secant_exponents_over_the_fit_windows(claims):
    """b_claim of Theorem 2 (ln^3 T ln(ln T / delta)): core 0.365, full 0.304; Theorem 3:
    0.749, 0.707; R-DIM: (ln ln 1000 - ln ln 100) / ln 10 = 0.176."""
    v = {"s0": 5, "K": 2, "eps": 1.0, "delta": 0.01}
    for cid, core, full in (("plasso.thm2", 0.365, 0.304), ("plasso.thm3", 0.749, 0.707)):
        term = claims[cid]["terms"][0]
        assert t_secant_exponent(term, v, 2**11, 2**14) == pytest.approx(core, abs=5e-4)
        assert t_secant_exponent(term, v, 2**13, 2**17) == pytest.approx(full, abs=5e-4)
    assert d_secant_exponent(claims["plasso.intro.dim"], 100, 1000) == pytest.approx(
        0.176, abs=5e-4
    )


def test_constants_table_at_the_core_instance():
    params = {"sigma": 0.5, "C_theta": 1.0, "C_X": 4.0, "C_r": 4.0, "lambda0": 0.2,
              "delta": 0.01, "phi2": 1.0}  # fmt: skip
    t = constants_table([1.0, 1e4, 1e8, INF], 2**14, 100, 5, 2, params).set_index("eps")
    assert t.loc[1.0, "xi"] == pytest.approx(3.69e5, rel=2e-3)
    assert t.loc[1e4, "Gamma"] == pytest.approx(-4.34, rel=2e-3)
    assert t.loc[1e8, "4 Gamma sqrt(s_bar)"] == pytest.approx(-4.64, rel=2e-3)
    assert t.loc[1e4, "sigma_B / Delta (D = 13)"] == pytest.approx(0.63, rel=1e-2)
    assert t.loc[1.0, "rho_ep"] == pytest.approx(5.41e-7, rel=2e-3)
    assert (t["c_max"] == 18).all() and t.loc[INF, "xi"] == 0


def test_aggregate_over_eps():
    assert aggregate_upper(["PRE-ASYMPTOTIC", "PRE-ASYMPTOTIC"]) == "PRE-ASYMPTOTIC"
    assert aggregate_upper(["PRE-ASYMPTOTIC", "SUPPORTED"]) == "SUPPORTED"
    assert aggregate_upper(["SUPPORTED", "CONTRADICTED"]) == "CONTRADICTED"
    assert aggregate_upper(["SUPPORTED", "INCONCLUSIVE"]) == "INCONCLUSIVE"


# --- synthetic regret tables --------------------------------------------------------------------
T_GRID = [2**k for k in range(9, 15)]
N = 8
UNIF = 5000.0


def _rows(algorithm, eps, mean_of_T, family="F1", noise=0.02, seed=0):
    """Trials with multiplicative noise (1 + noise * N(0, 1)) around ``mean_of_T(T)``."""
    rng = np.random.default_rng(seed)
    out = []
    for T in T_GRID:
        vals = mean_of_T(T) * (1 + noise * rng.standard_normal(N))
        for i, v in enumerate(vals):
            out.append({"experiment": "PL-E1", "family": family, "d": 100, "K": 2, "s0": 5,
                        "T": T, "eps": eps, "algorithm": algorithm, "trial": i, "regret_T": v,
                        "regret_unif_T": UNIF * T / T_GRID[-1]})  # fmt: skip
    return out


def _audit(rows, claims):
    runs = pd.DataFrame(rows)
    episodes = pd.DataFrame(columns=["experiment", "family", "T", "t_l", "algorithm", "eps",
                                     "true_in_S", "s0", "size_S"])  # fmt: skip
    return PlassoAudit(runs, episodes, list(claims.values()), 4).run()


def test_rules_on_synthetic_regret(claims):
    """Flat reference (slope 0), PrivateLASSO with excess c / eps (R-EPS slope -1): every finite
    eps consistent (SUPPORTED); an eps growing like T (slope ~1, below half of random play's)
    exceeds (CONTRADICTED); a saturated eps untestable (PRE-ASYMPTOTIC); the svt-noise-off
    ablation flat (Laplace finding borne out)."""
    rows = _rows("private_lasso", INF, lambda T: 100.0)
    for eps in (1e4, 1e5, 1e6):  # same seed: common random numbers with eps = inf
        rows += _rows("private_lasso", eps, lambda T, e=eps: 100.0 + 1e6 / e)
    rows += _rows("oracle_ols", INF, lambda T: 5.0, seed=9)
    rows += _rows("np_th_lasso", INF, lambda T: 100.0, seed=10)
    rows += _rows("svt_noise_off", 1e4, lambda T: 150.0, seed=11)
    res, claim_v = _audit(rows, claims)
    up = res[(res["claim_id"] == "plasso.thm2") & (res["rule"] == "R-UP-T")
             & (res["algorithm"] == "private_lasso")]  # fmt: skip
    assert set(up["verdict"]) == {"consistent"} and set(up["rule_verdict"]) == {"SUPPORTED"}
    assert set(up["regime"]) == {"learning"} and (up["detectable_excess"] <= 0.25).all()
    eps_row = res[(res["claim_id"] == "plasso.thm2") & (res["rule"] == "R-EPS")].iloc[0]
    assert eps_row["verdict"] == "consistent" and eps_row["rule_verdict"] == "SUPPORTED"
    # excess 1e6/eps exactly: slope -1 up to the 2 % trial noise
    assert eps_row["statistic"] == pytest.approx(-1.0, abs=0.05)
    verdicts = claim_v.set_index("claim_id")["verdict"]
    assert verdicts["plasso.thm2"] == "consistent" and verdicts["plasso.thm1"] == "NOT-AUDITED"
    assert verdicts["plasso.intro.dim"] == "NOT-RUN"
    assert laplace_finding(res).startswith("**Not borne out.**")  # PrivateLASSO is flat here

    # 0.2 T^0.9 is 0.35 of random play's (5000 T / 2^14) at T = 2^9 and 0.25 at 2^14: growing
    # faster than Theorem 2's log^3 T, learning, not saturated; so also without T = 2^9
    rows2 = rows + _rows("private_lasso", 1e2, lambda T: 0.2 * T**0.9, seed=12)
    rows2 += _rows("private_lasso", 1.0, lambda T: UNIF * T / T_GRID[-1], seed=13)
    rows2 = [r for r in rows2 if not (r["algorithm"] == "private_lasso" and r["eps"] == 1e4)]
    rows2 += _rows("private_lasso", 1e4, lambda T: 0.1 * T, seed=14)
    res2, claim_v2 = _audit(rows2, claims)
    up2 = res2[(res2["claim_id"] == "plasso.thm2") & (res2["rule"] == "R-UP-T")
               & (res2["algorithm"] == "private_lasso")].set_index("eps")  # fmt: skip
    assert up2.loc[1e2, "verdict"] == "exceeds" and up2.loc[1e2, "rule_verdict"] == "CONTRADICTED"
    assert up2.loc[1e2, "robustness"] == "robust"
    assert up2.loc[1.0, "verdict"] == "untestable" and up2.loc[1.0, "regime"] == "saturated"
    assert up2.loc[1.0, "rule_verdict"] == "PRE-ASYMPTOTIC"
    assert claim_v2.set_index("claim_id")["verdict"]["plasso.thm2"] == "exceeds"
    assert claim_v2.set_index("claim_id")["rule_verdict"]["plasso.thm2"] == "CONTRADICTED"
    agg = res2[(res2["algorithm"] == "aggregate") & (res2["claim_id"] == "plasso.thm2")]
    assert "saturated eps: 1" in agg["note"].iloc[0]
    # 1e4 grows like 0.1 T, at a flat share of random play's: pre-asymptotic, so no
    # demonstrated violation (the former rule read it as exceeds and the finding as borne out)
    assert up2.loc[1e4, "verdict"] == "inconclusive" and up2.loc[1e4, "regime"] == "pre-asymptotic"
    assert laplace_finding(res2).startswith("**Not borne out.**")
    shape = res2[(res2["rule"] == "R-SHAPE") & (res2["role"] == "verdict")]
    assert shape.set_index("eps")["verdict"][1e2] == "exceeds"
    assert shape.set_index("eps")["verdict"][1e6] == "consistent"


def test_a_violation_resting_on_the_smallest_horizon_is_inconclusive(claims):
    """0.12 T is 0.39 of random play's at every T: over the six horizons the fit reads
    CONTRADICTED in the learning regime, but without T = 2^9 the share of random play's no
    longer falls (pre-asymptotic), so the violation is a transient (``fragile``) and the row
    reads inconclusive with that reason; the claim is not contradicted by it."""
    rows = _rows("private_lasso", INF, lambda T: 100.0)
    rows += _rows("oracle_ols", INF, lambda T: 5.0, seed=9)
    rows += _rows("private_lasso", 1e2, lambda T: 0.12 * T, seed=12)
    res, claim_v = _audit(rows, claims)
    up = res[(res["claim_id"] == "plasso.thm2") & (res["rule"] == "R-UP-T")
             & (res["eps"] == 1e2)].iloc[0]  # fmt: skip
    assert up["rule_verdict"] == "CONTRADICTED" and up["regime"] == "learning"
    assert up["verdict"] == "inconclusive" and up["robustness"] == ""
    assert up["reason"].startswith("the violation holds only with the smallest level")
    assert claim_v.set_index("claim_id")["verdict"]["plasso.thm2"] != "exceeds"


def test_support_block_tree_rows_are_diagnostic(claims):
    """The support-block tree ablation gets R-UP-T rows of its own (role diagnostic, algorithm
    ``support_block_tree``) that never enter a claim's verdict: here it grows like T^0.9 while
    learning (exceeds) and PrivateLASSO is flat, and Theorem 2 stays consistent."""
    rows = _rows("private_lasso", INF, lambda T: 100.0)
    for eps in (1e4, 1e5, 1e6):
        rows += _rows("private_lasso", eps, lambda T, e=eps: 100.0 + 1e6 / e)
    rows += _rows("oracle_ols", INF, lambda T: 5.0, seed=9)
    rows += _rows("support_block_tree", 1e4, lambda T: 0.2 * T**0.9, seed=15)
    res, claim_v = _audit(rows, claims)
    abl = res[(res["algorithm"] == "support_block_tree") & (res["rule"] == "R-UP-T")]
    assert len(abl) == 2 and set(abl["role"]) == {"diagnostic"}
    assert set(abl["verdict"]) == {"exceeds"}
    assert claim_v.set_index("claim_id")["verdict"]["plasso.thm2"] == "consistent"


@pytest.mark.parametrize("share", [0.6, 0.9])
def test_saturated_private_lasso_is_untestable(claims, share):
    """PrivateLASSO at ``share`` x random play's regret (linear in T) at every T and eps: its
    T-slope is random play's, so R-UP-T, R-SHAPE and R-EPS are untestable (regime saturated),
    and so is Theorem 2, never consistent. 0.6 was not saturated under the former 0.8."""
    cap = lambda T: UNIF * T / T_GRID[-1]  # noqa: E731  (the _rows helper's regret_unif_T)
    rows = _rows("private_lasso", INF, lambda T: 100.0)
    for eps in (1e4, 1e5, 1e6):
        rows += _rows("private_lasso", eps, lambda T: share * cap(T))
    rows += _rows("oracle_ols", INF, lambda T: 5.0, seed=9)
    res, claim_v = _audit(rows, claims)
    fin = res[(res["claim_id"] == "plasso.thm2") & (res["algorithm"] == "private_lasso")
              & (res["eps"] < INF)]  # fmt: skip
    up = fin[fin["rule"] == "R-UP-T"]
    assert len(up) == 3 and set(up["verdict"]) == {"untestable"}
    assert set(up["regime"]) == {"saturated"} and set(up["rule_verdict"]) == {"PRE-ASYMPTOTIC"}
    assert np.isfinite(up["statistic"]).all()  # the slope is still reported
    eps_row = res[(res["claim_id"] == "plasso.thm2") & (res["rule"] == "R-EPS")].iloc[0]
    assert eps_row["verdict"] == "untestable" and eps_row["regime"] == "saturated"
    assert math.isnan(eps_row["detectable_excess"]) and "saturated" in eps_row["reason"]
    shape = res[(res["rule"] == "R-SHAPE") & (res["role"] == "verdict")]
    assert set(shape["verdict"]) == {"untestable"}
    agg = res[(res["claim_id"] == "plasso.thm2") & (res["algorithm"] == "aggregate")]
    assert agg["verdict"].iloc[0] == "untestable"
    assert agg["rule_verdict"].iloc[0] == "PRE-ASYMPTOTIC"
    v = claim_v.set_index("claim_id")
    assert v.loc["plasso.thm2", "verdict"] == "untestable"
    assert v.loc["plasso.thm2.shape", "verdict"] == "untestable"


def test_plasso_rows_carry_the_shared_columns(claims):
    """Every rate row has a shared verdict, a regime and a reason; rows that are not rate fits
    (R-LB-INFO, NOT-RUN) keep their label with no detectable excess."""
    from dpbandits.audit.verdicts import REGIMES, VERDICTS

    rows = _rows("private_lasso", INF, lambda T: 100.0)
    for eps in (1e4, 1e5, 1e6):
        rows += _rows("private_lasso", eps, lambda T, e=eps: 100.0 + 1e6 / e)
    rows += _rows("oracle_ols", INF, lambda T: 5.0, seed=9)
    res, _ = _audit(rows, claims)
    rate = res[res["rule"].isin(["R-UP-T", "R-EPS", "R-SHAPE"]) & (res["algorithm"] != "aggregate")]
    assert set(rate["verdict"]) <= set(VERDICTS) and set(rate["regime"]) <= set(REGIMES)
    assert rate["reason"].str.len().gt(0).all()
    other = res[res["rule"].isin(["R-LB-INFO", "R-DIM"])]
    assert set(other["verdict"]) <= {"INFO", "VIOLATION", "NO-VIOLATION", "NOT-RUN"}
    assert other["detectable_excess"].isna().all() and other["reason"].str.len().gt(0).all()


def test_a_family_aggregate_says_where_it_exceeds_and_why_it_decides_nothing():
    import pandas as pd

    from dpbandits.audit.verdicts import regime
    from dpbandits.papers.plasso.claim_reasons import family_why

    saturated = regime([60.0, 80.0], [100.0, 100.0])[1]
    rows = pd.DataFrame(
        {
            "claim_id": "c", "rule": "R-UP-T", "family": "F1", "role": "verdict",
            "eps": [1.0, 1e6, 100.0],
            "verdict": ["untestable", "exceeds", "untestable"],
            "robustness": [None, "fragile", None],
            "reason": [saturated, "fitted 1.2 [1.1, 1.3]", saturated],
        }
    )  # fmt: skip
    agg = pd.Series({"rule": "R-UP-T", "family": "F1", "role": "verdict", "verdict": "exceeds"})
    assert family_why(rows, "c", agg) == " (at eps 1e+06, fragile)"
    assert family_why(rows, "c", agg.replace("exceeds", "untestable")) == (
        " (saturated at a fitted level: 2 of 2)"
    )
    assert family_why(rows, "c", agg.replace("exceeds", "consistent")) == ""  # no such rows
