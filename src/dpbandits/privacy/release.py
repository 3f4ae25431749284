"""A release and the data it is computed from: :class:`Release` lists the Gaussian / Laplace
releases that one user's data enters (with their noise scale and their sensitivity under a data
universe), and :func:`delivered_epsilon` turns it into the epsilon the calibration delivers
(:func:`dpbandits.privacy.accounting.composed_epsilon`). Sensitivities are computed from a
:class:`Universe`, the bounds of the data: the bounds of the instances an experiment actually
simulates (:func:`instance_universe`), or the normalisation the paper assumes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..mechanisms import amplification as amp
from .accounting import Component, composed_epsilon, zcdp_epsilon

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


#: The normalisation of the papers (CZ22 Assumption 3.1, olucb §1: ``||x|| <= 1``,
#: ``|y| <= 1``); cz22's rewards are in [0, 1].
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
    matrix in Frobenius norm, ``||x|| <= L``, ``r in [0, 1]`` (docs/audit/privacy.md; 2.1213 at
    L = 1, 3.5355 at L = sqrt 2). Exact for the ``(W + W^T)/2`` symmetrisation (off-diagonal entries
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
        them by label (callables ``delta -> epsilon``); ``worst_parts``: ``delta -> (epsilon,
        {label: epsilon})``, the certificate with the parts it certified, where evaluating every
        part would cost too much; ``no_small_delta``: why the release is not accounted at
        ``delta = 1/T`` (a companion column of the privacy table).
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


#: Loss discretisation of the lower bounds (rounded down, so a coarser grid is still valid).
LOWER_INTERVAL = 1e-3
