"""The privacy audit: accounting against published and closed-form values, the releases of every
algorithm, the delivered-epsilon table and the empirical auditor (validity and power)."""

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import brentq

from dpbandits.audit.privacy import delivered_table, empirical_table, verdict
from dpbandits.config import load_experiment, load_yaml
from dpbandits.mechanisms import amplification as amp
from dpbandits.mechanisms.zcdp import zcdp_to_dp
from dpbandits.papers.op24.plan import load_plan as load_op24_plan
from dpbandits.papers.plasso.plan import load_plan as load_plasso_plan
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy import releases as rel
from dpbandits.privacy.accounting import (
    Component,
    composed_epsilon,
    gaussian_delta,
    gaussian_epsilon,
    laplace_epsilon,
    pmf_pair_epsilon,
    zcdp_epsilon,
)
from dpbandits.privacy.cases import all_cases, gaussian_randomizer_case
from dpbandits.privacy.empirical import audit, clopper_pearson_upper, max_certifiable

from .conftest import ROOT

SCHEMAS = ROOT / "workflow/schemas"

# Delivered epsilon of the script's calibrations (vec_scale = 1, d = 5), computed independently of
# the library (docs/audit/privacy.md): (delta = 0.1, 5e-5) per (algorithm, epsilon,
# universe); printed to 4 significant digits. The tree composes the ceil(log2 T) = 15 released
# nodes (SS18's m = 16 levels: 5-6 % higher); P_Vec is the exact count certificate (each entry's
# count shifted by its largest move, composed), no longer the Gaussian approximation.
EXPECTED_DELIVERED = {
    ("ldp", 0.2, "script"): (0.150, 1.369),
    ("ldp", 1.0, "script"): (3.715, 9.060),
    ("ldp", 10.0, "script"): (218.5, 269.9),
    ("sdp_amp", 0.2, "script"): (1.761, 5.285),
    ("sdp_amp", 1.0, "script"): (27.34, 44.01),
    ("sdp_amp", 10.0, "script"): (2092, 2257),
    ("jdp_tree", 0.2, "script"): (0.01721, 0.8969),
    ("jdp_tree", 1.0, "script"): (1.964, 5.705),
    ("jdp_tree", 10.0, "script"): (107.7, 143.1),
    ("sdp_vec", 0.2, "script"): (0.8666, 3.308),
    ("sdp_vec", 1.0, "script"): (13.89, 25.52),
    ("ldp", 1.0, "paper"): (1.559, 4.859),
    ("sdp_amp", 1.0, "paper"): (11.27, 21.36),
    ("sdp_amp", 10.0, "paper"): (771.9, 871.2),
    ("jdp_tree", 1.0, "paper"): (0.7904, 3.120),
    ("jdp_tree", 10.0, "paper"): (42.36, 63.63),
    ("sdp_vec", 1.0, "paper"): (10.02, 19.68),
}


def _cz22_policy(alg, eps):
    opts = {"vec_scale": 1.0} if alg == "sdp_vec" else {}
    setting = Setting(T=20000, d=5, epsilon=eps, delta=0.1, B=20)
    return make_policy(alg, setting, "experiment", Quirks.from_fidelity("script"), **opts)


@pytest.mark.parametrize("key", sorted(EXPECTED_DELIVERED))
def test_delivered_epsilon_reproduces_expected_values(key):
    alg, eps, universe = key
    u = rel.instance_universe("script") if universe == "script" else rel.PAPER_CZ22
    release = rel.cz22_release(_cz22_policy(alg, eps), u)
    for delta, expected in zip((0.1, 5e-5), EXPECTED_DELIVERED[key], strict=True):
        got = rel.delivered_epsilon(release, delta)[0]
        # 4 printed significant digits (3 for values below 0.1)
        assert got == pytest.approx(expected, rel=6e-3, abs=6e-4), (key, delta)


def test_pvec_without_binomial_bits_is_not_private_and_jdp_standin_never_is():
    release = rel.cz22_release(_cz22_policy("sdp_vec", 10.0), rel.instance_universe("script"))
    assert math.isinf(rel.delivered_epsilon(release, 0.1)[0])  # floor(b) = 0 (quirk 1)
    release = rel.cz22_release(_cz22_policy("jdp_standin", 1.0), rel.PAPER_CZ22)
    assert not release.private and math.isinf(rel.delivered_epsilon(release, 0.1)[0])


def test_sensitivities_in_closed_form():
    assert rel.joint_sensitivity(1.0) == pytest.approx(2.1213, abs=1e-4)
    assert rel.joint_sensitivity(math.sqrt(2.0)) == pytest.approx(3.5355, abs=1e-4)
    # Delta_J is the sup over unit-ball pairs of sqrt(|x r - x' r'|^2 + |x x^T - x' x'^T|_F^2)
    rng = np.random.default_rng(0)
    L = math.sqrt(2.0)
    best = 0.0
    for c in np.linspace(-1, 1, 2001):
        x, xp = np.array([L, 0.0]), L * np.array([c, math.sqrt(1 - c * c)])
        for r, rp in ((1, 1), (1, 0), (0, 1)):
            v = np.sum((x * r - xp * rp) ** 2) + np.sum((np.outer(x, x) - np.outer(xp, xp)) ** 2)
            best = max(best, v)
    assert math.sqrt(best) == pytest.approx(rel.joint_sensitivity(L), rel=1e-5)
    # SS18's node noise: sup sqrt(|dv|^2 + |dM|_F^2 / 2) = L^2 + 1
    best = max(2 * L**2 * (1 - c) + L**4 * (1 - c * c) for c in rng.uniform(-1, 1, 20000))
    assert math.sqrt(best) == pytest.approx(rel.ss18_sensitivity(L), rel=1e-3)


def test_analytic_gaussian_matches_closed_form_and_library():
    from dp_accounting.pld import privacy_loss_mechanism as plm

    for sigma, sens, delta in ((1.0, 1.0, 1e-5), (0.5, 2.0, 0.1), (3.0, 1.0, 0.01)):
        eps = gaussian_epsilon(sigma, sens, delta)
        assert gaussian_delta(eps, sigma, sens) == pytest.approx(delta, rel=1e-6)
        lib = plm.GaussianPrivacyLoss(standard_deviation=sigma, sensitivity=sens)
        assert lib.get_delta_for_epsilon(eps) == pytest.approx(delta, rel=1e-6)
    # delta(0) <= delta: epsilon 0
    assert gaussian_epsilon(100.0, 1.0, 0.1) == 0.0
    assert gaussian_delta(1.0, 1.0, 1.0) == pytest.approx(0.126936737, abs=1e-8)


def test_analytic_gaussian_is_dp_accountings_value_once_per_ratio():
    import dp_accounting

    from dpbandits.privacy.accounting import _epsilon_of_ratio

    _epsilon_of_ratio.cache_clear()
    first = gaussian_epsilon(1.5, 3.0, 1e-5)
    again = gaussian_epsilon(0.5, 1.0, 1e-5)  # the same mechanism: sigma / sensitivity = 0.5
    assert first == again == float(dp_accounting.get_epsilon_gaussian(0.5, 1e-5))
    assert _epsilon_of_ratio.cache_info().hits == 1
    assert gaussian_epsilon(0.5, 1.0, 1e-6) > first  # another delta is another value


def test_composition_laplace_gaussian_and_zcdp():
    # k identical Gaussians = one Gaussian with sqrt(k) sensitivity (exact)
    comp = composed_epsilon([Component("gaussian", 2.0, 1.0, count=9)], 1e-5)
    assert comp == pytest.approx(gaussian_epsilon(2.0, 3.0, 1e-5), rel=1e-9)
    # pure Laplace; PLD at delta > 0 is below basic composition k/b and above one release
    assert laplace_epsilon(2.0, 1.0) == 0.5
    k = 20
    eps = composed_epsilon([Component("laplace", 10.0, 1.0, count=k)], 1e-5)
    assert 0.1 < eps < k * 0.1
    # RDP conversion of rho-zCDP is at most the classical rho + 2 sqrt(rho ln(1/delta))
    for rho in (1e-3, 0.1, 1.0, 10.0):
        assert zcdp_epsilon(rho, 1e-3) <= zcdp_to_dp(rho, 1e-3) + 1e-9
    # two identical distributions are 0-DP; a shift is not
    p = np.array([0.25, 0.5, 0.25, 0.0])
    assert pmf_pair_epsilon(p, p, 0.01) == pytest.approx(0.0, abs=1e-3)
    assert pmf_pair_epsilon(p, np.roll(p, 1), 0.01) > 0.5


def test_fmt20_bound_at_b_20():
    # Lemma B.4 at B = 20, delta' = delta/2 = 0.05, with Thm 3.2's eps0 (CZ22 App. B)
    for eps, eps0, tilde in ((0.2, 0.5168, 0.8735), (1.0, 2.5838, 2.849), (10.0, 25.838, 24.92)):
        assert amp.thm32_local_budget(eps, 0.1, 20)[0] == pytest.approx(eps0, rel=1e-4)
        assert amp.fmt20_epsilon(eps0, 20, 0.05) == pytest.approx(tilde, abs=2e-3)
        assert not amp.fmt20_condition_holds(eps0, 20, 0.05)
    assert amp.fmt20_condition_rhs(20, 0.05) == pytest.approx(-1.0822, abs=1e-4)
    assert amp.thm32_max_certifiable_epsilon(0.1) == pytest.approx(0.1658, abs=1e-4)
    # the shuffled release therefore certifies only the local guarantee
    release = rel.cz22_release(_cz22_policy("sdp_amp", 1.0), rel.instance_universe("script"))
    eps, how = rel.delivered_epsilon(release, 0.1)
    assert eps == pytest.approx(27.34, rel=1e-3) and "only the local guarantee" in how


def test_dpdpe_gaussian_privatizers_deliver_the_analytic_value():
    # Delta/sigma = eps / sqrt(2 ln(1.25/delta)) in every phase: closed form by bisection
    eps, delta = 10.0, 0.25
    ratio = math.sqrt(2.0 * math.log(1.25 / delta)) / eps  # sigma / Delta
    expected = brentq(lambda e: gaussian_delta(e, ratio, 1.0) - delta, 0, 100)
    for alg in ("cdp_dpe", "ldp_dpe", "cdp_pe", "ldp_pe"):
        p = make_policy(alg, Setting(T=10**5, d=20, epsilon=eps, delta=delta, K=1000))
        got = rel.delivered_epsilon(rel.dpdpe_release(p), delta)[0]
        assert got == pytest.approx(expected, rel=1e-9) and got == pytest.approx(18.356, abs=1e-3)


def test_dpdpe_shuffle_protocol_is_over_noised():
    p = make_policy("sdp_dpe", Setting(T=2**14, d=2, epsilon=10.0, delta=0.25, K=2))
    release = rel.dpdpe_release(p)
    assert release.certified  # the shift certificate (no longer the extreme pair alone)
    upper = rel.delivered_epsilon(release, 0.25)[0]
    lower = rel.lower_epsilon(release, 0.25)[0]
    assert lower <= upper < 0.1  # nominal 10


def test_op24_and_plasso_releases():
    # AdaC-*: Delta/sigma = sqrt(2 rho), read at delta = 0.01: below the classical conversion
    for rho in (1e-3, 0.1, 1.0):
        got = rel.delivered_epsilon(rel.op24_release("adac_ucb", rho, 10**5), 0.01)[0]
        assert got <= zcdp_to_dp(rho, 0.01)
    # JDP-LinUCB: the calibration assumes Delta = 2 sqrt 2, the release has Delta_J(1) < it
    got = rel.delivered_epsilon(rel.op24_release("jdp_linucb", 1.0, 2**15), 0.01)[0]
    assert 0 < got < 1.0
    from dpbandits.policies.private_lasso import plasso_constants

    const = plasso_constants(2**14, 100, 5, 2, 1e4)
    assert math.isinf(rel.delivered_epsilon(rel.plasso_release("private_lasso", const), 0.01)[0])
    tbap = rel.delivered_epsilon(rel.plasso_release("oracle_tbap", const), 0.01)[0]
    assert tbap == pytest.approx(zcdp_epsilon(const.n_L * const.rho_ep, 0.01))


def test_delivered_table_covers_every_private_series():
    config = load_yaml(ROOT / "config/config.yaml") | {"scale": "quick"}
    exps = {
        name: load_experiment(
            ROOT / f"config/experiments/{name}.yaml", config, SCHEMAS / "experiment.schema.yaml"
        )
        for name in ("cz22", "olucb")
    }
    op24 = load_op24_plan(
        str(ROOT / "config/experiments/op24.yaml"), str(SCHEMAS / "op24.schema.yaml")
    )
    plasso = load_plasso_plan(
        str(ROOT / "config/experiments/plasso.yaml"), str(SCHEMAS / "plasso.schema.yaml")
    )
    # every row's identity (no accounting: the rows the job writes, tests/audit/
    # test_privacy_claims.py), then the accounting of the rows checked below
    table = delivered_table(exps, {"op24": op24, "plasso": plasso}, account=False)
    private_series = {
        (c.experiment, c.series)
        for e in exps.values()
        for c in e.cells
        if c.epsilon is not None and c.policy().private
    }
    assert private_series <= set(zip(table["experiment"], table["series"], strict=True))
    assert {"op24", "plasso"} <= set(table["experiment"])
    checked = [c for c in exps["cz22"].cells if c.configuration in ("r1", "theory")]
    cz22 = dataclasses.replace(exps["cz22"], cells=tuple(checked), sweeps=(), privacy_cells=())
    table = delivered_table({"cz22": cz22}, {"op24": op24, "plasso": plasso})
    assert {"op24", "plasso"} <= set(table["experiment"])
    assert table["delivered_epsilon"].notna().all()
    row = table[
        (table["figure"] == "cz22_fig1")
        & (table["configuration"] == "r1")
        & (table["series"] == "LinUCB-LDP")
        & (table["nominal_epsilon"] == 1.0)
    ].iloc[0]
    assert row["verdict"] == "VIOLATED" and row["delivered_epsilon"] == pytest.approx(3.7145, 1e-4)
    assert row["lower_epsilon"] == pytest.approx(row["delivered_epsilon"], rel=1e-12)
    assert set(table.loc[table["series"] == "LinUCB-JDP", "verdict"]) >= {"NOT-PRIVATE"}
    theory = table[(table["calibration"] == "theory/corrected") & (table["series"] == "LinUCB-LDP")]
    assert (theory["verdict"] == "DELIVERED").all()  # Prop. F.1 at eps <= 1
    assert verdict(1.0, 1.0 + 1e-12, True) == "DELIVERED" and verdict(1, 2, False) == (
        "NOT-CERTIFIED"
    )
    assert set(table["verdict"]) <= {"DELIVERED", "NOT-CERTIFIED", "VIOLATED", "NOT-PRIVATE"}


# --- the empirical auditor -------------------------------------------------------------------


def test_clopper_pearson_upper_limit():
    # zero successes: 1 - (alpha)^(1/n) exactly
    assert clopper_pearson_upper(np.array([0]), 100, 0.975)[0] == pytest.approx(
        1 - 0.025 ** (1 / 100), rel=1e-9
    )
    assert clopper_pearson_upper(np.array([100]), 100, 0.975)[0] == 1.0


def test_auditor_is_valid_and_has_power_on_gaussians():
    """Known epsilon: the bound never exceeds it (alpha = 1e-3 per seed) and comes close."""
    for sigma in (0.5, 1.0, 2.0):
        truth = gaussian_epsilon(sigma, 1.0, 0.1)

        def sampler(which, n, rng, s=sigma):
            return rng.normal(float(which), s, size=(n, 1))

        for seed in range(5):
            res = audit(sampler, 20000, 0.1, np.random.default_rng(seed), alpha=1e-3)
            assert res.epsilon_lb <= truth
        # power: where the truth is well above the sampling error (about 0.1 at n = 20000),
        # the bound comes within 25 % of it
        if truth > 1:
            assert res.epsilon_lb >= 0.75 * min(truth, max_certifiable(20000, 0.1))


def test_every_mechanism_audit_stays_below_its_accounting_and_controls_are_caught():
    cases = all_cases()
    assert sum(c.control for c in cases) >= 4
    table = empirical_table(cases, 4000, seed=7, alpha=1e-3)
    assert table["lb_le_delivered"].all(), table.loc[~table["lb_le_delivered"], "case"].tolist()
    controls = table[table["control"]]
    assert controls["caught"].all(), controls.loc[~controls["caught"], "case"].tolist()
    # the script's LDP noise at eps = 1 is caught too: it delivers 3.7, not 1
    ldp = table[table["case"] == "Gaussian randomizer (x r, x x^T), LDP noise"]
    assert ldp.loc[ldp["nominal_epsilon"] == 1.0, "caught"].all()


def test_under_noised_gaussian_control_is_caught_at_every_seed():
    case = gaussian_randomizer_case(0.2, 0.1, 5, math.sqrt(2.0), divide=10.0)
    for seed in range(3):
        res = audit(case.sampler, 4000, 0.1, np.random.default_rng(seed), alpha=1e-3)
        assert case.nominal < res.epsilon_lb <= case.delivered


@pytest.mark.parametrize("alpha", [0.05, 1e-3])
def test_audit_bound_uses_one_sided_clopper_pearson_limits_at_one_minus_alpha_over_two(alpha):
    """The module's validity argument: each measured error rate is replaced by its one-sided
    Clopper-Pearson upper limit at level 1 - alpha/2 (two limits, union bound: the bound holds
    with probability 1 - alpha). Scores are 0/1 so the threshold and the error counts are known:
    on the evaluation half 12 of 2000 D0 scores exceed the threshold 0 (false positives) and 31
    of 2500 D1 scores do not (false negatives). The limits come from scipy's beta quantiles:
    Beta(k + 1, n - k) at 1 - alpha/2."""
    from scipy.stats import beta

    from dpbandits.privacy.empirical import threshold_audit

    n0, n1, k0, k1, delta = 2000, 2500, 12, 31, 0.01
    s0 = np.r_[np.zeros(n0 - k0), np.ones(k0)]
    s1 = np.r_[np.zeros(k1), np.ones(n1 - k1)]
    res = threshold_audit(s0, s1, s0, s1, delta, alpha)
    assert res.threshold == 0.0 and res.fpr == k0 / n0 and res.fnr == k1 / n1
    fpr_hi = beta.ppf(1 - alpha / 2, k0 + 1, n0 - k0)
    fnr_hi = beta.ppf(1 - alpha / 2, k1 + 1, n1 - k1)
    assert k0 / n0 < fpr_hi < 0.1 and k1 / n1 < fnr_hi < 0.1
    expected = max(math.log((1 - delta - fnr_hi) / fpr_hi), math.log((1 - delta - fpr_hi) / fnr_hi))
    assert res.epsilon_lb == pytest.approx(expected, rel=1e-9)
    point = max(
        math.log((1 - delta - k1 / n1) / (k0 / n0)), math.log((1 - delta - k0 / n0) / (k1 / n1))
    )
    assert res.epsilon_point == pytest.approx(point, rel=1e-12)
    # a perfect test: no errors, the limit at k = 0 is 1 - (alpha/2)^(1/n) in closed form
    assert max_certifiable(n0, delta, alpha) == pytest.approx(
        math.log((1 - delta) / (1 - (alpha / 2) ** (1 / n0))), rel=1e-9
    )


def test_privacy_checks_are_accounted_and_never_simulated():
    """cz22's ``privacy_checks`` (the corollaries' schedules under the theorems' calibration)
    become rows of the privacy table, shown as figure = the check's id and configuration = the
    schedule, and no simulation job (no sweep cell) is made of them."""
    import dataclasses

    from dpbandits.audit.privacy import experiment_rows

    config = load_yaml(ROOT / "config/config.yaml") | {"scale": "quick"}
    exp = load_experiment(
        ROOT / "config/experiments/cz22.yaml", config, SCHEMAS / "experiment.schema.yaml"
    )
    checks = tuple(c for c in exp.privacy_cells if c.sweep == "corollaries")
    assert {c.schedule for c in checks} == {
        "sdp_amp_t35",
        "sdp_vec_t35",
        "sdp_amp_ru_m13",
        "sdp_vec_ru_m13",
        "jdp_user_m13",
    }
    others = {
        "corollaries_in_range",
        "local_levels",
        "local_levels_vec",
        "privacy_targeted_amp",
        "privacy_targeted_vec",
    }
    assert {c.sweep for c in exp.privacy_cells} == {"corollaries", *others}
    assert {c.calibration for c in checks} == {"theory"}
    simulated = {c.path for sw in exp.sweeps for c in sw.cells} | {c.path for c in exp.cells}
    assert not simulated & {c.path for c in checks}
    cheap = tuple(c for c in checks if c.schedule in ("jdp_user_m13", "sdp_amp_ru_m13"))
    rows = experiment_rows(dataclasses.replace(exp, cells=[], sweeps=[], privacy_cells=cheap))
    assert len(rows) == len(cheap) == 18
    assert {r["figure"] for r in rows} == {"corollaries"}
    assert {r["calibration"] for r in rows} == {"theory/corrected"}
    assert {r["verdict"] for r in rows} <= {"DELIVERED", "NOT-CERTIFIED", "VIOLATED", "NOT-PRIVATE"}
    # the local view: one user's messages, labelled with the level the paper states for them
    local = tuple(c for c in exp.privacy_cells if c.sweep == "local_levels" and c.B == 20)
    rows = experiment_rows(dataclasses.replace(exp, cells=[], sweeps=[], privacy_cells=local))
    assert len(rows) == 3 and {r["series"] for r in rows} == {"sdp_amp (local view)"}
    assert all(r["nominal_delta"] == pytest.approx(0.1 / 20) for r in rows)
    assert sorted(r["nominal_epsilon"] for r in rows) == pytest.approx(
        [e * math.sqrt(20 / math.log(20)) for e in (0.01, 0.02, 0.035)]
    )
    assert {r["verdict"] for r in rows} == {"DELIVERED"}
