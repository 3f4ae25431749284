"""Negative and positive controls of the rate audit: planted violations.

For every fit, the audit redraws the same design (levels, number of instances, the observed
per-instance spread and its pairing across levels) :data:`REDRAWS` times with a *known* true
exponent and runs the same fit and verdict on each redraw:

``planted violation``
    true exponent ``claimed + planted_excess`` (``claimed - planted_excess`` for a lower
    bound), with ``planted_excess = detectable_excess + PLANT_MARGIN``. The design claims to
    detect this excess with probability at least ``POWER`` (0.8); the control is *detected*
    (passed) unless the share of redraws flagged as the violation (``exceeds`` / ``below``) is
    significantly below ``POWER`` (one-sided binomial test at level :data:`ALPHA`). A failed
    control means the power statement is wrong, and the family's ``consistent`` verdicts
    become ``untestable``;
``meets claim``
    true exponent ``claimed``: passed unless the share of redraws flagged as a violation is
    significantly above :data:`FALSE_ALARM` (same test).

Why many redraws: one redraw cannot check a power statement. At 80 % power a single planted
redraw is missed one time in five by design (at paper scale the power at
``detectable + PLANT_MARGIN`` is 0.9-1.0, so a handful of ~180 single redraws were missed with
the power statement right). With :data:`REDRAWS` = 40 the test passes a true 80 % with
probability >= 0.99 and fails a design whose real power is 50 % with probability 0.96.

A redraw resamples the instances (rows of the observed matrix, so pairing and per-level spread
are kept) with its own seed, divides each level by its observed mean and multiplies it by the
planted curve ``m (x / x_bar)^e`` (``m``, ``x_bar`` the geometric means of the observed means and
the levels). The controls test the statistical design of each family, not the simulated
algorithm.

``planted contestant run``
    a redraw keeps the design's instances and horizons but not what they can show: a family
    whose instances are too easy, or whose horizons too short, for any violation to reach the
    fit passes the redraw controls all the same. So every family of rate sweeps also *runs* a
    contestant with a known worse rate on the same instances and horizons: explore-then-commit
    (:mod:`dpbandits.policies.etc`) with ``ceil(c T^a)`` exploration rounds, whose regret grows
    like ``T^a`` once the committed arm is the best one, ``a`` above the claims' exponents. Its
    T-fit is judged against each claim's claimed exponent (log factors included) with the same
    verdict and regime rule as the claim's own fits (:func:`contestant_control`): the control
    passes when it reads ``exceeds`` in the learning regime. If it does not, no violation of
    that size could be demonstrated there, and the claim's ``consistent`` T-fits become
    ``untestable`` (:func:`planted_contestants`).
"""

from __future__ import annotations

import math
import zlib
from collections import Counter

import numpy as np

from . import verdicts as vocab
from .fits import fit_exponent, verdict
from .levels import claimed_T_exponent, final_values, level_matrix
from .verdicts import POWER

#: Planted excess above the family's detectable excess.
PLANT_MARGIN = 0.05
#: Redraws per control.
REDRAWS = 40
#: Bootstrap resamples of each redraw's fit (at most; fewer when the audit uses fewer).
REDRAW_BOOT = 400
#: Level of the binomial tests on the flagged share of redraws.
ALPHA = 0.01
#: Stated false-alarm rate of a verdict at the claimed exponent: the one-sided error of the
#: 95 % percentile interval (2.5 %) doubled for the bootstrap interval's undercoverage with
#: 20 instances.
FALSE_ALARM = 0.05
#: Name of the control row of a planted contestant run.
CONTESTANT = "planted contestant run"
#: Why a claim's ``consistent`` fits turn ``untestable`` when its contestant is not detected.
CONTESTANT_MISSED = "the planted contestant (ETC T^a) was not detected"
CONTROL_COLUMNS = [
    "claim_id",
    "experiment",
    "sweep",
    "schedule",
    "variable",
    "fixed",
    "direction",
    "control",
    "claimed",
    "planted_excess",
    "redraws",
    "flagged",
    "flag_rate",
    "slope",
    "slope_sd",
    "verdict",
    "detected",
    "passed",
]


def control_seed(seed: int, *names) -> int:
    """A stable seed per fit: ``seed`` combined with a CRC-32 of its names."""
    return (int(seed) * 2654435761 + zlib.crc32("|".join(map(str, names)).encode())) % 2**32


def redraw(levels, values, exponent: float, seed: int) -> np.ndarray:
    """A fresh (instances x levels) matrix of the design with true exponent ``exponent``.

    Raises ``ValueError`` when a level's observed mean is not positive.
    """
    x = np.asarray(levels, dtype=float)
    Y = np.asarray(values, dtype=float)
    m = Y.mean(axis=0)
    if np.any(m <= 0):
        raise ValueError("a level's mean is not positive")
    rel = Y / m
    rows = np.random.default_rng(seed).integers(0, Y.shape[0], size=Y.shape[0])
    lx = np.log(x)
    curve = np.exp(np.log(m).mean() + exponent * (lx - lx.mean()))
    return rel[rows] * curve


def run_controls(
    levels,
    values,
    claimed: float,
    direction: str,
    tol: float,
    detectable: float,
    n_boot: int,
    seed: int,
    redraws: int = REDRAWS,
) -> list[dict]:
    """The planted-violation and meets-claim controls of one fit (module docstring).

    Redraw ``r`` of control ``k`` (0 planted, 1 meets claim) uses the seed ``[seed, k, r]`` and
    its bootstrap ``[seed, k, r, 1]`` with ``min(n_boot, REDRAW_BOOT)`` resamples.

    Returns
    -------
    list of dict
        One row per control: ``control``, ``planted_excess``, ``redraws``, ``flagged`` (redraws
        whose verdict is the violation), ``flag_rate``, the mean and sd of the redraws'
        slopes, the most frequent ``verdict``, ``detected`` (planted: the flagged share is not
        significantly below ``POWER``; meets claim: it is significantly above
        ``FALSE_ALARM``) and ``passed`` (``detected`` for the plant, not ``detected`` for the
        claim-meeting control).
    """
    violation = "exceeds" if direction == "upper" else "below"
    sign = 1.0 if direction == "upper" else -1.0
    boot = min(int(n_boot), REDRAW_BOOT)
    out = []
    for k, (name, excess) in enumerate(
        (("planted violation", detectable + PLANT_MARGIN), ("meets claim", 0.0))
    ):
        slopes, verdicts = [], []
        if math.isfinite(excess):
            for r in range(redraws):
                try:
                    Y = redraw(levels, values, claimed + sign * excess, [seed, k, r])
                except ValueError:
                    break
                fit = fit_exponent(levels, Y, boot, [seed, k, r, 1])
                slopes.append(fit.slope)
                verdicts.append(verdict(fit, claimed, direction, tol))
        from scipy.stats import binom  # here: the workflow's parse imports this module

        flagged = sum(v == violation for v in verdicts)
        if not verdicts:  # no finite plant or no positive mean: nothing was tested
            detected = False
        elif k == 0:
            detected = bool(binom.cdf(flagged, len(verdicts), POWER) > ALPHA)
        else:
            detected = bool(binom.sf(flagged - 1, len(verdicts), FALSE_ALARM) <= ALPHA)
        out.append(
            {
                "control": name,
                "claimed": claimed,
                "planted_excess": excess,
                "redraws": len(verdicts),
                "flagged": flagged,
                "flag_rate": flagged / len(verdicts) if verdicts else math.nan,
                "slope": float(np.mean(slopes)) if slopes else math.nan,
                "slope_sd": float(np.std(slopes, ddof=1)) if len(slopes) > 1 else math.nan,
                "verdict": Counter(verdicts).most_common(1)[0][0] if verdicts else "inconclusive",
                "detected": detected,
                "passed": detected if k == 0 else not detected,
            }
        )
    return out


def contestant_control(
    levels,
    values,
    caps,
    claimed: float,
    tol: float,
    n_boot: int,
    seed: int,
) -> dict:
    """The planted contestant control of one upper-bound claim (module docstring).

    Parameters
    ----------
    levels : array_like, shape (L,)
        Horizons of the contestant's runs (the claim's sweep's).
    values : ndarray, shape (n, L)
        The contestant's per-instance values (final regret, or its gap to the claim's baseline
        when the claim fits a gap).
    caps : array_like or None
        Mean saturation cap per horizon (None: unknown, regime ``learning``).
    claimed : float
        The claim's T-exponent over these horizons (log factors included).
    tol, n_boot, seed
        Tolerance, bootstrap resamples and seed of the fit.

    Returns
    -------
    dict
        ``control`` (:data:`CONTESTANT`), ``claimed``, ``planted_excess`` (the fitted slope
        minus ``claimed``), ``redraws`` 0, ``slope``, ``slope_sd`` (bootstrap sd from the 95 %
        interval), ``verdict`` (the interval's verdict, followed by the regime in brackets
        outside the learning regime) and ``detected`` = ``passed``: the verdict is ``exceeds``
        in the learning regime (:func:`dpbandits.audit.verdicts.regime`), where a violation of
        a claim's own fit could stand. The design gate of a claim (fixed instances against a
        worst-case bound) is not applied: the control asks whether these instances and
        horizons can tell the rates apart, not what the claim's design may conclude.
    """
    x = np.asarray(levels, dtype=float)
    Y = np.asarray(values, dtype=float)
    fit = fit_exponent(x, Y, n_boot, seed)
    stat = verdict(fit, claimed, "upper", tol)
    reg, _ = vocab.regime(Y.mean(axis=0), caps, trend=True)
    found = stat == "exceeds" and reg == "learning"
    final = stat if reg == "learning" else f"{stat} ({reg})"
    return {
        "control": CONTESTANT,
        "claimed": claimed,
        "planted_excess": fit.slope - claimed,
        "redraws": 0,
        "flagged": int(found),
        "flag_rate": math.nan,
        "slope": fit.slope,
        "slope_sd": (fit.ci_high - fit.ci_low) / (2 * 1.959964),
        "verdict": final,
        "detected": found,
        "passed": found,
    }


#: Algorithm ids of the planted contestant in the sweeps (:mod:`dpbandits.policies.etc`: on the
#: per-round engines, and on the phased engine of dpdpe's sweeps).
CONTESTANT_ALGORITHMS = ("etc", "etc_phased")


def planted_contestants(
    claims: list[dict],
    df,
    rows: list[dict],
    tol: float,
    n_boot: int,
    seed: int,
    schedule_options: dict,
    baseline: str = "linucb",
) -> list[dict]:
    """Planted contestant controls of every upper-bound T claim on a sweep with a contestant,
    and the gate they imply (module docstring).

    Parameters
    ----------
    claims : list of dict
        The registry entries; those with ``audit.check == "slope"``, an upper bound, a T fit and
        a regret metric are judged against every contestant schedule of their sweep (the
        schedules of ``df`` whose ``algorithm`` is one of :data:`CONTESTANT_ALGORITHMS`), once per
        distinct claimed exponent (over the claim's schedules' options) and dimension.
    df : DataFrame
        The sweeps' results (:func:`dpbandits.audit.rates.evaluate_rate_claims`'s ``df``).
    rows : list of dict
        The rate audit's fit rows (before the summary rows are filled in): the ``consistent``
        T fits (``variable`` starting with ``T``) of a claim whose contestant control did not
        pass become ``untestable``, with :data:`CONTESTANT_MISSED` in the reason (in place).
    tol, n_boot, seed, schedule_options, baseline
        As :func:`dpbandits.audit.rates.evaluate_rate_claims`; a claim with ``T_fit: gap`` is
        judged on the contestant's regret minus the claim's baseline schedule, as its own fits.

    Returns
    -------
    list of dict
        One control row per (claim, contestant schedule, claimed exponent, dimension), columns
        :data:`CONTROL_COLUMNS`; empty when no sweep has a contestant.
    """

    if df is None or df.empty or "algorithm" not in df.columns:
        return []
    found = df.loc[df["algorithm"].isin(CONTESTANT_ALGORITHMS), ["sweep", "schedule"]]
    contestants: dict[str, list[str]] = {}
    for sweep, sched in found.drop_duplicates().itertuples(index=False):
        contestants.setdefault(sweep, []).append(sched)
    out, missed = [], {}
    finals_of: dict = {}
    for claim in claims:
        audit = claim.get("audit") or {}
        metric = audit.get("metric", "regret_pseudo")
        if (
            audit.get("check") != "slope"
            or claim.get("direction") != "upper"
            or "T" not in (audit.get("fit") or ())
            or claim.get("T_exp") is None
            or not metric.startswith("regret")
            or audit.get("sweep") not in contestants
        ):
            continue
        if metric not in finals_of:
            finals_of[metric] = final_values(df, metric)
        finals = finals_of[metric]
        finals = finals[finals["sweep"] == audit["sweep"]]
        gap_to = audit.get("baseline", baseline) if audit.get("T_fit") == "gap" else None
        for sched in contestants[audit["sweep"]]:
            mine = finals[finals["schedule"] == sched]
            dims = sorted(int(d) for d in mine["d"].unique())
            for d in dims:
                x, Y, caps = level_matrix(finals, sched, None, d, with_caps=True)
                if len(x) < 2:
                    continue
                if gap_to is not None:
                    Y = Y - level_matrix(finals, gap_to, None, d)[1]
                claimed_all = sorted(
                    {
                        claimed_T_exponent(claim, schedule_options.get((audit["sweep"], s), {}), x)
                        for s in audit["schedules"]
                    }
                )
                for claimed in claimed_all:
                    key = (claim["id"], sched, claimed, d)
                    row = contestant_control(
                        x, Y, caps, claimed, tol, n_boot, control_seed(seed, *key)
                    )
                    out.append(
                        {
                            "claim_id": claim["id"],
                            "experiment": audit["experiment"],
                            "sweep": audit["sweep"],
                            "schedule": sched,
                            "variable": "T" if gap_to is None else f"T (gap to {gap_to})",
                            "fixed": f"d={d}" if len(dims) > 1 else "",
                            "direction": "upper",
                            **row,
                        }
                    )
                    if not row["passed"]:
                        missed.setdefault((claim["id"], audit["sweep"]), row)
    for r in rows:
        if "summary_of" in r or r.get("verdict") != "consistent":
            continue
        miss = missed.get((r.get("claim_id"), r.get("sweep")))
        variable = str(r.get("variable", ""))
        if miss is not None and variable.startswith("T") and not variable.endswith("[literal]"):
            r["verdict"] = "untestable"
            r["reason"] += (
                f"; so untestable: {CONTESTANT_MISSED} (its T-slope {miss['slope']:.3f} reads "
                f"{miss['verdict']} against the claimed {miss['claimed']:.3f} + tolerance {tol:g})"
            )
    return out
