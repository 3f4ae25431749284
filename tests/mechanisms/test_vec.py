"""P_Vec randomizer, shuffler and analyzer (CZ22 Sec. 3.3, App. C, Algs. 5-7; quirk 1 of
docs/design.md).

The P_Vec calibrations (CZ22 Thm. C.1 and E.5) set the number of binomial trials and so the
noise of every SDP-Vec run; each is pinned to its docstring formula at points where a wrong
exponent or operator changes the result (epsilon != 1, logs != 1; docs/mutation.md).
"""

import math

import numpy as np
import pytest

from dpbandits.mechanisms import vec
from dpbandits.mechanisms.packing import n_entries, unpack

B, G, P = 20, 8.94427191, 0.25
REPS = 200_000


def _simulate(values, params, Delta, rng, reps=REPS):
    """Analyzer outputs of one batch over ``reps`` repetitions (counts drawn per user)."""
    B_ = len(values)
    z = (np.asarray(values) + Delta) * params.g / Delta
    counts = np.zeros(reps)
    for zi in z:
        x_bar = math.floor(zi)
        counts += x_bar + (rng.random(reps) < zi - x_bar)
    counts += rng.binomial(B_ * params.b_trials, params.p, size=reps)
    return vec.analyze(counts, B_, params, Delta)


@pytest.mark.parametrize("Delta", [1.0, math.sqrt(2)])
def test_u1_u2_analyzer_is_unbiased_with_the_exact_variance(Delta):
    rng = np.random.default_rng(10)
    params = vec.VecParams(g=G, b=61.0, p=P, b_trials=61, b_debias=61.0)
    values = rng.uniform(-Delta, Delta, size=B)
    out = _simulate(values, params, Delta, rng)
    se = out.std(ddof=1) / math.sqrt(REPS)
    assert abs(out.mean() - values.sum()) < 4 * se  # unbiased
    var = vec.analyzer_variance(values, params, Delta)
    assert abs(out.var(ddof=1) / var - 1) < 0.03  # exact variance


def test_u3_truncated_trials_bias_the_analyzer():
    rng = np.random.default_rng(11)
    L = math.sqrt(2)
    p1 = vec.vec_params_experiment(1.0, 0.1, 20, 5, truncate_b=True)
    assert (p1.g, p1.b, p1.b_trials) == pytest.approx((8.94427191, 61.2157, 61), rel=1e-5)
    assert p1.bias_per_batch(20, L) == pytest.approx(-0.1705, abs=5e-5)
    p10 = vec.vec_params_experiment(10.0, 0.1, 20, 5, truncate_b=True)
    assert p10.b_trials == 0 and p10.bias_per_batch(20, L) == pytest.approx(-0.4840, abs=5e-5)
    assert p10.noise_std_per_batch(20, L) == 0.0
    values = rng.uniform(-L, L, size=B)
    out = _simulate(values, p1, L, rng)
    se = out.std(ddof=1) / math.sqrt(REPS)
    assert abs(out.mean() - values.sum() - p1.bias_per_batch(B, L)) < 4 * se
    # corrected: ceil(b) on both sides removes the bias
    pc = vec.vec_params_experiment(1.0, 0.1, 20, 5, truncate_b=False)
    assert pc.b_trials == 62 and pc.bias_per_batch(20, L) == 0.0


def test_u4_lattice_inputs_are_exact_and_debias_uses_B_Delta():
    Delta = math.sqrt(2)
    params = vec.VecParams(g=G, b=0.0, p=P, b_trials=0, b_debias=0.0)
    rng = np.random.default_rng(12)
    lattice = rng.integers(0, int(2 * G), size=B)  # (v + Delta) g / Delta integer
    values = lattice * Delta / G - Delta
    counts = vec.encode(values, G, Delta, rng.random(B)).sum()
    out = vec.analyze(counts, B, params, Delta)
    assert out == pytest.approx(values.sum(), abs=1e-9)
    wrong = (Delta / G) * counts - Delta  # CJMP21's single-Delta re-centring
    assert wrong - values.sum() == pytest.approx((B - 1) * Delta, abs=1e-9)


def test_u5_deterministic_error_bound_without_privacy_bits():
    Delta = 1.0
    params = vec.VecParams(g=G, b=0.0, p=P, b_trials=0, b_debias=0.0)
    rng = np.random.default_rng(13)
    for _ in range(200):
        values = rng.uniform(-Delta, Delta, size=B)
        out = vec.analyze(vec.encode(values, G, Delta, rng.random(B)).sum(), B, params, Delta)
        assert abs(out - values.sum()) <= B * Delta / G


def test_u6_shuffling_labelled_bits_never_changes_the_counts():
    rng = np.random.default_rng(14)
    params = vec.VecParams(g=G, b=6.0, p=P, b_trials=6, b_debias=6.0)
    labels, bits = [], []
    for _user in range(B):
        for label, v in enumerate(rng.uniform(-1, 1, size=3)):
            msg = vec.scalar_randomizer(v, params, 1.0, rng)
            bits.append(msg)
            labels.append(np.full(msg.shape, label))
    labels, bits = np.concatenate(labels), np.concatenate(bits)
    before = np.bincount(labels, weights=bits)
    for _ in range(10):
        perm = rng.permutation(bits.shape[0])
        assert np.array_equal(np.bincount(labels[perm], weights=bits[perm]), before)
    assert len(vec.shuffle_bits([bits], rng)) == len(bits)


def test_u7_matrix_output_is_symmetric_with_d_d_plus_1_over_2_randomized_entries():
    d = 4
    rng = np.random.default_rng(15)
    params = vec.VecParams(g=G, b=10.0, p=P, b_trials=10, b_debias=10.0)
    x = rng.normal(size=d)
    x /= 2 * np.linalg.norm(x)
    iu = np.triu_indices(d)
    values = np.concatenate([x * 1.0, np.outer(x, x)[iu]])
    assert values.shape == (n_entries(d),) and n_entries(d) - d == d * (d + 1) // 2
    counts = vec.encode(values, G, 1.0, rng.random(values.shape)) + rng.binomial(
        10, P, size=values.shape
    )
    _, mat = unpack(vec.analyze(counts, 1, params, 1.0), d)
    assert np.array_equal(mat, mat.T)


def test_scalar_randomizer_message_length_and_ones():
    """Alg. 5 is called on w = v + Delta, which reaches 2 Delta, so a message has 2g + b bits."""
    rng = np.random.default_rng(16)
    params = vec.VecParams(g=8.0, b=5.0, p=P, b_trials=5, b_debias=5.0)
    msg = vec.scalar_randomizer(1.0, params, 1.0, rng)  # v = Delta: x_hat = 2g exactly
    assert msg.shape == (16 + 5,)
    assert 16 <= msg.sum() <= 21


def test_theory_b_at_d_5_eps_1():
    """Thm. C.1: b = 4.6330e7 at d = 5, epsilon = 1, g = 8.944 (formula at the real g)."""
    p = vec.vec_params_theory(1.0, 0.1, 20, 5, integer=False)
    assert p.b == pytest.approx(4.6330e7, rel=1e-4)
    pi = vec.vec_params_theory(1.0, 0.1, 20, 5)
    assert pi.g == 9.0 and float(pi.b).is_integer() and pi.b_trials == pi.b


@pytest.mark.parametrize(
    "d,eps,scale,b,bias",
    [
        (5, 0.2, 1, 1530.392, -0.3102),
        (10, 1, 1, 106.038, -0.0268),
        (15, 1, 1, 282.448, -0.2111),
        (5, 1, 10, 612.157, -0.1241),
        (5, 10, 10, 6.1216, -0.0961),
        (10, 1, 10, 1060.380, -0.2684),
    ],
)
def test_script_b_and_truncation_bias(d, eps, scale, b, bias):
    p = vec.vec_params_experiment(eps, 0.1, 20, d, vec_scale=scale, truncate_b=True)
    assert p.b == pytest.approx(b, rel=1e-5)
    assert p.bias_per_batch(20, math.sqrt(2)) == pytest.approx(bias, abs=5e-5)


@pytest.mark.parametrize("p,bt", [(0.25, 61), (0.1, 7), (0.5, 100)])
def test_noise_std_per_batch_is_delta_over_g_times_the_binomial_sd(p, bt):
    # (Delta/g) sqrt(B b_trials p (1-p)) with Delta = 2, g = 8 (Delta/g != Delta + g)
    params = vec.VecParams(g=8.0, b=float(bt), p=p, b_trials=bt, b_debias=float(bt))
    want = (2.0 / 8.0) * math.sqrt(20 * bt * p * (1.0 - p))
    assert params.noise_std_per_batch(20, 2.0) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("epsilon,delta,B,d", [(0.5, 1e-5, 20, 5), (2.0, 1e-3, 100, 30)])
def test_vec_params_theory_is_thm_c1_rounded_up(epsilon, delta, B, d):
    # b = ceil(24e4 g^2 ln^2(4(d^2+1)/delta) / (epsilon^2 B)), g = ceil(max(2 sqrt B, d, 4))
    g = float(math.ceil(max(2 * math.sqrt(B), d, 4)))
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B))
    got = vec.vec_params_theory(epsilon, delta, B, d)
    assert (got.g, got.b, got.p, got.b_trials) == (g, float(b), 0.25, b)


@pytest.mark.parametrize("epsilon,delta,B,d,T", [(0.5, 1e-5, 20, 5, 1000), (2.0, 1e-3, 10, 3, 50)])
def test_vec_params_ru_theory_is_thm_e5_rounded_up(epsilon, delta, B, d, T):
    # b = ceil(1e7 ln(2/delta) g^2 T ln^2(8T(d^2+1)/(B delta)) / (epsilon^2 B^2)), p = 1/4
    g = float(math.ceil(max(2 * math.sqrt(B), d, 4)))
    num = 1e7 * math.log(2 / delta) * g**2 * T * math.log(8 * T * (d**2 + 1) / (B * delta)) ** 2
    b = math.ceil(num / (epsilon**2 * B**2))
    got = vec.vec_params_ru_theory(epsilon, delta, B, d, T)
    assert (got.g, got.b, got.p, got.b_trials) == (g, float(b), 0.25, b)


def test_the_noise_scale_moves_p_alone():
    """p_scale (module docstring): p = p_scale / 4 with g and b held; outside (0, 1] refused."""
    plain = vec.vec_params_experiment(10.0, 0.1, 20, 5)
    half = vec.vec_params_experiment(10.0, 0.1, 20, 5, p_scale=0.5)
    assert plain.p == 0.25 and half.p == 0.125
    assert (half.g, half.b, half.b_trials) == (plain.g, plain.b, plain.b_trials)
    assert vec.vec_params_theory(1.0, 0.1, 20, 5, p_scale=0.5).p == 0.125
    with pytest.raises(ValueError, match="p_scale must be in"):
        vec.vec_params_experiment(10.0, 0.1, 20, 5, p_scale=0.0)


def test_cor_c3_is_thm_c1_at_one_user():
    """Cor. C.3's g = max{d, 4}, b = 24e4 g^2 ln^2(4(d^2+1)/delta0)/eps0^2 by hand at d = 5,
    delta0 = 0.1, eps0 = 10: ln 1040 = 6.946976, b = 6e6 * 48.26049/100 = 2895629.4 -> 2895630."""
    p = vec.vec_params_local(10.0, 0.1, 5)
    assert (p.g, p.p) == (5.0, 0.25)
    assert p.b == pytest.approx(2895630, abs=1.5)
    assert float(p.b).is_integer()
    assert p == vec.vec_params_theory(10.0, 0.1, 1, 5)
