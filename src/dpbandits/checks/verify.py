"""Check a build against the canonical run, by value.

``canonical/`` (committed) holds a small summary of the canonical paper-scale build: the
final-regret tables, every verdict (rates, scoreboard, the figure-less papers' rows), the privacy
tables and the arena's leaderboard and claims, with ``manifest.json`` naming the commit and
library versions that made it.
``python -m dpbandits.checks.verify`` (``make verify``; ``make reproduce`` ends with it) compares
the user's ``results/`` with it and prints one line per paper: values matched, values differing,
verdicts changed, and the files to look at.

Tolerances, per column kind: text (verdicts, statuses, names) and integers must be equal;
floats within ``rtol`` (default 1e-9: the same numbers under the same library versions; use
``--rtol 1e-6`` across platforms, where BLAS and libm may differ in the last bits) plus an
absolute 1e-12. ``python -m dpbandits.checks.verify --write`` makes a new canonical summary from
``results/`` (after a paper-scale build of a commit).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import read_csv_table
from ..papers import papers

#: The verdict-like columns: a change there is a changed verdict, not just a changed value.
VERDICT_COLUMNS = ("verdict", "status", "robustness", "regime", "caught", "lb_le_delivered")


@dataclass(frozen=True)
class Table:
    """One summarised table: its file under the results root, key and value columns."""

    name: str
    path: str
    keys: tuple[str, ...]
    values: tuple[str, ...]
    paper: str  # a column whose value (or prefix before '.') names the paper, or a fixed name


def _tables() -> list[Table]:
    out = [
        Table(
            f"{p}_final_regret",
            f"tables/{p}_final_regret.csv",
            ("figure", "panel", "configuration", "algorithm"),
            ("epsilon", "d", "n_trials", "mean_realized", "se_realized", "mean_pseudo",
             "se_pseudo"),
            p,
        )
        for p in (p.prefix for p in papers("figures"))
    ]  # fmt: skip
    out += [
        Table(
            "rates",
            "audit/rates.csv",
            ("claim_id", "schedule", "variable", "fixed"),
            ("slope", "ci_low", "ci_high", "claimed", "n_levels", "n_trials", "verdict",
             "regime", "detectable_excess", "robustness"),
            "claim_id",
        ),
        Table(
            "scoreboard", "audit/scoreboard.csv", ("paper", "claim_id"),
            ("status", "robustness", "verdict"), "paper",
        ),
        Table(
            "privacy",
            "audit/privacy.csv",
            ("experiment", "figure", "configuration", "series"),
            ("nominal_epsilon", "delivered_epsilon", "delivered_epsilon_delta_1_over_T",
             "delivered_epsilon_paper_bounds", "verdict"),
            "experiment",
        ),
        Table(
            "privacy_empirical", "audit/privacy_empirical.csv", ("case",),
            ("delivered_epsilon", "epsilon_lower_bound", "lb_le_delivered", "caught"),
            "privacy",
        ),
        Table(
            "arena_leaderboard",
            "arena/leaderboard.csv",
            ("suite", "d", "T", "contestant", "calibration", "status"),
            ("delivered_epsilon", "privacy_verdict", "mean_regret", "ci_low", "ci_high", "rank",
             "random_regret", "learning"),
            "arena",
        ),
        Table(
            "arena_claims", "arena/claims.csv", ("claim_id",),
            ("rows", "counted", "pass", "weak", "fail", "status"), "arena",
        ),
    ]  # fmt: skip
    # a figure-less paper's own tables, as its study declares them (before the arena's)
    studies = [
        Table(name, path, tuple(keys), tuple(values), p.prefix)
        for p in papers("bounds")
        for name, (path, keys, values) in p.hook("STUDY").canonical.items()
    ]
    at = next(i for i, t in enumerate(out) if t.paper == "arena")
    return out[:at] + studies + out[at:]


TABLES = _tables()


def summarize(results: str | Path) -> dict[str, pd.DataFrame]:
    """The canonical summary tables of a results tree (missing files are left out; a table
    that does not match its content record is refused: :func:`dpbandits.io.read_csv_table`)."""
    results = Path(results)
    out = {}
    for t in TABLES:
        path = results / t.path
        if not path.exists():
            continue
        df = read_csv_table(path, dtype={k: str for k in t.keys}, keep_default_na=False)
        df = df[[c for c in (*t.keys, *t.values) if c in df.columns]].copy()
        df["occurrence"] = df.groupby(list(t.keys)).cumcount()  # repeated keys stay apart
        out[t.name] = df
    return out


def write(results: str | Path, canonical: str | Path) -> None:
    """Write the summary of ``results`` and its manifest to ``canonical``."""
    from ..io import read_metadata
    from ..provenance import provenance

    canonical = Path(canonical)
    canonical.mkdir(parents=True, exist_ok=True)
    tables = summarize(results)
    for name, df in tables.items():
        # a committed reference (checked by git, read by compare below): no content record
        df.to_csv(canonical / f"{name}.csv", index=False)
    # the build's own provenance (what its simulations recorded), else this process's
    built = [
        read_metadata(p).get("provenance")
        for p in sorted((Path(results) / "sim").rglob("*.parquet"))[:50]  # not results/quick
    ]
    built = [b for b in built if b]
    manifest = {
        "provenance": built[0] if built else provenance(),
        "builds": len({json.dumps(b, sort_keys=True) for b in built}),
        "tables": {n: len(d) for n, d in tables.items()},
    }
    (canonical / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")


def _paper(t: Table, row: pd.Series) -> str:
    if t.paper not in row.index:
        return t.paper
    return str(row[t.paper]).split(".", 1)[0]


def _equal(a, b, rtol: float) -> bool:
    fa, fb = pd.to_numeric(pd.Series([a, b]), errors="coerce")
    if np.isnan(fa) or np.isnan(fb):  # text, or a missing value
        return str(a) == str(b)
    return bool(np.isclose(fa, fb, rtol=rtol, atol=1e-12, equal_nan=True))


def compare(results: str | Path, canonical: str | Path, rtol: float = 1e-9) -> dict:
    """Per paper: ``matched``, ``differing``, ``verdicts_changed``, ``files`` and ``cells`` (one
    line per differing value: table, keys, column, canonical -> current)."""
    now = summarize(results)
    report: dict[str, dict] = {}

    def entry(paper):
        return report.setdefault(
            paper,
            {"matched": 0, "differing": 0, "verdicts_changed": 0, "files": set(), "cells": []},
        )

    for t in TABLES:
        ref_path = Path(canonical) / f"{t.name}.csv"
        if not ref_path.exists():
            continue
        # canonical/ is committed, not built: it has no content record (git keeps it whole)
        ref = pd.read_csv(ref_path, dtype={k: str for k in t.keys}, keep_default_na=False)
        cur = now.get(t.name)
        keys = [*t.keys, "occurrence"]
        if cur is None:
            for _, r in ref.iterrows():
                e = entry(_paper(t, r))
                e["differing"] += len(t.values)
                e["files"].add(t.path)
            continue
        ref["occurrence"] = ref["occurrence"].astype(int)
        merged = ref.merge(cur, on=keys, how="outer", suffixes=("_ref", "_now"), indicator=True)
        for _, r in merged.iterrows():
            e = entry(_paper(t, r))
            for col in t.values:
                a, b = r.get(f"{col}_ref"), r.get(f"{col}_now")
                if r["_merge"] == "both" and _equal(a, b, rtol):
                    e["matched"] += 1
                    continue
                e["differing"] += 1
                e["files"].add(t.path)
                if col in VERDICT_COLUMNS:
                    e["verdicts_changed"] += 1
                where = ", ".join(f"{k} = {r[k]}" for k in t.keys if str(r[k]) != "")
                e["cells"].append(f"{t.name}: {where}: {col} {a} -> {b}")
    return report


def main(argv: list[str] | None = None) -> int:
    """``python -m dpbandits.checks.verify [--results R] [--canonical C] [--rtol X] [--write]``."""
    ap = argparse.ArgumentParser(prog="python -m dpbandits.checks.verify", description=__doc__)
    ap.add_argument("--results", default="results", help="results tree (default: results)")
    ap.add_argument("--canonical", default="canonical", help="canonical summary directory")
    ap.add_argument("--rtol", type=float, default=1e-9, help="relative tolerance of floats")
    ap.add_argument("--write", action="store_true", help="write a new canonical summary")
    args = ap.parse_args(argv)
    if args.write:
        write(args.results, args.canonical)
        print(f"wrote the summary of {args.results}/ to {args.canonical}/")
        return 0
    manifest_path = Path(args.canonical) / "manifest.json"
    if not manifest_path.exists():
        print(f"no canonical summary at {manifest_path}: nothing to compare with")
        return 0
    manifest = json.loads(manifest_path.read_text())
    made = manifest["provenance"]
    print(
        f"canonical run: dpbandits {made['package_version']} at {made['git_commit'][:12]}"
        f" (python {made['python']}, numpy {made['numpy']}); rtol {args.rtol:g}"
    )
    report = compare(args.results, args.canonical, args.rtol)
    bad = False
    for paper, e in sorted(report.items()):
        line = (
            f"{paper}: {e['matched']} values matched, {e['differing']} differing, "
            f"{e['verdicts_changed']} verdicts changed"
        )
        if e["files"]:
            line += "; look at " + ", ".join(f"results/{f}" for f in sorted(e["files"]))
        print(line)
        for cell in e["cells"][:5]:  # the first differing values, by their keys
            print(f"    {cell}")
        if len(e["cells"]) > 5:
            print(f"    ... and {len(e['cells']) - 5} more")
        bad |= bool(e["differing"])
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
