"""Tables of one experiment, rendered to CSV and Markdown from the parquet results.

* ``<exp>_final_regret``: regret at the horizon per (figure, panel, configuration, series);
* ``<exp>_claims``: every ordering claim of the registry, per configuration and metric;
* ``<exp>_claims_matrix``: the summary verdicts as a claim x configuration matrix;
* ``<exp>_metrics``: privacy-cost ratios and log-log slopes (audit metrics).
"""

from __future__ import annotations

import logging
from pathlib import Path

import pandas as pd

from dpbandits.audit.checklist import evaluate_orderings, verdict_matrix
from dpbandits.audit.metrics import curve_slopes, privacy_cost_ratios
from dpbandits.audit.ordering_data import with_caps
from dpbandits.claims import load_claims
from dpbandits.config import Cell
from dpbandits.io import read_csv_table, read_results, write_csv_table
from dpbandits.regret_stats import final_regret_table

log = logging.getLogger("dpbandits")

VERDICT_NOTE = (
    "Verdicts (docs/auditing.md, 'Reading a verdict: ordering claims'): for 'A below B', "
    "D_i = R_i^A - R_i^B on instance i (common random numbers), 95 % interval mean(D) +/- q SE "
    "(SE = sd(D, ddof=1)/sqrt(n); q = 1.96, or the Student-t quantile for claims with interval "
    "t); PASS if the whole interval is below 0, FAIL if the whole interval is above 0, WEAK "
    "otherwise. Ratio checks: PASS if the delta-method interval of mean(A)/mean(B) lies in the "
    "stated range, FAIL if it lies entirely outside it, WEAK if it overlaps an edge. UNTESTABLE: "
    "both series tied exactly on every instance (pinned at a cap); set aside, the other "
    "comparisons decide. DIAGNOSTIC rows (curve-level checks, diagnostic series) never decide: "
    "curve_below says whether the mean curve of A is below B's at every t in "
    "{T/10, 3T/20, ..., T}. epsilon_a, epsilon_b: the delivered (certified) epsilon of each "
    "series from the privacy audit; unequal_privacy: they differ by more than 10 %. Matrix "
    "metric 'combined': the common verdict of realized and pseudo-regret, INCONCLUSIVE where "
    "they differ."
)


def write_table(
    df: pd.DataFrame, csv: str | Path, md: str | Path | None = None, title: str = "", note: str = ""
) -> None:
    """Write a table as CSV (full precision, with its content record:
    :func:`dpbandits.io.write_csv_table`) and optionally Markdown (rounded, ending with the
    provenance line of :func:`dpbandits.provenance.one_line`).

    A Markdown table of the quick build (under ``results/quick``,
    :func:`dpbandits.pages.quick_path`) says so: its title ends in ``[QUICK]`` and the smoke-test
    note opens it.
    """
    from dpbandits.pages import QUICK_NOTE, quick_path
    from dpbandits.provenance import one_line

    write_csv_table(df, csv)  # with its content record: other jobs read it
    if md is not None:
        if quick_path(md):
            title = f"{title} [QUICK]" if title else "[QUICK]"
            note = f"**{QUICK_NOTE}**" + (f"\n\n{note}" if note else "")
        text = (f"# {title}\n\n" if title else "") + (f"{note}\n\n" if note else "")
        text += df.to_markdown(index=False, floatfmt=".4g") + "\n"
        text += f"\nMade by {one_line()}.\n"
        Path(md).write_text(text)


def write_experiment_tables(
    experiment: str,
    cells: list[dict],
    claims_file: str,
    claims_schema: str,
    outputs: dict[str, str],
    timings: list[str] | None = None,
    privacy: str | None = None,
) -> None:
    """Compute and write every table of one experiment.

    Parameters
    ----------
    experiment : str
    cells : list of dict
        The experiment's cells (:meth:`dpbandits.config.Cell.as_dict`); their files are read.
    claims_file, claims_schema : str
        Claims registry of the paper and its schema.
    outputs : dict
        Paths keyed ``final``, ``final_md``, ``claims``, ``claims_md``, ``matrix_md``,
        ``metrics``, ``metrics_md``.
    timings : list of str, optional
        Timing tables of the simulation jobs (wall seconds per series; see
        :func:`dpbandits.pipeline.write_timings`).
    privacy : str, optional
        The privacy audit's ``privacy.csv``: the delivered epsilon of both series beside every
        ordering verdict (:func:`dpbandits.audit.checklist.evaluate_orderings`).
    """
    timing = pd.concat([read_csv_table(p) for p in timings]) if timings else None
    cell_objs = [Cell.from_dict(c) for c in cells]
    df = read_results([c.path for c in cell_objs], expect={c.path: c.as_dict() for c in cell_objs})
    log.info("%s: %d rows from %d files", experiment, len(df), len(cell_objs))
    final = final_regret_table(df, timing)
    write_table(
        final,
        outputs["final"],
        outputs["final_md"],
        title=f"{experiment}: regret at the horizon",
        note="std over instances with ddof = 0 (as the figures' band); se = std / sqrt(n_trials). "
        "`algorithm` is the series label; `algorithm_id` the policy. wall_seconds: the series' "
        "simulation (all trials) on the machine that built it.",
    )
    claims = load_claims(claims_file, claims_schema)
    delivered = read_csv_table(privacy) if privacy else None
    # random play's regret per trial: orderings between two series at their cap are untestable
    results = evaluate_orderings(claims, with_caps(df, cell_objs), timing, delivered)
    write_table(
        results,
        outputs["claims"],
        outputs["claims_md"],
        title=f"{experiment}: claim checklist",
        note=VERDICT_NOTE,
    )
    # phase-level runs (dpdpe) have the pseudo-regret only: no combined rows then
    metrics = (
        ("realized", "pseudo", "combined")
        if (results["metric"] == "realized").any()
        else ("pseudo",)
    )
    matrix = pd.concat([verdict_matrix(results, m).assign(metric=m) for m in metrics]).fillna("")
    write_table(
        matrix,
        outputs["matrix"],
        outputs["matrix_md"],
        title=f"{experiment}: summary verdict per claim and configuration",
        note=VERDICT_NOTE,
    )
    ratios = privacy_cost_ratios(df, cell_objs)
    regret = (
        "regret_realized"
        if "regret_realized" in df and df["regret_realized"].notna().any()
        else "regret_pseudo"
    )
    slopes = curve_slopes(df, regret)
    slopes = slopes.drop(columns="metric")
    if ratios.empty:  # no LinUCB / LinUCB-LDP pair in this experiment
        metrics = slopes
    else:
        metrics = ratios.merge(slopes, on=["configuration", "panel", "series"], how="outer")
    write_table(
        metrics,
        outputs["metrics"],
        outputs["metrics_md"],
        title=f"{experiment}: audit metrics",
        note="rho = gap_A / gap_LDP at T (gap = mean regret minus LinUCB's); rho_predicted = "
        "sqrt(sigma~_A / sigma~_LDP) from Lemma 3.9 with the noise actually used. slope = "
        "log-log slope of the mean realized-regret curve over t in [T/10, T] "
        "(indicative only; see the rate audit).",
    )
