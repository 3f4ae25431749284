"""The run plan and the claims registry of the open-problem audit (op24, Table 1 and
Section 3; docs/papers/op24.md)."""

import math

import numpy as np
import pytest
import yaml

from dpbandits.bound_claims import (
    bound_value,
    leading_term,
    load_bound_registry,
    t_secant_exponent,
    term_of,
    term_value,
)
from dpbandits.config import ConfigError
from dpbandits.papers.op24.plan import Run, load_plan
from dpbandits.papers.op24.runs import simulate_run

PLAN = "config/experiments/op24.yaml"
SCHEMA = "workflow/schemas/op24.schema.yaml"
CLAIMS = "config/claims/op24.yaml"
CLAIMS_SCHEMA = "workflow/schemas/bound_claims.schema.yaml"
CLAIM_IDS = {
    "op.t1.finite.upper", "op.t1.finite.lower", "op.t1.linear.upper", "op.t1.linear.lower",
    "op.s2.price_negligible", "op.s2.bounds_match", "op.s3.jdp.upper", "op.s3.jdp.lower",
    "op.s3.gap", "op.s3.adac_oful", "op.s1.standard_dp", "op.q1", "op.q2", "op.q3",
}  # fmt: skip


@pytest.fixture(scope="module")
def claims():
    return {c["id"]: c for c in load_bound_registry(CLAIMS, CLAIMS_SCHEMA)["claims"]}


def test_registry_has_every_bound_of_the_paper_and_every_term_evaluates(claims):
    """Every term at T = 1e6, K = 10, d = 5, rho = 0.1, eps = 1, delta = 0.01."""
    assert set(claims) == CLAIM_IDS
    point = {"T": 1e6, "K": 10, "d": 5, "rho": 0.1, "eps": 1.0, "delta": 0.01}
    for claim in claims.values():
        for term in claim.get("terms", []):
            v = term_value(term, point)
            assert math.isfinite(v) and v > 0
    # the finite upper bound by hand: sqrt(K T ln T) + K / sqrt(rho) sqrt(ln T)
    L = math.log(1e6)
    expected = math.sqrt(10 * 1e6 * L) + 10 / math.sqrt(0.1) * math.sqrt(L)
    assert bound_value(claims["op.t1.finite.upper"], point) == pytest.approx(expected)
    # He et al.'s privacy term d / (eps + delta)
    assert term_value(term_of(claims["op.s3.jdp.lower"], "privacy"), point) == pytest.approx(
        5 / 1.01
    )


def test_claimed_secant_exponents_over_the_fit_windows(claims):
    """Secant exponents: 0.537, 0.037 (finite), 0.529 (K = 32), 0.094 (K = 10), 0.607
    (d sqrt(T) ln T)."""
    f, lin, jdp = (
        claims[k] for k in ("op.t1.finite.upper", "op.t1.linear.upper", "op.s3.jdp.upper")
    )
    w = (1e5, 1e7)
    assert t_secant_exponent(term_of(f, "nonprivate"), {"K": 5}, *w) == pytest.approx(
        0.537, abs=5e-4
    )
    assert t_secant_exponent(term_of(f, "privacy"), {"K": 5, "rho": 1}, *w) == pytest.approx(
        0.037, abs=5e-4
    )
    assert t_secant_exponent(term_of(lin, "nonprivate"), {"K": 32, "d": 5}, *w) == pytest.approx(
        0.529, abs=5e-4
    )
    assert t_secant_exponent(
        term_of(lin, "privacy"), {"K": 10, "d": 5, "rho": 1}, *w
    ) == pytest.approx(0.094, abs=5e-4)
    v = {"d": 5, "eps": 1.0, "delta": 0.01}
    lead = leading_term(jdp, v, 2**12, 2**15)
    assert lead["role"] == "nonprivate"
    assert t_secant_exponent(lead, v, 2**12, 2**15) == pytest.approx(0.607, abs=5e-4)
    # at rho = inf the privacy term vanishes and the leading term is the non-private one
    assert leading_term(f, {"K": 5, "rho": math.inf}, *w)["role"] == "nonprivate"


def test_core_plan_runs_op_e1_to_op_e3():
    plan = load_plan(PLAN, SCHEMA, "core", "paper")
    runs = {r.id: r for r in plan.runs}
    assert plan.horizons == (1000, 3162, 10000, 31623, 100000, 316228, 1000000, 3162278, 10000000)
    assert plan.fit_points == 5 and plan.fit_checkpoints == 4
    e1 = runs["e1_I1"]
    assert e1.trials == 50 and len(e1.privacy) == 10 and math.isinf(e1.privacy[-1])
    assert e1.privacy_index == (*range(1, 10), 0)
    assert runs["e1_I1b"].horizons == (10**7,)
    assert runs["e2_J2_d5"].K == 32 and runs["e2_J2_d5"].trials == 30
    jdp = runs["e3_C1_d5_jdp"]
    assert jdp.checkpoints == tuple(2**k for k in range(10, 16)) and jdp.horizons == (2**15,)
    # indices are positions in the full grid, so a core cell is the same cell in the full tier
    assert jdp.privacy == (1.0, 10.0, 100.0) and jdp.privacy_index == (2, 4, 6)
    full = {r.id: r for r in load_plan(PLAN, SCHEMA, "full", "paper").runs}
    assert full["e3_C1_d5_jdp"].privacy_index == (1, 2, 3, 4, 5, 6)
    assert full["e1_I1"].trials == 200 and {"e1_I3_K20", "e2_J3_d9", "e3_C2_d5_oful"} <= set(full)
    assert Run.from_dict(jdp.as_dict()) == jdp


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda d: d["tiers"]["core"]["runs"][0].update(K=4), "instance I1 has 5 arms"),
        (lambda d: d["tiers"]["core"]["runs"][0].update(privacy=[0.5]), "privacy = 0.5: not in"),
        (lambda d: d["tiers"]["core"]["runs"][3].update(d=4), "J1 is defined for d = 5"),
        (lambda d: d["tiers"]["core"]["runs"][1].update(id="e1_I1"), "duplicate run id"),
        (lambda d: d["tiers"]["core"]["runs"][0].update(instance="J1"), "OP-E1 allows"),
        (lambda d: d["adac_ucb"].update(index="max"), "adac_ucb.index = 'max'"),
    ],
)
def test_bad_plans_are_refused_with_the_key_and_value(tmp_path, edit, message):
    data = yaml.safe_load(open(PLAN))
    edit(data)
    path = tmp_path / "op24.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(ConfigError, match=message):
        load_plan(str(path), SCHEMA)


def test_bad_tier_is_refused():
    with pytest.raises(ConfigError, match="tier = 'huge'"):
        load_plan(PLAN, SCHEMA, "huge")


def test_a_run_writes_one_row_per_privacy_horizon_and_trial():
    plan = load_plan(PLAN, SCHEMA, "core", "quick")
    run = plan.run("e3_C1_d5_linucb")
    table, timings = simulate_run(run)
    df = table.to_pandas()
    assert len(df) == run.trials * len(run.checkpoints) and len(timings) == 1
    assert (df["t"].unique() == np.array(run.checkpoints)).all()
    assert (df.groupby("trial")["regret"].apply(lambda r: r.is_monotonic_increasing)).all()
    assert (df["regret"] < df["regret_unif"]).all()  # LinUCB beats random play on C1


def test_plasso_registry_parses_with_the_same_schema():
    """plasso's registry (groundwork of issue 7): every row, every term evaluable."""
    reg = load_bound_registry("config/claims/plasso.yaml", CLAIMS_SCHEMA)
    claims = {c["id"]: c for c in reg["claims"]}
    assert len(claims) == 10 and {"plasso.thm2", "plasso.thm3", "plasso.thm4"} <= set(claims)
    v = {"T": 1e6, "s0": 5, "K": 2, "eps": 1.0, "delta": 0.01, "sigma": 1.0, "d": 100}
    # Theorem 3: s0^{3/2} sqrt(T) ln^2 T ln(ln(T)/delta) / eps
    L = math.log(1e6)
    expected = 5**1.5 * 1e3 * L**2 * math.log(L / 0.01)
    assert bound_value(claims["plasso.thm3"], v) == pytest.approx(expected)
    # Theorem 4 (a min of two terms): sigma^2 ln T min(s0 ln d, s0 ln d / eps)
    v2 = {**v, "eps": 4.0}
    assert bound_value(claims["plasso.thm4"], v2) == pytest.approx(L * 5 * math.log(100) / 4)


@pytest.mark.parametrize("expr", ["__import__('os')", "T.real", "exp(T)", "[T]"])
def test_claim_expressions_allow_arithmetic_and_log_only(expr):
    from dpbandits.bound_claims import evaluate

    with pytest.raises((ValueError, KeyError)):
        evaluate(expr, {"T": 10.0})
    assert evaluate("log(T)/delta", {"T": math.e, "delta": 0.5}) == pytest.approx(2.0)
