"""PrivateThresholdedLASSO (plasso, Algorithms 1-2; docs/papers/plasso.md): the
constants, the episode schedule, the privacy budget split, the LASSO regularisation and
SparseEstimation. The per-round part (TBAP and the greedy arm) is in
:mod:`dpbandits.engine.private_lasso`.

LASSO objective scaling (Algorithm 2, line 2): the paper's ``(1/n) ||Y - Z theta||^2 +
lambda_t ||theta||_1`` is twice scikit-learn's ``(1/(2n)) ||Y - Z theta||^2 + alpha ||theta||_1``
at ``alpha = lambda_t / 2``, so both have the same minimiser. The fit passes scikit-learn the
Gram matrix ``Z^T Z`` of the stored history (``precompute``), which the caller keeps up to date
once per episode (never per round).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass

import numpy as np

from ..mechanisms.svt import sparse_vector_select, svt_cap, svt_gamma, svt_xi
from ..mechanisms.tree import sigma_zcdp_node
from ..mechanisms.zcdp import dp_to_zcdp

#: Project defaults (docs/papers/plasso.md): delta, lambda0, C_theta, C_X, C_r, phi^2, sigma.
DEFAULTS = {
    "delta": 0.01,
    "lambda0": 0.2,
    "C_theta": 1.0,
    "C_X": 4.0,
    "C_r": 4.0,
    "phi2": 1.0,
    "sigma": 0.5,
}
#: scikit-learn settings of the LASSO fit (Algorithm 2, line 2).
LASSO_OPTIONS = {"fit_intercept": False, "max_iter": 10000, "tol": 1e-6, "selection": "cyclic"}


def n_episodes(T: int) -> int:
    """``n_L = floor(log2 T) + 1``, the number of dyadic episodes (Algorithm 1, line 3)."""
    return T.bit_length()


def episode_starts(T: int) -> list[int]:
    """``L = {1, 2, 4, ..., 2^(n_L - 1)}``: the rounds at which an episode starts."""
    return [2**k for k in range(n_episodes(T))]


def episode_length(start: int, T: int) -> int:
    """``n_k = min(2^(k-1), T - 2^(k-1) + 1)`` for the episode starting at ``start = 2^(k-1)``."""
    return min(start, T - start + 1)


def lambda_t(t: int, lambda0: float, d: int) -> float:
    """``lambda_t = lambda0 sqrt(2 ln(t) ln(d) / t)`` (Algorithm 1, line 7, read as a product)."""
    return lambda0 * math.sqrt(2.0 * math.log(t) * math.log(d) / t)


@dataclass(frozen=True)
class PlassoConstants:
    """Every constant of one run (Section 2.1, Algorithms 1-2, TBAP); ``eps = inf`` is the
    non-private limit (``xi = 0``, ``Gamma = -inf``, ``sigma_B = 0``; docs/papers/plasso.md)."""

    T: int
    d: int
    s0: int
    K: int
    eps: float
    delta: float
    lambda0: float
    C_theta: float
    C_X: float
    C_r: float
    phi2: float
    n_L: int
    delta1: float
    delta2: float
    eps1: float
    eps2: float
    s_bar: float
    s_under: float
    xi: float
    Gamma: float
    cap: float
    c_max: int
    alpha: float
    rho_ep: float

    def as_dict(self) -> dict:
        """Plain dict (run metadata)."""
        return asdict(self)

    def threshold(self, lam: float) -> float:
        """SVT threshold ``4 lambda_t Gamma sqrt(s_bar)`` (Algorithm 2 line 6, before noise)."""
        if math.isinf(self.Gamma):
            return -math.inf
        return 4.0 * lam * self.Gamma * math.sqrt(self.s_bar)

    def tbap_record_sq(self, width: int) -> float:
        """``L~^2 = C_X^2 width + C_r^2``: bound on ``||z||_2^2`` for one record ``z = (X_{s,k_s},
        r_s)`` of the aggregated matrix with ``width`` context coordinates: ``|r_s| <= C_r``
        (paper, Section 2) and ``|X_i| <= C_X`` (the paper's ``C_X`` is never defined; read as a
        coordinate bound, which the environments enforce by clipping).

        Full tree (primary): the paper's Section 3 aggregates "a single matrix ``G_t in
        R^{(d+1) x (d+1)}``" built from ``B_t = [X_{1:t}, r_{1:t}] in R^{t x (d+1)}`` (printed
        ``B_t B_t^T``, which is ``t x t``; the ``(d+1) x (d+1)`` matrix is ``B_t^T B_t``), one
        record adding ``z z^T`` with ``z in R^(d+1)``: ``width = d``. Support-block tree
        (ablation): only the block of ``S_l`` and the reward, ``width = m = |S_l|``."""
        return self.C_X**2 * width + self.C_r**2

    def tbap_delta(self, width: int) -> float:
        """``Delta = sqrt(2) L~^2``: sensitivity of the upper triangle of ``z z^T`` (replacing one
        record ``z`` by ``z'`` moves ``||z z^T - z' z'^T||_F^2 = ||z||^4 + ||z'||^4 - 2 (z^T
        z')^2 <= 2 L~^4``), the ``Delta`` of :func:`~dpbandits.mechanisms.tree.sigma_zcdp_node`."""
        return math.sqrt(2.0) * self.tbap_record_sq(width)

    def sigma_B(self, width: int, n_ep: int) -> float:
        """TBAP node noise ``sigma_{B,l} = sqrt((D_l + 1) Delta^2 / (2 rho_ep))``, ``D_l =
        ceil(log2 n_l)``: every record of the episode lies in ``D_l + 1`` nodes, every older one
        in the episode's history release, so the episode is ``rho_ep``-zCDP; 0 in the
        non-private limit. ``width``: :meth:`tbap_record_sq` (``d`` for the full tree)."""
        if math.isinf(self.rho_ep):
            return 0.0
        depth = math.ceil(math.log2(n_ep)) if n_ep > 1 else 0
        return sigma_zcdp_node(self.rho_ep, depth + 1, self.tbap_record_sq(width))

    def s1_episode(self, lam: float) -> float:
        """Lemma 4's support bound ``s_{1,l}`` (Sec. 5.1); NaN when its bracket is not positive."""
        if math.isinf(self.eps):
            return math.nan
        s_under = self.s_under
        bracket = 4.0 * lam * self.Gamma * math.sqrt(self.s0 * s_under) + self.alpha
        if not bracket > 0:
            return math.nan
        return self.s0 + 16.0 * self.s0 * self.C_r * self.C_X * lam / (self.phi2 * bracket)


def plasso_constants(
    T: int,
    d: int,
    s0: int,
    K: int,
    eps: float,
    delta: float = DEFAULTS["delta"],
    lambda0: float = DEFAULTS["lambda0"],
    C_theta: float = DEFAULTS["C_theta"],
    C_X: float = DEFAULTS["C_X"],
    C_r: float = DEFAULTS["C_r"],
    phi2: float = DEFAULTS["phi2"],
) -> PlassoConstants:
    """The constants of a run.

    * budget split (Algorithm 1, line 2, ``n_L`` for its ``ceil(log T)``): ``delta1 = delta2 =
      delta / (2 n_L)``, ``eps1 = eps2 = eps / (2 n_L ln(1/delta2))``;
    * ``s_bar = 1 + 4 C_r C_X sqrt(s0) / phi^2``, ``s_under = 1 + 4 C_r C_X / phi^2`` (Section 2.1);
    * Lemma 3's ``alpha = (128 s_bar / eps) ln(1/delta) ln(2 T s0^{3/2} s_under s_bar)``;
    * SVT: ``xi``, ``Gamma``, cap (:mod:`dpbandits.mechanisms.svt`);
    * TBAP: ``rho_ep = rho(eps2, delta2)`` (zCDP of one episode, :func:`dp_to_zcdp`).
    """
    if not (eps > 0 and 0 < delta < 1):
        raise ValueError(f"need eps > 0 and 0 < delta < 1; got eps={eps!r}, delta={delta!r}")
    n_L = n_episodes(T)
    delta1 = delta2 = delta / (2 * n_L)
    eps1 = eps2 = eps / (2 * n_L * math.log(1.0 / delta2))
    s_bar = 1.0 + 4.0 * C_r * C_X * math.sqrt(s0) / phi2
    s_under = 1.0 + 4.0 * C_r * C_X / phi2
    xi = svt_xi(eps1, delta1, s_bar)
    Gamma = svt_gamma(xi, eps, delta, C_theta, d, T, s_bar)
    cap = svt_cap(s0, s_bar)
    alpha = (
        (128.0 * s_bar / eps)
        * math.log(1.0 / delta)
        * math.log(2.0 * T * s0**1.5 * s_under * s_bar)
    )
    rho_ep = dp_to_zcdp(eps2, delta2)
    return PlassoConstants(
        T, d, s0, K, float(eps), delta, lambda0, C_theta, C_X, C_r, phi2, n_L, delta1, delta2,
        eps1, eps2, s_bar, s_under, xi, Gamma, cap, math.ceil(cap), alpha, rho_ep,
    )  # fmt: skip


def lasso_fit(Z: np.ndarray, Y: np.ndarray, lam: float, C_theta: float, gram=None) -> np.ndarray:
    """``argmin (1/n)||Y - Z theta||^2 + lam ||theta||_1`` (scikit-learn ``Lasso(alpha=lam/2)``),
    rescaled radially onto ``||theta|| <= C_theta`` if it lies outside (docs/papers/plasso.md).

    ``gram``: ``Z^T Z`` (optional; passed as scikit-learn's ``precompute``).
    """
    # Imported here: scikit-learn's import costs ~2 s, which the oracle baselines never need.
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import Lasso

    model = Lasso(alpha=lam / 2.0, precompute=True if gram is None else gram, **LASSO_OPTIONS)
    with warnings.catch_warnings():
        # Reported through the returned estimate, not as log noise (max_iter = 10000 as documented).
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(Z, Y)
    theta = np.asarray(model.coef_, dtype=float)
    norm = float(np.linalg.norm(theta))
    if norm > C_theta:
        theta = theta * (C_theta / norm)
    return theta


def sparse_estimation(
    Z: np.ndarray,
    Y: np.ndarray,
    t: int,
    const: PlassoConstants,
    rng: np.random.Generator,
    gram: np.ndarray | None = None,
    mode: str = "svt",
    svt_noise: bool = True,
) -> tuple[np.ndarray, np.ndarray, float]:
    """Algorithm 2 at episode start ``t`` on the ``n = t - 1`` stored rounds.

    Parameters
    ----------
    Z, Y : numpy.ndarray
        History, shapes ``(n, d)`` and ``(n,)``.
    t : int
        The episode's first round (``lambda_t`` is evaluated there).
    const : PlassoConstants
    rng : numpy.random.Generator
        SVT stream.
    gram : numpy.ndarray, optional
        ``Z^T Z``.
    mode : {"svt", "screen"}
        ``svt``: PrivateLASSO's ``S1``; ``screen``: ``S0`` itself (NP-TH-LASSO, no cap, no noise).
    svt_noise : bool
        False: the ``svt-noise-off`` ablation (``xi = 0``, ``Gamma`` literal).

    Returns
    -------
    (S0, S, lambda_t)
        Screened set, selected support (sorted int arrays) and the regularisation.
    """
    n = Z.shape[0]
    if n == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, 0.0
    lam = lambda_t(t, const.lambda0, const.d)
    theta_hat = lasso_fit(Z, Y, lam, const.C_theta, gram)
    S0 = np.flatnonzero(np.abs(theta_hat) > 4.0 * lam)
    if mode == "screen":
        return S0, S0, lam
    xi = const.xi if svt_noise else 0.0
    S1 = sparse_vector_select(theta_hat, S0, const.threshold(lam), xi, const.cap, rng)
    return S0, S1, lam


__all__ = [
    "DEFAULTS",
    "PlassoConstants",
    "episode_length",
    "episode_starts",
    "lambda_t",
    "lasso_fit",
    "n_episodes",
    "plasso_constants",
    "sparse_estimation",
]
