"""Central-model (JDP) policies built on the binary-tree mechanism (SS18; CZ22 App. E-F).

``jdp_standin`` is the script's imitation of the tree (a utility proxy, *not* private: two
consecutive noisy sums with the same ``k(t)`` differ by exactly ``x_t x_t^T``). ``jdp_tree`` is
the true tree mechanism: SS18's calibration under ``theory`` and the stand-in's noise level
under ``experiment`` (docs/papers/cz22.md). ``batched_jdp`` feeds batch sums as tree
leaves (App. F); ``jdp_user`` multiplies the node noise by ``M0`` (Prop. 4.3 = Prop. E.7).
"""

from __future__ import annotations

import math

import numpy as np

from ..mechanisms.tree import (
    n_levels,
    s_standin_experiment,
    sigma_ss18_node,
    sigma_zcdp_node,
    standin_n0,
)
from ..mechanisms.zcdp import dp_to_zcdp
from .base import CALIBRATIONS, Policy
from .confidence import SS18Regularizer, ZCDPTreeRegularizer
from .linucb import FreshArmCalibration


class JDPTree(FreshArmCalibration, Policy):
    """LinUCB-JDP on the true binary-tree mechanism.

    experiment: per-node ``s = sqrt(ln n) ln(2.5/delta)/epsilon``, ``Gamma = s sqrt(ln n) sqrt(d)``,
    ``lambda = 2 Gamma`` (the script's, ``n`` = number of leaves); theory: SS18 (``sigma_n``,
    shift ``2 Upsilon``, radius with ``rho_min, rho_max, gamma``); op24: JDP-LinUCB of op24,
    Sec. 3 (docs/papers/op24.md: zCDP accounting over the ``m`` nodes of a leaf, ``sigma_n^2 =
    4m/rho_J`` with ``rho_J = rho(epsilon, delta)``, shift ``2 Upsilon``, eigenvalue floor
    ``Upsilon/2``, cz22's Lemma A.2 radius; fresh decision sets, see
    :mod:`dpbandits.engine.fresh_linucb`).
    """

    release = "cz22"

    algorithm = "jdp_tree"
    label = "LinUCB-JDP (tree)"
    calibrations = (*CALIBRATIONS, "op24")
    options = {"L_tilde_sq": 2.0}
    #: ``delta_c`` of the op24 calibration's confidence statements (docs/papers/op24.md).
    OP24_DELTA_C = 0.01

    def _noise_multiplier(self) -> float:
        return 1.0

    def _batch(self) -> int:
        return 1

    def _calibrate(self) -> None:
        s = self.setting
        self.period = self._batch()
        self.scheme = "tree"
        leaves = s.T // self.period
        if self.calibration == "experiment":
            std = s_standin_experiment(s.epsilon, s.delta, leaves) * self._noise_multiplier()
            self.noise_std = std
            self.convention = "half_sum" if self.quirks.half_sum_symmetrization else "upper_mirror"
            self.Gamma = std * math.sqrt(math.log(leaves)) * math.sqrt(s.d)
            self.lam = 2.0 * self.Gamma
            self.consts = {"s": std, "Gamma": self.Gamma, "leaves": leaves}
        elif self.calibration == "op24":
            m = n_levels(leaves)
            rho_J = dp_to_zcdp(s.epsilon, s.delta)
            sigma_n = sigma_zcdp_node(rho_J, m, self.opts["L_tilde_sq"])
            self.noise_std = sigma_n
            self.convention = "upper_mirror"  # entry variance sigma_n^2 on the upper triangle
            self.reg = ZCDPTreeRegularizer(sigma_n, m, s.d, leaves, self.OP24_DELTA_C)
            self.lam = self.reg.shift
            self.consts = {
                "rho_J": rho_J,
                "sigma_n": sigma_n,
                "m": m,
                "Upsilon": self.reg.Upsilon,
                "nu": self.reg.nu,
                "eig_floor": self.reg.eig_floor,
                "leaves": leaves,
            }
        else:
            m = n_levels(leaves)
            sigma_n = (
                sigma_ss18_node(s.epsilon, s.delta, m, self.opts["L_tilde_sq"])
                * self._noise_multiplier()
            )
            self.noise_std = sigma_n
            self.convention = "ss18"
            self.reg = SS18Regularizer(sigma_n, m, s.d, leaves, 1.0 / s.T)
            self.lam = self.reg.shift
            self.consts = {
                "sigma_n": sigma_n,
                "m": m,
                "Upsilon": self.reg.Upsilon,
                "gamma": self.reg.gamma,
                "leaves": leaves,
            }

    def _radius_at(self, t: np.ndarray, L: float) -> np.ndarray:
        """op24: ``sqrt(beta_t)`` at the 1-based round ``t + 1``."""
        if self.calibration == "op24":
            return self.reg.beta(np.asarray(t) + 1)
        return super()._radius_at(t, L)


class JDPStandin(JDPTree):
    """The script's JDP stand-in (docs/papers/cz22.md): experiment calibration only.

    At 0-based round ``t`` the noisy sums carry the sum of the first ``k(t) = floor(ln(1+t)) + 1``
    of ``N0 = floor(ln n) + 1`` node noises drawn once per run. A utility proxy, not private.
    """

    algorithm = "jdp_standin"
    label = "LinUCB-JDP (stand-in)"
    calibrations = ("experiment",)
    options = {}

    def _calibrate(self) -> None:
        super()._calibrate()
        self.scheme = "standin"
        self.consts["N0"] = standin_n0(self.setting.T)


class BatchedJDP(JDPTree):
    """Batched-Central-LinUCB (App. F, Prop. F.3): batch sums are the tree's leaves."""

    algorithm = "batched_jdp"
    label = "Batched-LinUCB-JDP"
    calibrations = CALIBRATIONS

    def _batch(self) -> int:
        return self.setting.B


class JDPUser(JDPTree):
    """User-level JDP (Prop. 4.3 = Prop. E.7): node noise std multiplied by ``M0``.

    ``M0`` bounds the number of rounds any user contributes (option, default 1).
    """

    algorithm = "jdp_user"
    label = "LinUCB-JDP (user level)"
    calibrations = CALIBRATIONS
    options = {"L_tilde_sq": 2.0, "M0": 1}

    def _noise_multiplier(self) -> float:
        M0 = self.opts["M0"]
        if not (isinstance(M0, int) and M0 >= 1):
            raise ValueError(f"jdp_user: M0 must be an integer >= 1, got {M0!r}")
        return float(M0)
