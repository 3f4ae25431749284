"""A slow, literal Maler for tests: one Python object per expert, scipy for the projection.

It shares no code with :mod:`.maler`; it follows Maler as docs/papers/olucb.md records it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq


def _ball(x: np.ndarray, D: float) -> np.ndarray:
    n = np.linalg.norm(x)
    return x if n <= D else x * (D / n)


def metric_projection(y: np.ndarray, A: np.ndarray, D: float) -> np.ndarray:
    """``argmin_{||x|| <= D} (x - y)^T A (x - y)``: Lagrange condition solved with brentq."""
    if np.linalg.norm(y) <= D:
        return y.copy()
    lam, Q = np.linalg.eigh(A)
    c = Q.T @ y

    def excess(nu):
        return np.sum((lam * c / (lam + nu)) ** 2) - D**2

    nu = brentq(excess, 0.0, lam.max() * (np.linalg.norm(y) / D - 1.0), xtol=1e-14, rtol=1e-13)
    return Q @ (lam * c / (lam + nu))


class ReferenceMaler:
    """One Maler learner (olucb, Algorithm 3), written for clarity."""

    def __init__(self, d: int, D: float, G: float, T: int):
        self.d, self.D, self.G = d, D, G
        self.D_M = 2.0 * D
        K = math.ceil(0.5 * math.log2(max(T, 2)))
        grid = [2.0**-i / (5 * self.D_M * G) for i in range(K + 1)]
        self.experts = [
            {
                "kind": "convex",
                "eta": 1 / (2 * G * self.D_M * math.sqrt(T)),
                "prior": 1 / 3,
                "x": np.zeros(d),
            }
        ]
        for i, eta in enumerate(grid):
            A = np.eye(d) / ((25 / 56) ** 2 * self.D_M**2)
            self.experts.append(
                {
                    "kind": "exp",
                    "eta": eta,
                    "prior": 1 / (3 * (i + 1) * (i + 2)),
                    "x": np.zeros(d),
                    "A": A,
                }
            )
        for i, eta in enumerate(grid):
            self.experts.append(
                {"kind": "sc", "eta": eta, "prior": 1 / (3 * (i + 1) * (i + 2)), "x": np.zeros(d)}
            )
        self.logw = np.log([e["prior"] for e in self.experts])
        self.t = 0

    def predict(self) -> np.ndarray:
        w = np.exp(self.logw - self.logw.max())
        c = np.array([wi * e["eta"] for wi, e in zip(w, self.experts, strict=True)])
        return sum(ci * e["x"] for ci, e in zip(c, self.experts, strict=True)) / c.sum()

    def update(self, g: np.ndarray) -> None:
        self.t += 1
        t, G, D, D_M = self.t, self.G, self.D, self.D_M
        theta = self.predict()
        for k, e in enumerate(self.experts):
            r = g @ (theta - e["x"])
            eta = e["eta"]
            if e["kind"] == "convex":
                f = -eta * r + (eta * G * D_M) ** 2
            elif e["kind"] == "exp":
                f = -eta * r + eta**2 * r**2
            else:
                f = -eta * r + eta**2 * G**2 * np.sum((theta - e["x"]) ** 2)
            self.logw[k] -= f
        self.logw -= self.logw.max()
        for e in self.experts:
            eta, x = e["eta"], e["x"]
            if e["kind"] == "convex":
                e["x"] = _ball(x - D_M / (G * math.sqrt(t)) * g, D)
            elif e["kind"] == "sc":
                grad = eta * g + 2 * eta**2 * G**2 * (x - theta)
                e["x"] = _ball(x - grad / (2 * eta**2 * G**2 * t), D)
            else:
                v = eta * g + 2 * eta**2 * (g @ (x - theta)) * g
                e["A"] = e["A"] + np.outer(v, v)
                y = x - np.linalg.solve(e["A"], v) / (25 / 56)
                e["x"] = metric_projection(y, e["A"], D)
