"""What a Snakemake run built and where: printed by the workflow's ``onsuccess`` handler."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

#: Pages to open first, relative to the results root, with what they are.
ENTRY_POINTS = (
    ("index.html", "front page: every paper's figures, claims and pages, privacy, the arena"),
    ("audit/scoreboard.md", "scoreboard: one status per claim of every paper, with the reason"),
    ("audit/report.html", "claim audit: verdicts of every paper, links to each paper's page"),
    ("audit/privacy.html", "privacy audit: delivered vs nominal epsilon, empirical bounds"),
    ("arena/arena.html", "arena: every private linear bandit on shared instances"),
    ("full/audit/privacy.html", "privacy audit, full tier"),
    ("figures", "every figure (PDF and PNG)"),
    ("tables", "every table (CSV, Markdown, LaTeX)"),
    ("notebooks", "the executed figure notebooks (ipynb and HTML)"),
)


def built_files(root: str | Path, since: float) -> list[Path]:
    """Files under ``root`` modified at or after ``since`` (seconds since the epoch), hidden
    files and folders and the CSV tables' content records (``*.csv.content.json``, part of
    their table) excluded."""
    out = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(files):
            path = Path(folder) / name
            if name.startswith(".") or name.endswith(".csv.content.json"):
                continue
            if path.stat().st_mtime >= since:
                out.append(path)
    return out


def build_summary(
    root: str | Path, since: float, report: str | None = "make report", quick: bool = False
) -> str:
    """A few lines saying what this run wrote under ``root`` (per top folder: how many files of
    which kinds) and which pages to open.

    Parameters
    ----------
    root : str or Path
        The results root of the run (``results`` or ``results/quick``).
    since : float
        When the run started (files modified since then count as built).
    report : str or None
        The command that builds the single HTML report; None leaves the hint out (a run that
        did not build the whole DAG: the report needs every file it lists).
    quick : bool
        A quick build: the scoreboard's counts are marked as a smoke test.
    """
    root = Path(root)
    files = built_files(root, since) if root.exists() else []
    lines = []
    if not files:
        lines.append(f"Nothing new was written: everything asked for is up to date in {root}/.")
    else:
        lines.append(f"Built this run: {len(files)} files in {root}/")
        groups: dict[str, Counter] = {}
        for f in files:
            top = f.relative_to(root).parts[0] if len(f.relative_to(root).parts) > 1 else "."
            groups.setdefault(top, Counter())[f.suffix.lstrip(".") or "(none)"] += 1
        width = max(len(g) for g in groups) + 1
        for top in sorted(groups):
            kinds = ", ".join(f"{n} {ext}" for ext, n in sorted(groups[top].items()))
            lines.append(f"  {top + '/':<{width + 1}} {kinds}")
    present = [(p, what) for p, what in ENTRY_POINTS if (root / p).exists()]
    if present:
        lines.append("Open:")
        width = max(len(str(root / p)) for p, _ in present)
        lines.extend(f"  {str(root / p):<{width}}  {what}" for p, what in present)
    board = scoreboard_lines(root / "audit" / "scoreboard.csv")
    if board and quick:
        board[0] = "Scoreboard of a QUICK build (a 5-trial smoke test, not findings):"
    lines.extend(board)
    if report:
        lines.append(f"One HTML report of every figure, table and audit page: {report}")
    return "\n".join(lines)


#: Statuses of the scoreboard, in the order shown (:data:`dpbandits.audit.scoreboard.STATUSES`;
#: not imported: the summary runs in Snakemake's own process and stays free of pandas).
STATUS_ORDER = ("supported", "contradicted", "inconclusive", "untestable", "not audited")


def scoreboard_lines(path: str | Path) -> list[str]:
    """Per paper, the count of claims of each status, from a scoreboard CSV (none if absent;
    one line saying why if it does not match its content record)."""
    from dpbandits.io import (  # here: pyarrow only once a run is done
        CorruptResultError,
        read_csv_rows,
    )

    path = Path(path)
    if not path.exists():
        return []
    try:
        rows = read_csv_rows(path)
    except CorruptResultError as err:
        return [f"Scoreboard not shown: {err}"]
    per: dict[str, Counter] = {}
    for row in rows:
        per.setdefault(row["paper"], Counter())[row["status"]] += 1
    out = ["Scoreboard (claims per status):"]
    for paper, c in per.items():
        parts = ", ".join(f"{c[s]} {s}" for s in STATUS_ORDER if c[s])
        out.append(f"  {paper:<7} {parts}")
    return out
