"""What made an output: the code's commit and the versions of the numerical stack.

Every results file (parquet metadata, key ``provenance``), every table's Markdown note and the
claim audit's front page carry :func:`provenance`, so a number found later can be traced to the
commit (and whether the work tree had uncommitted changes) and to the library versions that
computed it. It is computed once per process.
"""

from __future__ import annotations

import functools
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from . import __version__

#: Distributions whose versions can change a number.
NUMERICAL = ("numpy", "numba", "scipy", "scikit-learn", "dp-accounting", "pyarrow", "pandas")


def _git(*args: str, cwd: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, timeout=10, check=True
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


@functools.cache
def provenance(root: str | Path = ".") -> dict:
    """Commit, dirty flag, package version, Python and numerical library versions.

    ``git_commit`` is ``"unknown"`` outside a git work tree (e.g. a copy of the project);
    ``git_dirty`` says whether tracked files differ from the commit.
    """
    root = Path(root)
    commit = _git("rev-parse", "HEAD", cwd=root)
    status = _git("status", "--porcelain", "--untracked-files=no", cwd=root) if commit else None
    versions = {}
    for name in NUMERICAL:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "git_commit": commit or "unknown",
        "git_dirty": bool(status) if commit else None,
        "package_version": __version__,
        "python": platform.python_version(),
        **versions,
    }


def one_line(prov: dict | None = None) -> str:
    """The provenance as one line for notes and pages."""
    p = provenance() if prov is None else prov
    commit = p["git_commit"][:12] + (" (uncommitted changes)" if p["git_dirty"] else "")
    libs = ", ".join(f"{k} {p[k]}" for k in ("python", *NUMERICAL))
    return f"dpbandits {p['package_version']} at commit {commit}; {libs}"
