"""Best-effort, atomic writes of the workflow's caches and generated files.

The caches (code fingerprints, parsed YAML files and passed validations in ``.snakemake/``;
setting F's ``lambda_min`` values in ``~/.cache/dpbandits``) only save time, and the report's
caption files (``.snakemake/report-captions/``) are named by their content: parallel parses
(cluster jobs, test workers) may write the same file at once, so each write goes to a temporary
file in the same folder and is renamed over the target; a write that fails loses the entry and
nothing else (the caption writer raises then: the report needs the file).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, data: bytes) -> bool:
    """Replace ``path`` with ``data`` in one rename; False (and no file left behind) on failure.

    Parameters
    ----------
    path : str or Path
        The cache file; its folder is created if needed.
    data : bytes

    Returns
    -------
    bool
        Whether the file now holds ``data``.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
        return True
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        return False
