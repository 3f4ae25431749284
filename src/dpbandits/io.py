"""The parquet schema of simulation results: long format, one row per trial x checkpoint.

Columns: the cell's settings (constant within a file), ``trial``, ``t`` (rounds played) and
every metric of :data:`dpbandits.engine.METRICS`. File metadata (key ``dpbandits``, JSON) holds
the package version, the cell, its config hash, the seeds and the calibration constants. No
timing or host information is stored, so a rebuilt file is byte-identical.

CSV tables that other jobs or notebooks read (the audits' inputs, timing tables, calibration
tables, the scoreboard) carry a content record beside them, ``<name>.csv.content.json``: written
by :func:`write_csv_table`, checked by :func:`read_csv_table` (and :func:`read_csv_rows`), which
refuse a table cut, missing a column or edited.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from collections.abc import Callable
from io import BytesIO, StringIO
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from . import __version__
from .result_columns import PLACE_FIELDS

SCHEMA_VERSION = 2
META_KEY = b"dpbandits"

#: Setting columns (constant within one file) and their arrow types, after ``experiment`` and
#: the columns that place the cell (:func:`setting_columns`).
SETTING_COLUMNS = {
    "algorithm": pa.string(),
    "calibration": pa.string(),
    "fidelity": pa.string(),
    "instances": pa.string(),
    "epsilon": pa.float64(),
    "delta": pa.float64(),
    "d": pa.int64(),
    "K": pa.int64(),
    "T": pa.int64(),
    "B": pa.int64(),
    "n_trials": pa.int64(),
    "private": pa.bool_(),
}
INT_METRICS = (
    "nan_index_rounds",
    "clipped_index_rounds",
    "nonpd_refreshes",
    "best_arm_rounds",
    "clipped_gradient_rounds",
    "phases_completed",
    "active_actions",
)


def setting_columns(kind: str) -> dict:
    """The setting columns of a cell of ``kind`` and their arrow types: ``experiment``, the
    fields that place the cell (figure cells: figure, panel, configuration, series; sweep
    cells: sweep, schedule, point; :data:`dpbandits.config.PLACE_FIELDS`), then
    :data:`SETTING_COLUMNS`."""
    place = {name: pa.string() for name in PLACE_FIELDS[kind]}
    return {"experiment": pa.string(), **place, **SETTING_COLUMNS}


def result_table(settings: dict, result) -> pa.Table:
    """Long-format arrow table of one cell (``result``: an engine ``SimulationResult``;
    ``settings``: the cell's ``as_dict()`` with ``n_trials`` and ``private``)."""
    n, C = next(iter(result.metrics.values())).shape
    cols = {}
    for name, typ in setting_columns(settings["kind"]).items():
        value = settings["n_trials"] if name == "n_trials" else settings[name]
        cols[name] = pa.repeat(pa.scalar(value, type=typ), n * C)  # one value in every row
    cols["trial"] = pa.array(np.repeat(np.arange(n, dtype=np.int64), C))
    cols["t"] = pa.array(np.tile(np.asarray(result.checkpoints, dtype=np.int64), n))
    for name in result.metrics:  # METRICS, then any policy-specific diagnostics
        arr = result.metrics[name].reshape(-1)
        cols[name] = pa.array(
            arr.astype(np.int64) if name in INT_METRICS else arr.astype(np.float64)
        )
    return pa.table(cols)


def _columns(schema: pa.Schema) -> dict[str, str]:
    """Column name -> arrow type (as text), in the file's order."""
    return {f.name: str(f.type) for f in schema}


def content_of(table: pa.Table) -> dict:
    """What a results file holds, recorded in its metadata and checked by every reader: the
    number of rows, of distinct trials and of distinct checkpoints (where the table has ``trial``
    and ``t``), the columns with their types, and the SHA-256 of those columns."""
    import pyarrow.compute as pc

    columns = _columns(table.schema)
    out = {
        "rows": table.num_rows,
        "columns": columns,
        "columns_sha256": hashlib.sha256(json.dumps(columns).encode()).hexdigest(),
    }
    for key, col in (("trials", "trial"), ("checkpoints", "t")):
        if col in columns:
            out[key] = len(pc.unique(table[col]))
    return out


def check_content(path, data: dict, schema: pa.Schema, rows: int) -> None:
    """Refuse a file whose columns or row count differ from what its metadata records
    (:func:`content_of`): a file cut to fewer trials, or a column dropped, with the metadata
    kept. ``schema`` and ``rows`` are the file's own."""
    content = data.get("content") or {}
    recorded = content.get("columns")
    if recorded is None:
        raise CorruptResultError(f"{path}: no record of its content; {_rebuild_hint(path)}")
    if _columns(schema) != recorded:
        gone = [c for c in recorded if c not in schema.names]
        added = [c for c in schema.names if c not in recorded]
        raise CorruptResultError(
            f"{path}: its columns differ from those written (missing {gone}, added {added}, or "
            f"other types); {_rebuild_hint(path)}"
        )
    if rows != content["rows"]:
        raise CorruptResultError(
            f"{path}: {rows} rows, {content['rows']} written (a damaged or cut file); "
            f"{_rebuild_hint(path)}"
        )


def write_result(path: str | Path, table: pa.Table, metadata: dict) -> None:
    """Write atomically (temporary file + rename), with deterministic bytes.

    The metadata also records :func:`dpbandits.provenance.provenance` (commit and library
    versions): the same build in the same environment gives the same bytes; another
    environment gives the same values (:func:`dpbandits.checks.compare.parquet_values`).

    A job killed while writing leaves at most a hidden ``.<name>.<pid>.tmp`` beside the output,
    never a partial output; the rerun removes such leftovers.
    """
    path = Path(path)
    from .provenance import provenance

    meta = {
        META_KEY: json.dumps(
            {
                "schema_version": SCHEMA_VERSION,
                "package_version": __version__,
                "provenance": provenance(),
                **metadata,
                "content": content_of(table),
            },
            sort_keys=True,
        ).encode()
    }
    table = table.replace_schema_metadata(meta)
    _replace_atomically(
        path, lambda tmp: pq.write_table(table, tmp, compression="zstd", write_statistics=True)
    )


def _replace_atomically(path: Path, write: Callable[[Path], object]) -> None:
    """Make ``path`` by ``write(tmp)`` into a hidden ``.<name>.<pid>.tmp`` beside it, renamed
    over ``path`` once written: readers see the old file or the whole new one, never a part.

    The folder is created if needed; leftovers of a killed job (``.<name>.*.tmp``) are removed
    first, and the temporary file is removed if ``write`` fails. (Not
    :func:`dpbandits.runtime.atomic_files.write_atomically`: that one is best effort, for caches,
    and leaves its files readable by their owner only.)
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    for stale in path.parent.glob(f".{path.name}.*.tmp"):  # left by a killed job
        stale.unlink(missing_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        write(tmp)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


#: The content record of a CSV table is ``<name>.csv`` + this suffix, beside it.
CONTENT_RECORD_SUFFIX = ".content.json"
#: The ``writer`` of every content record this package writes.
CONTENT_RECORD_WRITER = "dpbandits"


def content_record_path(path: str | Path) -> Path:
    """The content record of the CSV table ``path``: ``<path>.content.json``."""
    path = Path(path)
    return path.with_name(path.name + CONTENT_RECORD_SUFFIX)


def _csv_shape(data: bytes) -> tuple[list[str], int]:
    """The header of CSV bytes and how many records follow it (parsed by the csv module: a
    quoted line break stays inside its field; every record counts, blank ones included)."""
    reader = csv.reader(StringIO(data.decode("utf-8", errors="replace"), newline=""))
    header = next(reader, [])
    return header, sum(1 for _ in reader)


def write_csv_table(table, path: str | Path, **to_csv_kwargs) -> None:
    """Write a CSV table that other jobs or notebooks read, with its content record.

    The record, ``<name>.csv.content.json`` beside the table (:func:`content_record_path`),
    holds ``rows`` (records after the header), ``columns`` (the header, in order), ``sha256``
    (of the CSV's bytes) and ``writer`` (``"dpbandits"``); :func:`read_csv_table` refuses a table
    that does not match it. Both files are written atomically (:func:`_replace_atomically`),
    the record after the table: a job killed between the two leaves a table that its (older)
    record refuses, never one read as whole.

    The records are not Snakemake outputs, deliberately: the job that writes a table rewrites
    its record every time, a failed job's table is deleted by Snakemake and the stale record it
    leaves is overwritten by the rerun, and a record that does not match (or is missing) makes
    the reader refuse the table and say how to rebuild it.

    Parameters
    ----------
    table : pandas.DataFrame or list of dict
        A DataFrame is written by ``table.to_csv(index=False, **to_csv_kwargs)``: the bytes
        ``table.to_csv(path, index=False)`` writes. A list of dicts with the same keys (the
        simulation jobs' timing tables: no pandas import) is written by
        :class:`csv.DictWriter`, header from the first row, lines ending in CRLF.
    path : str or Path
        The CSV file; its folder is created if needed.
    **to_csv_kwargs
        Passed to :meth:`pandas.DataFrame.to_csv` (``index`` defaults to False).
    """
    path = Path(path)
    if isinstance(table, list):
        if to_csv_kwargs:
            raise TypeError("rows of dicts are written as they are: no to_csv options")
        if not table:
            raise ValueError(f"{path}: no rows to write (the header comes from the first row)")
        text = StringIO(newline="")
        writer = csv.DictWriter(text, fieldnames=list(table[0]))
        writer.writeheader()
        writer.writerows(table)
        data = text.getvalue().encode("utf-8")
    else:
        data = table.to_csv(**{"index": False, **to_csv_kwargs}).encode("utf-8")
    columns, rows = _csv_shape(data)
    record = {
        "rows": rows,
        "columns": columns,
        "sha256": hashlib.sha256(data).hexdigest(),
        "writer": CONTENT_RECORD_WRITER,
    }
    _replace_atomically(path, lambda tmp: tmp.write_bytes(data))
    blob = (json.dumps(record, indent=1) + "\n").encode()
    _replace_atomically(content_record_path(path), lambda tmp: tmp.write_bytes(blob))


def _csv_rebuild_hint(path) -> str:
    # --forcerun: the record is no Snakemake output, so Snakemake sees nothing to rebuild
    return (
        f"rebuild it: `snakemake --cores all --forcerun {path}` "
        "(add `--config scale=quick` for files under results/quick/)"
    )


def read_csv_bytes(path: str | Path) -> bytes:
    """The bytes of the CSV table ``path``, once checked against its content record
    (:func:`write_csv_table`); what :func:`read_csv_table` and :func:`read_csv_rows` parse.

    Raises
    ------
    FileNotFoundError
        If there is no table at ``path``.
    CorruptResultError
        If its record is missing or unreadable, or its bytes differ from those recorded (a
        table cut to fewer rows, a column dropped, a value edited); the message names the file,
        the rows and columns found against those recorded, and how to rebuild it.
    """
    path = Path(path)
    data = path.read_bytes()
    record_path = content_record_path(path)
    try:
        record = json.loads(record_path.read_bytes())
    except FileNotFoundError:
        raise CorruptResultError(
            f"{path}: no content record ({record_path} is missing): not written by this version "
            f"of the pipeline, or copied without it; {_csv_rebuild_hint(path)}"
        ) from None
    except (OSError, ValueError) as err:
        raise CorruptResultError(
            f"{path}: its content record {record_path} cannot be read ({err}); "
            f"{_csv_rebuild_hint(path)}"
        ) from None
    keys = ("rows", "columns", "sha256", "writer")
    if not isinstance(record, dict) or any(k not in record for k in keys):
        raise CorruptResultError(
            f"{path}: its content record {record_path} lacks {', '.join(keys)}; "
            f"{_csv_rebuild_hint(path)}"
        )
    if record["writer"] != CONTENT_RECORD_WRITER:
        raise CorruptResultError(
            f"{path}: its content record {record_path} was written by {record['writer']!r}, "
            f"not by the pipeline; {_csv_rebuild_hint(path)}"
        )
    if hashlib.sha256(data).hexdigest() == record["sha256"]:
        return data
    columns, rows = _csv_shape(data)
    recorded = list(record["columns"])
    gone = [c for c in recorded if c not in columns]
    added = [c for c in columns if c not in recorded]
    if gone or added:
        cols = f"columns missing {gone}, extra {added}"
    elif columns != recorded:
        cols = "the recorded columns in another order"
    else:
        cols = f"columns as recorded ({len(columns)})"
    raise CorruptResultError(
        f"{path}: differs from its content record ({record_path}): {rows} rows found, "
        f"{record['rows']} recorded; {cols}; the SHA-256 of its bytes differs (a damaged, cut "
        f"or edited file); {_csv_rebuild_hint(path)}"
    )


def read_csv_table(path: str | Path, **read_csv_kwargs):
    """Read a CSV table written by :func:`write_csv_table`, refusing one that does not match
    its content record (:func:`read_csv_bytes`): ``pandas.read_csv`` of the checked bytes.

    Parameters
    ----------
    path : str or Path
    **read_csv_kwargs
        Passed to :func:`pandas.read_csv`.

    Returns
    -------
    pandas.DataFrame

    Raises
    ------
    CorruptResultError
        As :func:`read_csv_bytes`.
    """
    import pandas as pd  # imported here: simulation jobs only write

    return pd.read_csv(BytesIO(read_csv_bytes(path)), **read_csv_kwargs)


def read_csv_rows(path: str | Path) -> list[dict[str, str]]:
    """The rows of a CSV table written by :func:`write_csv_table` as dicts of strings
    (:class:`csv.DictReader`), checked as :func:`read_csv_table` checks them; for readers that
    do without pandas (simulation jobs, Snakemake's own process)."""
    text = read_csv_bytes(path).decode("utf-8")
    return list(csv.DictReader(StringIO(text, newline="")))


class CorruptResultError(RuntimeError):
    """A results file that cannot be read, or was not written by this version's schema; or a
    CSV table that does not match its content record (:func:`read_csv_bytes`)."""


def _rebuild_hint(path) -> str:
    return (
        f"delete it and rebuild it: `rm {path} && snakemake --cores all {path}` "
        "(add `--config scale=quick` for files under results/quick/)"
    )


class ResultMismatchError(CorruptResultError):
    """A results file that holds other settings than the build expects (another cell, another
    configuration or root seed, or a copy from elsewhere)."""


def settings_of(meta: dict) -> dict:
    """What a results file holds, from its metadata: the cell (figure, sweep and calibration
    cells of cz22, olucb, dpdpe), or the run with its tier and scale (op24, plasso)."""
    if "cell" in meta:
        return meta["cell"]
    if "run" in meta:
        return {k: meta.get(k) for k in ("run", "tier", "scale")}
    return {}


def settings_hash(settings: dict) -> str:
    """SHA-256 of the canonical JSON of ``settings`` (:meth:`dpbandits.config.Cell.config_hash`
    for a cell)."""
    blob = json.dumps(settings, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(blob.encode()).hexdigest()


def check_identity(path, meta: dict, expected: dict) -> None:
    """Raise :class:`ResultMismatchError` unless the file holds the ``expected`` settings.

    The message names the file, the settings that differ (held vs expected) and how to rebuild.
    """
    held = settings_of(meta)
    if settings_hash(held) == settings_hash(expected):
        return
    want = json.loads(json.dumps(expected))  # as it would be stored
    diff = [k for k in sorted(set(held) | set(want)) if held.get(k) != want.get(k)]
    shown = "; ".join(f"{k} = {held.get(k)!r} (expected {want.get(k)!r})" for k in diff[:6])
    more = f"; and {len(diff) - 6} more" if len(diff) > 6 else ""
    raise ResultMismatchError(
        f"{path}: holds other settings than this build expects: {shown}{more}. It was written "
        f"by another configuration (or root seed) or copied from elsewhere; {_rebuild_hint(path)}"
    )


def read_metadata(path: str | Path, expect: dict | None = None) -> dict:
    """The ``dpbandits`` metadata of one results file.

    Parameters
    ----------
    path : path
    expect : dict, optional
        The settings the file must hold (:func:`settings_of`): a cell's ``as_dict()``, or
        ``{"run": run.as_dict(), "tier": ..., "scale": ...}``.

    Raises
    ------
    CorruptResultError
        If the file is truncated or not a parquet file, has no ``dpbandits`` metadata, or was
        written with another schema version; the message names the file and how to rebuild it.
    ResultMismatchError
        If ``expect`` is given and the file holds other settings.
    """
    try:
        footer = pq.read_metadata(path)
        schema = footer.schema.to_arrow_schema()
        meta = schema.metadata or {}
    except (OSError, pa.ArrowException) as err:
        raise CorruptResultError(
            f"{path}: not a readable parquet file ({err}); {_rebuild_hint(path)}"
        ) from None
    if META_KEY not in meta:
        raise CorruptResultError(
            f"{path}: no '{META_KEY.decode()}' metadata, not written by the pipeline; "
            f"{_rebuild_hint(path)}"
        )
    data = json.loads(meta[META_KEY])
    if data.get("schema_version") != SCHEMA_VERSION:
        raise CorruptResultError(
            f"{path}: schema version {data.get('schema_version')!r}, this version reads "
            f"{SCHEMA_VERSION}; {_rebuild_hint(path)}"
        )
    check_content(path, data, schema.remove_metadata(), footer.num_rows)
    if expect is not None:
        check_identity(path, data, expect)
    return data


def _check_counts(path, content: dict, table: pa.Table, at_horizon: bool) -> None:
    """Refuse a file whose trials (or, read whole, checkpoints) are fewer than written."""
    import pyarrow.compute as pc

    checks = [("trials", "trial")] + ([] if at_horizon else [("checkpoints", "t")])
    for key, col in checks:
        if key in content and col in table.column_names:
            found = len(pc.unique(table[col]))
            if found != content[key]:
                raise CorruptResultError(
                    f"{path}: {found} {key} read, {content[key]} written (a damaged or cut "
                    f"file); {_rebuild_hint(path)}"
                )


def read_results(
    paths, at_horizon: bool = False, required=("trial", "t", "T"), expect: dict | None = None
):
    """Concatenate results files into one pandas DataFrame (columns as written).

    Parameters
    ----------
    paths : path or list of paths
    at_horizon : bool
        Keep only the rows at the horizon (``t == T``), filtered while reading (dpdpe's
        figures: 5 MB in memory at the horizon, 1 GB with every checkpoint).
    required : tuple of str
        Columns every file must have.
    expect : dict, optional
        Path -> the settings the file must hold (:func:`read_metadata`); when given it must
        name every path.

    Raises
    ------
    CorruptResultError
        For a truncated, foreign, old-schema or column-less file, naming it and how to rebuild it.
    ResultMismatchError
        For a file that holds other settings than ``expect`` says.
    """
    import pandas as pd  # imported here: simulation jobs only write
    import pyarrow.compute as pc

    paths = [paths] if isinstance(paths, str | Path) else list(paths)
    if not paths:
        raise ValueError("no results files given")
    if expect is not None:
        expect = {str(k): v for k, v in expect.items()}
        unnamed = [str(p) for p in paths if str(p) not in expect]
        if unnamed:
            raise ValueError(f"no expected settings for {unnamed[:3]}")
    where = pc.field("t") == pc.field("T") if at_horizon else None
    frames = []
    for p in paths:
        # truncated, foreign, old-schema or mismatched files fail here, naming the file
        data = read_metadata(p, None if expect is None else expect[str(p)])
        try:
            table = pq.read_table(p, filters=where)
        except (OSError, pa.ArrowException) as err:
            raise CorruptResultError(f"{p}: cannot be read ({err}); {_rebuild_hint(p)}") from None
        missing = [c for c in required if c not in table.column_names]
        if missing:
            raise CorruptResultError(f"{p}: missing columns {missing}; {_rebuild_hint(p)}")
        _check_counts(p, data["content"], table, at_horizon)
        frames.append(table.to_pandas())
    return pd.concat(frames, ignore_index=True)
