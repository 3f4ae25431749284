"""Amplification by shuffling as CZ22 uses it (Lemma B.4 = FMT20) and Thm. 3.2's mapping.

These are the bounds the paper cites, implemented as stated, so that audits can check the
conditions the theorems rely on (CZ22 Thm. 3.2 = Thm. B.1, Lemma B.4).
"""

from __future__ import annotations

import math


def fmt20_condition_rhs(n: int, delta_prime: float) -> float:
    """Right-hand side of Lemma B.4's condition ``epsilon_0 <= ln(n / (16 ln(2/delta')))``."""
    return math.log(n / (16.0 * math.log(2.0 / delta_prime)))


def fmt20_condition_holds(epsilon0: float, n: int, delta_prime: float) -> bool:
    """Whether Lemma B.4 applies to an ``epsilon_0``-LDP randomizer shuffled over ``n`` users."""
    return epsilon0 <= fmt20_condition_rhs(n, delta_prime)


def fmt20_epsilon(epsilon0: float, n: int, delta_prime: float) -> float:
    """Lemma B.4's ``epsilon~`` (the value of the formula, whether or not the condition holds).

    ``ln(1 + (e^e0 - 1)/(e^e0 + 1) (8 sqrt(e^e0 ln(4/delta'))/sqrt(n) + 8 e^e0 / n))``.
    """
    e0 = math.exp(epsilon0)
    return math.log(
        1.0
        + (e0 - 1.0)
        / (e0 + 1.0)
        * (8.0 * math.sqrt(e0 * math.log(4.0 / delta_prime)) / math.sqrt(n) + 8.0 * e0 / n)
    )


def fmt20_delta(
    epsilon_tilde: float, epsilon0: float, n: int, delta_prime: float, delta0: float
) -> float:
    """Lemma B.4: ``delta~ = delta' + (e^{eps~}+1)(1 + e^{-eps0}/2) n delta0`` (text: ``e^eps``)."""
    return (
        delta_prime
        + (math.exp(epsilon_tilde) + 1.0) * (1.0 + math.exp(-epsilon0) / 2.0) * n * delta0
    )


def thm32_epsilon_range(delta: float, B: int) -> float:
    """Upper end of Thm. 3.2's range ``epsilon < sqrt(ln(2/delta)/B)`` (from Thm. B.1's proof)."""
    return math.sqrt(math.log(2.0 / delta) / B)


def thm32_local_budget(epsilon: float, delta: float, B: int) -> tuple[float, float]:
    """Local budget of Thm. 3.2's construction: ``(epsilon sqrt(B)/sqrt(ln(2/delta)), delta/B)``."""
    return epsilon * math.sqrt(B) / math.sqrt(math.log(2.0 / delta)), delta / B


def thm32_max_certifiable_epsilon(delta: float) -> float:
    """Largest ``epsilon`` for which Lemma B.4's condition holds for *some* batch size.

    ``sqrt(ln(2/delta)) / (2 e sqrt(ln(4/delta)))`` with ``delta' = delta/2`` (best ``B``).
    """
    return math.sqrt(math.log(2.0 / delta)) / (2.0 * math.e * math.sqrt(math.log(4.0 / delta)))
