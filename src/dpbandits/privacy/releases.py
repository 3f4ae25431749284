"""What each algorithm releases about one user, as accountable noise components.

A :class:`Release` lists the Gaussian / Laplace releases that one user's data enters (with their
noise scale and their sensitivity under a data universe), so that
:func:`dpbandits.privacy.accounting.composed_epsilon` turns it into the epsilon the calibration
delivers. Sensitivities are computed from a :class:`Universe`, the bounds of the data: the bounds
of the instances an experiment actually simulates (``instance_universe``), or the normalisation
the paper assumes (``paper``).

Linear contextual bandits of cz22 (and its baselines in olucb): a user's data is the
pair ``(x, r)``, ``||x|| <= L``, ``r in [0, 1]``; the released statistics are ``x r`` and the upper
triangle of ``x x^T`` (cz22, Algorithm 1; sensitivities as in docs/audit/privacy.md, "Upper
bounds").

The descriptions of each paper's algorithms are here; the release itself and its accountant
(:mod:`.release`), the lower bounds (:mod:`.lower_bounds`), the binomial shifts
(:mod:`.binomial_shift`), the bit-sum protocol (:mod:`.vec_release`) and the shuffled sums
(:mod:`.shuffle_release`) have modules of their own, whose public names this module offers too.
"""

from __future__ import annotations

import math

from ..mechanisms.tree import released_nodes
from .accounting import Component
from .binomial_shift import (
    BINOMIAL_SDS,
    BINOMIAL_TAIL,
    CDF_SD,
    CDF_SLACK,
    MAX_BUCKETS,
    binomial_arrays,
    pairs_epsilon,
    shift_counts,
    shift_epsilon,
)
from .lower_bounds import (
    LR_SUM_LEVELS,
    LR_SUM_MAX_N,
    LR_SUM_MAX_R,
    LR_SUM_RANGE,
    MAX_STAT_BINS,
    lower_epsilon,
    shuffled_gaussian_lower,
)
from .part_cache import PART_CACHE, flush_part_cache
from .release import (
    INSTANCE_BOUNDS,
    LOWER_INTERVAL,
    PAPER_CZ22,
    PAPER_OLUCB,
    Release,
    Universe,
    delivered_epsilon,
    instance_universe,
    joint_sensitivity,
    ss18_sensitivity,
)
from .shuffle_release import (
    PE_USERS,
    count_pmf_arrays,
    count_pmf_pair,
    dpdpe_release,
    shuffle_sum_certificate,
    shuffle_sum_epsilon,
)
from .vec_release import vec_certified_epsilon, vec_count_pair, vec_lower_epsilon, vec_release


def _per_user_std(policy) -> float:
    return policy.noise_std / math.sqrt(policy.period)


def _gram_sensitivity(policy, L: float) -> tuple[float, str]:
    if policy.convention == "half_sum":
        return joint_sensitivity(L), "Delta_J(L) exact for (W + W^T)/2 (docs/auditing.md)"
    if policy.convention == "ss18":
        return ss18_sensitivity(L), "L^2 + 1 under SS18's (W + W^T)/sqrt 2 node noise"
    if 2 * L * L >= 1:
        return joint_sensitivity(L), "Delta_J(L), attained for the mirrored upper triangle"
    return joint_sensitivity(L), "Delta_J(L), an upper bound for the mirrored upper triangle"


def _attained(convention: str, L: float) -> bool:
    """Whether a pair of the universe attains the sensitivity :func:`_gram_sensitivity` uses:
    ``Delta_J(L)`` where ``2 L^2 >= 1`` (:func:`joint_sensitivity`), SS18's ``L^2 + 1`` where
    ``L >= 1``."""
    return L >= 1 if convention == "ss18" else 2 * L * L >= 1


def _apex_sides(L: float, std: float, convention: str) -> tuple[float, float]:
    """Whitened distances, vector and matrix part, from a third input ``z = L e_3`` (reward 1) to
    either input of the pair attaining ``Delta_J`` (``x0 = (a, b)``, ``x1 = (b, a)``,
    ``a^2 + b^2 = L^2``, ``ab = -1/4``, rewards 1; ``z`` is orthogonal to both, so ``d >= 3``):
    ``||z - x0||^2 = 2 L^2``; ``z z^T - x0 x0^T`` has Frobenius norm squared ``2 L^4``, of which
    the off-diagonal pair ``(ab)^2`` twice: ``2 L^4`` under the ``(W + W^T)/2`` symmetrisation
    (off-diagonal noise at half the variance), ``2 L^4 - 1/16`` under the mirrored upper
    triangle (each off-diagonal entry once)."""
    matrix = 2 * L**4 if convention == "half_sum" else 2 * L**4 - 1 / 16
    return math.sqrt(2 * L * L) / std, math.sqrt(matrix) / std


def cz22_release(policy, universe: Universe) -> Release:
    """Release of a LinUCB-type policy of cz22 (``ldp``, ``sdp_amp``, ``jdp_*``, ``sdp_vec``,
    batched and returning-user variants) under ``universe``."""
    alg, L, s = policy.algorithm, universe.L, policy.setting
    if not (universe.r_lo >= 0.0 and universe.r_hi <= 1.0):
        raise ValueError(f"{alg}: cz22's sensitivities assume rewards in [0, 1]")
    if alg == "jdp_standin":
        return Release(
            "the script's stand-in for the tree: a running sum of pre-drawn node noises; two "
            "consecutive releases with the same k(t) differ by exactly x_t x_t^T",
            private=False,
            method="none (the script's stand-in for the tree; docs/design.md, quirk 6)",
        )
    sens, how = _gram_sensitivity(policy, L)
    # the sensitivity is attained by a pair of the universe (docs/audit/privacy.md)
    exact = _attained(policy.convention, L)
    if alg in ("ldp", "batched_ldp", "sdp_amp", "sdp_amp_ru"):
        std = _per_user_std(policy)
        batches = s.T // s.B if alg == "sdp_amp_ru" else 1
        shuffled = alg.startswith("sdp_amp")
        extra = {}
        if shuffled and batches == 1 and policy.convention != "ss18" and 2 * L * L >= 1:
            # the pair attaining Delta_J (cos = -1/(2 L^2), rewards 1): its vector and matrix
            # parts, ||x0 - x1||^2 = 2 L^2 + 1 and ||x0 x0^T - x1 x1^T||_F^2 = 2 L^4 - 1/2
            extra["shuffle_parts"] = (
                math.sqrt(2 * L * L + 1) / std,
                math.sqrt(2 * L**4 - 0.5) / std,
            )
            if s.d >= 3:
                extra["shuffle_apex"] = _apex_sides(L, std, policy.convention)
        elif shuffled:
            extra["no_lower"] = (
                "the shuffle's lower bounds use the vector and matrix parts of the pair attaining "
                "Delta_J, known for one batch per user with 2 L^2 >= 1"
            )
        return Release(
            "per-user Gaussian randomizer on (x r, x x^T)"
            + (", shuffled in batches of B (P_Amp)" if shuffled else ""),
            (Component("gaussian", std, sens, count=batches),),
            tight=exact and not shuffled,
            shuffle_n=s.B if shuffled and batches == 1 else 0,
            method=f"analytic Gaussian (dp-accounting); sensitivity {how}",
            notes=(
                f"a returning user is in all M = {batches} batches: M-fold composition"
                if batches > 1
                else ""
            ),
            extra=extra,
        )
    if alg in ("jdp_tree", "batched_jdp", "jdp_user"):
        leaves = s.T // policy.period
        m = released_nodes(leaves)
        group = int(policy.opts.get("M0", 1)) if alg == "jdp_user" else 1
        return Release(
            f"binary-tree aggregation: a user's data is in one released node per level, "
            f"m = {m} nodes (prefixes up to {leaves - 1} of {leaves} leaves)",
            (Component("gaussian", policy.noise_std, group * sens, count=m),),
            tight=exact and group == 1,
            method=f"analytic Gaussian (dp-accounting) over the m nodes; sensitivity {how}",
            notes=f"user level: up to M0 = {group} rounds per user" if group > 1 else "",
        )
    if alg in ("sdp_vec", "sdp_vec_ru"):
        batches = s.T // s.B if alg == "sdp_vec_ru" else 1
        return vec_release(policy.vec, s.B, s.d, L, policy.encoding_range(L), batches, s.delta)
    raise ValueError(f"no release description for algorithm {alg!r}")


#: Algorithms of cz22 whose local view (one user's messages before the shuffler)
#: :func:`cz22_local_release` describes.
CZ22_LOCAL_VIEWS = ("sdp_amp", "sdp_vec")


def cz22_local_release(policy, universe: Universe) -> Release:
    """What one user's messages reveal before the shuffler, for a shuffle protocol of cz22
    in one batch (``sdp_amp``: the Gaussian randomizer alone; ``sdp_vec``: P_Vec with ``B = 1``,
    the user's own binomial bits, as the proof of CZ22 Cor. C.2 reads it)."""
    alg, L, s = policy.algorithm, universe.L, policy.setting
    if alg not in CZ22_LOCAL_VIEWS:
        raise ValueError(f"no local view of {alg!r}; allowed: {', '.join(CZ22_LOCAL_VIEWS)}")
    if alg == "sdp_vec":
        release = vec_release(policy.vec, 1, s.d, L, policy.encoding_range(L), 1, s.delta)
        return Release(
            "one user's P_Vec messages before the shuffler (B = 1)",
            release.components,
            method=release.method,
            notes=release.notes,
            extra=release.extra,
        )
    sens, how = _gram_sensitivity(policy, L)
    exact = _attained(policy.convention, L)
    return Release(
        "one user's Gaussian randomizer on (x r, x x^T), before the shuffler",
        (Component("gaussian", _per_user_std(policy), sens),),
        tight=exact,
        method=f"analytic Gaussian (dp-accounting); sensitivity {how}",
    )


def olucb_release(policy, universe: Universe) -> Release:
    """Release of OnlineUCB and its combiner / doubling wrappers (olucb, Algorithm 1 and
    Theorem 3.2): every user releases ``x~ = x + zeta + eta_x`` and ``y~ = y + eta_y`` once,
    ``eta ~ N(0, sigma^2)``, ``zeta ~ N(0, Delta^2 I)`` (the perturbation; 0 for the combiner's
    worst base). The pair is one Gaussian mechanism with joint sensitivity
    ``sqrt(Delta_x^2 + Delta_y^2)``."""
    sigma = policy.sigma
    perturb = float(getattr(policy, "Delta2", 0.0))  # a variance; wrappers: worst base has 0
    sx = math.sqrt(sigma**2 + perturb)
    dx, dy = 2.0 * universe.L, universe.reward_range
    return Release(
        "per-user Gaussian on (x, y) (x~ and y~ of Algorithm 1)",
        (Component("gaussian", sx, dx), Component("gaussian", sigma, dy)),
        tight=True,  # x at +-L e_1, y at the ends of its range
        method="analytic Gaussian (dp-accounting), joint sensitivity of the pair (x~, y~)",
        notes=(f"x carries the perturbation Delta^2 = {perturb:.4g} too" if perturb else "")
        + " the paper composes the two releases as (2 eps, 2 delta) (Theorem 3.2)",
    )


#: delta at which the rho-zCDP algorithms' nominal rho is read as an epsilon (the conversion the
#: op24 figures use) and JDP-LinUCB's delta (:data:`dpbandits.papers.op24.cells.OP_E3_DELTA`).
OP24_DELTA = 0.01


def op24_release(
    algorithm: str, privacy: float, T: int, delta: float | None = None, rewards: str = "pm1"
) -> Release:
    """Release of one op24 algorithm at one privacy level (op24, Table 1 and Sec. 3; the
    algorithms as reconstructed in docs/papers/op24.md#algorithms).

    AdaC-UCB (a Gaussian per arm-episode mean, sd ``1/(L sqrt(2 rho))``, sensitivity ``1/L``),
    AdaC-GOPE (``V^{-1/2} xi``, ``sigma^2 = 2 g^V / rho``, sensitivity ``2 sqrt(g^V)``) and
    AdaC-OFUL (``sigma^2 = 2/rho``, sensitivity 2) are each one Gaussian with
    ``Delta/sigma = sqrt(2 rho)`` per reward (adaptive parallel composition over episodes or
    phases; one reward changed between neighbours [R9], docs/papers/op24.md): exact analytic
    Gaussian. JDP-LinUCB: the tree over the ``m`` levels, node std ``sigma_n`` of
    :func:`~dpbandits.mechanisms.tree.sigma_zcdp_node` (which assumes
    ``Delta = sqrt 2 L~^2 = 2 sqrt 2``); the released ``(sum a r, upper(sum a a^T))`` with
    ``||a|| <= 1``, ``|r| <= 1`` has sensitivity at most ``Delta_J(1) = 3/sqrt 2``.

    ``delta``: the delta at which JDP-LinUCB's epsilon was converted to zCDP (default
    :data:`OP24_DELTA`, the op24 audit's). ``rewards = "bernoulli"`` (AdaC-GOPE on rewards in
    {0, 1}, the arena's fixed arms): one changed reward moves the phase statistic half as far as
    on [-1, 1], so the sensitivity is half the calibrated one.
    """
    from ..mechanisms.tree import sigma_zcdp_node
    from ..mechanisms.zcdp import dp_to_zcdp

    delta = OP24_DELTA if delta is None else delta
    if algorithm in ("adac_ucb", "adac_gope", "adac_oful"):
        half = algorithm == "adac_gope" and rewards == "bernoulli"
        return Release(
            "Gaussian mechanism per released episode/phase statistic, each reward released once",
            (Component("gaussian", 1.0 / math.sqrt(2.0 * privacy), 0.5 if half else 1.0),),
            method="analytic Gaussian (dp-accounting) at Delta/sigma = "
            + ("sqrt(2 rho)/2 (rewards in {0, 1})" if half else "sqrt(2 rho)"),
            notes=f"nominal rho = {privacy:g} (zCDP), read as epsilon at delta = {delta:g}",
        )
    if algorithm == "jdp_linucb":
        from ..mechanisms.tree import n_levels

        sigma_n = sigma_zcdp_node(dp_to_zcdp(privacy, delta), n_levels(T))  # calibration: SS18's m
        m = released_nodes(T)
        return Release(
            f"binary-tree aggregation over rounds, m = {m} released nodes per round",
            (Component("gaussian", sigma_n, joint_sensitivity(1.0), count=m),),
            method=(
                "analytic Gaussian (dp-accounting) over the m released nodes; sensitivity "
                "Delta_J(1) = 3/sqrt 2 of (a r, upper(a a^T)), the calibration assumes 2 sqrt 2"
            ),
            notes=(
                f"released prefixes reach T - 1: {m} of the {n_levels(T)} levels the "
                "calibration counts are released"
            ),
        )
    raise ValueError(f"no release description for op24 algorithm {algorithm!r}")


def plasso_release(algorithm: str, const) -> Release:
    """Release of a PrivateLASSO variant (plasso, Algorithms 1-2 and Sec. 3's TBAP; the
    baselines and ablations of docs/papers/plasso.md#algorithms).

    ``SparseEstimation`` screens ``S0 = {i : |theta_hat_i| > 4 lambda_t}`` *without noise* and the
    sparse vector step only ever selects inside ``S0``; the released support ``S1`` (a coordinate
    outside it is exactly 0) therefore changes with probability ``P(pass)`` when a neighbouring
    dataset moves ``|theta_hat_i|`` across ``4 lambda_t``, and ``P(pass) > 1/2`` because the literal
    threshold ``4 lambda_t Gamma sqrt(s_bar)`` is negative [R10]. No finite epsilon at
    ``delta < 1/2``: the variants with the sparse vector step (``private_lasso``,
    ``svt_noise_off``, ``tbap_noise_off``) are not private as implemented (the paper's Lemma 2
    argument needs the ``S1`` threshold far above the ``S0`` one). ``oracle_tbap``
    (TBAP read on the true support): every episode's tree over the paper's ``(d+1) x (d+1)``
    matrix (Section 3), its node noise calibrated to a record over all ``d`` coordinates, is
    ``rho_ep``-zCDP w.r.t. any record; ``n_L`` episodes compose to ``n_L rho_ep``-zCDP (converted
    by dp-accounting's RDP accountant). The ``support_block_tree`` ablation has PrivateLASSO's
    screening and is not private either.
    """
    if algorithm == "oracle_tbap":
        rho = const.n_L * const.rho_ep
        return Release(
            f"TBAP over the (d+1) x (d+1) moment matrix (d = {const.d}), read on the true "
            f"support: {const.n_L} episodes, each rho_ep = {const.rho_ep:.4g}-zCDP",
            (),
            method="zCDP composition over the episodes, converted by dp-accounting (RDP)",
            extra={"rho": rho},
        )
    if algorithm in ("private_lasso", "svt_noise_off", "tbap_noise_off", "support_block_tree"):
        tree = (
            "TBAP over the support block of S1 (support-block tree, ablation)"
            if algorithm == "support_block_tree"
            else "TBAP over the (d+1) x (d+1) moment matrix, read on S1"
        )
        return Release(
            f"LASSO screening S0 without noise, sparse vector step inside S0, {tree}",
            private=False,
            method="none: the noiseless screening S0 leaks (delta >= 1/2, see notes)",
            notes=(
                f"threshold 4 lambda Gamma sqrt(s_bar) < 0 (Gamma = {const.Gamma:.3g}), so a "
                "coordinate of S0 passes with probability > 1/2 and one outside S0 never does"
                if math.isfinite(const.Gamma)
                else "non-private limit"
            ),
        )
    raise ValueError(f"no release description for plasso algorithm {algorithm!r}")


__all__ = [
    "CZ22_LOCAL_VIEWS",
    "OP24_DELTA",
    "cz22_local_release",
    "cz22_release",
    "olucb_release",
    "op24_release",
    "plasso_release",
    "INSTANCE_BOUNDS",
    "Universe",
    "PAPER_CZ22",
    "PAPER_OLUCB",
    "instance_universe",
    "joint_sensitivity",
    "ss18_sensitivity",
    "Release",
    "delivered_epsilon",
    "LOWER_INTERVAL",
    "lower_epsilon",
    "MAX_STAT_BINS",
    "LR_SUM_LEVELS",
    "LR_SUM_RANGE",
    "LR_SUM_MAX_N",
    "LR_SUM_MAX_R",
    "shuffled_gaussian_lower",
    "shift_counts",
    "BINOMIAL_SDS",
    "BINOMIAL_TAIL",
    "binomial_arrays",
    "pairs_epsilon",
    "MAX_BUCKETS",
    "CDF_SD",
    "CDF_SLACK",
    "shift_epsilon",
    "vec_count_pair",
    "vec_lower_epsilon",
    "vec_release",
    "vec_certified_epsilon",
    "count_pmf_pair",
    "count_pmf_arrays",
    "shuffle_sum_epsilon",
    "shuffle_sum_certificate",
    "PE_USERS",
    "PART_CACHE",
    "flush_part_cache",
    "dpdpe_release",
]
