"""OnlineUCB (olucb, Algorithm 1, Lemma 3.3, Cor. 3.6): noise scale, clipping constant,
gradient and loss moments, confidence set, instances and perturbation rule.

Monte Carlo checks use fixed seeds and a tolerance of 5 Monte Carlo standard
errors unless stated): a correct implementation fails one of them with probability < 1e-6.
"""

import math

import numpy as np
import pytest

from dpbandits.claims import load_claims
from dpbandits.config import load_experiment
from dpbandits.dev.reference_loops import reference_contextual
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.envs import make_instances, paper_text_instances, reward_tables, script_instances
from dpbandits.envs.contextual import optimal_arm_lambda_min, unit_sphere
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.combiner import K_POWER
from dpbandits.policies.onlineucb import (
    clip_gradient,
    clipping_constant,
    confidence_centre,
    corrected_loss,
    loss_gradient,
    onlineucb_sigma,
    perturbation,
    ucb_index,
)
from dpbandits.seeds import noise_generator

from ...conftest import ROOT, SCHEMAS

T, BETA, DELTA = 20000, 0.1, 0.1
# fixed inputs of the perturbed-gradient and expected-loss checks
X4 = np.array([0.6, 0, 0.8, 0, 0])
THETA4 = np.array([0.3, -0.2, 0.5, 0.1, 0])
Y4, SIGMA4, DELTA2_4 = 1.0, 1.3, 0.09


def _draws(n, x, y, sigma, Delta2, seed):
    """``n`` privatized reports ``(x~, y~)`` of one fixed ``(x, y)`` (Algorithm 1: perturbation,
    then Gaussian noise)."""
    rng = np.random.default_rng(seed)
    d = x.shape[0]
    xt = x + math.sqrt(Delta2) * rng.standard_normal((n, d)) + sigma * rng.standard_normal((n, d))
    yt = y + sigma * rng.standard_normal(n)
    return xt, yt


def _within(samples, expected, k=5.0):
    mean = samples.mean(axis=0)
    se = samples.std(axis=0, ddof=1) / math.sqrt(samples.shape[0])
    assert np.all(np.abs(mean - expected) <= k * se + 1e-12), (mean, expected, se)


@pytest.mark.parametrize("eps,sigma", [(0.2, 22.475447), (1.0, 4.495089), (10.0, 0.449509)])
def test_noise_scale(eps, sigma):
    assert onlineucb_sigma(eps, DELTA) == pytest.approx(sigma, abs=1e-6)


@pytest.mark.parametrize(
    "eps,G0,G1", [(0.2, 66077.12, 67432.48), (1.0, 2793.05, 3072.30), (10.0, 48.33, 85.46)]
)
def test_clipping_constant(eps, G0, G1):
    assert math.log(2 * T / BETA) == pytest.approx(12.899220, abs=1e-6)
    sigma = onlineucb_sigma(eps, DELTA)
    # the reference values are printed to 2 decimals: agreement to the printed precision
    assert clipping_constant(sigma, 0.0, T, BETA) == pytest.approx(G0, abs=0.005)
    assert clipping_constant(sigma, T**-0.25, T, BETA) == pytest.approx(G1, abs=0.005)
    policy = make_policy("onlineucb", Setting(T=T, d=5, epsilon=eps, delta=DELTA))
    assert policy.G == clipping_constant(sigma, 0.0, T, BETA)  # defaults: Delta^2 = 0


def test_gradient_is_unbiased_without_perturbation():
    xt, yt = _draws(2_000_000, X4, Y4, SIGMA4, 0.0, seed=3)
    g = loss_gradient(THETA4, xt, yt, SIGMA4**2)
    _within(g, 2 * X4 * (X4 @ THETA4 - Y4))


def test_gradient_mean_with_perturbation():
    expected = np.array([-0.45, -0.036, -0.582, 0.018, 0.0])
    assert 2 * (np.outer(X4, X4) + DELTA2_4 * np.eye(5)) @ THETA4 - 2 * Y4 * X4 == pytest.approx(
        expected
    )
    xt, yt = _draws(2_000_000, X4, Y4, SIGMA4, DELTA2_4, seed=4)
    _within(loss_gradient(THETA4, xt, yt, SIGMA4**2), expected)


def test_expected_loss():
    assert (X4 @ THETA4 - Y4) ** 2 + DELTA2_4 * THETA4 @ THETA4 + SIGMA4**2 == pytest.approx(1.9015)
    xt, yt = _draws(2_000_000, X4, Y4, SIGMA4, DELTA2_4, seed=5)
    _within(corrected_loss(THETA4, xt, yt, SIGMA4**2)[:, None], np.array([1.9015]))


def _normal_equations_solution(n, Delta2, seed, sigma=1.3, d=5):
    """Zero of the summed gradient (the corrected normal equations), built from the library's
    gradient: ``sum_s g_s(theta) = A theta - b`` is affine in ``theta``."""
    rng = np.random.default_rng(seed)
    theta_star = np.array([0.3, -0.2, 0.1, 0.25, -0.15])
    x = unit_sphere(rng, (n,), d)  # E[x x^T] = I/d: well conditioned
    y = np.where(rng.random(n) < (1 + x @ theta_star) / 2, 1.0, -1.0)  # E[y | x] = <x, theta*>
    xt = x + math.sqrt(Delta2) * rng.standard_normal((n, d)) + sigma * rng.standard_normal((n, d))
    yt = y + sigma * rng.standard_normal(n)

    def total(theta):
        return loss_gradient(theta, xt, yt, sigma**2).sum(axis=0)

    b = -total(np.zeros(d))
    A = np.stack([total(e) + b for e in np.eye(d)], axis=1)
    return np.linalg.solve(A, b), theta_star


def test_minimiser_of_the_corrected_loss():
    errs = []
    for n in (10_000, 1_000_000):
        est, theta_star = _normal_equations_solution(n, 0.0, seed=6)
        errs.append(np.linalg.norm(est - theta_star))
    # error ~ n^{-1/2}: 100 times the data divides it by ~10; allow a factor 3 of slack
    assert errs[1] < errs[0] / 3 and errs[1] < 0.05
    # with Delta^2 > 0 the limit is the ridge solution (I/d + Delta^2 I)^{-1} (I/d) theta*
    Delta2, d = 0.09, 5
    est, theta_star = _normal_equations_solution(1_000_000, Delta2, seed=7)
    ridge = theta_star * (1 / d) / (1 / d + Delta2)
    assert np.linalg.norm(est - ridge) < 0.05 < np.linalg.norm(est - theta_star)


def test_clipping():
    rng = np.random.default_rng(8)
    g = rng.standard_normal((1000, 5)) * rng.lognormal(0, 2, (1000, 1))
    G = 3.0
    c = clip_gradient(g, G)
    norms = np.linalg.norm(g, axis=1)
    assert np.all(np.linalg.norm(c, axis=1) <= G + 1e-12)
    small = norms <= G
    assert np.array_equal(c[small], g[small])
    cos = np.sum(c * g, axis=1) / (np.linalg.norm(c, axis=1) * norms)
    assert np.allclose(cos, 1.0)
    assert np.array_equal(clip_gradient(np.zeros(5), G), np.zeros(5))


def _history(seed, n=40, d=5):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((n, d)) * 2, rng.uniform(-1, 1, (n, d)) / math.sqrt(d)


def test_confidence_centre_is_a_ridge_regression():
    xt, thetas = _history(9)
    preds = np.sum(xt * thetas, axis=1)
    stacked = np.vstack([np.eye(5), xt])
    target = np.concatenate([np.zeros(5), preds])
    lstsq = np.linalg.lstsq(stacked, target, rcond=None)[0]
    assert np.allclose(confidence_centre(xt, preds), lstsq, rtol=0, atol=1e-10)


def test_ellipsoid_identity():
    xt, thetas = _history(10)
    preds = np.sum(xt * thetas, axis=1)
    centre = confidence_centre(xt, preds)
    V = np.eye(5) + xt.T @ xt
    rng = np.random.default_rng(11)
    for theta in rng.standard_normal((20, 5)):
        lhs = theta @ theta + np.sum((preds - xt @ theta) ** 2)
        rhs = (theta - centre) @ V @ (theta - centre) + centre @ centre
        rhs += np.sum((preds - xt @ centre) ** 2)
        assert lhs == pytest.approx(rhs, rel=1e-8)


def test_ucb_closed_form():
    xt, thetas = _history(12)
    V = np.eye(5) + xt.T @ xt
    Vinv = np.linalg.inv(V)
    centre = confidence_centre(xt, np.sum(xt * thetas, axis=1))
    beta = 2.7
    rng = np.random.default_rng(13)
    X = rng.standard_normal((10, 5))
    idx = ucb_index(X, centre, Vinv, beta)
    for k, x in enumerate(X):
        norm = math.sqrt(x @ Vinv @ x)
        assert idx[k] == pytest.approx(x @ (centre + math.sqrt(beta) * Vinv @ x / norm))
        # random points of the ellipsoid ||theta - centre||_V^2 <= beta never exceed it
        L = np.linalg.cholesky(Vinv)
        z = rng.standard_normal((2000, 5))
        z *= math.sqrt(beta) * rng.random((2000, 1)) ** (1 / 5) / np.linalg.norm(z, axis=1)[:, None]
        points = centre + z @ L.T
        assert np.all((points - centre) @ V * (points - centre) @ np.ones(5) <= beta * (1 + 1e-9))
        assert np.all(points @ x <= idx[k] + 1e-9)


def test_unit_scale_instances():
    unit, code = paper_text_instances(20, 100, 5), script_instances(20, 100, 5)
    norms = np.linalg.norm(unit.X, axis=2)
    assert np.allclose(norms[:, 5:], 1.0) and np.allclose(norms[:, :4], 1.0)
    assert np.allclose(norms[:, 4], 1 / math.sqrt(2))  # the basis arm e_d / sqrt(2)
    assert np.allclose(np.linalg.norm(unit.theta, axis=1), 1.0)
    assert unit.mu.min() >= 0 and unit.mu.max() <= 1
    assert np.allclose(np.einsum("nkd,nd->nk", code.X, code.theta), unit.mu, atol=1e-12)
    assert np.array_equal(paper_text_instances(20, 100, 5).X, unit.X)
    assert len({tuple(np.round(t, 12)) for t in unit.theta}) == 20


def test_common_random_numbers():
    inst = paper_text_instances(3, 100, 5)
    a, b = reward_tables(inst.mu, 500, [0, 1, 2]), reward_tables(inst.mu, 500, [0, 1, 2])
    assert np.array_equal(a, b)  # every algorithm re-creates the same tables
    # privacy noise: one stream per (experiment, panel, algorithm, trial)
    streams = [noise_generator(1, "e", "p", alg, 0).random(8) for alg in ("onlineucb", "combiner")]
    assert not np.allclose(*streams)
    assert np.array_equal(noise_generator(1, "e", "p", "onlineucb", 0).random(8), streams[0])


def test_perturbation_rule():
    lambda_bar = T**-0.25
    assert perturbation(0.125, lambda_bar) == 0.0
    assert perturbation(0.0, lambda_bar) == pytest.approx(0.0840896, abs=5e-8)
    policy = make_policy(
        "onlineucb", Setting(T=100_000, d=5, epsilon=1.0, delta=0.1), lambda_min=0.0
    )
    raw = draw_raw(policy, noise_generator(1, "e", "p", "onlineucb", 0))
    diff = raw["zeta"] + raw["noise_x"]  # x~ - x
    expected = math.sqrt(policy.sigma**2 + policy.Delta2)
    assert diff.std() == pytest.approx(expected, rel=0.01)


def test_fresh_arm_instances():
    inst = make_instances("fresh_sphere", 4, 10, 5, 2)
    assert np.allclose(np.linalg.norm(inst.theta, axis=1), 0.5)
    arms = inst.arms(0, 300)
    assert arms.shape == (300, 10, 5) and np.allclose(np.linalg.norm(arms, axis=2), 1.0)
    assert np.array_equal(inst.arms(0, 100), arms[:100])  # horizons share a prefix
    assert np.array_equal(inst.take(1, 3).arms(0, 50), inst.arms(1, 50))
    assert not np.allclose(inst.arms(1, 50), inst.arms(0, 50))


def test_optimal_arm_lambda_min_matches_a_direct_simulation():
    d, K, n = 5, 10, 100_000
    rng = np.random.default_rng(14)
    arms = unit_sphere(rng, (n, K), d)
    best = arms[np.arange(n), np.argmax(arms[:, :, 0], axis=1)]  # theta* along e_1
    direct = np.linalg.eigvalsh(best.T @ best / n)[0]
    # entries of the sample second moment have s.e. <= 1/sqrt(n); the smallest eigenvalue moves
    # by at most d times that
    assert optimal_arm_lambda_min(d, K) == pytest.approx(direct, abs=d / math.sqrt(n) * 3)


def test_reduction_sanity_on_fresh_arms():
    """epsilon = 1e6 (sigma ~ 0), Delta^2 = 0, OGD: regret at T = 2^14 below 0.2 x uniform play."""
    n, d, K, T_ = 3, 5, 10, 2**14
    inst = make_instances("fresh_sphere", n, K, d, 2)
    lam = optimal_arm_lambda_min(d, K)
    policy = make_policy(
        "onlineucb",
        Setting(T=T_, d=d, epsilon=1e6, delta=0.1),
        learner="ogd",
        lambda_min=lam,
        c_beta=1e-3,
    )
    assert policy.Delta2 == 0
    rngs = [noise_generator(1, "e", "p", "onlineucb", i) for i in range(n)]
    res = simulate(policy, inst, list(range(n)), rngs, checkpoint_rounds(T_, 4))
    for i in range(n):
        means = inst.arms(i, T_) @ inst.theta[i]
        uniform = np.sum(means.max(axis=1) - means.mean(axis=1))
        assert res.metrics["regret_pseudo"][i, -1] < 0.2 * uniform
        assert res.metrics["theta_hat_err"][i, -1] < 0.2  # theta_hat -> theta*


@pytest.mark.parametrize(
    "algorithm,options",
    [
        ("onlineucb", {"c_beta": 1e-2}),
        ("onlineucb", {"c_beta": 1e-2, "lambda_min": 0.0, "learner": "ogd"}),
        ("onlineucb_doubling", {"c_beta": 1e-2}),
        ("combiner", {"c_beta": 1e-2, "P_const": 1e-4, "p_index": 1e-3}),
    ],
)
def test_fresh_arm_engine_reproduces_the_reference(algorithm, options):
    T_, n, d, K = 300, 2, 5, 10
    inst = make_instances("fresh_sphere", n, K, d, 2)
    policy = make_policy(algorithm, Setting(T=T_, d=d, epsilon=10.0, delta=0.1), **options)
    cps = checkpoint_rounds(T_, 6)
    rngs = [noise_generator(1, "e", "p", algorithm, i) for i in range(n)]
    fast = simulate(policy, inst, [10, 11], rngs, cps)
    for i in range(n):
        raw = draw_raw(policy, noise_generator(1, "e", "p", algorithm, i))
        u = np.random.RandomState(10 + i).random_sample((T_, K))
        ref = reference_contextual(policy, inst.arms(i, T_), inst.theta[i], u, raw, cps)
        # the same arm every round: realized regret (a sum of +-2, 0 steps) is identical; the
        # pseudo-regret sums the same terms in another order
        assert np.array_equal(fast.metrics["regret_realized"][i], ref["regret_realized"])
        assert np.allclose(fast.metrics["regret_pseudo"][i], ref["regret_pseudo"], atol=1e-10)
        assert np.allclose(fast.metrics["theta_err"][i], ref["theta_err"], rtol=1e-8)


# Branch of Cor. 3.6 each rate-audit scan of config/experiments/olucb.yaml must stay in at every
# point: favourable (Delta^2 = 0, lambda_min > lambda_bar = T^(-1/4)) or worst (Delta^2 =
# lambda_bar), and the d exponent Cor. 3.6 implies there.
INTENDED_BRANCH = {
    "worst": "worst",
    "fav_t": "favourable",
    "fav_d": "worst",
    "fav_eps": "favourable",
    "fav_lam": "favourable",
}
#: Regime of Theorem 4.1 the combiner's cells of each scan must be in: small (lambda_min <
#: T^(-1/8)) or favourable (lambda_min >= T^(-1/8), reachable at d <= 3 only).
COMBINER_REGIME = {"fav_t": "small", "fav_lam": "favourable"}
D_EXPONENT = {"worst": "1/2", "favourable": None}  # favourable: sqrt(d)/lambda_min(d), no fraction


def _olucb(global_config, path=ROOT / "config/experiments/olucb.yaml"):
    config = {**global_config, "scale": "paper"}
    return load_experiment(path, config, SCHEMAS / "experiment.schema.yaml")


def _branch_violations(exp) -> list[tuple]:
    """Points of the rate scans outside their intended branch, judged by the library itself:
    the cell's OnlineUCB (its lambda_bar and its Delta^2 from ``perturbation``) and, on fresh
    arms, ``optimal_arm_lambda_min`` against that lambda_bar; the combiner's cells must be in
    Theorem 4.1's small-lambda regime (lambda_min < T^(-1/8))."""
    bad = []
    for sweep in exp.sweeps:
        want = INTENDED_BRANCH[sweep.id]
        for cell in sweep.cells:
            where = (sweep.id, cell.schedule, cell.point)
            lam = (
                optimal_arm_lambda_min(cell.d, cell.K) if cell.instances == "fresh_sphere" else None
            )
            if cell.algorithm == "etc":  # planted control (audit.controls): no branch
                continue
            if cell.algorithm == "combiner":
                small = COMBINER_REGIME.get(sweep.id) == "small"
                if lam is None or (lam < cell.T**-K_POWER) != small:
                    bad.append((*where, "combiner outside its regime of Theorem 4.1", lam))
                continue
            assert cell.algorithm == "onlineucb", where
            policy = cell.policy({"c_beta": 1.0})
            got = "favourable" if policy.Delta2 == 0 else "worst"
            if got != want:
                bad.append((*where, got, policy.lambda_bar))
            if lam is not None and (lam > policy.lambda_bar) != (want == "favourable"):
                bad.append((*where, "instance lambda_min on the other side", lam))
    return bad


def test_every_point_of_each_rate_scan_is_in_its_intended_branch(global_config):
    exp = _olucb(global_config)
    assert {sw.id for sw in exp.sweeps} == set(INTENDED_BRANCH)
    assert _branch_violations(exp) == []
    # the d-scan spans a factor 4 in d and the T-scan starts where Delta^2 = 0 already holds
    sweeps = {sw.id: sw for sw in exp.sweeps}
    assert max(c.d for c in sweeps["fav_d"].cells) >= 4 * min(c.d for c in sweeps["fav_d"].cells)
    lam5 = optimal_arm_lambda_min(5, sweeps["fav_t"].cells[0].K)
    assert min(sweeps["fav_t"].T) ** -0.25 < lam5 < (min(sweeps["fav_t"].T) / 2) ** -0.25


def test_theorem_4_1_favourable_scan_is_at_small_d_and_fails_at_d_5(global_config, tmp_path):
    """The favourable scan of Theorem 4.1 (lambda_min >= T^(-1/8)) needs d <= 3; the same scan
    at d = 5 (lambda_min <= 1/5 < 65536^(-1/8)) is refused at every horizon."""
    import yaml

    sweeps = {sw.id: sw for sw in _olucb(global_config).sweeps}
    assert max(c.d for c in sweeps["fav_lam"].cells) <= 3
    assert {c.algorithm for c in sweeps["fav_lam"].cells} == {"combiner"}
    data = yaml.safe_load((ROOT / "config/experiments/olucb.yaml").read_text())
    data["sweeps"]["fav_lam"]["d"] = 5
    path = tmp_path / "olucb.yaml"
    path.write_text(yaml.safe_dump(data))
    bad = [b for b in _branch_violations(_olucb(global_config, path)) if b[0] == "fav_lam"]
    assert len(bad) == len(sweeps["fav_lam"].cells)


def test_the_scans_of_the_previous_grids_were_confounded(global_config, tmp_path):
    """The check above fails on the grids audited before: K = 10 in the d-scan (d = 5 in the
    favourable branch, d = 10 and 20 in the worst) and T = 2048 in the favourable T-scan."""
    import yaml

    data = yaml.safe_load((ROOT / "config/experiments/olucb.yaml").read_text())
    data["sweeps"]["fav_d"]["K"] = 10
    data["sweeps"]["fav_t"]["T"] = [2048, *data["sweeps"]["fav_t"]["T"]]
    path = tmp_path / "olucb.yaml"
    path.write_text(yaml.safe_dump(data))
    bad = {(b[0], b[2]) for b in _branch_violations(_olucb(global_config, path))}
    assert ("fav_d", "eps1_d5_T20000") in bad
    assert {("fav_t", "eps1_T2048"), ("fav_t", "eps10_T2048")} <= bad
    assert all(sweep in ("fav_d", "fav_t") for sweep, _ in bad)


def test_d_exponents_registered_on_each_scan_are_the_branch_s():
    """Claims fitted in d on a scan carry the d exponent Cor. 3.6 implies in its branch: in the
    worst branch sqrt(d) T^(3/4)/epsilon, i.e. 1/2."""
    claims = load_claims(ROOT / "config/claims/olucb.yaml", SCHEMAS / "claims.schema.yaml")
    fitted = [c for c in claims if "none" not in c["audit"] and "d" in c["audit"].get("fit", ())]
    assert fitted
    for c in fitted:
        branch = INTENDED_BRANCH[c["audit"]["sweep"]]
        assert c["d_exp"] == D_EXPONENT[branch], c["id"]


def test_lambda_min_disk_cache_returns_the_computed_value(tmp_path, monkeypatch):
    # the workflow needs these values at every parse; the disk cache must give back exactly
    # what the Monte Carlo computes, and a damaged cache file must not matter
    from dpbandits.envs import contextual

    monkeypatch.setenv("DPBANDITS_CACHE", str(tmp_path))
    exact = contextual._optimal_arm_lambda_min(4, 6, 2000)
    contextual.optimal_arm_lambda_min.cache_clear()
    assert contextual.optimal_arm_lambda_min(4, 6, 2000) == exact  # computed, then stored
    contextual.optimal_arm_lambda_min.cache_clear()
    monkeypatch.setattr(contextual, "_optimal_arm_lambda_min", lambda *a: 1 / 0)
    assert contextual.optimal_arm_lambda_min(4, 6, 2000) == exact  # read back, bit for bit
    (tmp_path / "optimal_arm_lambda_min.json").write_text("{not json")
    contextual.optimal_arm_lambda_min.cache_clear()
    monkeypatch.setattr(contextual, "_optimal_arm_lambda_min", lambda *a: exact)
    assert contextual.optimal_arm_lambda_min(4, 6, 2000) == exact
    contextual.optimal_arm_lambda_min.cache_clear()


@pytest.mark.parametrize("eps,lam", [(10.0, 0.132), (1.0, 0.132), (10.0, 0.0)])
def test_lemma35_regime_is_where_the_strongly_convex_bound_drops_below_the_convex_rate(eps, lam):
    # T* is the first horizon with (G^2/mu + G D) ln(T + 1) + (G^2/mu) ln(1/beta) <= 2 G D sqrt T;
    # with lambda = 0 and Delta^2 = 0 (mu = 0) there is no strongly convex regime
    options = {"lambda_min": lam, "lambda_bar_power": 0.0} if lam == 0 else {"lambda_min": lam}
    policy = make_policy("onlineucb", Setting(T=65536, d=5, epsilon=eps, delta=0.1), **options)
    T_star = policy.consts["lemma35_regime_T"]
    if policy.mu_hat <= 0:
        assert T_star == math.inf
        return
    G, D = policy.G, policy.opts["D"]
    assert float(policy.regret_proxy(T_star)) <= 2 * G * D * math.sqrt(T_star)
    assert float(policy.regret_proxy(T_star - 1)) > 2 * G * D * math.sqrt(T_star - 1)
    # at epsilon = 10 the crossing lies beyond the audited horizons (largest 65 536)
    assert T_star > 65536
