"""Fixed-arm linear bandit instances (cz22, Sec. 5; docs/papers/cz22.md).

An instance is a fixed set of ``K`` arms ``x_k in R^d`` and a parameter ``theta*``; the mean
reward of arm ``k`` is ``mu_k = <x_k, theta*>``. A :class:`FixedArmInstances` stacks ``n``
instances along a leading trial axis (trial ``i`` is instance ``i``), so the same object serves
every algorithm of a figure (common random numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..normals import standard_normal

FAMILIES = (
    "script",
    "paper_text",
    "illcond",
    "fresh_sphere",
    "fixed_sphere",
    "two_action",
    "sparse",
)

#: Families whose instances depend on the horizon ``T`` (cells of two horizons cannot share them).
HORIZON_DEPENDENT = frozenset({"two_action", "sparse"})

#: Squeeze of the ill-conditioned family (see :func:`illcond_instances`).
ILLCOND_KAPPA = 0.1


@dataclass(frozen=True)
class FixedArmInstances:
    """A stack of fixed-arm linear instances.

    Attributes
    ----------
    X : ndarray, shape (n, K, d)
        Arm features of every instance.
    theta : ndarray, shape (n, d)
        Unknown parameters.
    family : str
        Name of the generator (``script`` or ``paper_text``).
    seed : int
        Seed of the generator stream.
    """

    X: np.ndarray
    theta: np.ndarray
    family: str
    seed: int
    means: np.ndarray | None = None
    #: Fixed arms (contextual families have ``contextual = True``).
    contextual: ClassVar[bool] = False

    def __post_init__(self):
        if self.means is None:
            object.__setattr__(self, "means", np.einsum("nkd,nd->nk", self.X, self.theta))

    @property
    def n(self) -> int:
        """Number of instances (trials)."""
        return self.X.shape[0]

    @property
    def K(self) -> int:
        """Number of arms."""
        return self.X.shape[1]

    @property
    def d(self) -> int:
        """Dimension."""
        return self.X.shape[2]

    @property
    def mu(self) -> np.ndarray:
        """Mean rewards, shape (n, K).

        Stored at construction, so a rescaled family (``paper_text``) keeps the exact means of
        the draw it rescales and shares its reward tables bit for bit.
        """
        return self.means

    @property
    def best(self) -> np.ndarray:
        """Best arm of every instance (first index on ties), shape (n,)."""
        return np.argmax(self.mu, axis=1)

    @property
    def L(self) -> np.ndarray:
        """Largest arm norm of every instance, shape (n,)."""
        return np.linalg.norm(self.X, axis=2).max(axis=1)

    def take(self, lo: int, hi: int) -> FixedArmInstances:
        """Instances ``lo .. hi - 1`` (calibration trials are a later stretch of the stream)."""
        return FixedArmInstances(
            self.X[lo:hi], self.theta[lo:hi], self.family, self.seed, self.means[lo:hi]
        )

    def head(self, n: int) -> FixedArmInstances:
        """The first ``n`` instances (the quick scale uses a prefix of the paper's instances)."""
        return FixedArmInstances(self.X[:n], self.theta[:n], self.family, self.seed, self.means[:n])


def script_instances(n: int, K: int, d: int, seed: int = 2) -> FixedArmInstances:
    """Instances exactly as the authors' script draws them (docs/papers/cz22.md).

    For each instance ``i = 0..n-1``, in this order, from one legacy ``RandomState(seed)``:
    a ``K x (d-1)`` standard normal matrix with rows normalised and a column of ones appended;
    rows ``0..d-1`` overwritten by the identity with its last column set to one; then
    ``d-1`` normals rescaled to norm 0.5 with 0.5 appended as ``theta*``.

    Parameters
    ----------
    n, K, d : int
        Number of instances, arms and dimension (``K >= d >= 2``).
    seed : int, default 2
        Seed of the legacy stream (the script uses 2).

    Returns
    -------
    FixedArmInstances
        ``max_k ||x_k|| = sqrt(2)``, ``||theta*|| = 1/sqrt(2)``, every mean in ``[0, 1]``.
    """
    if d < 2 or K < d:
        raise ValueError(f"need K >= d >= 2, got K={K}, d={d}")
    rs = np.random.RandomState(seed)
    X = np.empty((n, K, d))
    theta = np.empty((n, d))
    basis = np.eye(d)
    basis[:, -1] = 1.0
    for i in range(n):
        A = rs.standard_normal((K, d - 1))
        A /= np.linalg.norm(A, axis=1, keepdims=True)
        X[i, :, : d - 1] = A
        X[i, :, d - 1] = 1.0
        X[i, :d] = basis
        v = rs.standard_normal(d - 1)
        theta[i, : d - 1] = 0.5 * v / np.linalg.norm(v)
        theta[i, d - 1] = 0.5
    return FixedArmInstances(X, theta, "script", seed)


def paper_text_instances(n: int, K: int, d: int, seed: int = 2) -> FixedArmInstances:
    """The normalisation CZ22 Sec. 5 describes (docs/papers/cz22.md).

    The same draws as :func:`script_instances`, with every arm multiplied by ``1/sqrt(2)``
    and ``theta*`` by ``sqrt(2)``: means, best arm and gaps are unchanged, ``||theta*|| = 1``
    and ``max ||x_k|| = 1`` (Assumption 3.1), which the theory calibration assumes.
    """
    base = script_instances(n, K, d, seed)
    return FixedArmInstances(
        base.X / np.sqrt(2.0), base.theta * np.sqrt(2.0), "paper_text", seed, base.means
    )


def illcond_instances(
    n: int, K: int, d: int, seed: int = 2, kappa: float = ILLCOND_KAPPA
) -> FixedArmInstances:
    """Unit-scale instances whose arms' second moment is ill-conditioned (olucb, Sec. 4).

    The :func:`paper_text_instances` draws with coordinate ``d - 2`` of every arm (the last
    coordinate of the sphere part) multiplied by ``kappa``. For an arm drawn like the random arms,
    ``E[x x^T]`` then has eigenvalues ``1/(2(d-1))`` (d - 2 times), ``kappa^2/(2(d-1))`` and
    about 1/2, so ``lambda_min = kappa^2/(2(d-1))`` (1.25e-3 at d = 5), far below ``T^{-1/8}``,
    the smallest guess of the combiner's grid, while means stay in [0, 1] (``||x|| <= 1``).
    """
    base = paper_text_instances(n, K, d, seed)
    X = base.X.copy()
    X[:, :, d - 2] *= kappa
    return FixedArmInstances(X, base.theta, "illcond", seed)


def population_lambda_min(family: str, d: int, K: int | None = None) -> float:
    """``lambda_min(E[x x^T])`` of a uniformly drawn random arm of a unit-scale family.

    For ``fresh_sphere`` (setting F of docs/papers/olucb.md) it is the value for the optimal arm of
    ``K`` fresh arms (:func:`dpbandits.envs.contextual.optimal_arm_lambda_min`).
    """
    if family == "fresh_sphere":
        from .contextual import optimal_arm_lambda_min

        if K is None:
            raise ValueError("fresh_sphere: population lambda_min needs the number of arms K")
        return optimal_arm_lambda_min(d, K)
    if family == "paper_text":
        return 1.0 / (2 * (d - 1))
    if family == "illcond":
        return ILLCOND_KAPPA**2 / (2 * (d - 1))
    raise ValueError(f"no population lambda_min for family {family!r}")


def _unit_rows(rng: np.random.Generator, m: int, d: int) -> np.ndarray:
    g = standard_normal(rng, (m, d))
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def fixed_sphere_instances(
    n: int, K: int, d: int, seed: int, instance_id: int = 0
) -> FixedArmInstances:
    """One instance for every trial (dpdpe, Sec. 7; docs/papers/dpdpe.md): ``K`` actions
    uniform on the unit sphere, then ``theta*`` uniform on it, from ``default_rng([seed, 0,
    instance_id])``; the best action must be unique (top two means differ by more than 1e-12)."""
    rng = np.random.default_rng([seed, 0, instance_id])
    X = _unit_rows(rng, K, d)
    theta = _unit_rows(rng, 1, d)[0]
    top = np.sort(X @ theta)[-2:]
    if not top[1] - top[0] > 1e-12:
        raise ValueError(f"fixed_sphere: the best action of instance {instance_id} is not unique")
    return FixedArmInstances(
        np.repeat(X[None], n, axis=0), np.repeat(theta[None], n, axis=0), "fixed_sphere", seed
    )


def two_action_instances(
    n: int, K: int, d: int, T: int, gap_scale: float, gap_power: float
) -> FixedArmInstances:
    """The gap-scaling instance of the rate audit (docs/papers/dpdpe.md): ``theta* = e_1``,
    ``x_1 = e_1``, ``x_2 = (1 - Delta_T) e_1 + sqrt(1 - (1 - Delta_T)^2) e_2`` with
    ``Delta_T = gap_scale T^{-gap_power}`` (a width term ~ n_l^{-gamma} then gives a regret
    exponent ``1 - alpha gamma``)."""
    if d != 2 or K != 2:
        raise ValueError(f"two_action: needs d = 2 and K = 2, got d = {d}, K = {K}")
    gap = float(gap_scale) * T ** (-float(gap_power))
    if not 0 < gap <= 1:
        raise ValueError(f"two_action: gap {gap} outside (0, 1]")
    X = np.array([[1.0, 0.0], [1.0 - gap, math.sqrt(1.0 - (1.0 - gap) ** 2)]])
    theta = np.array([1.0, 0.0])
    return FixedArmInstances(
        np.repeat(X[None], n, axis=0), np.repeat(theta[None], n, axis=0), "two_action", 0
    )


def make_instances(family: str, n: int, K: int, d: int, seed: int, T: int | None = None, **options):
    """Dispatch on the family name (:data:`FAMILIES`; ``fresh_sphere`` is contextual,
    :mod:`dpbandits.envs.contextual`). ``two_action`` needs the horizon ``T`` and the options
    ``gap_scale`` and ``gap_power``; ``fixed_sphere`` takes ``instance_id``."""
    if family == "fixed_sphere":
        return fixed_sphere_instances(n, K, d, seed, **options)
    if family == "two_action":
        if T is None:
            raise ValueError("two_action: the instance depends on the horizon T")
        return two_action_instances(n, K, d, T, **options)
    if family == "sparse":  # plasso's sparse families (options: sparse_family, s0)
        from .sparse import SparseInstances

        if T is None or set(options) != {"sparse_family", "s0"}:
            raise ValueError("sparse: needs the horizon T and the options sparse_family and s0")
        return SparseInstances(options["sparse_family"], n, K, d, int(options["s0"]), int(T))
    if options:
        raise ValueError(f"{family}: takes no instance options, got {sorted(options)}")
    if family == "fresh_sphere":
        from .contextual import fresh_sphere_instances

        return fresh_sphere_instances(n, K, d, seed)
    if family == "script":
        return script_instances(n, K, d, seed)
    if family == "paper_text":
        return paper_text_instances(n, K, d, seed)
    if family == "illcond":
        return illcond_instances(n, K, d, seed)
    raise ValueError(f"unknown instance family {family!r}; allowed: {', '.join(FAMILIES)}")
