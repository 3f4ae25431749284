"""What each algorithm releases about one user, as accountable noise components.

A :class:`Release` lists the Gaussian / Laplace releases that one user's data enters (with their
noise scale and their sensitivity under a data universe), so that
:func:`dpbandits.privacy.accounting.composed_epsilon` turns it into the epsilon the calibration
delivers. Sensitivities are computed from a :class:`Universe`, the bounds of the data: the bounds
of the instances an experiment actually simulates (``instance_universe``), or the normalisation
the paper assumes (``paper``).

Linear contextual bandits of paper 003 (and its baselines in paper 000): a user's data is the
pair ``(x, r)``, ``||x|| <= L``, ``r in [0, 1]``; the released statistics are ``x r`` and the upper
triangle of ``x x^T`` (paper 003, Algorithm 1; sensitivities as in docs/auditing.md, "Privacy
audit").
"""

from __future__ import annotations

import functools
import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..design import support_cap
from ..mechanisms import amplification as amp
from ..mechanisms.shuffle_sum import scalar_params, vector_params
from ..mechanisms.tree import released_nodes
from ..policies.dpdpe import pe_sigma_noise, sigma_nl
from .accounting import PLD_INTERVAL, Component, composed_epsilon, pmf_pair_pld, zcdp_epsilon

#: Largest arm norm ``L`` and reward range of every instance family (envs/linear.py,
#: envs/contextual.py): the script's arms have norm sqrt(2) (a unit vector with a 1 appended;
#: docs/papers/cz22.md); the paper-text, ill-conditioned and fixed-sphere arms lie in the unit
#: ball; Bernoulli rewards in {0, 1}, setting F's Rademacher rewards in {-1, 1}
#: (docs/papers/olucb.md, "Setting F").
INSTANCE_BOUNDS: dict[str, tuple[float, float, float]] = {
    "script": (math.sqrt(2.0), 0.0, 1.0),
    "paper_text": (1.0, 0.0, 1.0),
    "illcond": (1.0, 0.0, 1.0),
    "fixed_sphere": (1.0, 0.0, 1.0),
    "two_action": (1.0, 0.0, 1.0),
    "fresh_sphere": (1.0, -1.0, 1.0),
}


@dataclass(frozen=True)
class Universe:
    """Bounds of one user's data: ``||x|| <= L``, reward in ``[r_lo, r_hi]``."""

    name: str
    L: float
    r_lo: float = 0.0
    r_hi: float = 1.0

    @property
    def reward_range(self) -> float:
        """``r_hi - r_lo``: the sensitivity of a released reward."""
        return self.r_hi - self.r_lo


#: The normalisation of the papers (CZ22 Assumption 3.1, paper 000 §1: ``||x|| <= 1``,
#: ``|y| <= 1``); paper 003's rewards are in [0, 1].
PAPER_CZ22 = Universe("paper (||x|| <= 1, r in [0, 1])", 1.0, 0.0, 1.0)
PAPER_OLUCB = Universe("paper (||x|| <= 1, |y| <= 1)", 1.0, -1.0, 1.0)


def instance_universe(family: str) -> Universe:
    """The bounds of the instances a cell simulates (see :data:`INSTANCE_BOUNDS`)."""
    try:
        L, lo, hi = INSTANCE_BOUNDS[family]
    except KeyError:
        raise ValueError(
            f"no data bounds for instance family {family!r}; known: {', '.join(INSTANCE_BOUNDS)}"
        ) from None
    return Universe(f"instances '{family}' (||x|| <= {L:.4g}, r in [{lo:g}, {hi:g}])", L, lo, hi)


def joint_sensitivity(L: float) -> float:
    """``Delta_J(L) = sqrt(2 L^4 + 2 L^2 + 1/2)``: L2 sensitivity of ``(x r, x x^T)`` with the
    matrix in Frobenius norm, ``||x|| <= L``, ``r in [0, 1]`` (docs/auditing.md; 2.1213 at L = 1,
    3.5355 at L = sqrt 2). Exact for the ``(W + W^T)/2`` symmetrisation (off-diagonal entries
    carry half the variance, so rescaling them by sqrt 2 gives i.i.d. noise and the Frobenius
    norm) and, where ``2 L^2 >= 1``, for the mirrored upper triangle too: its distance counts an
    off-diagonal difference once, so it is at most ``Delta_J``, and the pair ``x0 = (a, b)``,
    ``x1 = (b, a)`` with ``a^2 + b^2 = L^2``, ``ab = -1/4``, rewards 1, attains it (its matrix
    difference ``diag(a^2 - b^2, b^2 - a^2)`` is diagonal; vector part ``2 L^2 + 1``, matrix part
    ``2 L^4 - 1/2``, squared)."""
    return math.sqrt(2.0 * L**4 + 2.0 * L**2 + 0.5)


def ss18_sensitivity(L: float) -> float:
    """Sensitivity of ``(x r, x x^T)`` under SS18's node noise (Gram diagonal variance
    ``2 sigma^2``, off-diagonal and vector ``sigma^2``): ``sup sqrt(||x r - x' r'||^2 +
    ||x x^T - x' x'^T||_F^2 / 2) = L^2 + 1`` (= SS18's ``L~^2``; attained at ``r = r' = 1``,
    ``cos(x, x') = -1/L^2``; valid for ``L >= 1``)."""
    if L < 1:
        return max(joint_sensitivity(L), 2.0 * L)  # crude but valid upper bound below L = 1
    return L * L + 1.0


@dataclass(frozen=True)
class Release:
    """One user's exposure under one algorithm and calibration.

    Attributes
    ----------
    mechanism : str
        Plain description.
    components : tuple of Component
        The Gaussian/Laplace releases the user's data enters (empty if ``private`` is False).
    private : bool
        False for a mechanism that is not differentially private at all (delivered ``inf``).
    certified : bool
        False when the accounting is not a certificate (an upper bound the proofs do not
        establish); the row's verdict then never reads ``DELIVERED``.
    tight : bool
        The certified bound is attained by a pair of neighbouring inputs the data universe
        contains (exact sensitivity, every composed release reached): the lower bound equals
        the upper one (:func:`lower_epsilon`). Not for shuffled releases.
    shuffle_n : int
        Users shuffled together (0: no shuffler); the amplification bound FMT20 (CZ22 Lemma B.4)
        is applied where its condition holds.
    method : str
        How the epsilon is obtained.
    notes : str
    extra : dict
        ``epsilon_at`` / ``lower_at``: callables ``delta -> epsilon`` of releases that compute
        their own upper / lower bound; ``lower_method``: how ``lower_at`` is obtained;
        ``rho``: a zCDP release; ``shuffle_parts``: the whitened distances of the messages a
        shuffled release shuffles separately (for :func:`shuffled_gaussian_lower`);
        ``epsilon_parts``: where ``epsilon_at`` is the largest of several certificates, each of
        them by label (callables ``delta -> epsilon``).
    """

    mechanism: str
    components: tuple[Component, ...] = ()
    private: bool = True
    certified: bool = True
    tight: bool = False
    shuffle_n: int = 0
    method: str = ""
    notes: str = ""
    extra: dict = field(default_factory=dict)


def delivered_epsilon(release: Release, delta: float) -> tuple[float, str]:
    """The epsilon at ``delta`` that the release's noise delivers, and a note on how.

    Shuffled local randomizers (``shuffle_n > 0``): the local guarantee (post-processing) and, if
    FMT20's condition ``eps0 <= ln(n / (16 ln(2/delta')))`` holds at ``delta' = delta/2`` and a
    local ``delta0 = delta / (8 n)``, the amplified ``eps~`` when its ``delta~ <= delta``.
    """
    if not release.private:
        return math.inf, "not a private mechanism"
    if "epsilon_at" in release.extra:  # computed by the release itself (explicit distributions)
        return release.extra["epsilon_at"](delta), ""
    if "rho" in release.extra:
        return zcdp_epsilon(release.extra["rho"], delta), ""
    local = composed_epsilon(release.components, delta)
    if not release.shuffle_n:
        return local, ""
    n = release.shuffle_n
    d_prime, delta0 = delta / 2.0, delta / (8.0 * n)
    eps0 = composed_epsilon(release.components, delta0)
    if not amp.fmt20_condition_holds(eps0, n, d_prime):
        need = amp.fmt20_condition_rhs(n, d_prime)
        return local, (
            f"shuffling certifies only the local guarantee: FMT20 (CZ22 Lemma B.4) needs "
            f"eps0 <= ln(n/(16 ln(2/delta'))) = {need:.3g} with n = {n}, eps0 = {eps0:.3g}"
        )
    eps_t = amp.fmt20_epsilon(eps0, n, d_prime)
    if amp.fmt20_delta(eps_t, eps0, n, d_prime, delta0) > delta or eps_t >= local:
        return local, "FMT20 applies but does not improve on the local guarantee"
    return eps_t, f"amplified by shuffling n = {n} (FMT20, CZ22 Lemma B.4; eps0 = {eps0:.3g})"


def lower_epsilon(release: Release, delta: float, upper: float | None = None) -> tuple[float, str]:
    """A lower bound on the true epsilon at ``delta`` of the mechanism the release describes,
    and how it is obtained; ``nan`` with the reason (``extra["no_lower"]`` or the default) where
    none is known.

    * not private: ``inf`` (the release's notes say which pair has no finite epsilon);
    * ``extra["lower_at"]``: the release's own lower bound (e.g. exact count distributions of a
      pair of neighbouring inputs, :func:`vec_release`);
    * ``tight`` (a realizable pair attains the certified bound): the upper bound itself;
    * shuffled Gaussian messages (``shuffle_n``): :func:`shuffled_gaussian_lower`, a
      post-processing of the shuffled multisets.

    ``upper``: :func:`delivered_epsilon` at ``delta`` if the caller has it (not recomputed).
    """
    if not release.private:
        return math.inf, "no finite epsilon (a pair of inputs is told apart, see notes)"
    if "lower_at" in release.extra:
        return float(release.extra["lower_at"](delta)), release.extra.get("lower_method", "")
    if release.shuffle_n and "shuffle_parts" in release.extra:
        return shuffled_gaussian_lower(release.extra["shuffle_parts"], release.shuffle_n, delta)
    if release.tight and not release.shuffle_n:
        eps = delivered_epsilon(release, delta)[0] if upper is None else upper
        return eps, "exact: a neighbouring pair attains it"
    return math.nan, "none known: " + (
        release.extra.get("no_lower")
        or "no pair of inputs is known to attain the sensitivity the certificate uses"
    )


#: Bins of the maximum statistic in :func:`shuffled_gaussian_lower` (a finer grid can only
#: raise the bound: binning is a post-processing).
MAX_STAT_BINS = 2000


def _max_stat_pair(r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Binned distributions of ``max_i <w, m_i>`` over ``n`` shuffled unit-variance Gaussian
    messages, all at 0 (``D0``: every user holds the first input) or one at ``r`` (``D1``).

    The grid stays where both distributions have representable mass (``|tau| <= 37`` about each
    mean), tail masses come from survival functions, and a bin empty under either distribution
    is merged into the next: a coarser binning, still a post-processing."""
    from scipy.special import log_ndtr

    lo, hi = max(-9.0, r - 37.0), min(r + 9.0, 37.0)
    tau = np.linspace(lo, max(hi, lo + 1.0), MAX_STAT_BINS + 1)
    out = []
    for logF in (n * log_ndtr(tau), log_ndtr(tau - r) + (n - 1) * log_ndtr(tau)):
        F, S = np.exp(logF), -np.expm1(logF)
        mid = np.where(F[1:] < 0.5, F[1:] - F[:-1], S[:-1] - S[1:])
        out.append(np.maximum(np.concatenate([[F[0]], mid, [S[-1]]]), 0.0))
    p, q = out
    keep_p, keep_q, acc_p, acc_q = [], [], 0.0, 0.0
    for a, b in zip(p, q, strict=True):
        acc_p, acc_q = acc_p + a, acc_q + b
        if acc_p > 0 and acc_q > 0:
            keep_p.append(acc_p)
            keep_q.append(acc_q)
            acc_p = acc_q = 0.0
    if keep_p:
        keep_p[-1] += acc_p
        keep_q[-1] += acc_q
    return np.array(keep_p), np.array(keep_q)


#: Levels of the quantised likelihood ratio in :func:`_lr_sum_pair` (a finer grid can only raise
#: the bound: quantising each message is a post-processing).
LR_SUM_LEVELS = 1000
#: Half-width, in standard deviations about the shifted and unshifted means, of the range in which
#: :func:`_lr_sum_pair` quantises the likelihood ratio; beyond it the ratio is clipped.
LR_SUM_RANGE = 4.0
#: Largest batch for which :func:`shuffled_gaussian_lower` convolves the likelihood-ratio sum
#: (exact convolutions cost ``n^2`` times :data:`LR_SUM_LEVELS`); in larger batches the sum of the
#: ratios is close to the sum of the messages (a central limit), whose bound is computed anyway.
LR_SUM_MAX_N = 64
#: Largest whitened distance at which the likelihood-ratio sum is convolved: beyond it the
#: largest message decides the optimal test (and the ratio's range overflows a float).
LR_SUM_MAX_R = 6.0


def _lr_sum_pair(r: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Distributions of ``sum_i h(<w, m_i>)`` over ``n`` shuffled unit-variance Gaussian
    messages, all at 0 (``D0``) or one at ``r`` (``D1``), where ``h`` is the single message's
    likelihood ratio ``exp(r y - r^2 / 2)``, clipped to its values at ``y = -W`` and ``y = r + W``
    (``W`` = :data:`LR_SUM_RANGE`) and rounded down to one of :data:`LR_SUM_LEVELS` equal steps
    (its index).

    The optimal statistic of a shuffled multiset with one shifted message is the sum of the
    messages' likelihood ratios; ``h`` is a function of one message, so the sum of its values is a
    post-processing of the multiset and its distribution an exact convolution of ``h``'s pmf
    (``n`` copies under ``D0``; ``n - 1`` and one shifted under ``D1``).
    """
    from scipy.special import ndtr

    W = LR_SUM_RANGE
    g_lo, g_hi = math.exp(-r * W - r * r / 2), math.exp(r * (r + W) - r * r / 2)
    levels = np.linspace(g_lo, g_hi, LR_SUM_LEVELS + 1)
    y = (np.log(levels) + r * r / 2) / r  # message values where h steps up
    q = np.diff(np.concatenate([[0.0], ndtr(y), [1.0]]))
    p = np.diff(np.concatenate([[0.0], ndtr(y - r), [1.0]]))
    rest = np.ones(1)
    for _ in range(n - 1):
        rest = np.convolve(rest, q)
    P, Q = np.convolve(rest, p), np.convolve(rest, q)
    keep = (P > 0) | (Q > 0)
    return P[keep] / P.sum(), Q[keep] / Q.sum()


@functools.lru_cache(maxsize=1024)
def shuffled_gaussian_lower(parts: tuple[float, ...], n: int, delta: float) -> tuple[float, str]:
    """Lower bound on the epsilon of ``n`` users' Gaussian messages shuffled, one multiset per
    part (CZ22 Algorithm 1 shuffles the vector and the matrix messages separately).

    ``parts``: the whitened distances ``||m1 - m0|| / sigma`` of the differing user's messages in
    each part for a pair of neighbouring inputs the universe contains. Two post-processings of the
    shuffled multisets, each a valid lower bound; the larger is returned:

    * the sum of each multiset (all users' statistics plus ``N(0, n sigma^2)`` per entry): a
      Gaussian mechanism of ratio ``||r|| / sqrt(n)`` (exact, :func:`gaussian_epsilon`);
    * the largest projection of each multiset on its difference direction, every other user
      holding the first input: the parts' maxima are independent, their binned distributions are
      composed by privacy loss distributions rounded down (a lower bound of the binned pair's
      epsilon, itself a post-processing);
    * the sum of each multiset's quantised likelihood ratios (:func:`_lr_sum_pair`), the same
      pair, composed the same way: close to the optimal test where the messages are noisy
      (small ``r``), where the maximum is weak.
    """
    from .accounting import gaussian_epsilon

    total = math.sqrt(sum(r * r for r in parts))
    summed = gaussian_epsilon(math.sqrt(n), total, delta)
    found = {
        "largest projection": _composed_lower([_max_stat_pair(r, n) for r in parts], delta),
        "sum of quantised likelihood ratios": _composed_lower(
            [_lr_sum_pair(r, n) for r in parts if 0 < r <= LR_SUM_MAX_R]
            if n <= LR_SUM_MAX_N
            else [],
            delta,
        ),
    }
    name, best = max(found.items(), key=lambda kv: kv[1])
    if summed >= best:
        return summed, f"Gaussian mechanism of the shuffled batch's sum (n = {n})"
    return best, f"{name} per shuffled multiset, others at the first input (n = {n})"


def _composed_lower(pairs: list[tuple[np.ndarray, np.ndarray]], delta: float) -> float:
    """Epsilon at ``delta`` of independent pmf pairs composed (losses rounded down): a lower bound
    of the composed mechanism's epsilon; the largest single pair's where dp-accounting cannot
    compose (a pmf without finite losses)."""
    from .pld_arrays import epsilon_for_delta

    if not pairs:
        return 0.0
    plds = [pmf_pair_pld(p, q, pessimistic=False, interval=LOWER_INTERVAL) for p, q in pairs]
    best = max(epsilon_for_delta(one, delta) for one in plds)  # each part alone is a bound
    if len(plds) > 1 and math.isfinite(best):
        try:
            dist = plds[0]
            for one in plds[1:]:
                dist = dist.compose(one)
            best = max(best, epsilon_for_delta(dist, delta))
        except IndexError:  # dp-accounting cannot compose a pmf without finite losses
            pass
    return best


# --- paper 003 (CZ22) and its baselines ---------------------------------------------------------


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


#: The LinUCB-type algorithms of paper 003 that :func:`cz22_release` describes.
CZ22_ALGORITHMS = (
    "ldp",
    "batched_ldp",
    "sdp_amp",
    "sdp_amp_ru",
    "jdp_standin",
    "jdp_tree",
    "batched_jdp",
    "jdp_user",
    "sdp_vec",
    "sdp_vec_ru",
)


def cz22_release(policy, universe: Universe) -> Release:
    """Release of a LinUCB-type policy of paper 003 (``ldp``, ``sdp_amp``, ``jdp_*``, ``sdp_vec``,
    batched and returning-user variants) under ``universe``."""
    alg, L, s = policy.algorithm, universe.L, policy.setting
    if not (universe.r_lo >= 0.0 and universe.r_hi <= 1.0):
        raise ValueError(f"{alg}: paper 003's sensitivities assume rewards in [0, 1]")
    if alg == "jdp_standin":
        return Release(
            "the script's stand-in for the tree: a running sum of pre-drawn node noises; two "
            "consecutive releases with the same k(t) differ by exactly x_t x_t^T",
            private=False,
            method="none (the script's stand-in for the tree; docs/design.md, quirk 6)",
        )
    sens, how = _gram_sensitivity(policy, L)
    # the sensitivity is attained by a pair of the universe (docs/auditing.md)
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


#: Algorithms of paper 003 whose local view (one user's messages before the shuffler)
#: :func:`cz22_local_release` describes.
CZ22_LOCAL_VIEWS = ("sdp_amp", "sdp_vec")


def cz22_local_release(policy, universe: Universe) -> Release:
    """What one user's messages reveal before the shuffler, for a shuffle protocol of paper 003
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


def shift_counts(prm, L: float, Delta: float, d: int) -> tuple[tuple[int, int], ...]:
    """``((k, entries), ...)``: the largest count shift one user causes in an entry of P_Vec's
    statistic ``(x r, upper(x x^T))``, ``||x|| <= L``, ``r in [0, 1]``, and how many entries
    have it. An entry whose value moves by ``D`` (value units) moves the user's rounded count
    ``floor(z + U)``, ``z = (v + Delta) g / Delta``, by at most ``ceil(D g / Delta)`` under the
    coupling of the same uniform ``U``: ``D = 2L`` for ``x_k r``, ``L^2`` for ``x_k^2`` and for
    ``x_j x_k`` (range ``[-L^2/2, L^2/2]``)."""
    k_vec = math.ceil(2.0 * L * prm.g / Delta - 1e-9)
    k_mat = math.ceil(L * L * prm.g / Delta - 1e-9)
    return ((k_vec, d), (k_mat, d * (d + 1) // 2))


#: Standard deviations about the mean that :func:`binomial_arrays` keeps: the mass left out is
#: below 1e-20 (a normal tail beyond 9.5 sd is 1e-21; the binomial's is of that order), which
#: :func:`shift_epsilon` takes off delta so that its certificate stays one.
BINOMIAL_SDS = 9.5
#: Mass a :func:`binomial_arrays` array may leave out (both tails together).
BINOMIAL_TAIL = 1e-20


def binomial_arrays(N: int, p: float) -> tuple[np.ndarray, np.ndarray]:
    """``Binomial(N, p)`` as ``(counts, probabilities)`` over its mean +- :data:`BINOMIAL_SDS`
    standard deviations (the mass left out is below :data:`BINOMIAL_TAIL`; the whole support for
    small ``N``)."""
    from scipy.stats import binom

    mean, sd = N * p, math.sqrt(N * p * (1.0 - p))
    w = BINOMIAL_SDS * sd
    k0, k1 = max(0, int(mean - w) - 2), min(N, int(mean + w) + 2)
    ks = np.arange(k0, k1 + 1)
    probs = binom.pmf(ks, N, p)
    keep = probs > 0
    return ks[keep], probs[keep]


#: Loss discretisation of the lower bounds (rounded down, so a coarser grid is still valid).
LOWER_INTERVAL = 1e-3


def _unmatched_mass(p, q) -> float:
    """Mass of ``q = (counts, probabilities)`` on counts where ``p`` has none (infinite loss)."""
    return float(q[1][~np.isin(q[0], p[0])].sum())


def _infinite_at(pairs, delta: float) -> bool:
    """Whether, in either direction, the composed mass with infinite loss of the count pairs
    ``((p, q), count)``, ``1 - prod (1 - m)^count``, exceeds ``delta``."""
    for a, b in ((0, 1), (1, 0)):
        masses = [(min(_unmatched_mass(pq[a], pq[b]), 1.0), c) for pq, c in pairs]
        if any(m >= 1.0 for m, _ in masses):
            return True
        if -math.expm1(sum(c * math.log1p(-m) for m, c in masses)) > delta:
            return True
    return False


def _composed_pld(pairs, pessimistic: bool = True):
    """Privacy loss distribution (both directions) of the composition of the count pairs, losses
    rounded up (``pessimistic``) or down; ``None`` for no pair."""
    from .accounting import pmf_pair_pld

    dist = None
    for (p, q), c in pairs:
        # a lower bound stays valid on a coarser grid (losses rounded down): 10x fewer buckets
        step = PLD_INTERVAL if pessimistic else LOWER_INTERVAL
        one = pmf_pair_pld(p, q, count=c, pessimistic=pessimistic, interval=step)
        dist = one if dist is None else dist.compose(one)
    return dist


def pairs_epsilon(pairs, delta: float, pessimistic: bool = True) -> float:
    """Epsilon at ``delta`` of the composition of count pairs ``((p, q), count)`` (both
    directions, privacy loss distributions rounded up, or down with ``pessimistic=False``).

    ``inf`` when, in either direction, the composed mass with infinite loss,
    ``1 - prod (1 - m)^count``, exceeds ``delta`` (decided from the distributions, before any
    privacy loss distribution is built)."""
    from .pld_arrays import epsilon_for_delta

    pairs = [(pq, c) for pq, c in pairs if c > 0]
    if _infinite_at(pairs, delta):
        return math.inf
    dist = _composed_pld(pairs, pessimistic)
    return 0.0 if dist is None else epsilon_for_delta(dist, delta)


@functools.lru_cache(maxsize=1024)
def _shift_pairs(N: int, p: float, shifts: tuple[tuple[int, int], ...]):
    """The count pairs of :func:`shift_epsilon` (cached: the same protocol is asked at several
    deltas)."""
    keys, probs = binomial_arrays(int(N), float(p))
    return tuple((((keys, probs), (keys + k, probs)), c) for k, c in shifts if k > 0)


@functools.lru_cache(maxsize=1024)
def _shift_pld(N: int, p: float, shifts: tuple[tuple[int, int], ...]):
    """The composed privacy loss distribution of :func:`shift_epsilon`, whatever the delta.

    Losses are rounded up to multiples of ``PLD_INTERVAL * max(1, k / sd)`` for the largest
    shift ``k`` and the binomial's standard deviation ``sd``: the loss spans about
    ``2 BINOMIAL_SDS k / sd``, so the number of buckets stays bounded, and the rounding adds at
    most ``count`` intervals to the epsilon (where ``k / sd > 1`` such a pair's epsilon is of
    order ``count k / sd``, so at most 0.1 % of it). Where the binomial's standard deviation
    exceeds :data:`CDF_SD` the pairs are built from its CDF (:func:`_shift_pld_cdf`)."""
    from .accounting import pmf_pair_pld

    sd = math.sqrt(N * p * (1.0 - p)) if N > 0 else 1.0
    # one interval for every pair (composition needs equal grids): the largest shift's, and at
    # least the loss range over MAX_BUCKETS (the range is about 2 BINOMIAL_SDS k / sd)
    k_max = max((k for k, _ in shifts), default=0)
    step = max(PLD_INTERVAL * max(1.0, k_max / sd), 2.0 * BINOMIAL_SDS * (k_max / sd) / MAX_BUCKETS)
    dist = None
    if sd > CDF_SD:  # from the binomial's CDF, without pmf arrays (:func:`_shift_pld_cdf`)
        for k, c in shifts:
            if k > 0 and c > 0:
                one = _shift_pld_cdf(N, p, k, c, step)
                dist = one if dist is None else dist.compose(one)
        return dist
    for (a, b), c in _shift_pairs(N, p, shifts):
        one = pmf_pair_pld(a, b, count=c, pessimistic=True, interval=step)
        dist = one if dist is None else dist.compose(one)
    return dist


#: Most loss buckets of one count pair's privacy loss distribution in :func:`_shift_pld`: the
#: interval grows with the loss range beyond it (the certificate then adds at most ``count``
#: such intervals to the epsilon).
MAX_BUCKETS = 20_000
#: Binomial standard deviation from which :func:`shift_epsilon` builds its privacy loss
#: distributions from the binomial's CDF (:func:`_shift_pld_cdf`) instead of from arrays of its
#: pmf (which hold about ``2 BINOMIAL_SDS sd`` entries).
CDF_SD = 2.0e4
#: Mass added to delta's slack of :func:`_shift_pld_cdf` certificates: the binomial CDF's
#: rounding (relative 1e-14 per value, a few thousand values).
CDF_SLACK = 1e-9


def _shift_loss(N: int, p: float, k: int, x: np.ndarray) -> np.ndarray:
    """``f(x) = ln A(x) - ln A(x - k)`` for ``A = Binomial(N, p)`` at integer ``x`` in
    ``[k, N]``: ``sum_j ln((N - x + j + 1) / (x - j)) + k ln(p / (1 - p))``, ``j < k``
    (decreasing in ``x``: ``A`` is log-concave)."""
    j = np.arange(k, dtype=float)
    xs = np.asarray(x, dtype=float)[:, None]
    return (np.log(N - xs + j + 1.0) - np.log(xs - j)).sum(axis=1) + k * math.log(p / (1.0 - p))


def _last_above(N, p, k, lo: int, hi: int, targets: np.ndarray, decreasing: bool) -> np.ndarray:
    """Per target ``t``, the largest integer ``x`` in ``[lo - 1, hi]`` with ``f(x) > t``
    (``decreasing``) or ``-f(x + k) <= t`` (the reverse direction, increasing), by bisection."""
    # invariant: the condition holds at a (or a = lo - 1) and fails at b (or b = hi + 1)
    a = np.full(targets.shape, lo - 1, dtype=np.int64)
    b = np.full(targets.shape, hi + 1, dtype=np.int64)
    while np.any(b - a > 1):
        m = (a + b) // 2
        m_ = np.clip(m, lo, hi)
        if decreasing:
            ok = _shift_loss(N, p, k, m_) > targets
        else:
            ok = -_shift_loss(N, p, k, m_ + k) <= targets
        a, b = np.where(ok, m, a), np.where(ok, b, m)
    return a


def _cdf_moved(N: int, p: float, x: np.ndarray, sign: int) -> tuple[np.ndarray, np.ndarray]:
    """``Binomial(N, p)``'s CDF at ``x``, each point where scipy's incomplete beta returns NaN
    (it does, near the median, for ``N`` about 1e16) moved by ``sign`` 1, 2, 4, ... counts until
    it is finite: the moved points and their CDF values. :func:`_shift_pld_cdf` moves a bucket
    boundary only towards lower losses, so the moved mass goes to a larger loss (pessimistic)."""
    from scipy.stats import binom

    x = np.asarray(x, dtype=np.int64).copy()
    out = binom.cdf(x, N, p)
    step = 1
    while np.any(np.isnan(out)):
        bad = np.isnan(out)
        x[bad] += sign * step
        out[bad] = binom.cdf(x[bad], N, p)
        step *= 2
        if step > 2**40:
            raise ArithmeticError(f"Binomial({N}, {p}): no finite CDF near {x[bad][:3]}")
    return x, out


def _shift_pld_cdf(N: int, p: float, k: int, count: int, step: float):
    """Privacy loss distribution (both directions, losses rounded up to multiples of ``step``)
    of ``A = Binomial(N, p)`` against ``A`` shifted by ``k``, composed ``count`` times, from the
    binomial's CDF: the loss ``f`` is monotone in the count, so each loss bucket is an interval
    of counts and its mass a CDF difference (no pmf arrays). Beyond ``BINOMIAL_SDS`` standard
    deviations the mass goes to the infinite loss where the loss grows and to the window's edge
    bucket where it falls: both only raise the divergence, so the epsilon stays a certificate."""
    from scipy.stats import binom

    from .pld_arrays import from_rounded, self_compose

    mean, sd = N * p, math.sqrt(N * p * (1.0 - p))
    lo = max(k, int(math.floor(mean - BINOMIAL_SDS * sd)))
    hi = min(N - k, int(math.ceil(mean + BINOMIAL_SDS * sd)))
    cdf = functools.partial(binom.cdf, n=N, p=p)
    # A against A shifted (upper A): loss f(x), decreasing; x < lo -> infinite
    f_lo, f_hi = _shift_loss(N, p, k, np.array([lo, hi]))
    j = np.arange(math.ceil(f_hi / step), math.ceil(f_lo / step) + 1)
    X = _last_above(N, p, k, lo, hi, j * step, True)  # bucket j: X_j < x <= X_{j-1}
    X, FX = _cdf_moved(N, p, X, +1)  # a larger X_j puts counts in bucket j + 1 (larger loss)
    prev_x, prev_f = hi, float(cdf(hi))
    for i in range(len(X)):  # boundaries stay ordered (a moved one may not pass the previous)
        if X[i] > prev_x:
            X[i], FX[i] = prev_x, prev_f
        prev_x, prev_f = X[i], FX[i]
    mass = np.concatenate([[cdf(hi)], FX[:-1]]) - FX
    mass[0] += 1.0 - cdf(hi)  # x > hi: losses below f(hi), rounded up to the first bucket
    one = dict(zip(j.tolist(), np.maximum(mass, 0.0).tolist(), strict=True))
    inf_one = float(cdf(lo - 1))
    # A shifted against A (upper: A(y), y = x - k): loss -f(y + k), increasing; y > hi -> infinite
    g_lo, g_hi = -_shift_loss(N, p, k, np.array([lo, hi]) + k)
    j2 = np.arange(math.ceil(g_lo / step), math.ceil(g_hi / step) + 1)
    Y = _last_above(N, p, k, lo, hi, j2 * step, False)  # bucket j: Y_{j-1} < y <= Y_j
    Y, FY = _cdf_moved(N, p, Y, -1)  # a smaller Y_j puts counts in bucket j + 1 (larger loss)
    prev_y, prev_f = lo - 1, float(cdf(lo - 1))
    for i in range(len(Y)):
        if Y[i] < prev_y:
            Y[i], FY[i] = prev_y, prev_f
        prev_y, prev_f = Y[i], FY[i]
    mass2 = FY - np.concatenate([[cdf(lo - 1)], FY[:-1]])
    mass2[0] += cdf(lo - 1)  # y < lo: losses below -f(lo + k), rounded up to the first bucket
    two = dict(zip(j2.tolist(), np.maximum(mass2, 0.0).tolist(), strict=True))
    inf_two = float(1.0 - cdf(Y[-1]))
    dist = from_rounded(two, inf_two, one, inf_one, step, True)
    return self_compose(dist, count) if count > 1 else dist


def _mode_total_variation(N: int, p: float, shifts: tuple[tuple[int, int], ...]) -> float:
    """Upper bound on the total variation distance of ``Binomial(N, p)`` counts shifted by ``k``
    in ``count`` entries, composed: ``sum count k p_mode``. A unimodal pmf moved by ``k`` differs
    from itself by at most ``k`` times its largest mass (the positive parts of ``p(x) - p(x-1)``
    add up to ``p_mode``, and a shift by ``k`` is ``k`` shifts by one); distances of independent
    entries add up at most. Needs no arrays, so it decides the huge binomials of the theory
    calibrations (``N`` up to ``1e16``) at once."""
    from scipy.stats import binom

    if N <= 0:
        return math.inf
    top = float(binom.pmf(math.floor((N + 1) * p), N, p))
    return sum(c * k * top for k, c in shifts if k > 0)


def _total_variation(pairs) -> float:
    """Upper bound on the total variation distance of the composed count pairs ``((p, q),
    count)``: the sum over entries of each pair's distance (both on the arrays' counts)."""
    total = 0.0
    for ((ka, pa), (kb, pb)), c in pairs:
        lo = min(int(ka[0]), int(kb[0]))
        a = np.zeros(max(int(ka[-1]), int(kb[-1])) - lo + 1)
        b = np.zeros(len(a))
        a[ka - lo] = pa
        b[kb - lo] = pb
        total += c * 0.5 * float(np.abs(a - b).sum())
    return total


@functools.lru_cache(maxsize=1024)
def shift_epsilon(N: int, p: float, shifts: tuple[tuple[int, int], ...], delta: float) -> float:
    """Epsilon at ``delta`` of ``Binomial(N, p)`` counts shifted by ``k`` in ``count`` entries
    (each ``(k, count)`` of ``shifts``), composed: the certificate of a bit-sum protocol whose
    user moves each entry's count by at most ``k`` (a pair with a smaller shift, or a mixture
    of such shifts, is dominated: the binomial is log-concave, and the hockey-stick divergence
    is jointly convex). ``inf`` when the shifted mass beyond the other's support exceeds
    ``delta`` (e.g. ``N = 0``: no binomial bits)."""
    from .pld_arrays import epsilon_for_delta

    if _mode_total_variation(N, p, shifts) <= delta:
        return 0.0  # delta(0), the total variation distance, is within delta (no arrays needed)
    if N > 0 and math.sqrt(N * p * (1.0 - p)) > CDF_SD:  # huge binomials: from the CDF
        if delta <= CDF_SLACK:
            return math.inf
        return epsilon_for_delta(_shift_pld(N, p, shifts), delta - CDF_SLACK)
    pairs = _shift_pairs(N, p, shifts)
    # the binomial's tails left out of the arrays (below BINOMIAL_TAIL each), taken off delta:
    # a pair differing only there is told apart with at most that much more probability
    left_out = sum(c for _, c in pairs) * 2.0 * BINOMIAL_TAIL
    if _infinite_at(pairs, delta - left_out) or delta <= left_out:
        return math.inf
    if _total_variation(pairs) <= delta - left_out:
        return 0.0  # delta(0) is the total variation distance, at most the sum of the entries'
    dist = _shift_pld(N, p, shifts)
    return 0.0 if dist is None else epsilon_for_delta(dist, delta - left_out)


def vec_count_pair(prm, B: int, Delta: float, v0: float, v1: float, others: float = 0.0):
    """Exact distributions of one entry's count of ones in a batch of ``B`` P_Vec users when one
    user holds ``v0`` or ``v1`` and the ``B - 1`` others hold ``others``: the user's rounded
    count, the others' (``B - 1`` Bernoulli rounding bits on a fixed floor) and
    ``Binomial(B b_trials, p)``; ``(counts, probabilities)`` pairs on a common origin."""
    keys, probs = binomial_arrays(B * prm.b_trials, prm.p)
    zo = (others + Delta) * prm.g / Delta
    qo = zo - math.floor(zo)
    from scipy.stats import binom

    rest = np.convolve(probs, binom.pmf(np.arange(B), B - 1, qo))
    base = keys[0] + (B - 1) * math.floor(zo)
    out = []
    for v in (v0, v1):
        z = (v + Delta) * prm.g / Delta
        f = math.floor(z)
        q = z - f
        pmf = np.convolve(rest, [1.0 - q, q])
        keep = np.flatnonzero(pmf > 0)
        out.append((base + f + keep, pmf[keep]))
    return out[0], out[1]


def _vec_pairs(L: float, d: int) -> dict[str, list[tuple[float, float]]]:
    """Pairs of neighbouring users of P_Vec's universe, as the entries of ``(x r, upper(x x^T))``
    that differ (``(v0, v1)`` per entry, others hold ``x = 0``): ``x = +-L e_1`` (one vector
    entry moves by ``2L``), and the pair attaining ``Delta_J(L)`` in the span of ``e_1, e_2``."""
    from ..mechanisms.packing import pack

    def entries(x0, x1):
        a, b = pack(x0, np.outer(x0, x0)), pack(x1, np.outer(x1, x1))
        return [(float(u), float(v)) for u, v in zip(a, b, strict=True) if u != v]

    e1 = np.zeros(d)
    e1[0] = L
    pairs = {"x = +-L e1": entries(e1, -e1)}
    if d >= 2 and 2 * L * L >= 1:
        c = -1.0 / (2.0 * L * L)
        x1 = np.zeros(d)
        x1[0], x1[1] = L * c, L * math.sqrt(1.0 - c * c)
        pairs["Delta_J pair"] = entries(e1, x1)
    return pairs


@functools.lru_cache(maxsize=512)
def vec_lower_epsilon(prm, B: int, d: int, L: float, Delta: float, batches: int, delta: float):
    """Lower bound on P_Vec's epsilon at ``delta``: the largest exact epsilon of the pairs of
    :func:`_vec_pairs` (exact count distributions, :func:`vec_count_pair`, composed over the
    entries that differ and the ``batches`` a returning user is in, losses rounded down);
    ``inf`` when the mass told apart with certainty exceeds ``delta``."""
    best = 0.0
    for entries in _vec_pairs(L, d).values():
        pairs = [(vec_count_pair(prm, B, Delta, v0, v1), batches) for v0, v1 in entries]
        best = max(best, pairs_epsilon(pairs, delta, pessimistic=False))
    return best


def vec_release(
    prm, B: int, d: int, L: float, Delta: float, batches: int = 1, delta: float = 0.1
) -> Release:
    """Release of P_Vec (CZ22 Sec. 3.3, Alg. 5-7) for one batch of ``B`` users (``batches``: a
    returning user's batches, composed), by exact count distributions.

    Upper bound: :func:`shift_epsilon` with the shifts of :func:`shift_counts` (a certificate).
    Lower bound: :func:`vec_lower_epsilon`. Both count ``Binomial(B b_trials, p)`` privacy bits
    per entry: with one trial per user a count near the ends of its range tells the pair apart.
    ``delta``: where the notes quote CZ22 Thm. C.1's certificate.
    """
    shifts = tuple((k, n * batches) for k, n in shift_counts(prm, L, Delta, d))
    N = B * prm.b_trials
    cert = vec_certified_epsilon(prm, B, d, delta) if batches == 1 else math.inf
    return Release(
        "bit-sum protocol P_Vec: binomial noise on the per-entry counts of a batch",
        (),
        method=(
            f"exact count distributions: Binomial(B b_trials = {N}, p) shifted by at most "
            f"{', '.join(f'{k} in {n}' for k, n in shifts)} entries, composed (dp-accounting PLD)"
        ),
        notes=f"certificate of CZ22 Thm C.1 (CJMP21) at this b: eps = {cert:.4g}"
        + (" (Thm C.1 needs eps <= 15, integer g and b)" if not math.isfinite(cert) else ""),
        extra={
            "certified_epsilon": cert,
            "epsilon_at": functools.partial(shift_epsilon, N, prm.p, shifts),
            **(
                {
                    "lower_at": functools.partial(vec_lower_epsilon, prm, B, d, L, Delta, 1),
                    "lower_method": "exact count distributions of a pair (others at x = 0)",
                }
                if batches == 1
                else {}
            ),
        },
    )


def vec_certified_epsilon(prm, B: int, d: int, delta: float) -> float:
    """The epsilon CZ22 Thm. C.1 certifies for P_Vec at the drawn ``b``: the smallest ``eps``
    with ``b >= 24e4 g^2 ln^2(4(d^2+1)/delta) / (eps^2 B)``, i.e.
    ``eps = sqrt(24e4 g^2 ln^2(4(d^2+1)/delta) / (b B))``; ``inf`` when the theorem does not apply
    (``g`` or ``b`` not an integer, no binomial bits, or ``eps > 15``)."""
    g, b = prm.g, prm.b_trials
    if b <= 0 or not float(g).is_integer() or float(prm.b) != float(b) or prm.p != 0.25:
        return math.inf
    eps = math.sqrt(24e4 * g * g * math.log(4.0 * (d * d + 1) / delta) ** 2 / (b * B))
    return eps if eps <= 15.0 else math.inf


# --- paper 000 (OnlineUCB) -----------------------------------------------------------------------


def olucb_release(policy, universe: Universe) -> Release:
    """Release of OnlineUCB and its combiner / doubling wrappers (paper 000, Algorithm 1 and
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


# --- paper 004 (DP-DPE, DP-PE) -------------------------------------------------------------------

#: Phases at which DP-DPE's shuffle protocol is evaluated: 1 .. 25 spaced out (a run has at most 22
#: phases, at T = 1e7). The count view's epsilon hardly changes with the phase (the count shift
#: over the binomial std is ``g / sqrt(s n b p (1 - p))`` with ``b ~ 1/n``).
SHUFFLE_PHASES = (1, 2, 4, 8, 12, 16, 20, 25)


def count_pmf_pair(prm, lo: float, hi: float) -> tuple[dict, dict]:
    """Distributions of one coordinate's count of ones when one client's input is ``lo`` or
    ``hi`` and every other client's encoding is an integer (no rounding noise): the client's
    ``floor(z) + Bernoulli(frac(z))`` plus ``Binomial(n b, p)`` (shuffle_sum count level, I5-I7).
    Returned as ``{count: probability}`` over the binomial's mean +- 14 standard deviations (the
    mass left out is below 1e-40); :func:`count_pmf_arrays` as arrays."""
    return tuple(
        dict(zip(keys.tolist(), probs.tolist(), strict=True))
        for keys, probs in count_pmf_arrays(prm, lo, hi)
    )


def count_pmf_arrays(prm, lo: float, hi: float):
    """:func:`count_pmf_pair` as ``(counts, probabilities)`` array pairs (positive masses, in
    increasing count)."""
    from scipy.stats import binom

    N = prm.n * prm.b
    mean, sd = N * prm.p, math.sqrt(N * prm.p * (1.0 - prm.p))
    k0 = max(0, int(mean - 14.0 * sd) - 2)
    k1 = min(N, int(mean + 14.0 * sd) + 2)
    base = binom.pmf(np.arange(k0, k1 + 1), N, prm.p)
    out = []
    for y in (lo, hi):
        z = (y + prm.shift) * prm.g / prm.scale
        f = math.floor(z)
        q = z - f
        pmf = np.zeros(k1 - k0 + 2)
        pmf[:-1] += (1.0 - q) * base
        pmf[1:] += q * base
        keep = np.flatnonzero(pmf > 0)
        out.append((k0 + f + keep, pmf[keep]))
    return out[0], out[1]


@functools.lru_cache(maxsize=4096)
def _shuffle_pld(prm, lo: float, hi: float, coords: int, pessimistic: bool = True):
    """Privacy loss distribution of the count view, both directions (cached per protocol)."""
    return pmf_pair_pld(*count_pmf_arrays(prm, lo, hi), count=coords, pessimistic=pessimistic)


def shuffle_sum_epsilon(
    prm, delta: float, lo: float, hi: float, coords: int, pessimistic: bool = True
) -> float:
    """Epsilon at ``delta`` of the shuffler's view (counts of ones) of a bit-sum protocol for the
    pair ``lo``/``hi`` in each of ``coords`` coordinates (composed), by privacy loss
    distributions of the exact count distributions (:func:`count_pmf_pair`), both directions:
    an upper bound of this pair's epsilon (``pessimistic``) or a lower bound (``False``), hence
    of the protocol's."""
    from .pld_arrays import epsilon_for_delta  # = .get_epsilon_for_delta, compiled

    return epsilon_for_delta(_shuffle_pld(prm, lo, hi, coords, pessimistic), delta)


def shuffle_sum_certificate(prm, delta: float, lo: float, hi: float, coords: int) -> float:
    """Certified epsilon at ``delta`` of a bit-sum protocol whose inputs lie in ``[lo, hi]`` per
    coordinate: :func:`shift_epsilon` of ``Binomial(n b, p)`` shifted by
    ``ceil((hi - lo) g / scale)`` in each of ``coords`` coordinates (the user's rounded count
    moves by at most that; the other clients' rounding bits are independent of the user's input,
    a post-processing)."""
    k = math.ceil((hi - lo) * prm.g / prm.scale - 1e-9)
    return shift_epsilon(prm.n * prm.b, prm.p, ((k, coords),), delta)


def support_sizes(d: int) -> tuple[int, ...]:
    """Support sizes ``s`` at which DP-DPE's shuffle protocol is evaluated: the engine calibrates
    each phase with the support of its design over the active arms, from 1 (one arm left) to the
    cap ``floor(S)`` (``S = 4 d ln ln d + 16``, :func:`dpbandits.design.support_cap`): the powers
    of 2 below the cap, and the cap (a grid: the largest epsilon over it, not over every size)."""
    cap = int(math.floor(support_cap(d)))
    out, s = {cap}, 1
    while s < cap:
        out.add(s)
        s *= 2
    return tuple(sorted(out))


#: Users per action and phase at which DP-PE's scalar protocol is evaluated (its count shift over
#: noise std, ``g / sqrt(n b p (1 - p))``, hardly depends on ``n``).
PE_USERS = (1, 10, 100, 1000, 10000)


@functools.lru_cache(maxsize=1024)
def _shuffle_parts(eps, delta, d, B, pe, alpha, eps_hat) -> dict[str, tuple]:
    """The protocols :func:`_shuffle_worst` maximises over, by label: DP-PE's scalar protocol per
    user count (``n=<n>``), DP-DPE's vector protocol per phase and support size
    (``l=<l>,s=<s>``); each ``(parameters, coordinates)``."""
    if pe:
        return {f"n={n}": (scalar_params(eps, delta, n, B), 1) for n in PE_USERS}
    return {
        f"l={l},s={s}": (
            vector_params(eps, delta, math.ceil(2.0 ** (alpha * l) - 1e-9), s, B * s**0.5, eps_hat),
            s,
        )
        for l in SHUFFLE_PHASES
        for s in support_sizes(d)
    }


@functools.lru_cache(maxsize=1024)
def _shuffle_worst(
    eps: float,
    delta: float,
    d: int,
    B: float,
    pe: bool,
    alpha: float,
    eps_hat,
    query: float,
    bound: str = "upper",
) -> float:
    """Largest count-view epsilon at ``query`` over the phases and support sizes (DP-DPE, ``n_l =
    ceil(2^(alpha l))`` clients, ``s`` in :func:`support_sizes`) or user counts (DP-PE): the
    certificate (``bound = "upper"``, :func:`shuffle_sum_certificate`) or the extreme pair's lower
    bound (``"lower"``: one client at ``-B`` vs ``+B`` in every coordinate)."""
    key = (eps, delta, d, B, pe, alpha, eps_hat)
    parts = _shuffle_parts(*key)
    if bound == "lower":
        pairs = parts.values()
        return max(shuffle_sum_epsilon(prm, query, -B, B, k, pessimistic=False) for prm, k in pairs)
    value = max(_shuffle_part_epsilon(key, label, query) for label in parts)
    flush_part_cache()
    return value


#: Certificates of the shuffle protocols' parts already computed, on disk (relative to the working
#: directory, beside the workflow's parse caches): a matched calibration's search in one job and
#: the privacy row at its result in another share them. Keyed by the code of this module and of
#: the accountant: an edit of either computes them again.
PART_CACHE = Path(".snakemake") / "shuffle-certificates.json"
_PARTS: dict[str, float] = {}


@functools.cache
def _part_code() -> str:
    from ..fingerprint import fingerprint

    return fingerprint(__file__)


def _part_key(key: tuple, label: str, delta: float) -> str:
    text = f"{_part_code()}|{key!r}|{label}|{float(delta)!r}"
    return hashlib.sha256(text.encode()).hexdigest()


@functools.lru_cache(maxsize=16384)
def _shuffle_part_epsilon(key: tuple, label: str, delta: float) -> float:
    """The certificate of one part of :func:`_shuffle_worst` (``key``: its first seven
    arguments) at ``delta``; cached in the process and in :data:`PART_CACHE`, so that a matched
    calibration's search, which evaluates the parts, and the privacy row at its result share
    them."""
    name = _part_key(key, label, delta)
    if name not in _PARTS:
        from ..cache_files import read_json_cache

        _PARTS.update(read_json_cache(PART_CACHE))
    if name in _PARTS:
        return float(_PARTS[name])
    prm, k = _shuffle_parts(*key)[label]
    B = key[3]
    value = shuffle_sum_certificate(prm, delta, -B, B, k)
    _PARTS[name] = value
    _NEW[name] = value
    return value


#: Certificates computed in this process and not yet in :data:`PART_CACHE`.
_NEW: dict[str, float] = {}


def flush_part_cache() -> None:
    """Add this process's new part certificates to :data:`PART_CACHE` (best effort: a failed or
    concurrent write loses entries of the cache only). Called after each whole certificate and
    after each matched search."""
    from ..cache_files import merge_json_cache

    if _NEW and merge_json_cache(PART_CACHE, _NEW):
        _NEW.clear()


def dpdpe_release(policy, universe: Universe | None = None) -> Release:
    """Release of DP-DPE / DP-PE (paper 004, Sec. 4 and Appendix A; DP-PE: Appendix C.2).

    Clients are fresh in every phase (parallel composition; the engine enforces it), so the whole
    run delivers what one phase delivers. Reports are clipped to ``[-B, B]`` per coordinate, the
    bound the proofs use, so the sensitivity is the paper's (Eq. 19: ``2 B sqrt(s)/n`` for the
    central average, ``2 B sqrt(s)`` for a client's local report, ``2B`` for DP-PE's scalar).
    Gaussian privatizers: ``sigma = Delta sqrt(2 ln(1.25/delta))/eps`` in every phase, so
    ``Delta/sigma`` does not depend on ``s``, ``n`` or the phase. Shuffle privatizers: exact count
    distributions of the extreme pair, maximised over :data:`SHUFFLE_PHASES` and the support
    sizes the engine may calibrate with (:func:`support_sizes`).
    """
    st, B = policy.setting, float(policy.opts["reward_bound"])
    eps, delta = st.epsilon, st.delta
    priv = policy.privatizer
    pe = policy.algorithm.endswith("_pe")
    if priv in ("central", "local"):
        sigma = pe_sigma_noise(eps, delta, B) if pe else sigma_nl(1, eps, delta, B)
        where = (
            "the phase's noisy sum per action"
            if pe
            else (
                "the server's noisy average ``y_hat``"
                if priv == "central"
                else "each client's report"
            )
        )
        return Release(
            f"{priv} Gaussian mechanism on {where}",
            (Component("gaussian", sigma, 2.0 * B),),
            tight=True,  # a client at -B vs +B in every coordinate
            method=(
                "analytic Gaussian (dp-accounting); Delta/sigma = eps / sqrt(2 ln(1.25/delta)) in "
                "every phase (the classical calibration, proven for eps <= 1)"
            ),
            notes="parallel composition over phases: fresh clients in every phase",
        )
    if priv == "shuffle":
        if policy.opts.get("U") is not None:
            raise ValueError(f"{policy.algorithm}: a fixed client count U is not private")
        s1 = not pe and policy.opts["width"] == "s1"
        alpha = 0.0 if pe else float(policy.opts["alpha"])
        key = (eps, delta, st.d, B, pe, alpha, eps if s1 else None)
        what = (
            f"Algorithm 4 (scalar sum at eps/2), n users per action in {PE_USERS}"
            if pe
            else (
                f"Algorithm 2 (vector sum), support sizes s in {support_sizes(st.d)}, phases "
                f"{SHUFFLE_PHASES}"
            )
        )
        return Release(
            f"shuffle bit-sum protocol, {what}",
            (),
            method=(
                "exact count distributions: Binomial(n b, p) shifted by the most one client's "
                "rounded count can move (ceil of 2B g / scale) in every coordinate, privacy loss "
                "distributions (dp-accounting), largest over the phases"
            ),
            notes="parallel composition over phases: fresh clients in every phase",
            extra={
                "epsilon_at": functools.partial(_shuffle_worst, *key),
                # the certificate is the largest of these (a matched calibration's search
                # evaluates the deciding ones: dpbandits.privacy.matching)
                "epsilon_parts": {
                    label: functools.partial(_shuffle_part_epsilon, key, label)
                    for label in _shuffle_parts(*key)
                },
                "lower_at": lambda q, key=key: _shuffle_worst(*key, q, "lower"),
                "lower_method": "exact count distributions of one client at -B vs +B",
            },
        )
    raise ValueError(f"no release description for privatizer {priv!r}")


# --- paper 002 (op24): AdaC-UCB, AdaC-GOPE, AdaC-OFUL, JDP-LinUCB --------------------------------

#: delta at which the rho-zCDP algorithms' nominal rho is read as an epsilon (the conversion the
#: op24 figures use, ``audit/op24_plots.DELTA_EQUIV``) and JDP-LinUCB's delta (``engine/minimax``).
OP24_DELTA = 0.01


def op24_release(
    algorithm: str, privacy: float, T: int, delta: float | None = None, rewards: str = "pm1"
) -> Release:
    """Release of one op24 algorithm at one privacy level (paper 002, Table 1 and Sec. 3; the
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


# --- paper 001 (plasso): PrivateLASSO and its ablations ----------------------------------------


def plasso_release(algorithm: str, const) -> Release:
    """Release of a PrivateLASSO variant (paper 001, Algorithms 1-2 and Sec. 3's TBAP; the
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
