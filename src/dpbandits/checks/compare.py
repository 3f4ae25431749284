"""When two builds of the same targets give the same results.

Every number of a simulation is a pure function of named seeds, so two builds of the same
targets (any ``--cores``, locally or through SLURM, after deleting intermediates) must agree on
every value of every parquet file and byte for byte on every CSV table, with two measured
exceptions. Parquet files are compared by value: their columns (names, types, values) and their
``dpbandits`` metadata without the ``provenance`` and ``package_version`` keys, not their bytes
(the file footer names the pyarrow version that wrote it, so equal values in two environments
give different bytes). The measured exceptions:

- the ``wall_seconds`` column of the final-regret tables (``dpbandits.regret_stats``): the jobs'
  measured run time of each series;
- the rows of the claim tables whose statistic is :data:`WALL_TIME_STATISTIC` (``faster: true``
  orderings, e.g. olucb's "OnlineUCB-OGD runs much faster than OnlineUCB"): a comparison of
  measured run times. Their verdict is compared through the other tables (the claims matrix).

The per-job timing tables (``results/<scale>/timing/``) are measurements only and are left out.
``python -m dpbandits.checks.compare A B`` compares the ``results/`` trees of two project copies.
"""

from __future__ import annotations

import hashlib
import io
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ..audit.checklist import WALL_TIME_STATISTIC

MEASURED_COLUMNS = ("wall_seconds",)
SUFFIXES = (".parquet", ".csv")


def comparable(path: str | Path) -> tuple[bytes, int]:
    """The content of ``path`` that must be reproducible, and how many measured rows it left out.

    Parameters
    ----------
    path : str or Path
        A parquet file (compared whole) or a CSV table.

    Returns
    -------
    bytes, int
        For a parquet file, the digest of its values (:func:`parquet_values`); for a CSV, its
        bytes, or with measured columns or rows the table without them (re-serialised); the
        number of measured rows removed.
    """
    path = Path(path)
    if path.suffix == ".parquet":
        return parquet_values(path), 0
    raw = path.read_bytes()
    if path.suffix != ".csv" or not raw.strip():
        return raw, 0
    head = raw.split(b"\n", 1)[0].decode().split(",")
    if not any(c in head for c in (*MEASURED_COLUMNS, "statistic")):
        return raw, 0
    # two trees' bytes compared as they are (a cut file differs): no content record check
    table = pd.read_csv(io.BytesIO(raw), dtype=str, keep_default_na=False)
    measured = 0
    if "statistic" in table:
        keep = table["statistic"] != WALL_TIME_STATISTIC
        measured = int((~keep).sum())
        table = table[keep]
    table = table.drop(columns=[c for c in MEASURED_COLUMNS if c in table])
    return table.to_csv(index=False).encode(), measured  # in memory, to compare: not a file


#: Metadata keys that describe the environment, not the results (left out of comparisons).
ENVIRONMENT_KEYS = ("provenance", "package_version")


def parquet_values(path: str | Path) -> bytes:
    """SHA-256 digest of a parquet file's values: every column's name, type and values, and its
    ``dpbandits`` metadata without :data:`ENVIRONMENT_KEYS`."""
    import json

    import pyarrow.parquet as pq

    from ..io import META_KEY

    table = pq.read_table(path)
    meta = json.loads((table.schema.metadata or {}).get(META_KEY, b"{}"))
    for key in ENVIRONMENT_KEYS:
        meta.pop(key, None)
    h = hashlib.sha256(json.dumps(meta, sort_keys=True).encode())
    for name in table.column_names:
        col = table.column(name)
        h.update(f"\0{name}\0{col.type}\0".encode())
        if col.type in ("string", "large_string"):
            h.update("\0".join(map(str, col.to_pylist())).encode())
        else:
            h.update(col.to_numpy().tobytes())
    return h.digest()


def result_files(root: str | Path) -> dict[str, Path]:
    """Parquet and CSV files under ``root``/results (timing tables excluded), by relative path."""
    root = Path(root)
    out = {}
    for p in sorted((root / "results").rglob("*")):
        rel = p.relative_to(root)
        if p.suffix in SUFFIXES and "timing" not in rel.parts:
            out[str(rel)] = p
    return out


@dataclass
class Comparison:
    """Outcome of :func:`compare_trees`."""

    files: list[str] = field(default_factory=list)
    only_in_one: list[str] = field(default_factory=list)
    differ: list[str] = field(default_factory=list)
    measured_rows: int = 0

    @property
    def same(self) -> bool:
        return bool(self.files) and not self.only_in_one and not self.differ

    def describe(self) -> str:
        n_parquet = sum(f.endswith(".parquet") for f in self.files)
        text = (
            f"{n_parquet} parquet and {len(self.files) - n_parquet} CSV files compared "
            f"(measured: wall_seconds columns, {self.measured_rows} wall-time claim rows)"
        )
        if self.only_in_one:
            text += f"; in one tree only: {self.only_in_one}"
        if self.differ:
            text += f"; different: {self.differ}"
        return text


def compare_trees(a: str | Path, b: str | Path) -> Comparison:
    """Compare the results of two project copies ``a`` and ``b`` (see the module docstring)."""
    fa, fb = result_files(a), result_files(b)
    out = Comparison(files=sorted(set(fa) & set(fb)), only_in_one=sorted(set(fa) ^ set(fb)))
    for rel in out.files:
        (ca, ma), (cb, _) = comparable(fa[rel]), comparable(fb[rel])
        out.measured_rows += ma
        if hashlib.sha256(ca).digest() != hashlib.sha256(cb).digest():
            out.differ.append(rel)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m dpbandits.checks.compare A B``: exit 0 when the two trees give the same
    results."""
    import argparse

    ap = argparse.ArgumentParser(
        prog="python -m dpbandits.checks.compare",
        description="Compare the results/ trees of two project copies (parquet by value).",
    )
    ap.add_argument("project_a", help="a project directory holding results/")
    ap.add_argument("project_b", help="another one")
    args = ap.parse_args(argv)
    result = compare_trees(args.project_a, args.project_b)
    print(("same results: " if result.same else "DIFFERENT results: ") + result.describe())
    return 0 if result.same else 1


if __name__ == "__main__":
    sys.exit(main())
