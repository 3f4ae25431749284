"""A slow, obviously-correct per-trial loop of Algorithm 1 (CZ22), used only by tests.

It shares nothing with the engine but the raw random draws (:func:`dpbandits.engine.draw_raw`)
and the policy's constants. Everything else is done literally, round by round: the server
accumulates the messages it receives, the tree noise is summed over the dyadic decomposition
node by node, P_Vec messages are encoded user by user and analyzed batch by batch, and every
refresh inverts ``V`` with ``numpy.linalg.inv`` and evaluates every arm's index from scratch.

For the shuffle policies the raw draws are per-batch aggregates (the analyzer only ever sees
the batch sum), so the reference adds the batch's aggregate noise to the batch's exact sum.
"""

from __future__ import annotations

import numpy as np

from dpbandits.engine.kernels import ARGMAX_RTOL
from dpbandits.learners.maler_reference import ReferenceMaler
from dpbandits.mechanisms.packing import unpack
from dpbandits.mechanisms.tree import dyadic_decomposition, standin_count
from dpbandits.mechanisms.vec import analyze, encode
from dpbandits.policies.base import Policy
from dpbandits.policies.combiner import stacked_tables
from dpbandits.policies.onlineucb import (
    clip_gradient,
    confidence_centre,
    corrected_loss,
    loss_gradient,
    ucb_index,
)
from dpbandits.result_columns import METRICS


def argmax_ties(index: np.ndarray, rtol: float = ARGMAX_RTOL) -> int:
    """First NaN if any (``numpy.argmax``'s rule), else the lowest index within ``rtol`` of max."""
    nan = np.isnan(index)
    if nan.any():
        return int(np.argmax(nan))
    top = index.max()
    thr = top if np.isinf(top) else top - rtol * max(1.0, abs(top))
    return int(np.argmax(index >= thr))


class _Server:
    """The server's view of the data: what it has received, and the noisy statistics it uses."""

    def __init__(self, policy: Policy, raw: dict, Delta: float):
        self.policy = policy
        self.raw = raw
        self.d = policy.setting.d
        self.B = policy.period
        self.Delta = Delta
        self.G = np.zeros((self.d, self.d))  # accumulated (possibly noisy) Gram statistic
        self.U = np.zeros(self.d)
        self.batch_G = np.zeros((self.d, self.d))
        self.batch_U = np.zeros(self.d)
        self.batch_counts = None

    def receive(self, t: int, x: np.ndarray, y: float) -> None:
        """Round ``t``'s user sends its (randomized) data."""
        scheme = self.policy.scheme
        if scheme == "per_round":  # the user's local randomizer output
            n_vec, n_mat = unpack(self.raw["increments"][t], self.d)
            self.U += x * y + n_vec
            self.G += np.outer(x, x) + n_mat
        elif scheme in ("per_batch", "vec"):
            if scheme == "per_batch":
                self.batch_U += x * y
                self.batch_G += np.outer(x, x)
            else:
                iu = np.triu_indices(self.d)
                values = np.concatenate([x * y, np.outer(x, x)[iu]])
                counts = encode(values, self.policy.vec.g, self.Delta, self.raw["uniforms"][t])
                self.batch_counts = (
                    counts if self.batch_counts is None else self.batch_counts + counts
                )
            if (t + 1) % self.B == 0:  # batch complete: shuffler + analyzer
                k = t // self.B
                if scheme == "per_batch":
                    n_vec, n_mat = unpack(self.raw["increments"][k], self.d)
                    self.U += self.batch_U + n_vec
                    self.G += self.batch_G + n_mat
                    self.batch_U[:] = 0.0
                    self.batch_G[:] = 0.0
                else:
                    out = analyze(
                        self.batch_counts + self.raw["binomial"][k],
                        self.B,
                        self.policy.vec,
                        self.Delta,
                    )
                    o_vec, o_mat = unpack(out, self.d)
                    self.U += o_vec
                    self.G += o_mat
                    self.batch_counts = None
        else:  # exact sums; noise is added when statistics are released
            self.U += x * y
            self.G += np.outer(x, x)

    def statistics(self, t: int) -> tuple[np.ndarray, np.ndarray]:
        """Noisy ``(u, G)`` released to the learner at (the start of) round ``t``."""
        scheme = self.policy.scheme
        U, G = self.U.copy(), self.G.copy()
        if scheme == "standin":
            for j in range(int(standin_count(t))):
                n_vec, n_mat = unpack(self.raw["nodes"][j], self.d)
                U += n_vec
                G += n_mat
        elif scheme == "tree":
            for level, k in dyadic_decomposition(t // self.B):
                n_vec, n_mat = unpack(self.raw["levels"][level][k], self.d)
                U += n_vec
                G += n_mat
        return U, G


def reference_onlineucb(
    policy: Policy,
    X: np.ndarray,
    mu: np.ndarray,
    rewards: np.ndarray,
    raw: dict,
    checkpoints: np.ndarray,
    theta_star: np.ndarray,
) -> dict[str, np.ndarray]:
    """Algorithm 1 of olucb for one trial, literally (docs/papers/olucb.md).

    The centre is recomputed every round from the whole history as the ridge regression of the
    learner's predictions (:func:`~dpbandits.policies.onlineucb.confidence_centre`), ``V~`` is
    inverted every round, the index, gradient and clipping are the library's functions, and
    Maler is :class:`~dpbandits.learners.maler_reference.ReferenceMaler`. Returns the actions, the
    regret and ``theta_err`` (``||theta_t - theta*||``), ``radius``, ``theta_star_covered``,
    ``learner_regret`` and ``learner_dist_sq`` (Lemma 3.5's sums) at the checkpoints.
    """
    o, s = policy.opts, policy.setting
    T, d = s.T, X.shape[1]
    D, G, Sigma = o["D"], policy.G, policy.Sigma
    maler = ReferenceMaler(d, D, G, T) if o["learner"] == "maler" else None
    theta_ogd = np.zeros(d)
    beta = policy.radius(1.0)
    k0, k1, k2 = policy.k_constants()
    V = np.eye(d)
    kb = int(np.argmax(mu))
    M_real = S_real = real = pseudo = 0.0
    actions = np.zeros(T, dtype=np.int64)
    out = {
        "regret_realized": [],
        "regret_pseudo": [],
        "theta_err": [],
        "radius": [],
        "theta_star_covered": [],
        "learner_regret": [],
        "learner_dist_sq": [],
    }
    cps = set(int(c) for c in checkpoints)
    covered = 1.0

    def loss(th, xt, yt):
        return corrected_loss(th, xt, yt, Sigma)

    xs, preds = np.zeros((0, d)), np.zeros(0)
    for t in range(T):
        Vinv = np.linalg.inv(V)
        theta_hat = confidence_centre(xs, preds)
        if o["radius_mode"] == "oracle":
            b = D**2 + max(0.0, M_real) + k0 * np.sqrt((t + 1) * S_real) + k1 + k2 * S_real
        else:
            b = beta[t]
        a = argmax_ties(ucb_index(X, theta_hat, Vinv, b))
        actions[t] = a
        gap = theta_star - theta_hat
        if gap @ V @ gap > b:  # theta* left the confidence set C_{t-1} (Lemma 3.3)
            covered = 0.0
        y = float(rewards[t, a])
        real += float(rewards[t, kb]) - y
        pseudo += mu[kb] - mu[a]
        theta_t = maler.predict() if maler is not None else theta_ogd.copy()
        x_bar = X[a] + (raw["zeta"][t] if raw["zeta"].shape[0] else 0.0)
        xt, yt = x_bar + raw["noise_x"][t], y + raw["noise_y"][t]
        g = clip_gradient(loss_gradient(theta_t, xt, yt, Sigma), G)
        M_real += loss(theta_t, xt, yt) - loss(theta_star, xt, yt)
        S_real += np.sum((theta_t - theta_star) ** 2)
        if maler is not None:
            maler.update(g)
        else:
            sc = o["ogd_step"] == "strongly_convex"
            step = 1 / (policy.mu_hat * (t + 1)) if sc else 2 * D / (G * np.sqrt(t + 1))
            theta_ogd = theta_ogd - step * g
            theta_ogd *= min(1.0, D / max(np.linalg.norm(theta_ogd), 1e-300))
        V = V + np.outer(xt, xt)
        xs, preds = np.vstack([xs, xt]), np.append(preds, theta_t @ xt)
        if t + 1 in cps:
            out["regret_realized"].append(real)
            out["regret_pseudo"].append(pseudo)
            out["theta_err"].append(np.linalg.norm(theta_t - theta_star))
            out["radius"].append(b)
            out["theta_star_covered"].append(covered)
            out["learner_regret"].append(M_real)
            out["learner_dist_sq"].append(S_real)
    result = {k: np.array(v, dtype=float) for k, v in out.items()}
    result["actions"] = actions
    return result


class _ReferenceBase:
    """One base of the combiner, literally: Algorithm 1 restarted where the tables say so."""

    def __init__(self, policy: Policy, b: int, d: int, theta_star=None):
        self.policy, self.b, self.d = policy, b, d
        self.theta_star = theta_star  # for Lemma 3.5's sums (fresh arms); None: not kept
        self.tables = stacked_tables(policy)
        self.n = 0  # plays so far

    def _constant(self, name: str) -> float:
        return self.tables[name][self.b, self.n]

    def start_play(self) -> None:
        if self.tables["restart"][self.b, self.n]:
            o = self.policy.opts
            self.V, self.u = np.eye(self.d), np.zeros(self.d)
            self.theta_ogd = np.zeros(self.d)
            G, H = self._constant("G"), int(self._constant("horizon"))
            self.maler = ReferenceMaler(self.d, o["D"], G, H) if o["learner"] == "maler" else None

    def index(self, X: np.ndarray) -> np.ndarray:
        Vinv = np.linalg.inv(self.V)
        return ucb_index(X, Vinv @ self.u, Vinv, self._constant("radius"))

    def learn(self, x: np.ndarray, y: float, zeta, eta_x, eta_y, scaled_zeta=False) -> float:
        """The user's report and the server's step; returns the privatized reward."""
        o = self.policy.opts
        G, Sigma, local = self._constant("G"), self._constant("Sigma"), self._constant("local")
        theta_t = self.maler.predict() if self.maler is not None else self.theta_ogd.copy()
        self.theta_t = theta_t
        if zeta is None:  # plain OnlineUCB's layout: zeta drawn already scaled, or absent
            zeta = 0.0
        xt = x + (zeta if scaled_zeta else np.sqrt(self._constant("Delta2")) * zeta) + eta_x
        yt = y + eta_y
        g = clip_gradient(loss_gradient(theta_t, xt, yt, Sigma), G)
        if self.theta_star is not None:  # the learner's regret against theta* (Lemma 3.5)
            star = self.theta_star
            self.learner_regret = corrected_loss(theta_t, xt, yt, Sigma) - corrected_loss(
                star, xt, yt, Sigma
            )
            self.learner_dist_sq = float(np.sum((theta_t - star) ** 2))
        if self.maler is not None:
            self.maler.update(g)
        else:
            sc = o["ogd_step"] == "strongly_convex"
            if sc:
                step = 1 / (self._constant("mu_hat") * local)
            else:
                step = 2 * o["D"] / (G * np.sqrt(local))
            self.theta_ogd = self.theta_ogd - step * g
            self.theta_ogd *= min(1.0, o["D"] / max(np.linalg.norm(self.theta_ogd), 1e-300))
        self.V = self.V + np.outer(xt, xt)
        self.u = self.u + (theta_t @ xt) * xt
        self.n += 1
        return yt


def reference_combiner(
    policy: Policy,
    X: np.ndarray,
    mu: np.ndarray,
    rewards: np.ndarray,
    raw: dict,
    checkpoints: np.ndarray,
) -> dict[str, np.ndarray]:
    """Algorithm 2 (or Algorithm 7 alone) of olucb for one trial, literally
    (docs/papers/olucb.md).

    Returns the actions, the chosen bases and the regret at the checkpoints.
    """
    T, d = policy.setting.T, X.shape[1]
    M = policy.n_bases
    select = policy.algorithm == "combiner"
    bases = [_ReferenceBase(policy, b, d) for b in range(M)]
    mean, dev = np.zeros(M), np.zeros(M)
    active = list(range(M))
    kb = int(np.argmax(mu))
    real = pseudo = 0.0
    actions = np.zeros(T, dtype=np.int64)
    chosen = np.zeros(T, dtype=np.int64)
    out = {"regret_realized": [], "regret_pseudo": []}
    cps = set(int(c) for c in checkpoints)
    for t in range(T):
        b = 0
        if select:
            scores = [policy.index(i, bases[i].n, mean[i]) for i in active]
            b = active[int(np.argmax(scores))]  # first maximum: lowest index
        base = bases[b]
        base.start_play()
        a = argmax_ties(base.index(X))
        actions[t], chosen[t] = a, b
        y = float(rewards[t, a])
        real += float(rewards[t, kb]) - y
        pseudo += mu[kb] - mu[a]
        yt = base.learn(X[a], y, raw["zeta"][t], raw["noise_x"][t], raw["noise_y"][t])
        n = base.n
        dev[b] += mean[b] - yt
        mean[b] = mean[b] + (yt - mean[b]) / n
        if select and policy.eliminates(b, n, dev[b]) and len(active) > 1:
            active.remove(b)  # never the last active base (docs/papers/olucb.md)
        if t + 1 in cps:
            out["regret_realized"].append(real)
            out["regret_pseudo"].append(pseudo)
    result = {k: np.array(v, dtype=float) for k, v in out.items()}
    result["actions"], result["bases"] = actions, chosen
    return result


def reference_contextual(
    policy: Policy,
    arms: np.ndarray,
    theta_star: np.ndarray,
    uniforms: np.ndarray,
    raw: dict,
    checkpoints: np.ndarray,
) -> dict[str, np.ndarray]:
    """OnlineUCB, Algorithm 7 or the combiner for one trial on fresh arms, literally.

    Parameters
    ----------
    arms : ndarray, shape (T, K, d)
        The round's arms (:meth:`dpbandits.envs.contextual.FreshArmInstances.arms`).
    theta_star : ndarray, shape (d,)
    uniforms : ndarray, shape (T, K)
        The trial's common uniforms; ``y = +1`` iff ``U < (1 + <x, theta*>)/2``.
    raw : dict
        The trial's draws (:func:`dpbandits.engine.draw_raw`).
    """
    T, K, d = arms.shape
    tables = stacked_tables(policy)
    M = tables["radius"].shape[0]
    select = policy.algorithm == "combiner"
    scaled = policy.scheme == "onlineucb"
    bases = [_ReferenceBase(policy, b, d, theta_star) for b in range(M)]
    mean, dev = np.zeros(M), np.zeros(M)
    active = list(range(M))
    real = pseudo = m_real = s_real = 0.0
    out = {
        "regret_realized": [],
        "regret_pseudo": [],
        "theta_err": [],
        "learner_regret": [],
        "learner_dist_sq": [],
    }
    actions = np.zeros(T, dtype=np.int64)
    cps = set(int(c) for c in checkpoints)
    for t in range(T):
        X = arms[t]
        b = 0
        if select:
            scores = [policy.index(i, bases[i].n, mean[i]) for i in active]
            b = active[int(np.argmax(scores))]
        base = bases[b]
        base.start_play()
        a = argmax_ties(base.index(X))
        actions[t] = a
        means = X @ theta_star
        kb = int(np.argmax(means))
        y = 1.0 if uniforms[t, a] < (1 + means[a]) / 2 else -1.0
        y_best = 1.0 if uniforms[t, kb] < (1 + means[kb]) / 2 else -1.0
        real += y_best - y
        pseudo += means[kb] - means[a]
        zeta = raw["zeta"][t] if raw["zeta"].shape[0] else None
        yt = base.learn(X[a], y, zeta, raw["noise_x"][t], raw["noise_y"][t], scaled)
        m_real += base.learner_regret
        s_real += base.learner_dist_sq
        n = base.n
        dev[b] += mean[b] - yt
        mean[b] = mean[b] + (yt - mean[b]) / n
        if select and policy.eliminates(b, n, dev[b]) and len(active) > 1:
            active.remove(b)
        if t + 1 in cps:
            out["regret_realized"].append(real)
            out["regret_pseudo"].append(pseudo)
            out["theta_err"].append(np.linalg.norm(base.theta_t - theta_star))
            out["learner_regret"].append(m_real)
            out["learner_dist_sq"].append(s_real)
    result = {k: np.array(v, dtype=float) for k, v in out.items()}
    result["actions"] = actions
    return result


def reference_run(
    policy: Policy,
    X: np.ndarray,
    mu: np.ndarray,
    rewards: np.ndarray,
    raw: dict,
    checkpoints: np.ndarray,
    theta: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Run one trial literally.

    Parameters
    ----------
    policy : Policy
    X : ndarray, shape (K, d)
    mu : ndarray, shape (K,)
    rewards : ndarray of bool, shape (T, K)
    raw : dict
        The trial's raw draws, :func:`dpbandits.engine.draw_raw`.
    checkpoints : ndarray of int
    theta : ndarray, shape (d,), optional
        The instance's parameter (OnlineUCB only: diagnostics and the oracle radius).

    Returns
    -------
    dict
        Each metric of :data:`dpbandits.engine.METRICS` at the checkpoints, plus ``actions``.
    """
    if policy.engine == "onlineucb":
        return reference_onlineucb(policy, X, mu, rewards, raw, checkpoints, theta)
    if policy.engine == "combiner":
        return reference_combiner(policy, X, mu, rewards, raw, checkpoints)
    if policy.engine == "etc":
        return reference_etc(policy, X, mu, rewards, checkpoints)
    T = policy.setting.T
    K, d = X.shape
    L = float(np.linalg.norm(X, axis=1).max())
    Delta = policy.encoding_range(L) if policy.engine == "vec" else 1.0
    server = _Server(policy, raw, Delta)
    refresh = {int(t): r for r, t in enumerate(policy.refresh_rounds())}
    beta = policy.radius(L)
    kb = int(np.argmax(mu))
    out = {name: [] for name in METRICS}
    actions = np.zeros(T, dtype=np.int64)
    cps = set(int(c) for c in checkpoints)
    real = pseudo = 0.0
    n_nan = n_clip = n_nonpd = n_best = 0
    a, has_nan, clipped, V = 0, False, False, None
    for t in range(T):
        if t in refresh:
            u, G = server.statistics(t)
            V = policy.lam * np.eye(d) + G
            Vinv = np.linalg.inv(V)
            theta = Vinv @ u
            q = np.einsum("ki,ij,kj->k", X, Vinv, X)
            has_nan = bool(np.any(q < 0)) and not policy.clip
            clipped = bool(np.any(q < 0)) and policy.clip
            with np.errstate(invalid="ignore"):
                width = np.sqrt(np.maximum(q, 0.0) if policy.clip else q)
            a = argmax_ties(X @ theta + beta[refresh[t]] * width)
            try:
                np.linalg.cholesky(V)
            except np.linalg.LinAlgError:
                n_nonpd += 1
        actions[t] = a
        y = float(rewards[t, a])
        real += float(rewards[t, kb]) - y
        pseudo += mu[kb] - mu[a]
        n_best += a == kb
        n_nan += has_nan
        n_clip += clipped
        server.receive(t, X[a], y)
        if t + 1 in cps:
            for name, value in zip(
                METRICS,
                (real, pseudo, n_nan, n_clip, n_nonpd, n_best, np.linalg.eigvalsh(V)[0]),
                strict=True,
            ):
                out[name].append(value)
    result = {name: np.array(v, dtype=float) for name, v in out.items()}
    result["actions"] = actions
    return result


def reference_etc(
    policy: Policy,
    X: np.ndarray,
    mu: np.ndarray,
    rewards: np.ndarray,
    checkpoints: np.ndarray,
) -> dict[str, np.ndarray]:
    """Explore-then-commit (:mod:`dpbandits.policies.etc`) for one trial, literally: the
    exploration rounds' arms and rewards are kept as a list, the model is the ridge solution
    ``(lambda I + sum x x^T)^{-1} sum x y`` of that list at the commit, and the index of every
    arm is ``X @ theta``. Returns :func:`reference_run`'s dict."""
    T, n = policy.setting.T, policy.n_explore
    K, d = X.shape
    kb = int(np.argmax(mu))
    history: list[tuple[int, float]] = []
    V = policy.lam * np.eye(d)
    out = {name: [] for name in METRICS}
    actions = np.zeros(T, dtype=np.int64)
    cps = set(int(c) for c in checkpoints)
    real = pseudo = 0.0
    n_best = 0
    committed = None
    for t in range(T):
        if t < n:
            a = t % K
        else:
            if committed is None:
                V = policy.lam * np.eye(d) + sum(np.outer(X[k], X[k]) for k, _ in history)
                u = sum(X[k] * y for k, y in history)
                committed = argmax_ties(X @ np.linalg.solve(V, u))
            a = committed
        actions[t] = a
        y = float(rewards[t, a])
        real += float(rewards[t, kb]) - y
        pseudo += mu[kb] - mu[a]
        n_best += a == kb
        if t < n:
            history.append((a, y))
        if t + 1 in cps:
            V_now = (
                V
                if committed is not None
                else policy.lam * np.eye(d) + sum(np.outer(X[k], X[k]) for k, _ in history)
            )
            values = (real, pseudo, 0, 0, 0, n_best, np.linalg.eigvalsh(V_now)[0])
            for name, value in zip(METRICS, values, strict=True):
                out[name].append(value)
    result = {name: np.array(v, dtype=float) for name, v in out.items()}
    result["actions"] = actions
    return result


def reference_adac_oful(A, U, theta, rho, noise_rng, constants=None):
    """AdaC-OFUL on one trial, literally (the reference of
    :func:`dpbandits.engine.adac_oful.run_adac_oful`): ``V`` and its determinant recomputed from
    the played actions every round, the episode estimate from the released sums, one
    ``normal(0, sigma, size=d)`` per switch.

    Parameters
    ----------
    A : ndarray, shape (T, K, d); U : ndarray, shape (T, K); theta : ndarray, shape (d,)
    rho : float (``inf``: OFUL-RS); noise_rng : numpy.random.Generator
    constants : OfulConstants, optional

    Returns
    -------
    regret : float
        Cumulative pseudo-regret at ``T``.
    switches : list of int
        The rounds at which episodes start (1 first).
    """
    import math

    from dpbandits.engine.adac_oful import SWITCH_LOG_RATIO, OfulConstants, sqrt_beta

    c = constants or OfulConstants()
    T, K, d = A.shape
    sigma = 2.0 / math.sqrt(2.0 * rho) if not math.isinf(rho) else 0.0
    played, rewards = [], []
    released = np.zeros(d)
    k, tau = 1, 1
    Vt = np.eye(d) * c.lam
    theta_t = np.zeros(d)
    width = float(sqrt_beta(1, d, c))
    switches, regret = [1], 0.0
    for t in range(1, T + 1):
        V = c.lam * np.eye(d) + sum((np.outer(a, a) for a in played), np.zeros((d, d)))
        if t > 1 and np.linalg.slogdet(V)[1] - np.linalg.slogdet(Vt)[1] > SWITCH_LOG_RATIO:
            episode = sum(
                (a * r for a, r in zip(played[tau - 1 :], rewards[tau - 1 :], strict=True)),
                np.zeros(d),
            )
            released = released + episode + (noise_rng.normal(0.0, sigma, size=d) if sigma else 0)
            k, tau, Vt = k + 1, t, V
            theta_t = np.linalg.inv(Vt) @ released
            g = 0.0
            if sigma:
                lam_min = np.linalg.eigvalsh(Vt)[0]
                g = (
                    sigma
                    * math.sqrt(k - 1)
                    * (math.sqrt(d) + math.sqrt(2 * math.log(4 * k * k / c.delta_c)))
                    / math.sqrt(lam_min)
                )
            width = float(sqrt_beta(t, d, c)) + g
            switches.append(t)
        Vinv = np.linalg.inv(Vt)
        index = [
            A[t - 1, j] @ theta_t + width * math.sqrt(A[t - 1, j] @ Vinv @ A[t - 1, j])
            for j in range(K)
        ]
        j = argmax_ties(np.array(index))
        mean = A[t - 1] @ theta
        played.append(A[t - 1, j])
        rewards.append(1.0 if U[t - 1, j] < (1 + mean[j]) / 2 else -1.0)
        regret += mean.max() - mean[j]
    return regret, switches
