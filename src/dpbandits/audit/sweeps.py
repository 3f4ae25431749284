"""Reading a paper's sweep files for the rate audit: final values, the schedules' options and
each instance's saturation cap (random play's regret at the cell's horizon)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..config import Cell
from ..envs.caps import cell_caps
from ..io import read_metadata, read_results
from .verdicts import REGIME_SUFFIX


def read_sweeps(paths, expect: dict | None = None) -> tuple[pd.DataFrame | None, dict]:
    """Final rows of every sweep file with a ``cap`` column, and ``(sweep, schedule) -> options``;
    the policy constants named ``*_regime_T`` (:data:`REGIME_SUFFIX`) as columns too.

    ``expect``: path -> the cell (``as_dict()``) the file must hold
    (:func:`dpbandits.io.read_metadata`); a file holding another cell is refused.

    The cap of trial ``i`` of a cell is ``T`` times random play's per-round regret on the
    cell's instance ``i`` (:func:`dpbandits.envs.caps.cell_caps`); the instances are
    rebuilt from the cell stored in the file's metadata, so they are the ones simulated.
    """
    paths = list(paths)
    if not paths:
        return None, {}
    frames, options = [], {}
    for path in paths:
        want = None if expect is None else expect[str(path)]
        meta = read_metadata(path, want)
        cell = Cell.from_dict(meta["cell"])
        options.setdefault((cell.sweep, cell.schedule), cell.options)
        df = read_results(path, at_horizon=True)
        cap = cell_caps(cell)
        trial = df["trial"].to_numpy()
        if trial.min() < 0 or trial.max() >= cap.size:
            raise ValueError(f"{path}: trials {trial.min()}..{trial.max()} outside the cell's")
        starts = {  # where a claimed rate's regime starts, as the policy computed it
            k: float(v)
            for k, v in (meta.get("constants") or {}).items()
            if k.endswith(REGIME_SUFFIX)
        }
        frames.append(df.assign(cap=np.asarray(cap)[trial], **starts))
    return pd.concat(frames, ignore_index=True), options


def write_finals(finals: pd.DataFrame | None, path, experiment: str) -> None:
    """Write the rows :func:`read_sweeps` returned (``None``: no sweeps) as one results file.

    The audit page reads this file (:func:`read_finals`) instead of every sweep file: the fit
    job has already checked each file's identity, and a page job with one input instead of
    hundreds keeps Snakemake from hashing each of those inputs once for every one of the page's
    60-68 outputs when it records the job (42 000 of the quick build's 54 000 input checksums;
    docs/performance.md, fifteenth session).
    """
    import pyarrow as pa

    from ..io import write_result

    frame = pd.DataFrame() if finals is None else finals
    table = pa.Table.from_pandas(frame, preserve_index=False)
    write_result(path, table, {"finals": {"experiment": experiment, "rows": len(frame)}})


def read_finals(path) -> pd.DataFrame | None:
    """The sweeps' final rows as :func:`dpbandits.io.read_results` reads the sweep files
    (``read_results(paths, at_horizon=True)``: the same columns, values and dtypes; the
    saturation cap dropped), or ``None`` when the paper has no sweeps."""
    if read_metadata(path)["finals"]["rows"] == 0:
        return None
    return read_results(path, required=("trial", "t", "T", "cap")).drop(columns="cap")
