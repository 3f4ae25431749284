"""Shared verdicts of the open-problem audit (issue 19): the saturation gate on every family
(the hard families I2 / J2 included), the power gate, and the mapping of the rules' own words.

Random play's regret is realistic here (``(K - 1) / K * T * Delta_T`` on I2, linear in T on the
fixed-gap and contextual families), never a placeholder such as 1e9."""

import math

import numpy as np
import pandas as pd
import pytest

from dpbandits.bound_claims import load_bound_registry
from dpbandits.papers.op24.table1 import table1
from dpbandits.papers.op24.verdicts import Op24Audit

T = np.array([1e5, 10**5.5, 1e6, 10**6.5, 1e7])  # the OP-E1/E2 fit window (5 points)
RHOS = [1e-4, 1e-3, 1e-2, math.inf]
CP = 2 ** np.arange(12, 16)  # the OP-E3 checkpoints
BASE = {"n_episodes": 0.0, "floor_events": 0.0}


def _unif_i2(t: float, K: int = 5) -> float:
    """Random play's regret on I2: ``(K - 1) / K * T * min(0.25, sqrt(K / T))`` (0.8 sqrt(5T))."""
    return (K - 1) / K * t * min(0.25, math.sqrt(K / t))


def _e1_rows(instance, regret_of, unif_of, n=20, seed=0, rhos=RHOS):
    """OP-E1 rows: ``regret_of(T, rho)`` times ``1 + 0.05 N(0, 1)`` per trial, random play's
    regret ``unif_of(T)`` times ``1 + 0.01 N(0, 1)``."""
    rng = np.random.default_rng(seed)
    out = []
    for k, rho in enumerate(rhos):
        for t in T:
            R = regret_of(t, rho) * (1 + 0.05 * rng.standard_normal(n))
            U = unif_of(t) * (1 + 0.01 * rng.standard_normal(n))
            for i in range(n):
                out.append({
                    "experiment": "OP-E1", "instance": instance, "algorithm": "adac_ucb", "K": 5,
                    "d": 1, "privacy_kind": "rho", "privacy": rho,
                    "privacy_index": 0 if math.isinf(rho) else k + 1, "T": int(t), "t": int(t),
                    "trial": i, "regret": R[i], "regret_unif": U[i], **BASE,
                })  # fmt: skip
    return out


def _c1_rows(regret_of, n=30, seed=0, eps=(1.0, 10.0)):
    """OP-E3 rows of JDP-LinUCB on C1: one run to 2^15 with checkpoints; a per-trial factor
    ``1 + 0.05 N(0, 1)`` shared by the checkpoints (paired), random play's regret 0.3 t."""
    rng = np.random.default_rng(seed)
    out = []
    for e in eps:
        z = 1 + 0.05 * rng.standard_normal(n)
        for t in CP:
            for i in range(n):
                out.append({
                    "experiment": "OP-E3", "instance": "C1", "algorithm": "jdp_linucb", "K": 20,
                    "d": 5, "privacy_kind": "eps", "privacy": e, "privacy_index": 1,
                    "T": int(CP[-1]), "t": int(t), "trial": i, "regret": regret_of(t) * z[i],
                    "regret_unif": 0.3 * t, **BASE,
                })  # fmt: skip
    return out


@pytest.fixture(scope="module")
def claims():
    return load_bound_registry(
        "config/claims/op24.yaml", "workflow/schemas/bound_claims.schema.yaml"
    )["claims"]


def _run(rows, claims):
    return Op24Audit(pd.DataFrame(rows), claims, fit_points=5, fit_checkpoints=4).run()


# --- the hard family, saturated -------------------------------------------------------------
@pytest.mark.parametrize("share", [0.6, 0.9, 1.1])
def test_saturated_hard_family_is_untestable(claims, share):
    """AdaC-UCB at ``share`` x random play's regret at every T on I2 (measured: 0.9-1.2): its
    T-slope is random play's (1/2, inside the claim), but the cap sets it: R-UP-T and R-LB-CONS
    are untestable (regime saturated), so are both Table 1 claims, and Table 1's T-exponent
    column never reads SUPPORTED / consistent. 0.6 was not saturated under the former 0.8."""
    rows, per_claim = _run(_e1_rows("I2", lambda t, r: share * _unif_i2(t), _unif_i2), claims)
    for rule in ("R-UP-T", "R-LB-CONS"):
        sub = rows[(rows.rule == rule) & (rows.instance == "I2")]
        assert len(sub) == 4
        assert set(sub.verdict) == {"untestable"} and set(sub.regime) == {"saturated"}
        assert set(sub.rule_verdict) == {"PRE-ASYMPTOTIC"}
        assert sub.reason.str.startswith("saturated").all()
    up = rows[(rows.rule == "R-UP-T") & (rows.instance == "I2")]
    # the slope is still reported: random play's sqrt(T)
    assert np.allclose(up.statistic, 0.5, atol=0.03) and (up.ci_high < up.claimed + 0.1).all()
    v = per_claim.set_index("claim_id")
    assert v.loc["op.t1.finite.upper", "verdict"] == "untestable"
    assert v.loc["op.t1.finite.lower", "verdict"] == "untestable"
    assert v.loc["op.t1.finite.upper", "rule_verdict"] != "SUPPORTED"
    _, t1 = table1(claims, rows, per_claim)
    cell = t1.loc[0, "T-exponent of regret, hard family (R-UP-T)"]
    assert "SUPPORTED" not in cell and "consistent" not in cell
    assert "saturated" in cell and "untestable 4" in cell
    assert t1.loc[0, "verdict upper"] == "untestable"
    assert "untestable 4" in t1.loc[0, "lower bound, non-private term, hard family (R-LB-CONS)"]


# --- learning at the claimed rate, and a planted excess -----------------------------------------
def test_learning_sweep_at_the_claimed_rate_is_consistent(claims):
    """JDP-LinUCB at ``0.2 sqrt(t) ln t`` (the claim's leading term, secant 0.607 over the
    checkpoints) with random play at 0.3 t: learning, a tight design, consistent."""
    rows, per_claim = _run(_c1_rows(lambda t: 0.2 * math.sqrt(t) * math.log(t)), claims)
    up = rows[(rows.claim_id == "op.s3.jdp.upper") & (rows.rule == "R-UP-T")]
    assert len(up) == 2 and set(up.verdict) == {"consistent"}
    assert set(up.regime) == {"learning"} and set(up.rule_verdict) == {"SUPPORTED"}
    assert np.allclose(up.statistic, up.claimed, atol=0.01)
    assert ((up.detectable_excess > 0) & (up.detectable_excess <= 0.25)).all()
    assert per_claim.set_index("claim_id").loc["op.s3.jdp.upper", "verdict"] == "consistent"


def test_the_configured_power_requirement_reaches_the_op24_verdicts(claims):
    """The same learning sweep with ``audit.max_detectable_excess`` below its detectable excess
    (as a user would set it in config/config.yaml): consistent becomes inconclusive."""
    rows = pd.DataFrame(_c1_rows(lambda t: 0.2 * math.sqrt(t) * math.log(t)))
    strict, _ = Op24Audit(rows, claims, 5, 4, max_detectable=1e-3).run()
    up = strict[(strict.claim_id == "op.s3.jdp.upper") & (strict.rule == "R-UP-T")]
    assert set(up.verdict) == {"inconclusive"} and set(up.rule_verdict) == {"SUPPORTED"}


def test_planted_excess_well_above_the_detectable_one_exceeds(claims):
    """JDP-LinUCB growing like t^0.95 (0.34 above the claimed 0.607), learning: exceeds, and the
    planted excess is well above the design's detectable excess."""
    rows, per_claim = _run(_c1_rows(lambda t: 0.02 * t**0.95), claims)
    up = rows[(rows.claim_id == "op.s3.jdp.upper") & (rows.rule == "R-UP-T")]
    assert set(up.verdict) == {"exceeds"} and set(up.rule_verdict) == {"CONTRADICTED"}
    assert set(up.regime) == {"learning"}
    assert (0.95 - up.claimed > up.detectable_excess + 0.1).all()
    assert per_claim.set_index("claim_id").loc["op.s3.jdp.upper", "verdict"] == "exceeds"


def test_planted_excess_on_fixed_gaps_with_realistic_random_play(claims):
    """I1 (fixed gaps, random play 0.3 T): an excess ``50 rho^{-1/2} (T / 1e5)^p`` growing like
    T^0.5 exceeds the privacy term's ~0.04 by the rule's own word; a flat one is SUPPORTED. Not
    saturated (at most 0.3 of random play's, falling with T): the regime is learning. Table 1's
    bounds are sums: their excess on fixed gaps is one term, so the shared verdict is
    inconclusive either way (no data violate one term of a sum bound)."""
    for power, expected in ((0.5, "CONTRADICTED"), (0.0, "SUPPORTED")):
        rows, _ = _run(
            _e1_rows(
                "I1",
                lambda t, r, p=power: (
                    300 * math.log(t) + (0 if math.isinf(r) else 50 / math.sqrt(r) * (t / 1e5) ** p)
                ),
                lambda t: 0.3 * t,
                n=40,
            ),
            claims,
        )
        exc = rows[(rows.claim_id == "op.t1.finite.upper") & (rows.rule == "R-EXC-T")]
        assert len(exc) == 3 and set(exc.rule_verdict) == {expected}, exc[["verdict", "reason"]]
        assert set(exc.verdict) == {"inconclusive"} and exc.reason.str.contains("one term").all()
        assert set(exc.regime) == {"learning"}
        if expected == "CONTRADICTED":
            assert (exc.statistic - exc.claimed > exc.detectable_excess + 0.1).all()


def test_a_claim_whose_t_exponent_is_saturated_is_never_consistent(claims):
    """Table 1, row 1 with a consistent private excess on I1 (``50 rho^{-1/2}``, flat in T,
    learning) but a saturated hard family I2: R-EXC-T and R-RHO are SUPPORTED by their own words
    but inconclusive (the excess is one term of the sum bound), R-UP-T untestable, so the claim
    is never consistent and Table 1 says so."""
    rows = _e1_rows(
        "I1",
        lambda t, r: 30 * math.log(t) + (0 if math.isinf(r) else 50 / math.sqrt(r)),
        lambda t: 0.3 * t,
        n=40,
    )
    rows += _e1_rows("I2", lambda t, r: 0.9 * _unif_i2(t), _unif_i2, seed=1)
    rows, per_claim = _run(rows, claims)
    up = rows[rows.claim_id == "op.t1.finite.upper"]
    assert set(up[up.rule == "R-EXC-T"].rule_verdict) == {"SUPPORTED"}
    assert set(up[up.rule == "R-EXC-T"].verdict) == {"inconclusive"}
    # the excess is rho^{-1/2}: SUPPORTED by the rule, but one term of the sum bound
    assert set(up[up.rule == "R-RHO"].rule_verdict) == {"SUPPORTED"}
    assert set(up[up.rule == "R-RHO"].verdict) == {"inconclusive"}
    assert set(up[up.rule == "R-UP-T"].verdict) == {"untestable"}
    v = per_claim.set_index("claim_id")
    assert v.loc["op.t1.finite.upper", "verdict"] in ("untestable", "inconclusive")
    # each undecided rule says why its rows decide nothing (the scoreboard's reason)
    rules = v.loc["op.t1.finite.upper", "rules"]
    n_up = len(up[up.rule == "R-UP-T"])
    assert f"R-UP-T: untestable (saturated at a fitted level: {n_up} of {n_up})" in rules
    n_rho = len(up[up.rule == "R-RHO"])
    assert f"R-RHO: inconclusive (one term of a sum bound: {n_rho} of {n_rho})" in rules
    _, t1 = table1(claims, rows, per_claim)
    assert t1.loc[0, "verdict upper"] == v.loc["op.t1.finite.upper", "verdict"]
    assert "inconclusive 3" in t1.loc[0, "T-exponent of private excess, fixed gaps (R-EXC-T)"]


def test_a_consistent_interval_from_a_weak_design_is_inconclusive():
    """A slope well inside the claim but from 4 noisy trials: the interval is within the claim
    (SUPPORTED), yet the design would miss an excess of 0.25, so the shared verdict is
    inconclusive."""
    from dpbandits.audit.minimax_rules import MAX_DETECTABLE, rule_up_t

    rng = np.random.default_rng(4)  # detectable excess 0.36, interval ends at 0.35 < 0.64
    R = np.array([5 * t**0.2 * np.exp(0.6 * rng.standard_normal(4)) for t in T])
    res = rule_up_t(T, R, np.tile(0.3 * T[:, None], 4), 0.537)
    assert res.verdict == "SUPPORTED" and res.regime == "learning"
    assert res.detectable_excess > MAX_DETECTABLE and res.shared == "inconclusive"
    assert "detects only" in res.reason


def test_rows_that_are_not_rate_fits_say_why(claims):
    """Rules that did not run keep their label, with no detectable excess and a reason."""
    rows, _ = _run(_e1_rows("I2", lambda t, r: 0.9 * _unif_i2(t), _unif_i2), claims)
    skipped = rows[rows.verdict == "NOT-RUN"]
    assert len(skipped) > 0 and skipped.detectable_excess.isna().all()
    assert skipped.reason.str.contains("not run at this tier").all()
    slope = rows[rows.rule.isin(["R-UP-T", "R-LB-CONS"]) & (rows.verdict != "NOT-RUN")]
    assert np.isfinite(slope.detectable_excess).all()


# --- the vocabulary ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("word", "direction", "shared"),
    [
        ("SUPPORTED", "upper", "consistent"),
        ("CONTRADICTED", "upper", "exceeds"),
        ("INCONCLUSIVE", "upper", "inconclusive"),
        ("PRE-ASYMPTOTIC", "upper", "untestable"),
        ("UNUSABLE", "upper", "untestable"),
        ("SUPPORTED", "lower", "consistent"),
        ("CONSISTENT", "lower", "consistent"),
        ("CONTRADICTED", "lower", "below"),
        ("INCONSISTENT", "lower", "below"),
        ("INCONCLUSIVE", "lower", "inconclusive"),
        ("PRE-ASYMPTOTIC", "lower", "untestable"),
        ("UNUSABLE", "lower", "untestable"),
    ],
)
def test_every_old_word_maps_into_the_shared_vocabulary(word, direction, shared):
    from dpbandits.audit.minimax_rules import shared_verdict
    from dpbandits.audit.verdicts import VERDICTS

    assert shared_verdict(word, direction) == shared and shared in VERDICTS


def test_shared_aggregation():
    """A violation wins; untestable values are left out unless every value is untestable."""
    from dpbandits.audit.minimax_rules import combine, shared_verdict

    assert combine(["untestable", "untestable"]) == "untestable"
    assert combine(["untestable", "consistent"]) == "consistent"
    assert combine(["consistent", "inconclusive", "untestable"]) == "inconclusive"
    assert combine(["consistent", "exceeds", "untestable"]) == "exceeds"
    assert combine(["below", "consistent"]) == "below"
    with pytest.raises(ValueError, match="SUPPORTED"):
        combine(["SUPPORTED"])
    # over a claim's rules: consistent only when every rule is
    from dpbandits.audit.minimax_rules import combine_rules

    assert combine_rules(["consistent", "untestable"]) == "untestable"
    assert combine_rules(["consistent", "consistent"]) == "consistent"
    assert combine_rules(["untestable", "inconclusive"]) == "inconclusive"
    assert combine_rules(["untestable", "exceeds"]) == "exceeds"
    with pytest.raises(ValueError, match="no shared verdict"):
        shared_verdict("UB-LIKE")


# --- the planted contestant (a run with a known worse rate on the same contexts) ----------------
def _contestant_rows(regret_of, n=30, seed=1):
    """OP-E3 rows of the planted contestant on C1 (not private: privacy 0), paired as
    :func:`_c1_rows`."""
    rng = np.random.default_rng(seed)
    z = 1 + 0.05 * rng.standard_normal(n)
    return [
        {
            "experiment": "OP-E3", "instance": "C1", "algorithm": "egreedy", "K": 20, "d": 5,
            "privacy_kind": "none", "privacy": 0.0, "privacy_index": 0, "T": int(CP[-1]),
            "t": int(t), "trial": i, "regret": regret_of(t) * z[i], "regret_unif": 0.3 * t,
            **BASE,
        }
        for t in CP
        for i in range(n)
    ]  # fmt: skip


def _meets(t):
    return 0.2 * math.sqrt(t) * math.log(t)  # the claim's leading term: consistent (above)


def test_a_detected_contestant_leaves_consistent_rows_consistent(claims):
    # the contestant grows like t^0.9 at a quarter of random play's regret: exceeds the claimed
    # 0.607 in the learning regime, one control row per R-UP-T row, detected
    audit = Op24Audit(
        pd.DataFrame(_c1_rows(_meets) + _contestant_rows(lambda t: 0.1 * t**0.9)), claims, 5, 4
    )
    rows, per_claim = audit.run()
    up = rows[(rows.claim_id == "op.s3.jdp.upper") & (rows.rule == "R-UP-T")]
    assert set(up.verdict) == {"consistent"}
    ctl = pd.DataFrame(audit.controls)
    assert len(ctl) == 2 and ctl.detected.all() and set(ctl.verdict) == {"exceeds"}
    assert np.allclose(ctl.statistic, 0.9, atol=0.01) and np.allclose(ctl.claimed, up.claimed)
    assert per_claim.set_index("claim_id").loc["op.s3.jdp.upper", "verdict"] == "consistent"


@pytest.mark.parametrize(
    "regret_of,why",
    [
        (lambda t: 0.05 * t**0.6, "exceeds nothing: its rate is the claim's"),
        (lambda t: 0.25 * t**0.95, "saturated: at least half of random play's regret"),
    ],
)
def test_an_undetected_contestant_turns_consistent_rows_untestable(claims, regret_of, why):
    # planted: a contestant that these checkpoints cannot show as worse (its slope within the
    # claim, or saturated at the cap): the claim's consistent rows are no longer consistent
    audit = Op24Audit(pd.DataFrame(_c1_rows(_meets) + _contestant_rows(regret_of)), claims, 5, 4)
    rows, per_claim = audit.run()
    up = rows[(rows.claim_id == "op.s3.jdp.upper") & (rows.rule == "R-UP-T")]
    assert set(up.verdict) == {"untestable"}, why
    assert up.reason.str.contains("planted contestant").all()
    assert not pd.DataFrame(audit.controls).detected.any()
    assert per_claim.set_index("claim_id").loc["op.s3.jdp.upper", "verdict"] != "consistent"


def test_without_a_contestant_run_the_rows_say_so(claims):
    audit = Op24Audit(pd.DataFrame(_c1_rows(_meets)), claims, 5, 4)
    rows, _ = audit.run()
    up = rows[(rows.claim_id == "op.s3.jdp.upper") & (rows.rule == "R-UP-T")]
    assert set(up.verdict) == {"consistent"} and audit.controls == []
    assert up.note.str.contains("no planted contestant").all()
