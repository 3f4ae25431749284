"""Tests that kill mutants left alive in mechanisms/vec.py (docs/mutation.md).

The P_Vec calibrations (CZ22 Thm. C.1 and E.5) set the number of binomial trials and so the
noise of every SDP-Vec run; each is pinned to its docstring formula at points where a wrong
exponent or operator changes the result (epsilon != 1, logs != 1).
"""

import math

import pytest

from dpbandits.mechanisms import vec


@pytest.mark.parametrize("p,bt", [(0.25, 61), (0.1, 7), (0.5, 100)])
def test_noise_std_per_batch_formula(p, bt):
    # (Delta/g) sqrt(B b_trials p (1-p)) with Delta = 2, g = 8 (Delta/g != Delta + g)
    params = vec.VecParams(g=8.0, b=float(bt), p=p, b_trials=bt, b_debias=float(bt))
    want = (2.0 / 8.0) * math.sqrt(20 * bt * p * (1.0 - p))
    assert params.noise_std_per_batch(20, 2.0) == pytest.approx(want, rel=1e-14)


@pytest.mark.parametrize("epsilon,delta,B,d", [(0.5, 1e-5, 20, 5), (2.0, 1e-3, 100, 30)])
def test_vec_params_theory_formula(epsilon, delta, B, d):
    # b = ceil(24e4 g^2 ln^2(4(d^2+1)/delta) / (epsilon^2 B)), g = ceil(max(2 sqrt B, d, 4))
    g = float(math.ceil(max(2 * math.sqrt(B), d, 4)))
    b = math.ceil(24e4 * g**2 * math.log(4 * (d**2 + 1) / delta) ** 2 / (epsilon**2 * B))
    got = vec.vec_params_theory(epsilon, delta, B, d)
    assert (got.g, got.b, got.p, got.b_trials) == (g, float(b), 0.25, b)


@pytest.mark.parametrize("epsilon,delta,B,d,T", [(0.5, 1e-5, 20, 5, 1000), (2.0, 1e-3, 10, 3, 50)])
def test_vec_params_ru_theory_formula(epsilon, delta, B, d, T):
    # b = ceil(1e7 ln(2/delta) g^2 T ln^2(8T(d^2+1)/(B delta)) / (epsilon^2 B^2)), p = 1/4
    g = float(math.ceil(max(2 * math.sqrt(B), d, 4)))
    num = 1e7 * math.log(2 / delta) * g**2 * T * math.log(8 * T * (d**2 + 1) / (B * delta)) ** 2
    b = math.ceil(num / (epsilon**2 * B**2))
    got = vec.vec_params_ru_theory(epsilon, delta, B, d, T)
    assert (got.g, got.b, got.p, got.b_trials) == (g, float(b), 0.25, b)
