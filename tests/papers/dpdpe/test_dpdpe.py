"""dpdpe (DP-DPE): calibration functions, the shuffle summation protocols and the G-optimal
design (Algorithms 1-4, Sec. 4, Appendices A and C, Tables 3-4).

Tolerances: a Monte-Carlo mean is compared within 4 standard errors of the mean; a Monte-Carlo
variance of N draws has relative standard error sqrt(2/N) (Gaussian) and somewhat more for
heavier tails, so a 2% band at N = 2e5 (sqrt(2/N) = 0.32%) is over 6 standard errors wide.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpbandits.g_optimal import g_optimal_design, span_basis, support_cap
from dpbandits.mechanisms.shuffle_sum import (
    analyze_scalar,
    analyze_vector,
    count_ones,
    exact_variance,
    hoeffding_proxy,
    paper_variance_bound,
    scalar_params,
    vector_messages,
    vector_params,
)
from dpbandits.policies import Setting, make_policy
from dpbandits.policies.dpdpe import (
    dpdpe_sigma_n,
    dpdpe_width,
    pe_sigma_n,
    pe_sigma_noise,
    sigma_nc,
    sigma_nl,
)


# -- Gaussian mechanism scales ----------------------------------------------------------
@pytest.mark.parametrize("s,n,eps,delta,B", [(1, 1, 1.0, 0.1, 1.0), (27, 40, 10.0, 0.25, 2.0)])
def test_gaussian_scales(s, n, eps, delta, B):
    expected = 2 * B * math.sqrt(2 * s * math.log(1.25 / delta)) / (eps * n)
    assert sigma_nc(s, n, eps, delta, B) == pytest.approx(expected, rel=1e-12)
    assert sigma_nl(s, eps, delta, B) == pytest.approx(n * expected, rel=1e-12)


class _Scripted:
    """Stand-in for a Generator: ``standard_normal`` returns the queued arrays in order (their
    shapes are checked against the request), so a test chooses every draw the library makes."""

    def __init__(self, *draws):
        self.draws = list(draws)

    def standard_normal(self, size=None):
        out = np.asarray(self.draws.pop(0), dtype=float)
        assert out.shape == (() if size is None else tuple(np.atleast_1d(size))), (out.shape, size)
        return out


class _Silent:
    """A stream whose every standard normal draw is 0 (no heterogeneity, no reward noise)."""

    def standard_normal(self, size=None):
        return 0.0 if size is None else np.zeros(size)


def _dpdpe_policy(algorithm, eps, delta=0.1, B=1.5, d=3, K=6):
    st = Setting(T=10_000, d=d, epsilon=eps, delta=delta, K=K)
    return make_policy(algorithm, st, sigma=0.0, reward_bound=B)


def _paper_gaussian_sigma(Delta, eps, delta):
    """The classical Gaussian mechanism of Thms 4.2 / 4.4 / C.1 (Dwork-Roth Thm A.1), written
    from the paper, not from the library."""
    return Delta * math.sqrt(2 * math.log(1.25 / delta)) / eps


@pytest.mark.parametrize("algorithm,n", [("cdp_dpe", 9), ("ldp_dpe", 1)])
def test_client_average_moves_by_at_most_the_stated_sensitivity_and_attains_it(algorithm, n):
    """Eq. 19 through the library: the (clipped) client average of dpdpe_aggregate on two inputs
    that differ in one client's rewards moves by at most the sensitivity the calibration assumes
    (2B sqrt(s)/n; for the local model one client's report, n = 1: 2B sqrt(s)), and the pair of
    opposite corners attains it."""
    from dpbandits.engine.phased import dpdpe_aggregate
    from dpbandits.mechanisms.gaussian import classic_gaussian_sigma

    eps, delta, B, s, d = 0.5, 0.1, 1.5, 4, 3
    policy = _dpdpe_policy(algorithm, eps, delta, B, d)
    # the sensitivity the library's noise is calibrated to (classic_gaussian_sigma is linear in
    # its sensitivity argument)
    if algorithm == "cdp_dpe":
        stated = sigma_nc(s, n, eps, delta, B) / classic_gaussian_sigma(1.0, eps, delta)
    else:
        stated = sigma_nl(s, eps, delta, B) / classic_gaussian_sigma(1.0, eps, delta)
    assert stated == pytest.approx(2 * B * math.sqrt(s) / n, rel=1e-12)  # Eq. 19

    rng = np.random.default_rng(19)
    mean_s = rng.uniform(-B, B, size=s)
    Xs = rng.standard_normal((s, d))
    counts = np.ones(s, dtype=int)  # eta_bar = the scripted draw itself

    def average(eta):  # sigma = 0: xi is 0; the privacy noise is scripted to 0
        env = _Scripted(np.zeros((n, d)), eta)
        return dpdpe_aggregate(policy, mean_s, Xs, counts, n, env, _Scripted(np.zeros(s)))

    moved = []
    for _ in range(300):
        eta = 2 * B * rng.standard_normal((n, s))  # clipping binds for many reports
        other = eta.copy()
        other[0] = 2 * B * rng.standard_normal(s)  # neighbour: client 0's rewards replaced
        moved.append(np.linalg.norm(average(eta) - average(other)))
    assert max(moved) <= stated * (1 + 1e-12)
    corner = 10 * B * np.ones((n, s))
    other = corner.copy()
    other[0] = -corner[0]
    assert np.linalg.norm(average(corner) - average(other)) == pytest.approx(stated, rel=1e-12)


@pytest.mark.parametrize("eps", [0.2, 5.0])
@pytest.mark.parametrize("algorithm", ["cdp_dpe", "ldp_dpe"])
def test_released_dpdpe_noise_has_the_paper_variance(algorithm, eps):
    """The privacy noise dpdpe_aggregate adds to the client average (drawn by the library with a
    fixed seed, reports made deterministic by a silent environment) has per coordinate the
    variance of Thm 4.2 (central: Gaussian mechanism on sensitivity 2B sqrt(s)/n) or Thm 4.4
    (local: every client N(0, sigma_nl^2) with sensitivity 2B sqrt(s), averaged over n clients).

    Tolerance: s^2 of N i.i.d. normals has var 2 sigma^4/(N - 1), so |s^2/sigma^2 - 1| <=
    5 sqrt(2/(N - 1)) is five standard errors (N = 2000 x 4 coordinates pooled: 7.9 %)."""
    from dpbandits.engine.phased import dpdpe_aggregate

    delta, B, s, d, n, reps = 0.1, 2.0, 4, 3, 9, 2000
    policy = _dpdpe_policy(algorithm, eps, delta, B, d)
    rng = np.random.default_rng(42)
    mean_s = rng.uniform(-1, 1, size=s)
    Xs = rng.standard_normal((s, d))
    counts = np.array([1, 2, 3, 4])
    clean = dpdpe_aggregate(policy, mean_s, Xs, counts, n, _Silent(), _Silent())
    noise = np.random.default_rng(7)
    draws = (
        np.array(
            [dpdpe_aggregate(policy, mean_s, Xs, counts, n, _Silent(), noise) for _ in range(reps)]
        )
        - clean
    )
    if algorithm == "cdp_dpe":
        var = _paper_gaussian_sigma(2 * B * math.sqrt(s) / n, eps, delta) ** 2
    else:
        var = _paper_gaussian_sigma(2 * B * math.sqrt(s), eps, delta) ** 2 / n
    N = draws.size
    assert abs(draws.mean()) <= 5 * math.sqrt(var / N)
    assert abs(draws.var(ddof=1) / var - 1) <= 5 * math.sqrt(2 / (N - 1))


@pytest.mark.parametrize("eps", [0.2, 5.0])
@pytest.mark.parametrize("algorithm", ["cdp_pe", "ldp_pe"])
def test_released_dppe_noise_has_the_paper_variance(algorithm, eps):
    """DP-PE (Thms C.1, C.3): the reward sum of an action gets N(0, sigma_0^2) with sigma_0 the
    Gaussian mechanism on sensitivity 2B (one user's reward in [-B, B] replaced; central), or
    each of its c users adds N(0, sigma_0^2) (local: c sigma_0^2). Drawn through dppe_sums; the
    tolerance is five standard errors of the sample variance as above (N = 3000 per action)."""
    from dpbandits.engine.phased import dppe_sums

    delta, B, reps = 0.1, 2.0, 3000
    st = Setting(T=10_000, d=3, epsilon=eps, delta=delta, K=6)
    policy = make_policy(algorithm, st, reward_bound=B)
    mean_s, counts = np.array([0.3, -2.5, 1.0]), np.array([1, 3, 5])
    clean = dppe_sums(policy, mean_s, counts, _Silent(), _Silent())[0]
    assert np.allclose(clean, counts * np.clip(mean_s, -B, B))  # -2.5 is clipped to -B
    noise = np.random.default_rng(8)
    draws = np.array([dppe_sums(policy, mean_s, counts, _Silent(), noise)[0] for _ in range(reps)])
    draws -= clean
    var0 = _paper_gaussian_sigma(2 * B, eps, delta) ** 2
    expected = var0 * (counts if algorithm == "ldp_pe" else np.ones(3))
    assert np.all(np.abs(draws.mean(axis=0)) <= 5 * np.sqrt(expected / reps))
    assert np.all(np.abs(draws.var(axis=0, ddof=1) / expected - 1) <= 5 * math.sqrt(2 / (reps - 1)))


@pytest.mark.parametrize("algorithm", ["cdp_dpe", "ldp_dpe", "sdp_dpe"])
def test_sigma_n_bounds_the_privacy_noise_of_the_scores(algorithm):
    """What Tables 3's sigma_n is for: the privacy noise of a phase (drawn by dpdpe_aggregate,
    propagated by phase_estimate) moves every active action's score <x, theta_hat> with a std of
    at most sigma_n. Configuration T's sigma_n is the exact maximum std for the Gaussian
    privatizers (and a sub-Gaussian proxy, so an upper bound, for the shuffle protocol);
    configuration F's (Table 3) is above it.

    Tolerance: per action the sample variance of R = 3000 draws is within 5 standard errors,
    5 sqrt(2/(R - 1)) = 12.9 % relative, of its expectation; the max over actions is at least
    the sample variance of the action attaining the exact maximum."""
    from dpbandits.engine.phased import _width, dpdpe_aggregate, phase_estimate
    from dpbandits.g_optimal import g_optimal_design

    rng = np.random.default_rng(5)
    k, d, h, n, reps = 12, 3, 64.0, 20, 3000
    X = rng.standard_normal((k, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    means = X @ np.array([0.1, -0.2, 0.3])
    design = g_optimal_design(X)
    sup = design.support
    counts = np.ceil(h * design.weights[sup] - 1e-9).astype(int)
    s = len(sup)
    st = Setting(T=10_000, d=d, epsilon=5.0, delta=0.25, K=k)
    tight = make_policy(algorithm, st, sigma=0.0, reward_bound=1.0, width="tight")
    faithful = make_policy(algorithm, st, sigma=0.0, reward_bound=1.0, width="faithful")

    def scores(noise):
        y = dpdpe_aggregate(tight, means[sup], X[sup], counts, n, _Silent(), noise)
        Z, _, _, th = phase_estimate(X, design, counts, y)
        return Z @ th

    Z, Zs, V, _ = phase_estimate(X, design, counts, means[sup])
    L = tight.log_inv_beta
    v_tight = _width(tight, h, n, s, Z, Zs, V, counts, d)[2] ** 2 / (2 * L)
    v_faith = _width(faithful, h, n, s, Z, Zs, V, counts, d)[2] ** 2 / (2 * L)
    noise = np.random.default_rng(6)
    if algorithm == "sdp_dpe":  # the protocol is random even without noise: centre on the mean
        draws = np.array([scores(noise) for _ in range(reps)])
        var = draws.var(axis=0, ddof=1)
    else:
        clean = scores(_Silent())
        draws = np.array([scores(noise) for _ in range(reps)]) - clean
        var = (draws**2).mean(axis=0)  # known mean 0: chi-square with R degrees of freedom
    tol = 5 * math.sqrt(2 / (reps - 1))
    assert np.all(var <= v_tight * (1 + tol))
    if algorithm != "sdp_dpe":
        assert var.max() >= v_tight * (1 - tol)
    assert v_tight <= v_faith


def test_table3_sigma_n_at_eps_other_than_one():
    """Table 3's sigma_n at d = 20, s = 25, n = 64, delta = 0.25, B = 2 and eps = 0.2, 5 (so
    eps and B enter to their stated powers), evaluated by hand from the paper's formulas:
    S = 4 d ln ln d + 16 = 103.775096; central 2 sigma_nc sqrt(Sd) with sigma_nc =
    2B sqrt(2 s ln(1.25/delta))/(eps n); local 2 sigma_nl sqrt(Sd/n) with sigma_nl = n sigma_nc;
    shuffle 2 sqrt(360 B^2 s ln(4s/delta)/(n^2 eps_hat^2)) sqrt(Sd), eps_hat = eps/(18 sqrt(
    ln(2/delta)))."""
    d, s, n, delta, B = 20, 25, 64, 0.25, 2.0
    assert support_cap(d) == pytest.approx(103.77509602919591, rel=1e-12)
    expected = {
        0.2: (255.42517703016196, 2043.4014162412957, 85811.44319735083),
        5.0: (10.217007081206479, 81.73605664965183, 3432.457727894034),
    }
    for eps, (central, local, shuffle) in expected.items():
        assert dpdpe_sigma_n("none", s, n, d, eps, delta, B) == 0.0
        assert dpdpe_sigma_n("central", s, n, d, eps, delta, B) == pytest.approx(central, rel=1e-9)
        assert dpdpe_sigma_n("local", s, n, d, eps, delta, B) == pytest.approx(local, rel=1e-9)
        assert dpdpe_sigma_n("shuffle", s, n, d, eps, delta, B) == pytest.approx(shuffle, rel=1e-9)
    with pytest.raises(ValueError, match="unknown privatizer"):
        dpdpe_sigma_n("laplace", s, n, d, 1.0, delta, B)


def test_table4_sigma_n_and_width_at_eps_other_than_one():
    """Table 4 at d = 5, s = 7, h = 64, delta = 0.1, B = 2, eps = 0.2 and 5, by hand:
    sigma_0 = 2B sqrt(2 ln(1.25/delta))/eps (44.950894 at eps = 0.2); central 2 d sigma_0
    sqrt(s)/h, local 2 d sigma_0 sqrt(2s/h). The width terms (Eq. 3) at h = 8, n = 4, d = 5,
    sigma = 0.1, sigma_n = 0.3, ln(1/beta) = ln 100: sqrt(4 d L/(h n)), sqrt(2 sigma^2 L/n),
    sqrt(2 sigma_n^2 L)."""
    d, s, h, delta, B = 5, 7, 64.0, 0.1, 2.0
    expected = {
        0.2: (44.95089448994986, 18.58263875473608, 210.2385580130212),
        5.0: (1.7980357795979944, 0.7433055501894433, 8.409542320520847),
    }
    for eps, (s0, central, local) in expected.items():
        assert pe_sigma_noise(eps, delta, B) == pytest.approx(s0, rel=1e-9)
        assert pe_sigma_n("central", s, h, d, eps, delta, B) == pytest.approx(central, rel=1e-9)
        assert pe_sigma_n("local", s, h, d, eps, delta, B) == pytest.approx(local, rel=1e-9)
        assert pe_sigma_n("none", s, h, d, eps, delta, B) == 0.0
    W = dpdpe_width(8.0, 4, 5, 0.1, 0.3, math.log(100.0))
    assert W == pytest.approx((1.6965351061037781, 0.15174271293851463, 0.9104562776310878))


# -- the shuffle analyzers are unbiased with the stated variance -------------------------
def test_algorithm2_pilot_parameters():
    prm = vector_params(10.0, 0.25, 7, 5, math.sqrt(5))
    assert (prm.g, prm.b) == (10, 75918)
    assert prm.p == pytest.approx(0.499996, abs=1e-6)
    assert paper_variance_bound(prm) == pytest.approx(1084.5, rel=1e-3)
    assert hoeffding_proxy(prm) == pytest.approx(542.3, rel=1e-3)


def test_algorithm2_unbiased_with_exact_variance():
    rng = np.random.default_rng(20220712)
    n, s, B = 7, 5, 1.0
    prm = vector_params(10.0, 0.25, n, s, B * math.sqrt(s))
    Y = rng.uniform(-B, B, size=(n, s))
    reps = 200_000
    out = analyze_vector(count_ones(rng, np.broadcast_to(Y, (reps, n, s)), prm), prm)
    var = exact_variance(Y, prm)
    assert var == pytest.approx(542.3, rel=2e-3)
    se = np.sqrt(var / reps)
    assert np.all(np.abs(out.mean(axis=0) - Y.mean(axis=0)) < 4 * se)
    assert np.allclose(out.var(axis=0), var, rtol=0.02)


def test_algorithm4_unbiased_with_exact_variance():
    rng = np.random.default_rng(4)
    n, B = 6, 1.0
    prm = scalar_params(1.0, 0.1, n, B)
    assert prm.g == max(1, math.ceil(2 * B * math.sqrt(n)))
    y = rng.uniform(-B, B, size=(n, 1))
    reps = 200_000
    ones = count_ones(rng, np.broadcast_to(y, (reps, n, 1)), prm)[:, 0]
    out = np.array([analyze_scalar(o, prm) for o in ones[:2000]])
    # the analyzer is affine in the count: check it on a slice, use the vectorised form below
    vec = prm.scale / prm.g * (ones - n * prm.b * prm.p) - n * prm.shift
    assert np.allclose(out, vec[:2000])
    var = float(exact_variance(y, prm, average=False)[0])
    assert abs(vec.mean() - y.sum()) < 4 * math.sqrt(var / reps)
    assert vec.var() == pytest.approx(var, rel=0.02)
    assert var <= hoeffding_proxy(prm, average=False)


# -- parameter ranges of Algorithm 2 ------------------------------------------------------
@pytest.mark.parametrize("eps", [0.2, 1.0, 10.0, 100.0])
@pytest.mark.parametrize("n,s", [(1, 1), (7, 5), (400, 27), (40_000, 27)])
def test_algorithm2_parameter_ranges(eps, n, s):
    delta, Delta2 = 0.25, math.sqrt(s)
    prm = vector_params(eps, delta, n, s, Delta2)
    assert isinstance(prm.g, int) and prm.g >= max(math.sqrt(s), 10)
    assert prm.b >= 1 and 0 < prm.p <= 0.5
    # the number of ones per coordinate is within [0, n (g + b)] even at the extreme inputs, and
    # per client within [0, g + b] (literal messages where they are small enough to build)
    rng = np.random.default_rng(3)
    for y in (np.full(s, -Delta2 / math.sqrt(s)), np.full(s, Delta2 / math.sqrt(s))):
        ones = count_ones(rng, np.broadcast_to(y, (max(1, 2000 // n), n, s)), prm)
        assert np.all((ones >= 0) & (ones <= n * (prm.g + prm.b)))
        if prm.g + prm.b <= 100_000:
            msgs = vector_messages(rng, y, prm)
            assert all(m.size == prm.g + prm.b and 0 <= m.sum() <= prm.g + prm.b for m in msgs)
    # the paper's variance bound dominates the exact variance where its g-condition holds
    Y = rng.uniform(-1, 1, size=(n, s)) if n <= 400 else np.zeros((1, s))
    if prm.g**2 >= prm.eps_hat**2 * n / (90 * prm.log_term):
        assert paper_variance_bound(prm) >= hoeffding_proxy(prm) * (1 - 1e-12)
        if n <= 400:
            assert np.all(paper_variance_bound(prm) >= exact_variance(Y, prm))


def test_bit_level_messages_and_count_level_agree():
    """I5-I7: literal messages (bit multisets of every client, one real permutation of all of
    them) give the same distribution of the analyzer's input as the count level."""
    n, s, Delta2 = 4, 2, 1.0
    prm = vector_params(10.0, 0.25, n, s, Delta2, eps_hat=30.0)  # small b: cheap literal bits
    assert prm.b < 40
    rng = np.random.default_rng(11)
    Y = rng.uniform(-0.7, 0.7, size=(n, s))
    reps = 4000
    literal = np.zeros((reps, s))
    for r in range(reps):
        tags, bits = [], []
        for u in range(n):
            for j, m in enumerate(vector_messages(rng, Y[u], prm)):
                tags.append(np.full(m.size, j))
                bits.append(m)
        order = rng.permutation(sum(m.size for m in bits))
        tag, bit = np.concatenate(tags)[order], np.concatenate(bits)[order]
        literal[r] = np.bincount(tag, weights=bit, minlength=s)
    counted = count_ones(rng, np.broadcast_to(Y, (reps, n, s)), prm)
    from scipy.stats import ks_2samp

    for j in range(s):
        assert ks_2samp(literal[:, j], counted[:, j]).pvalue > 1e-3
        se = math.sqrt(literal[:, j].var() / reps + counted[:, j].var() / reps)
        assert abs(literal[:, j].mean() - counted[:, j].mean()) < 4 * se


def test_protocol_input_checks():
    with pytest.raises(ValueError, match="delta"):
        vector_params(1.0, 1.5, 3, 2, 1.0)
    with pytest.raises(ValueError, match="B > 0"):
        scalar_params(1.0, 0.1, 3, 0.0)


# -- near-G-optimal design ----------------------------------------------------------------
def _g_all(X, design):
    Z = X @ design.basis
    V = (Z.T * design.weights) @ Z
    return np.einsum("ij,ij->i", Z, np.linalg.solve(V, Z.T).T)


def _instances():
    rng = np.random.default_rng(2020)
    for d in (2, 5, 20):
        for k in (d, 50, 1000):
            X = rng.standard_normal((k, d))
            yield f"sphere-d{d}-k{k}", X / np.linalg.norm(X, axis=1, keepdims=True)
    # rank-deficient: rows in a 3-dimensional subspace of R^8, duplicates included
    basis = np.linalg.qr(rng.standard_normal((8, 3)))[0]
    X = rng.standard_normal((60, 3)) @ basis.T
    yield "rank3-in-d8", np.vstack([X, X[:5]])


@pytest.mark.parametrize(
    "name,X", list(_instances()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_design_properties(name, X):
    design = g_optimal_design(X)
    r = design.rank
    assert r == np.linalg.matrix_rank(X)
    w = design.weights
    assert np.all(w >= 0) and w.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(design.support, np.flatnonzero(w > 0))
    g = _g_all(X, design)
    assert float(w @ g) == pytest.approx(r, abs=1e-9)  # Kiefer-Wolfowitz identity
    assert r - 1e-9 <= g.max() <= 2 * r * (1 + 1e-9)
    assert design.g == pytest.approx(g.max(), rel=1e-9)
    assert len(design.support) <= math.floor(support_cap(X.shape[1]))


@pytest.mark.parametrize("d,k", [(2, 50), (5, 200), (10, 300)])
def test_design_accuracy_mode_reaches_kiefer_wolfowitz(d, k):
    rng = np.random.default_rng(d * 1000 + k)
    X = rng.standard_normal((k, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    design = g_optimal_design(X, accuracy=1e-4)
    g = _g_all(X, design)
    assert g.max() <= d * (1 + 1e-4) + 1e-9
    assert abs(g.max() - d) < 1e-3


def test_design_rejects_the_origin_and_projects_onto_the_span():
    with pytest.raises(ValueError, match="origin"):
        span_basis(np.zeros((3, 2)))
    Q = span_basis(np.array([[1.0, 0, 0], [2.0, 0, 0], [0, 1.0, 0]]))
    assert Q.shape == (3, 2) and np.allclose(Q.T @ Q, np.eye(2))


# -- policies: options and their checks ------------------------------------------------------------
def test_policy_options_are_checked():
    st = Setting(T=1000, d=3, epsilon=1.0, delta=0.1, K=10)
    with pytest.raises(ValueError, match="alpha"):
        make_policy("cdp_dpe", st, alpha=1.2)
    with pytest.raises(ValueError, match="width"):
        make_policy("cdp_dpe", st, width="loose")
    with pytest.raises(ValueError, match="s1 is a shuffle-only"):
        make_policy("ldp_dpe", st, width="s1")
    with pytest.raises(ValueError, match="U"):
        make_policy("dpe_fixedu", st)
    with pytest.raises(ValueError, match="number of actions K"):
        make_policy("dpe", Setting(T=1000, d=3))
    p = make_policy("dpe", st)
    assert p.beta == pytest.approx(1 / (10 * 1000))
    assert [p.clients(l) for l in (1, 2, 3, 10)] == [
        math.ceil(2 ** (0.8 * l) - 1e-9) for l in (1, 2, 3, 10)
    ]
    assert make_policy("dpe_fixedu", st, U=7).clients(5) == 7
    assert make_policy("pe", st).h1 == pytest.approx(support_cap(3))


# -- Tables 1-4: rendered from the registry and the calibration functions -------------------------
def test_paper_tables_render_claims_measurements_and_calibrations(root):
    import pandas as pd

    from dpbandits.audit.paper_tables import render
    from dpbandits.claims import load_registry

    reg = load_registry(
        root / "config/claims/dpdpe.yaml", root / "workflow/schemas/claims.schema.yaml"
    )
    claims = {c["id"]: c for c in reg["claims"]}
    t1 = reg["tables"]["dpdpe_table1"]
    # synthetic data with known exponents: on the sweep (configuration T) regret ~ T^0.5 and
    # communication ~ T^0.8; in Figure 2's configuration F cells regret ~ T^0.7
    rng = np.random.default_rng(0)
    rows = []

    def add(figure, configuration, series, comm, T, exponent):
        # a sweep file is placed by sweep and schedule (dpbandits.io.setting_columns)
        if configuration == "x":
            place = {"sweep": figure, "schedule": series}
        else:
            place = {"figure": figure, "configuration": configuration, "series": series}
        for trial in range(10):
            rows.append(
                {
                    **place,
                    "T": T,
                    "t": T,
                    "trial": trial,
                    "regret_pseudo": 3 * T**exponent * (1 + 0.01 * rng.standard_normal()),
                    comm: 2 * T**0.8,
                }
            )

    for row in t1["rows"]:
        m = row["measured"]
        for T in (10_000, 100_000, 1_000_000):
            add(m["sweep"], "x", m["series"], m["communication"], T, 0.5)
        (f,) = row["measured_also"]  # every row: Figure 2's F cells at T = 10^5 and 10^6
        for conf, T in zip(f["configuration"], (100_000, 1_000_000), strict=True):
            add(f["figure"], conf, f["series"], f["communication"], T, 0.7)
    frame = render(t1, claims, pd.DataFrame(rows))
    assert list(frame["Algorithm"]) == ["DPE", "CDP-DPE", "LDP-DPE", "SDP-DPE"]
    # claimed exponents at alpha = 0.8: regret 1 - alpha/2, communication alpha (SDP bits 3 alpha/2)
    assert list(frame["claimed T-exponent of the regret (alpha = 0.8)"]) == ["0.6"] * 4
    assert list(frame["claimed T-exponent of the communication (alpha = 0.8)"]) == [
        "0.8",
        "0.8",
        "0.8",
        "1.2",
    ]
    T_tag, F_tag = " (configuration T, sweep free)", " (configuration F, Fig. 2)"
    fitted = frame[f"fitted T-exponent of the regret{T_tag}"].str.split(" ").str[0].astype(float)
    assert np.allclose(fitted, 0.5, atol=0.01)
    fitted_F = frame[f"fitted T-exponent of the regret{F_tag}"].str.split(" ").str[0]
    assert np.allclose(fitted_F.astype(float), 0.7, atol=0.02)  # each source its own columns
    comm = frame[f"fitted T-exponent of the communication{T_tag}"].str.split(" ").str[0]
    assert np.allclose(comm.astype(float), 0.8, atol=1e-9)
    assert frame[f"measured communication{T_tag}"].iloc[3].endswith("bits")
    assert set(frame[f"T (measured){T_tag}"]) == {"1e+06"}
    assert set(frame[f"horizons{F_tag}"]) == {"100000, 1e+06"}
    # Table 3: the calibration functions at the stated point
    t3 = render(reg["tables"]["dpdpe_table3"], claims)
    at = reg["tables"]["dpdpe_table3"]["evaluate_at"]
    value = dpdpe_sigma_n("central", at["s"], at["n"], at["d"], at["epsilon"], at["delta"], at["B"])
    assert float(t3.iloc[1][at["label"]]) == pytest.approx(value, rel=1e-3)


def test_registry_tables_are_checked(root, tmp_path):
    import yaml

    from dpbandits.claims import load_registry
    from dpbandits.config import ConfigError

    data = yaml.safe_load((root / "config/claims/dpdpe.yaml").read_text())
    data["tables"]["dpdpe_table1"]["rows"][0]["claims"]["regret"] = ["dpdpe.no_such_claim"]
    bad = tmp_path / "dpdpe.yaml"
    bad.write_text(yaml.safe_dump(data, sort_keys=False))
    with pytest.raises(ConfigError, match="no_such_claim"):
        load_registry(bad, root / "workflow/schemas/claims.schema.yaml")


def test_a_term_below_the_bounds_leading_exponent_is_fitted_as_one_term(root):
    """On the sweep gap_private (sigma = 0: Theorems 5.3-5.5 lose their client term) the whole
    bound's exponent is the largest of its action term's 1/2 and its privacy term's. A claim
    whose term is below it may not read as a verdict on the regret: it names the claim of the
    leading term (``audit.term_of``), fitted on the same grid; a leading term names none."""
    from fractions import Fraction

    import yaml

    from dpbandits.claims import load_registry

    reg = load_registry(
        root / "config/claims/dpdpe.yaml", root / "workflow/schemas/claims.schema.yaml"
    )
    claims = {c["id"]: c for c in reg["claims"]}
    sweep = yaml.safe_load((root / "config/experiments/dpdpe.yaml").read_text())["sweeps"][
        "gap_private"
    ]
    fitted = [
        c
        for c in claims.values()
        if c["kind"] == "rate" and c["audit"].get("sweep") == "gap_private"
    ]
    assert len(fitted) == 8  # tab1.{cdp, ldp, sdp}, thm5.{3, 4, 5}.privacy, thm5.{3, 5}.action

    def exponent(c, alpha):
        return Fraction(c["T_exp"]) + Fraction(c.get("T_exp_alpha") or 0) * alpha

    for c in fitted:
        (entry,) = c["audit"]["schedules"]
        options = sweep["schedules"][entry]["options"]
        assert options["sigma"] == 0.0
        alpha = Fraction(options["alpha"]).limit_denominator(100)
        theorem = [
            t
            for t in claims.values()
            if t["algorithm"] == c["algorithm"]
            and t["source"].startswith("Thm 5.")
            and t.get("term") in ("action", "privacy")
        ]
        leading = max(exponent(t, alpha) for t in theorem)
        if exponent(c, alpha) < leading:
            whole = claims[c["audit"]["term_of"]]
            assert exponent(whole, alpha) == leading, c["id"]
            assert whole["audit"]["sweep"] == "gap_private", c["id"]
            assert whole["audit"]["schedules"] == [entry], c["id"]
        else:
            assert "term_of" not in c["audit"], c["id"]
