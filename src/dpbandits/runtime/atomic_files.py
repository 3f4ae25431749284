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


def read_json_cache(path: str | Path) -> dict:
    """A JSON object cache file's entries; empty when it is missing, damaged or not an object."""
    import json

    try:
        data = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def merge_json_cache(path: str | Path, entries: dict) -> bool:
    """Add ``entries`` to the JSON object cache file ``path`` (read, merge, replace atomically);
    whether the file now holds them. A concurrent writer may drop some: a cache loses entries only.
    """
    import json

    data = read_json_cache(path)
    data.update(entries)
    return write_atomically(path, json.dumps(data, sort_keys=True).encode())
