"""The delivered-epsilon audit: for every privatised series of every figure and audit experiment,
the (epsilon, delta) its noise calibration actually delivers next to the nominal label.

One row per distinct (experiment, figure, configuration, series, privacy level, setting) of the
experiment files (figure and sweep cells) and of the figure-less papers' run plans (their rows:
``dpbandits.papers.<prefix>.privacy``). Delivered
epsilons are computed by :mod:`dpbandits.privacy.releases` and
:mod:`dpbandits.privacy.accounting` from the same calibration functions the simulations call,
at the nominal delta, at ``delta = 1/T`` and, for the linear bandits, under the paper's
normalisation of the data as well as under the bounds of the simulated instances.

Each row carries the certified upper bound (``delivered_epsilon``: the accountant's epsilon,
a certificate unless the method says otherwise) and, where one is known, a lower bound on the
true epsilon at the nominal delta (``lower_epsilon``, NaN otherwise; ``lower_method`` says how:
the exact worst pair, a post-processing of a shuffled output, exact count distributions of a
pair). ``outside_conditions`` names the conditions of the calibration's statement (theorem,
proposition, corollary) that the row's setting does not meet (empty inside them, and for the
experiments' calibrations, which claim no statement). A privacy check with ``view: local``
(config/experiments/<prefix>.yaml) audits one user's messages before the shuffler against the
local level the paper states for them (:func:`dpbandits.privacy.releases.cz22_local_release`,
the policy's ``stated_local_level``): its rows' nominal epsilon and delta are that level, its
series ``<algorithm> (local view)``.
Four verdicts (:func:`verdict`), comparisons up to 1e-9 relative:

``NOT-PRIVATE``
    No finite epsilon at delta: a pair of inputs is told apart with probability above delta
    (lower bound infinite).
``VIOLATED``
    The lower bound exceeds the nominal epsilon: the label is demonstrably wrong.
``DELIVERED``
    The upper bound is a certificate and at most the nominal epsilon.
``NOT-CERTIFIED``
    Neither: the upper bound exceeds the nominal epsilon (or is no certificate) while the lower
    bound does not (or is unknown); the truth may lie on either side.

DP-DPE's shuffle protocol is certified over every phase and support size
(:mod:`dpbandits.privacy.every_part`), DP-PE's over every user count
(:mod:`dpbandits.privacy.every_count`): no row reads a grid of its parts as a certificate.
"""

from __future__ import annotations

import math

import pandas as pd

from dpbandits.runtime.joblog import progress

from ..privacy import releases as rel
from ..privacy.cell_releases import cell_accounting_key, cell_release

COLUMNS = [
    "experiment",
    "figure",
    "configuration",
    "series",
    "algorithm",
    "calibration",
    "instances",
    "d",
    "T",
    "B",
    "nominal_epsilon",
    "nominal_delta",
    "delivered_epsilon",
    "lower_epsilon",
    "lower_method",
    "delivered_epsilon_delta_1_over_T",
    "delivered_epsilon_paper_bounds",
    "verdict",
    "outside_conditions",
    "universe",
    "mechanism",
    "method",
    "notes",
]


#: The verdicts of :func:`verdict`, the only words of ``privacy.csv``'s ``verdict`` column.
VERDICTS = ("DELIVERED", "NOT-CERTIFIED", "VIOLATED", "NOT-PRIVATE")
#: Relative tolerance of the comparisons with the nominal epsilon.
RTOL = 1e-9


def verdict(nominal: float, upper: float, certified: bool = True, lower: float = math.nan) -> str:
    """The verdict of one row from both bounds (module docstring).

    Parameters
    ----------
    nominal : float
        The epsilon the series is labelled with.
    upper : float
        The accountant's upper bound at the nominal delta.
    certified : bool
        Whether ``upper`` is a certificate.
    lower : float
        A lower bound on the true epsilon at the nominal delta (NaN: none known).

    Returns
    -------
    str
        One of :data:`VERDICTS`.
    """
    if math.isinf(lower):
        return "NOT-PRIVATE"
    if lower > nominal * (1 + RTOL):
        return "VIOLATED"
    if certified and upper <= nominal * (1 + RTOL):
        return "DELIVERED"
    return "NOT-CERTIFIED"


def release_bounds(release, nominal: float, delta: float) -> dict:
    """``delivered_epsilon`` (upper), ``lower_epsilon``, ``lower_method``, ``verdict`` and the
    accountant's note (``how``) of one release at ``delta``."""
    eps, how = rel.delivered_epsilon(release, delta)
    certified = release.certified
    if certified and eps <= nominal * (1 + RTOL) and not release.tight:
        # the certificate decides (DELIVERED): the lower bounds of the shuffled and bit-sum
        # protocols (privacy loss distributions of exact counts) are computed only where the
        # verdict needs them
        lower, lower_how = math.nan, "not needed: the certified upper bound is within the label"
    else:
        lower, lower_how = rel.lower_epsilon(release, delta, upper=eps)
    if not math.isnan(lower) and lower > eps * (1 + 1e-6) and certified:
        raise AssertionError(
            f"{release.mechanism}: lower bound {lower} above the certified upper bound {eps}"
        )
    return {
        "delivered_epsilon": eps,
        "lower_epsilon": lower,
        "lower_method": lower_how,
        "verdict": verdict(nominal, eps, certified, lower),
        "how": how,
    }


def release_row(
    base: dict,
    release,
    nominal: float,
    delta: float,
    T: int,
    paper=None,
    account: bool = True,
    companions: bool = True,
) -> dict:
    """One row of the table (:data:`COLUMNS` but the place columns, which ``base`` carries).

    ``account=False``: the row's identity only (``base``, ``T``, the nominal epsilon and delta,
    the mechanism), without any accounting: what a claim's selector can name, known while the
    workflow parses (:func:`dpbandits.audit.privacy_claims.check_selectors`).
    ``companions=False``: no accounting at ``delta = 1/T`` nor under the paper's bounds (NaN):
    a matched calibration's row, which certifies the level the calibration targets. A release
    with ``extra["no_small_delta"]`` (a reason) is not accounted at ``delta = 1/T`` either, and
    its row's notes give the reason."""
    if not account:
        return {
            **base,
            "T": T,
            "nominal_epsilon": nominal,
            "nominal_delta": delta,
            "mechanism": release.mechanism,
        }
    b = release_bounds(release, nominal, delta)
    # a release may say why it is not accounted at delta = 1/T (its cost there)
    skip = release.extra.get("no_small_delta") if companions and 1.0 / T < delta else None
    eps_T = (
        rel.delivered_epsilon(release, 1.0 / T)[0]
        if companions and not skip and 1.0 / T < delta
        else math.nan
    )
    eps_paper = (
        rel.delivered_epsilon(paper, delta)[0] if companions and paper is not None else math.nan
    )
    skipped = f"epsilon at delta = 1/T not computed: {skip}" if skip else ""
    notes = "; ".join(x.strip() for x in (release.notes, b["how"], skipped) if x and x.strip())
    return {
        **base,
        "T": T,
        "nominal_epsilon": nominal,
        "nominal_delta": delta,
        "delivered_epsilon": b["delivered_epsilon"],
        "lower_epsilon": b["lower_epsilon"],
        "lower_method": b["lower_method"],
        "delivered_epsilon_delta_1_over_T": eps_T,
        "delivered_epsilon_paper_bounds": eps_paper,
        "verdict": b["verdict"],
        "mechanism": release.mechanism,
        "method": release.method,
        "notes": notes,
    }


def matched_note(found) -> str:
    """The note of a matched row (:mod:`dpbandits.privacy.matching`): the internal epsilon, the
    noise knob where the search turned it, and where the certificate jumps over the tolerance
    band at every noise level, how far below the match stays and where the jump goes."""
    from ..privacy.matching import TOLERANCE

    text = (
        f"matched calibration: the base calibration's map at internal epsilon "
        f"{found.internal_epsilon:.4g} (accounted at the cell's delta only)"
    )
    if found.knob != 1.0:
        text += f", binomial noise p scaled by {found.knob:.6g}"
    if found.gap:
        if found.above is None:
            how = f"no noise level certifies more than {found.delivered:.4g}"
        else:
            to = (
                "no finite epsilon (the mass with infinite privacy loss passes delta)"
                if math.isinf(found.above)
                else f"at least {found.above:.4g}"
            )
            how = f"the certificate jumps from {found.delivered:.4g} to {to} there"
        return (
            f"{text}; not matchable within the band [{1 - TOLERANCE:g}, 1] x label: {how}: "
            f"matched from below, {100 * found.relative_error:.1f} % under the label"
        )
    return text


def _shown_at(cell) -> tuple[str, str, str]:
    """The table's ``figure, configuration, series`` of a cell: a figure cell's own, and for a
    sweep cell its sweep, schedule and algorithm."""
    if cell.kind == "sweep":
        return cell.sweep, cell.schedule, cell.algorithm
    return cell.figure, cell.configuration, cell.series


def experiment_rows(experiment, account: bool = True) -> list[dict]:
    """Rows of one experiment file's figure, sweep and privacy-check cells (private series
    only); ``account=False``: their identities only (:func:`release_row`)."""
    cells = [
        *experiment.cells,
        *(c for sw in experiment.sweeps for c in sw.cells),
        *getattr(experiment, "privacy_cells", ()),  # (an experiment without privacy checks)
    ]
    rows, seen = [], set()
    computed: dict[tuple, dict] = {}  # the accounting, by what the noise depends on
    local = {  # privacy checks of the local view: one user's messages at the stated level
        sid
        for sid, spec in (getattr(experiment, "data", None) or {}).get("privacy_checks", {}).items()
        if spec.get("view") == "local"
    }
    for cell in cells:
        if cell.epsilon is None:
            continue
        policy = cell.policy(search=account)
        if not policy.private:
            continue
        view = "local" if cell.kind == "sweep" and cell.sweep in local else ""
        shown = _shown_at(cell)
        key = (
            *shown,
            cell.epsilon,
            cell.delta,
            cell.d,
            cell.T,
            cell.B,
            cell.instances,
            cell.calibration,
            cell.fidelity,
            repr(sorted(cell.options.items())),
        )
        if key in seen:
            continue
        seen.add(key)
        # the same cell but for its place (figure, panel, configuration, series) and the gap of
        # a gap grid (the noise does not depend on the instance's gap) is accounted once
        noise = cell_accounting_key(cell) + view
        # a theory calibration outside the conditions its statement sets: the statement claims
        # nothing there (privacy_claims sets such rows aside)
        unmet = list(policy.unmet_statement_conditions())
        if getattr(policy, "match", None) is not None:  # the map at another epsilon
            unmet.append(
                "matched calibration: the paper's map at internal epsilon "
                f"{policy.match.internal_epsilon:.4g}, not its calibration at the label"
            )
        outside = "; ".join(unmet)
        if noise not in computed and view:
            universe = rel.instance_universe(cell.instances)
            eps0, delta0 = policy.stated_local_level()
            computed[noise] = {
                "universe": universe.name,
                **release_row(
                    {},
                    rel.cz22_local_release(policy, universe),
                    eps0,
                    delta0,
                    cell.T,
                    rel.cz22_local_release(policy, rel.PAPER_CZ22),
                    account,
                ),
            }
        if noise not in computed:
            release, paper, universe = cell_release(cell, policy)
            matched = getattr(policy, "match", None) is not None
            row = release_row(
                {}, release, float(cell.epsilon), cell.delta, cell.T, paper, account, not matched
            )
            if account and matched:
                row["notes"] = "; ".join(x for x in (matched_note(policy.match), row["notes"]) if x)
            computed[noise] = {"universe": universe, **row}
        base = {
            "experiment": cell.experiment,
            **dict(zip(("figure", "configuration", "series"), shown, strict=True)),
            **({"series": f"{shown[2]} (local view)"} if view else {}),
            "algorithm": cell.algorithm,
            "calibration": f"{cell.calibration}/{cell.fidelity}",
            "instances": cell.instances,
            "d": cell.d,
            "B": cell.B,
        }
        rows.append({**base, **computed[noise], "outside_conditions": outside})
    return rows


def delivered_table(
    experiments: dict, plans: dict | None = None, account: bool = True
) -> pd.DataFrame:
    """Every privatised series of the pipeline with its nominal and delivered epsilon.

    ``experiments``: the figure papers' experiments by prefix; ``plans``: the figure-less
    papers' run plans by prefix, whose rows come from their registry entry's
    ``privacy_rows`` (:mod:`dpbandits.papers`); ``account=False``: the rows' identities only,
    without accounting (:func:`release_row`; the other columns empty)."""
    from ..papers import paper

    rows = []
    for exp in experiments.values():
        rows += experiment_rows(exp, account)
    for prefix, plan in (plans or {}).items():
        rows += paper(prefix).module.privacy_rows(plan, account)
    table = pd.DataFrame(rows, columns=COLUMNS)
    table["outside_conditions"] = table["outside_conditions"].fillna("")
    return table


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per figure and series: the nominal epsilons, the range of certified upper bounds, the
    largest lower bound (when the table has lower bounds) and the verdicts (the report's
    overview)."""

    def fmt(values) -> str:
        vals = sorted({float(v) for v in values})
        return ", ".join(f"{v:.3g}" for v in vals[:8]) + (" ..." if len(vals) > 8 else "")

    lower = {"lower_max": ("lower_epsilon", "max")} if "lower_epsilon" in table.columns else {}
    out = (
        table.groupby(["experiment", "figure", "series", "calibration"], sort=False)
        .agg(
            nominal=("nominal_epsilon", fmt),
            delta=("nominal_delta", fmt),
            delivered_min=("delivered_epsilon", "min"),
            delivered_max=("delivered_epsilon", "max"),
            **lower,
            verdicts=("verdict", lambda v: ", ".join(sorted(set(v)))),
            rows=("verdict", "size"),
        )
        .reset_index()
    )
    return out


def empirical_table(cases, n: int, seed: int, alpha: float = 0.05) -> pd.DataFrame:
    """Run the empirical auditor on every case (``n`` samples per input and half), seeded per
    case by ``(seed, hash of the case's name and what it represents)``.

    Columns: case, represents, control, nominal epsilon and delta, the delivered epsilon of the
    pair, the lower bound with its point estimate, the most a perfect test could certify with
    ``n`` samples, and the checks: ``lb_le_delivered`` (must hold: a violation means the
    accounting or the implementation is wrong) and ``caught`` (lower bound above the nominal
    epsilon: required of the negative controls, a finding for the others).
    """
    import numpy as np

    from ..privacy.empirical import audit, max_certifiable
    from ..seeds import stable_hash

    rows = []
    for case in progress(cases, desc="privacy audit", unit="case"):
        # one stream per case, keyed by its name and what it stands for (adding a case leaves the
        # others' numbers unchanged)
        rng = np.random.default_rng([seed, stable_hash(f"{case.name}|{case.represents}")])
        res = audit(case.sampler, n, case.delta, rng, alpha=alpha, score=case.score)
        rows.append(
            {
                "case": case.name,
                "represents": case.represents,
                "control": case.control,
                "nominal_epsilon": case.nominal,
                "delta": case.delta,
                "delivered_epsilon": case.delivered,
                "epsilon_lower_bound": res.epsilon_lb,
                "epsilon_point": res.epsilon_point,
                "max_certifiable": max_certifiable(n, case.delta, alpha),
                "n": n,
                "alpha": alpha,
                "lb_le_delivered": bool(res.epsilon_lb <= case.delivered),
                "caught": bool(res.epsilon_lb > case.nominal),
            }
        )
    return pd.DataFrame(rows)


PAGE_INTRO = (
    "For every privatised series of every figure and audit experiment: the certified upper bound "
    "on the epsilon its noise delivers at the nominal delta (delivered_epsilon, computed from the "
    "calibration functions the simulations call, with dp-accounting) and, where one is known, a "
    "lower bound on the true epsilon (lower_epsilon; lower_method says how), next to the epsilon "
    "it is labelled with. DELIVERED: the certificate is within the label; NOT-CERTIFIED: the "
    "upper bound exceeds the label but no lower bound does (the truth may lie on either side); "
    "VIOLATED: the lower bound exceeds the label; NOT-PRIVATE: no finite epsilon at delta (e.g. "
    "the script's JDP stand-in, P_Vec with too few binomial bits, PrivateLASSO's noiseless "
    "screening). Rows of a theory calibration outside the conditions its statement sets name "
    "them (outside_conditions) and decide no claim; series '(local view)' compare one user's "
    "messages with the local level the paper states for them. "
    "Below, the empirical auditor's lower bounds (threshold tests with Clopper-Pearson limits, "
    "valid with probability 1 - alpha): never above the delivered epsilon; the under-noised "
    "negative controls must be caught."
)


def write_page(
    delivered: pd.DataFrame,
    empirical: pd.DataFrame,
    out: str,
    scale: str = "paper",
    front: str | None = None,
) -> None:
    """The report page: the per-figure overview, the empirical audit and the full table.

    ``scale``: a quick build's page says so (:func:`dpbandits.pages.scale_banner`); ``front``:
    the link to the front page (relative to ``out``), if any.
    """
    import html

    from dpbandits.pages import PAGE_CSS, scale_banner, scale_title

    over = summary(delivered)
    over["delivered"] = [
        f"{a:.3g}" if a == b else f"{a:.3g} .. {b:.3g}"
        for a, b in zip(over.pop("delivered_min"), over.pop("delivered_max"), strict=True)
    ]
    emp = empirical.copy()
    style = (
        "body{font-family:sans-serif;max-width:80em;margin:2em auto}"
        "td,th{padding:2px 6px;border-bottom:1px solid #ddd;text-align:left;font-size:90%}"
        + PAGE_CSS
    )
    title = scale_title("Privacy audit: nominal vs delivered epsilon", scale)
    body = [
        scale_banner(scale),
        f"<h1>{html.escape(title)}</h1>",
        f'<p><a href="{html.escape(front)}">Front page</a></p>' if front else "",
        f"<p>{html.escape(PAGE_INTRO)}</p>",
        "<h2>Per figure and series</h2>",
        over.to_html(index=False, float_format=lambda v: f"{v:.4g}"),
        "<h2>Empirical lower bounds</h2>",
        emp.to_html(index=False, float_format=lambda v: f"{v:.4g}"),
        "<h2>Every row</h2><p>Also in <code>privacy.csv</code>.</p>",
        delivered.to_html(index=False, float_format=lambda v: f"{v:.4g}"),
    ]
    with open(out, "w") as fh:
        fh.write(
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>"
            f"<style>{style}</style></head><body>{''.join(body)}</body></html>\n"
        )


__all__ = [
    "COLUMNS",
    "VERDICTS",
    "delivered_table",
    "empirical_table",
    "release_bounds",
    "summary",
    "verdict",
    "write_page",
]
