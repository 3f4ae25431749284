"""Verdicts of the PrivateLASSO audit (plasso; docs/papers/plasso.md#verdicts) from the
PL-E1 / PL-E2 results: one row per (claim, rule, family, configuration, algorithm, eps), one
aggregate row per (claim, rule, family), and one verdict per claim.

Roles of a row: ``verdict`` (counts for the claim), ``control`` (families that violate the
claim's assumptions: F2/F3 for Theorem 2, expected to fail; they show the test's power),
``reference`` (non-private algorithms and PrivateLASSO(inf), shown for comparison) and
``diagnostic`` (ablations, Oracle-TBAP, support recovery, K / s0 scans: reported, never a
verdict).

Statistics: means over trials; 95 % percentile bootstrap with ``B = 2000`` replicates from
a generator seeded with 0, resampling trials independently per horizon (runs at different ``T``
are independent) and jointly across algorithms at one horizon (common random numbers: the
environment streams do not depend on the algorithm). ``b_claim`` is the claim term's secant
exponent over the fit window, log factors included; ``C_impl = max_{T in window} mean R(T) /
f(T)`` with unit coefficients.

Shared columns (issue 19, :mod:`dpbandits.audit.verdicts`). ``verdict`` of every rate rule
(R-UP-T, R-EPS, R-SHAPE, R-DIM, the K / s0 scans) is in the shared vocabulary (consistent /
exceeds / inconclusive / untestable, :func:`~dpbandits.audit.minimax_rules.shared_verdict`); the
rule's own word (SUPPORTED, CONTRADICTED, INCONCLUSIVE, PRE-ASYMPTOTIC) is kept in
``rule_verdict``, with ``regime``, ``detectable_excess`` and ``reason``. Saturation is the shared
rule (:func:`dpbandits.audit.verdicts.regime`): a fit with a horizon (or eps) whose mean regret
reaches half of random play's (``regret_unif_T``) is ``untestable``; it replaces the former 0.8
of random play's at the largest horizon only. A ``consistent`` verdict also needs the learning
regime and ``detectable_excess <= MAX_DETECTABLE`` (0.1). Rows that are not rate fits (R-LB-INFO,
R-SUPP, NOT-RUN) keep their label. Family aggregates combine their eps with
:func:`~dpbandits.audit.minimax_rules.combine` (untestable eps left out unless all are), claims
their rules with :func:`~dpbandits.audit.minimax_rules.combine_rules` (consistent only when every
rule is); both keep :func:`aggregate_upper` of the own words in ``rule_verdict``.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpbandits.audit import minimax_rules
from dpbandits.audit import verdicts as vocab
from dpbandits.audit.minimax_rules import (
    BOOT_SEED,
    MAX_DETECTABLE,
    N_BOOT,
    RuleResult,
    aggregate,
    claim_robustness,
    combine,
    combine_rules,
    fit_regime,
    judge,
    level_saturated,
    loglog_slope,
    refit_robustness,
    rule_up_t,
)
from dpbandits.audit.rates import _slopes, bootstrap_means
from dpbandits.bound_claims import bound_value, t_secant_exponent, term_value

from .claim_reasons import family_why

#: Tolerances of the T, eps and d exponent checks: the shared rules' (a tolerance at or above the
#: 0.1 power a ``consistent`` verdict needs could never give one; docs/papers/plasso.md).
TAU_T = TAU_EPS = TAU_D = minimax_rules.TAU_T

#: R-DIM: CONTRADICTED when the d-slope surely exceeds this (docs/papers/plasso.md, "Decisions
#: recorded from the code").
DIM_CONTRADICTED = 0.5

#: K and s0 scans: claimed slopes on ln(K - 1) and ln s0 (the explicit bounds of Theorems 2-3)
#: and their tolerances (docs/papers/plasso.md, "Decisions recorded from the code").
SCAN_CLAIMS = {"K": (1.0, 0.15), "s0": (1.5, 0.3)}

#: Support diagnostics use the episodes starting at or after this round (4 lambda_t < theta_min
#: from t ~ 2^9 with lambda0 = 0.2; docs/papers/plasso.md, "Decisions recorded from the code").
SUPPORT_FROM = 2**9

NOT_RUN = "NOT-RUN"

BASE = {"d": 100, "K": 2, "s0": 5}

VERDICT_SEMANTICS = (
    "Shared vocabulary (verdict; rule_verdict keeps the rule's own word before the audit's gates "
    "of regime, design and power: a reading, not a verdict). Upper bounds (Theorems 2, "
    "3): consistent (SUPPORTED) when the 95% bootstrap interval of the regret's T-slope ends at or "
    "below the claim's effective exponent (secant over the fit window, log factors included) plus "
    "0.05, the regime is learning and the design would detect the exponent excess the audit "
    "requires (audit.max_detectable_excess of config/config.yaml; detectable_excess, 80% power), "
    "else inconclusive; exceeds (CONTRADICTED) when it starts "
    "above, in the learning regime, and still does without the smallest horizon (else a "
    "one-horizon violation: inconclusive); untestable (PRE-ASYMPTOTIC) when the mean regret at any "
    "fitted horizon is at least 0.5 of random play's (regime saturated). A rule aggregates its "
    "finite eps values (any exceeds wins; untestable values left out unless all are); a claim is "
    "consistent only when every rule is. R-EPS: the excess over PrivateLASSO(inf) at T_max must "
    "fall like 1/eps or faster (slope <= -1 + 0.05). R-SHAPE: the ratio to PrivateLASSO(inf) "
    "may grow at most like Theorem 2's log^3 T log(log T/delta), the theorem the remark "
    "restates (its secant slope + 0.05). Controls are families that violate the claim's "
    "assumptions (reported, not verdicts). NOT-AUDITED: privacy and accuracy claims, covered by "
    "unit tests. NOT-RUN: the configuration belongs to the full tier."
)

COLUMNS = (
    "claim_id", "rule", "role", "family", "d", "K", "s0", "algorithm", "eps", "T_max",
    "statistic", "ci_low", "ci_high", "claimed", "C_impl", "verdict", "rule_verdict", "regime",
    "detectable_excess", "robustness", "reason", "note",
)  # fmt: skip

#: Reasons of rows that are not rate fits (no claimed exponent, so no detectable excess).
NON_RATE_REASONS = {
    NOT_RUN: "not run at this tier ({note}): no verdict",
    "R-LB-INFO": "information only: ratio to the minimax lower bound ({note}), not a rate fit",
    "R-SUPP": "diagnostic: support recovery per episode ({note}), not a rate fit",
}

CLAIM_COLUMNS = (
    "claim_id", "kind", "where", "claimed", "rules", "verdict", "rule_verdict", "robustness",
    "notes",
)  # fmt: skip


def fmt_eps(eps: float) -> str:
    return "inf" if math.isinf(eps) else f"{eps:g}"


def aggregate_upper(verdicts) -> str:
    """R-UP-T aggregate (docs/papers/plasso.md#verdicts): CONTRADICTED if any value is;
    SUPPORTED if every non-saturated value is (at least one); PRE-ASYMPTOTIC if all are
    saturated; else INCONCLUSIVE."""
    v = list(verdicts)
    if v and all(x == "PRE-ASYMPTOTIC" for x in v):
        return "PRE-ASYMPTOTIC"
    return aggregate(v)


class PlassoAudit:
    """Every verdict rule of docs/papers/plasso.md#verdicts on the results of one tier.

    Parameters
    ----------
    runs : pandas.DataFrame
        Rows of every run file (:mod:`dpbandits.papers.plasso.runs`).
    episodes : pandas.DataFrame
        Episode rows of every run file.
    claims : list of dict
        The registry ``config/claims/plasso.yaml``.
    fit_points : int
        Top horizons of the T-slope window.
    max_detectable : float
        Power a ``consistent`` verdict needs (``audit.max_detectable_excess`` of the config).
    """

    def __init__(self, runs, episodes, claims, fit_points: int, max_detectable=MAX_DETECTABLE):
        self.runs = runs
        self.max_detectable = max_detectable
        self.episodes = episodes
        self.claims = {c["id"]: c for c in claims}
        self.fit_points = fit_points
        e1 = runs[runs["experiment"] == "PL-E1"]
        self.e1 = e1
        self.families = sorted(e1["family"].unique())
        self.T = np.sort(e1["T"].unique()).astype(float)
        self.window = self.T[-fit_points:]
        self.rows: list[dict] = []

    # --- data -------------------------------------------------------------------------------
    def matrix(self, family, algorithm, eps, column="regret_T", T=None, df=None):
        """``M[j, i]``: value at horizon ``T[j]`` (default: the fit window) of trial ``i``."""
        df = self.e1 if df is None else df
        sub = df[(df["family"] == family) & (df["algorithm"] == algorithm) & (df["eps"] == eps)]
        wide = sub.pivot_table(index="T", columns="trial", values=column, aggfunc="first")
        T = self.window if T is None else T
        return wide.loc[T].to_numpy(dtype=float)

    def has(self, family, algorithm, eps) -> bool:
        e = self.e1
        return bool(
            ((e["family"] == family) & (e["algorithm"] == algorithm) & (e["eps"] == eps)).any()
        )

    def eps_values(self, family, algorithm) -> list[float]:
        e = self.e1
        return sorted(e[(e["family"] == family) & (e["algorithm"] == algorithm)]["eps"].unique())

    def _values(self, eps) -> dict:
        return {**BASE, "eps": eps, "delta": 0.01, "sigma": 0.5, "T": self.window[-1]}

    def _add(
        self, claim, res: RuleResult, role, family, algorithm, eps, cfg=None, C_impl=math.nan,
        robustness="",
    ):  # fmt: skip
        """One row: rate rules carry the shared verdict, other rows their label; ``robustness``
        of a violation (:func:`~dpbandits.audit.minimax_rules.refit_robustness`)."""
        cfg = cfg or BASE
        key = NOT_RUN if res.verdict == NOT_RUN else res.rule
        reason = res.reason or NON_RATE_REASONS.get(key, "not a rate fit").format(
            note=res.note or "-"
        )
        # a violation that disappears without the smallest horizon is no demonstrated one
        verdict, robustness, transient = vocab.settle_fragile(res.shared or res.verdict, robustness)
        reason = f"{transient}; {reason}" if transient else reason
        self.rows.append(
            {
                "claim_id": claim, "rule": res.rule, "role": role, "family": family,
                "d": cfg["d"], "K": cfg["K"], "s0": cfg["s0"], "algorithm": algorithm,
                "eps": eps, "T_max": self.window[-1] if cfg is BASE else cfg.get("T", math.nan),
                "statistic": res.statistic, "ci_low": res.ci_low, "ci_high": res.ci_high,
                "claimed": res.claimed, "C_impl": C_impl, "verdict": verdict,
                "rule_verdict": res.verdict, "regime": res.regime,
                "detectable_excess": res.detectable_excess, "robustness": robustness,
                "reason": reason, "note": res.note,
            }
        )  # fmt: skip

    # --- rules ------------------------------------------------------------------------------
    def up_t(self, claim_id: str, family: str, role: str) -> None:
        """R-UP-T for every eps of PrivateLASSO on one family (finite eps: ``role``; inf,
        baselines: reference; ablations, the support-block tree among them, and Oracle-TBAP:
        diagnostic)."""
        claim = self.claims[claim_id]
        term = claim["terms"][0]
        series = [("private_lasso", e) for e in self.eps_values(family, "private_lasso")]
        for alg in ("np_th_lasso", "oracle_ols", "oracle_tbap", "svt_noise_off", "tbap_noise_off",
                    "support_block_tree"):  # fmt: skip
            series += [(alg, e) for e in self.eps_values(family, alg)]
        for alg, eps in series:
            R = self.matrix(family, alg, eps)
            U = self.matrix(family, alg, eps, "regret_unif_T")
            # b_claim and C_impl at the claim's eps (inf: the eps-free shape at eps = 1).
            values = self._values(1.0 if math.isinf(eps) else eps)
            f = np.array([bound_value(claim, {**values, "T": t}) for t in self.window])
            C_impl = float(np.max(R.mean(axis=1) / f))

            def fit(x, R, U, values=values):
                b_claim = t_secant_exponent(term, values, x[0], x[-1])
                return rule_up_t(x, R, U, b_claim, tau=TAU_T, max_detectable=self.max_detectable)

            res = fit(self.window, R, U)
            rob = refit_robustness(res, fit, self.window, R, U)
            if alg == "private_lasso" and not math.isinf(eps):
                r = role
            elif alg in ("np_th_lasso", "oracle_ols") or alg == "private_lasso":
                r = "reference"
            else:
                r = "diagnostic"
            self._add(claim_id, res, r, family, alg, eps, C_impl=C_impl, robustness=rob)

    def _excess(self, family, alg, ref, eps_list):
        """Per-trial excess at T_max over ``ref`` (paired: common random numbers), usable eps."""
        T_max = self.T[-1:]
        R_ref = self.matrix(family, ref, math.inf, T=T_max)[0]
        usable, E, notes, means, caps, n_sat = [], [], [], [], [], 0
        rng = np.random.default_rng(BOOT_SEED)
        for eps in eps_list:
            R = self.matrix(family, alg, eps, T=T_max)[0]
            U = self.matrix(family, alg, eps, "regret_unif_T", T=T_max)[0]
            diff = R - R_ref
            boot = bootstrap_means(diff[:, None], N_BOOT, rng)[:, 0]
            if level_saturated(R.mean(), U.mean()):
                notes.append(f"{fmt_eps(eps)}: saturated")
                n_sat += 1
            elif np.percentile(boot, 2.5) <= 0:
                notes.append(f"{fmt_eps(eps)}: excess CI not above 0")
            else:
                usable.append(eps)
                E.append(diff)
                means.append(R.mean())
                caps.append(U.mean())
        return usable, np.array(E), notes, (means, caps, n_sat)

    def eps_rule(self, claim_id: str, family: str, role: str, alg="private_lasso", ref=None):
        """R-EPS: slope of the excess at T_max on ln eps over the usable eps (>= 3)."""
        ref = ref or alg
        finite = [e for e in self.eps_values(family, alg) if not math.isinf(e)]
        if ref == alg and not self.has(family, alg, math.inf):
            return
        usable, E, notes, (means, caps, n_sat) = self._excess(family, alg, ref, finite)
        note = "; ".join(notes)
        if len(usable) < 3:
            res = RuleResult("R-EPS", "INCONCLUSIVE", claimed=-1.0,
                             note=f"not measurable: {len(usable)} usable eps. {note}")  # fmt: skip
            regime = (
                ("saturated", f"{n_sat} eps saturated at T_max, {len(usable)} usable")
                if n_sat
                else ("learning", "no eps saturated at T_max")
            )
            res = judge(res, "upper", TAU_EPS, regime=regime, max_detectable=self.max_detectable)
        else:
            s, lo, hi = loglog_slope(usable, E, paired=True)
            if hi <= -1 + TAU_EPS:
                verdict = "SUPPORTED"
            elif lo > -1 + TAU_EPS:
                verdict = "CONTRADICTED"
            else:
                verdict = "INCONCLUSIVE"
            used = ", ".join(fmt_eps(e) for e in usable)
            res = RuleResult("R-EPS", verdict, s, lo, hi, -1.0, f"usable eps: {used}. {note}")
            regime = fit_regime(means, caps, over="eps")
            res = judge(
                res,
                "upper",
                TAU_EPS,
                usable,
                vocab.log_mean_sd(E.T),
                regime,
                max_detectable=self.max_detectable,
            )
        self._add(claim_id, res, role, family, alg, math.nan)

    def shape(self, claim_id: str, family: str = "F1", ref: str = "private_lasso") -> None:
        """R-SHAPE: T-slope of ``q(T) = mean R_eps / mean R_ref`` (ref: PrivateLASSO(inf);
        NP-TH-LASSO as reference rows)."""
        ref_eps = math.inf
        if not self.has(family, ref, ref_eps):
            return
        R_ref = self.matrix(family, ref, ref_eps)
        x = self.window
        for eps in self.eps_values(family, "private_lasso"):
            if math.isinf(eps):
                continue
            R = self.matrix(family, "private_lasso", eps)
            U = self.matrix(family, "private_lasso", eps, "regret_unif_T")
            role = "verdict" if ref == "private_lasso" else "reference"
            res = self._shape_fit(x, R, R_ref, U, ref)
            rob = refit_robustness(res, lambda *a: self._shape_fit(*a, ref), x, R, R_ref, U)
            self._add(claim_id, res, role, family, "private_lasso", eps, robustness=rob)

    def _shape_fit(self, x, R, R_ref, U, ref) -> RuleResult:
        """R-SHAPE on horizons ``x``: the T-slope of the mean-regret ratio (bootstrapped over
        trials per horizon) against Theorem 2's T-shape with its logs, the theorem the remark
        restates (secant over ``x``; the literal slope 0 would blame it for those logs)."""
        term = self.claims["plasso.thm2"]["terms"][0]
        claimed = t_secant_exponent(term, self._values(1.0), x[0], x[-1])
        q = R.mean(axis=1) / R_ref.mean(axis=1)
        s = float(_slopes(x, q))
        rng = np.random.default_rng(BOOT_SEED)
        n = R.shape[1]
        idx = rng.integers(0, n, size=(N_BOOT, len(x), n))
        rows = np.arange(len(x))[None, :, None]
        qb = R[rows, idx].mean(axis=2) / R_ref[rows, idx].mean(axis=2)
        lo, hi = np.nanquantile(_slopes(x, qb), [0.025, 0.975])
        edge = claimed + TAU_T
        verdict = "SUPPORTED" if hi <= edge else "CONTRADICTED" if lo > edge else (
            "INCONCLUSIVE")  # fmt: skip
        note = f"ratio to {ref}; claimed: Theorem 2's T-shape with its logs"
        res = RuleResult("R-SHAPE", verdict, s, float(lo), float(hi), claimed, note)
        # saturated when PrivateLASSO(eps) reaches half of random play's at any horizon
        regime = fit_regime(R.mean(axis=1), U.mean(axis=1))
        return judge(
            res, "upper", TAU_T, x, _ratio_log_sd(R, R_ref), regime,
            max_detectable=self.max_detectable,
        )  # fmt: skip

    def lb_info(self, claim_id: str, family: str) -> None:
        """R-LB-INFO: ``mean R(T_max) / LB(T_max)`` for every series; the flag row compares
        Oracle-OLS's upper CI with ``LB(T)`` at ``eps <= 1`` at every T."""
        claim = self.claims[claim_id]
        e = self.e1[self.e1["family"] == family]
        T_all = self.T
        for (alg, eps), _ in e.groupby(["algorithm", "eps"], sort=True):
            R = self.matrix(family, alg, eps, T=T_all[-1:])
            lb = bound_value(claim, {**self._values(eps if eps < math.inf else 1.0),
                                     "T": T_all[-1]})  # fmt: skip
            res = RuleResult(
                "R-LB-INFO", "INFO", float(R.mean() / lb), note=f"LB(T_max) = {lb:.4g}"
            )
            self._add(claim_id, res, "diagnostic", family, alg, eps)
        R = self.matrix(family, "oracle_ols", math.inf, T=T_all)
        rng = np.random.default_rng(BOOT_SEED)
        below = []
        for j, t in enumerate(T_all):
            boot = bootstrap_means(R[j][:, None], N_BOOT, rng)[:, 0]
            lb = bound_value(claim, {**self._values(1.0), "T": t})
            if np.percentile(boot, 97.5) < lb:
                below.append(int(t))
        flag = "VIOLATION" if below else "NO-VIOLATION"
        note = (
            f"Oracle-OLS's upper CI below LB(T) at eps <= 1 for T = {below}: this instance is "
            "easier than the minimax lower bound's hard instances (a minimax bound cannot be "
            "contradicted by one instance)"
            if below
            else "Oracle-OLS above LB(T) at every T"
        )
        self._add(claim_id, RuleResult("R-LB-INFO", flag, note=note), "verdict", family,
                  "oracle_ols", math.inf)  # fmt: skip

    def support(self, claim_id: str, family: str) -> None:
        """R-SUPP (diagnostic): share of episodes (``t_l >= 2^9``, runs at T_max) with ``S``
        inside ``S_l``, and the mean number of false positives ``|S_l \\ S|``."""
        ep = self.episodes
        ep = ep[(ep["experiment"] == "PL-E1") & (ep["family"] == family)
                & (ep["T"] == self.T[-1]) & (ep["t_l"] >= SUPPORT_FROM)]  # fmt: skip
        for (alg, eps), sub in ep.groupby(["algorithm", "eps"], sort=True):
            if alg == "oracle_ols" or alg == "oracle_tbap":
                continue
            full = (sub["true_in_S"] == sub["s0"]).mean()
            fp = (sub["size_S"] - sub["true_in_S"]).mean()
            note = f"mean |S_l \\ S| = {fp:.2f} over {len(sub)} episodes"
            res = RuleResult("R-SUPP", "DIAGNOSTIC", float(full), note=note)
            self._add(claim_id, res, "diagnostic", family, alg, eps)

    def scans(self, claim_id: str) -> None:
        """PL-E2 (full tier): R-DIM on d (verdict), and the K and s0 slopes (diagnostic)."""
        e2 = self.runs[self.runs["experiment"] == "PL-E2"]
        if e2.empty:
            res = RuleResult("R-DIM", NOT_RUN, claimed=math.nan, note="PL-E2 runs in the full tier")
            self._add(claim_id, res, "verdict", "F1", "private_lasso", math.nan)
            return
        claim = self.claims[claim_id]
        for key in ("d", "K", "s0"):
            others = [k for k in ("d", "K", "s0") if k != key]
            sel = e2
            for k in others:
                sel = sel[sel[k] == BASE[k]]
            sizes = np.sort(sel[key].unique()).astype(float)
            if len(sizes) < 2:
                continue
            for (alg, eps), sub in sel.groupby(["algorithm", "eps"], sort=True):
                wide = sub.pivot_table(index=key, columns="trial", values="regret_T")
                R = wide.loc[sizes].to_numpy(float)
                U = sub.groupby(key)["regret_unif_T"].mean().loc[sizes].to_numpy(float)
                x = sizes - 1 if key == "K" else sizes
                s, lo, hi = loglog_slope(x, R, paired=False)
                T = float(sub["T"].iloc[0])
                if key == "d":
                    b = d_secant_exponent(claim, sizes[0], sizes[-1])
                    verdict = ("SUPPORTED" if hi <= b + TAU_D else "CONTRADICTED"
                               if lo > DIM_CONTRADICTED else "INCONCLUSIVE")  # fmt: skip
                    rule, tol, flag = "R-DIM", TAU_D, DIM_CONTRADICTED - b
                    role = (
                        "verdict" if alg == "private_lasso" and eps < math.inf
                        else "diagnostic" if alg == "support_block_tree" else "reference"
                    )  # fmt: skip
                else:
                    b, tol = SCAN_CLAIMS[key]
                    verdict = "SUPPORTED" if hi <= b + tol else "INCONCLUSIVE"
                    rule, role, flag = f"R-SCALE-{key}", "diagnostic", tol
                cid = claim_id if key == "d" else "plasso.thm2"
                res = RuleResult(
                    rule,
                    verdict,
                    s,
                    lo,
                    hi,
                    b,
                    f"slope on ln({key}{' - 1' if key == 'K' else ''}) at T = {T:g}",
                )
                regime = fit_regime(R.mean(axis=1), U, over=key)
                res = judge(
                    res,
                    "upper",
                    tol,
                    x,
                    vocab.log_mean_sd(R.T),
                    regime,
                    tol_flag=flag,
                    max_detectable=self.max_detectable,
                )
                self._add(cid, res, role, "F1", alg, eps, cfg={**BASE, key: "scan", "T": T})

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame]:
        """All rules; returns (rows with aggregates, claim verdicts)."""
        for family in self.families:
            self.up_t("plasso.thm2", family, "verdict" if family == "F1" else "control")
            self.up_t("plasso.thm3", family, "verdict")
            self.eps_rule("plasso.thm2", family, "verdict" if family == "F1" else "control")
            self.eps_rule("plasso.thm3", family, "verdict")
            if self.has(family, "oracle_ols", math.inf) and self.eps_values(family, "oracle_tbap"):
                self.eps_rule("plasso.thm3", family, "diagnostic", "oracle_tbap", "oracle_ols")
            self.lb_info("plasso.thm4", family)
            self.support("plasso.lem4", family)
        if "F1" in self.families:
            self.shape("plasso.thm2.shape", "F1")
            if self.has("F1", "np_th_lasso", math.inf):
                self.shape("plasso.thm2.shape", "F1", "np_th_lasso")
        self.scans("plasso.intro.dim")
        rows = pd.DataFrame(self.rows, columns=list(COLUMNS))
        agg = family_aggregates(rows)
        return pd.concat([rows, agg], ignore_index=True), claim_verdicts(rows, agg, self.claims)


def d_secant_exponent(claim: dict, d_lo: float, d_hi: float) -> float:
    """The claim term's secant exponent in ``d`` (R-DIM: ``ln d`` gives 0.176 over 100 ... 1000)."""
    term = claim["terms"][0]

    def f(d):
        return term_value(term, {**BASE, "d": d, "eps": 1.0, "delta": 0.01, "sigma": 0.5})

    return math.log(f(d_hi) / f(d_lo)) / math.log(d_hi / d_lo)


def _ratio_log_sd(R: np.ndarray, R_ref: np.ndarray) -> np.ndarray:
    """Delta-method sd of ``ln(mean R_j / mean R_ref_j)`` per level (rows are levels; trials
    paired by common random numbers)."""
    n = R.shape[1]
    mR, mF = R.mean(axis=1, keepdims=True), R_ref.mean(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        d = R / mR - R_ref / mF
        sd = d.std(axis=1, ddof=1) / np.sqrt(n) if n > 1 else np.zeros(R.shape[0])
        return np.where((mR[:, 0] > 0) & (mF[:, 0] > 0), sd, np.inf)


def family_aggregates(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per (claim, rule, family, role in verdict/control) aggregating the finite eps."""
    out = []
    sel = rows[rows["role"].isin(["verdict", "control"])
               & rows["rule"].isin(["R-UP-T", "R-SHAPE"])]  # fmt: skip
    for (cid, rule, fam, role), sub in sel.groupby(["claim_id", "rule", "family", "role"]):
        sat = [
            fmt_eps(e) for e, v in zip(sub["eps"], sub["regime"], strict=True) if v == "saturated"
        ]
        verdict = combine(sub["verdict"])
        out.append(
            {
                "claim_id": cid, "rule": rule, "role": role, "family": fam, "d": 100, "K": 2,
                "s0": 5, "algorithm": "aggregate", "eps": math.nan,
                "T_max": sub["T_max"].iloc[0], "statistic": math.nan, "ci_low": math.nan,
                "ci_high": math.nan, "claimed": sub["claimed"].iloc[0],
                "C_impl": math.nan, "verdict": verdict,
                "rule_verdict": aggregate_upper(sub["rule_verdict"]), "regime": "",
                "detectable_excess": math.nan,
                "reason": f"aggregate of {len(sub)} finite eps: {verdict} (untestable eps left out "
                "unless all are); the power is per eps",
                "note": f"saturated eps: {', '.join(sat) or 'none'}",
            }
        )  # fmt: skip
    return pd.DataFrame(out, columns=list(COLUMNS))


def claim_verdicts(rows: pd.DataFrame, agg: pd.DataFrame, claims: dict) -> pd.DataFrame:
    """One verdict per claim: the aggregate of its verdict-role rules (docs/papers/plasso.md).

    ``verdict``: :func:`~dpbandits.audit.minimax_rules.combine_rules` of the shared verdicts of
    its rules (family aggregates, R-EPS, R-DIM: consistent only when every one is; a rule whose
    every eps is untestable is untestable); ``rule_verdict``: :func:`aggregate_upper` of
    the own words; ``robustness`` of a violated claim:
    :func:`~dpbandits.audit.minimax_rules.claim_robustness` of its verdict rows. Claims that are
    not rate claims keep their label in both."""
    out = []
    for cid, claim in claims.items():
        audit = claim["audit"]
        parts = []
        own = None
        if audit.get("rule") == "NOT-AUDITED":
            verdict = "NOT-AUDITED"
            parts = ["unit tests (tests/papers/plasso/test_private_lasso.py)"]
        elif "R-SUPP" in audit.get("rules", []):
            verdict, parts = "DIAGNOSTIC", ["R-SUPP: support recovery per episode"]
        elif "R-LB-INFO" in audit.get("rules", []):
            flags = rows[(rows["claim_id"] == cid) & (rows["role"] == "verdict")]
            parts = [f"R-LB-INFO {r.family}: {r.verdict}" for r in flags.itertuples()]
            verdict = "INFORMATIONAL"
        else:
            used, words = [], []
            a = agg[agg["claim_id"] == cid]
            for r in a.itertuples():
                parts.append(f"{r.rule} {r.family}{' (control)' if r.role == 'control' else ''}: "
                             f"{r.verdict}{family_why(rows, cid, r)}")  # fmt: skip
                if r.role == "verdict":
                    used.append(r.verdict)
                    words.append(r.rule_verdict)
            single = rows[(rows["claim_id"] == cid) & (rows["role"] == "verdict")
                          & rows["rule"].isin(["R-EPS", "R-DIM"])]  # fmt: skip
            ctrl = rows[(rows["claim_id"] == cid) & (rows["role"] == "control")
                        & (rows["rule"] == "R-EPS")]  # fmt: skip
            for r in pd.concat([single, ctrl]).itertuples():
                stat = "" if math.isnan(r.statistic) else (
                    f" (slope {r.statistic:.2f} [{r.ci_low:.2f}, {r.ci_high:.2f}])")  # fmt: skip
                tag = " (control)" if r.role == "control" else ""
                parts.append(f"{r.rule} {r.family}{tag}: {r.verdict}{stat}")
                if r.role == "verdict":
                    used.append(r.verdict)
                    words.append(r.rule_verdict)
            live = [v for v in used if v != NOT_RUN]
            verdict = combine_rules(live) if live else NOT_RUN
            live_words = [v for v in words if v != NOT_RUN]
            own = aggregate_upper(live_words) if live_words else NOT_RUN
        out.append(
            {
                "claim_id": cid, "kind": claim["kind"], "where": claim["where"],
                "claimed": claim.get("headline_latex", claim["latex"]),
                "rules": "; ".join(parts) or "-", "verdict": verdict,
                "rule_verdict": verdict if own is None else own,
                "robustness": claim_robustness(
                    rows[(rows["claim_id"] == cid) & (rows["role"] == "verdict")], verdict
                ),
                "notes": claim.get("notes", ""),
            }
        )  # fmt: skip
    return pd.DataFrame(out, columns=list(CLAIM_COLUMNS))


__all__ = [
    "COLUMNS",
    "PlassoAudit",
    "VERDICT_SEMANTICS",
    "aggregate_upper",
    "claim_verdicts",
    "family_aggregates",
]
