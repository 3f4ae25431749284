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


#: The state (inode, size, modification time) of each JSON cache file when this process last read
#: it through :func:`changed_json_cache`, by absolute path.
_READ: dict[str, tuple[int, int, int]] = {}


def changed_json_cache(path: str | Path) -> dict:
    """The entries of the JSON object cache file ``path`` if it changed since this process last
    read it here, else an empty dict: for a caller that merges the entries into its own
    in-process cache on every miss, so that the file is parsed once per change instead of once
    per miss. A missing or damaged file reads as empty."""
    path = Path(path).absolute()
    try:
        st = path.stat()
    except OSError:
        return {}
    state = (st.st_ino, st.st_size, st.st_mtime_ns)
    if _READ.get(str(path)) == state:
        return {}
    _READ[str(path)] = state
    return read_json_cache(path)


def merge_json_cache(path: str | Path, entries: dict) -> bool:
    """Add ``entries`` to the JSON object cache file ``path`` (read, merge, replace atomically);
    whether the file now holds them. A concurrent writer may drop some: a cache loses entries only.
    """
    import json

    data = read_json_cache(path)
    data.update(entries)
    return write_atomically(path, json.dumps(data, sort_keys=True).encode())
