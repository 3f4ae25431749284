"""Reading a paper's sweep files for the rate audit: final values, the schedules' options and
each instance's saturation cap (random play's regret at the cell's horizon)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..config import Cell
from ..envs.caps import random_play_rate
from ..io import read_metadata, read_results


def read_sweeps(paths, expect: dict | None = None) -> tuple[pd.DataFrame | None, dict]:
    """Final rows of every sweep file with a ``cap`` column, and ``(sweep, schedule) -> options``.

    ``expect``: path -> the cell (``as_dict()``) the file must hold
    (:func:`dpbandits.io.read_metadata`); a file holding another cell is refused.

    The cap of trial ``i`` of a cell is ``T`` times random play's per-round regret on the
    cell's instance ``i`` (:func:`dpbandits.envs.caps.random_play_rate`); the instances are
    rebuilt from the cell stored in the file's metadata, so they are the ones simulated.
    """
    from ..pipeline import cell_instances  # the simulation's own instance builder

    paths = list(paths)
    if not paths:
        return None, {}
    frames, options = [], {}
    for path in paths:
        want = None if expect is None else expect[str(path)]
        cell = Cell.from_dict(read_metadata(path, want)["cell"])
        options.setdefault((cell.sweep, cell.schedule), cell.options)
        df = read_results(path, at_horizon=True)
        cap = cell.T * random_play_rate(cell_instances(cell))
        trial = df["trial"].to_numpy()
        if trial.min() < 0 or trial.max() >= cap.size:
            raise ValueError(f"{path}: trials {trial.min()}..{trial.max()} outside the cell's")
        frames.append(df.assign(cap=np.asarray(cap)[trial]))
    return pd.concat(frames, ignore_index=True), options
