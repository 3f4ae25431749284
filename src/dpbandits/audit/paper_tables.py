"""A paper's tables rendered from its claims registry (``tables:`` in ``config/claims/<p>.yaml``).

One source of truth: the paper's cells are the registry's; the claimed exponents come from the
claim rows the table names; measured columns come from the simulations (a sweep schedule or a
figure series over several horizons); numeric columns of calibration tables are the calibration
functions the simulations call (:data:`dpbandits.policies.TABLE_FUNCTIONS`), evaluated at a
stated point.

Measured columns (rows with ``measured``, and ``measured_also`` for more sources, e.g. a second
width configuration, each in columns named by its ``label``): mean ± standard error of the
regret and of the communication at ``at_T`` (or the largest horizon simulated, when smaller:
scale quick), and log-log slopes against T of the mean over all horizons with 95 % bootstrap
intervals
(:func:`dpbandits.audit.rates.fit_exponent`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from .rates import _frac, fit_exponent


def claimed_exponent(claims: dict[str, dict], ids, alpha: float | None) -> float:
    """The largest T-exponent among the claims ``ids`` (``T_exp + T_exp_alpha * alpha``): the
    exponent of a sum of terms."""
    out = []
    for cid in ids:
        c = claims[cid]
        e = _frac(c.get("T_exp"))
        if e is None:
            continue
        a = _frac(c.get("T_exp_alpha")) or 0.0
        if a and alpha is None:
            raise ValueError(f"{cid}: the exponent depends on alpha; give measured.alpha")
        out.append(e + a * (alpha or 0.0))
    return max(out) if out else float("nan")


def _select(df: pd.DataFrame, measured: dict) -> pd.DataFrame:
    if "sweep" in measured:  # ``series`` names a schedule of the sweep
        if "sweep" not in df.columns:
            raise ValueError(f"no sweep results for the measured columns {measured}")
        sel = df[(df["sweep"] == measured["sweep"]) & (df["schedule"] == measured["series"])]
    else:
        confs = measured["configuration"]
        confs = [confs] if isinstance(confs, str) else list(confs)
        sel = df[
            (df["figure"] == measured["figure"])
            & df["configuration"].isin(confs)
            & (df["series"] == measured["series"])
        ]
    last = sel[sel["t"] == sel["T"]]
    if last.empty:
        raise ValueError(f"no simulation results for the measured columns {measured}")
    return last


def _fit_text(fit) -> str:
    if not math.isfinite(fit.slope):
        return "n/a"
    if not (math.isfinite(fit.ci_low) and math.isfinite(fit.ci_high)):
        return f"{fit.slope:.3f}"
    return f"{fit.slope:.3f} [{fit.ci_low:.3f}, {fit.ci_high:.3f}]"


def _mean_text(values: np.ndarray) -> str:
    se = values.std(ddof=1) / math.sqrt(values.size) if values.size > 1 else float("nan")
    return f"{values.mean():.4g} ± {se:.2g}"


def measured_columns(df: pd.DataFrame, measured: dict, at_T: int) -> dict[str, str]:
    """Regret and communication at ``at_T`` and their fitted T-exponents for one table row."""
    last = _select(df, measured)
    comm = measured["communication"]
    unit = "bits" if comm == "comm_bits" else "reals"
    horizons = sorted(last["T"].unique())
    # at_T, or the largest horizon of the results when they do not reach it (scale quick)
    T = at_T if at_T in horizons else max(horizons)
    tag = f" ({measured['label']})" if measured.get("label") else ""
    out = {f"T (measured){tag}": f"{T:g}"}
    for metric, name, suffix in (("regret_pseudo", "regret", ""), (comm, "communication", unit)):
        wide = last.pivot_table(index="trial", columns="T", values=metric).sort_index(axis=1)
        out[f"measured {name}{tag}"] = f"{_mean_text(wide[T].to_numpy())} {suffix}".strip()
        out[f"fitted T-exponent of the {name}{tag}"] = (
            _fit_text(fit_exponent(wide.columns.to_numpy(float), wide.to_numpy()))
            if len(horizons) > 1
            else "n/a (one horizon)"
        )
    out[f"horizons{tag}"] = ", ".join(f"{t:g}" for t in horizons)
    return out


def evaluate(function: str, privatizer: str, at: dict) -> float:
    """A policy's calibration function named in a paper's table (``function``, one of
    :data:`dpbandits.policies.TABLE_FUNCTIONS`) at the point ``at``."""
    from ..policies import TABLE_FUNCTIONS

    return TABLE_FUNCTIONS[function](privatizer, at)


def render(table: dict, claims: dict[str, dict], df: pd.DataFrame | None = None) -> pd.DataFrame:
    """One table as a DataFrame: the paper's columns, then the claimed exponents, the measured
    columns and the evaluated calibration values, where the registry asks for them."""
    measured = table.get("measured")
    at = table.get("evaluate_at")
    rows = []
    for row in table["rows"]:
        out = dict(zip(table["columns"], row["cells"], strict=True))
        refs = row.get("claims", {})
        alpha = measured.get("alpha") if measured else None
        if "regret" in refs:
            key = "claimed T-exponent of the regret" + (f" (alpha = {alpha:g})" if alpha else "")
            out[key] = f"{claimed_exponent(claims, refs['regret'], alpha):.3g}"
        if "communication" in refs:
            key = "claimed T-exponent of the communication" + (
                f" (alpha = {alpha:g})" if alpha else ""
            )
            out[key] = f"{claimed_exponent(claims, [refs['communication']], alpha):.3g}"
        if "claims" in row:
            out["claims"] = ", ".join(
                [*refs.get("regret", []), *filter(None, [refs.get("communication")])]
            )
        if "measured" in row:
            if df is None:
                raise ValueError("measured columns need the simulation results")
            for source in [row["measured"], *row.get("measured_also", [])]:
                out.update(measured_columns(df, source, int(measured["at_T"])))
        if "evaluate" in row:
            e = row["evaluate"]
            out[at["label"]] = f"{evaluate(e['function'], e['privatizer'], at):.4g}"
        rows.append(out)
    return pd.DataFrame(rows).fillna("")


def _is_formula(value: str) -> bool:
    return any(ch in value for ch in "\\^_{")


def _latex_cell(column: str, value: str, paper_columns: list[str]) -> str:
    if column in paper_columns[1:] and _is_formula(value):
        return f"${value}$"
    return (
        value.replace("\\", "\\textbackslash{}")
        .replace("_", "\\_")
        .replace("%", "\\%")
        .replace("±", "$\\pm$")
    )


def write(table: dict, frame: pd.DataFrame, csv: str | Path, md: str | Path, tex: str | Path):
    """Write the CSV, the Markdown (formulas as ``$...$``) and a LaTeX ``tabular``."""
    paper_columns = table["columns"]
    frame.to_csv(csv, index=False)  # read by no job or notebook: no content record needed
    notes = list(table.get("footnotes", []))
    if "measured" in table:
        notes.append(table["measured"]["note"])
    md_frame = frame.copy()
    for col in paper_columns[1:]:
        md_frame[col] = [f"${v}$" if _is_formula(v) else v for v in md_frame[col]]
    body = md_frame.to_markdown(index=False)
    from dpbandits.pages import QUICK_NOTE, quick_path

    head = f"# {table['title']}\n\n"
    if quick_path(md):  # a quick build's table says so
        head = f"# {table['title']} [QUICK]\n\n**{QUICK_NOTE}**\n\n"
    Path(md).write_text(head + f"{body}\n\n" + "".join(f"- {n}\n" for n in notes), encoding="utf-8")
    cols = list(frame.columns)
    lines = [
        "% " + table["title"],
        "\\begin{tabular}{" + "l" * len(cols) + "}",
        "\\hline",
        " & ".join(_latex_cell("", c, []) for c in cols) + " \\\\",
        "\\hline",
    ]
    for _, r in frame.iterrows():
        lines.append(" & ".join(_latex_cell(c, str(r[c]), paper_columns) for c in cols) + " \\\\")
    lines += ["\\hline", "\\end{tabular}"]
    lines += [f"% {n}" for n in notes]
    Path(tex).write_text("\n".join(lines) + "\n", encoding="utf-8")
