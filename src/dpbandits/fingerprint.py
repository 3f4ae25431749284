"""Fingerprints of the library code each kind of job runs, so that code changes rerun jobs.

Snakemake reruns a job when its rule's script, inputs or params change, but it does not see the
package the script imports. Every rule therefore carries ``code = fingerprint(kind)`` as a
param: the SHA-256 of the source files of the modules that kind of job runs. After ``git pull``
or an edit, ``snakemake -n`` lists exactly the jobs whose code changed and what depends on
them (reason: "params have changed").

The lists are deliberately generous (a whole subpackage rather than the modules one engine
imports): a spurious rerun costs minutes, a missed one a stale figure.
"""

from __future__ import annotations

import functools
import hashlib
from pathlib import Path

#: Package root (the imported package: a temporary copy on PYTHONPATH is fingerprinted too).
PACKAGE = Path(__file__).resolve().parent

_SIM = (
    "engine", "envs", "learners", "mechanisms", "policies", "design.py", "seeds.py", "config.py",
    "pipeline.py", "io.py", "schema.py", "sizes.py", "joblog.py", "bound_plan.py",
    "bound_runs.py", "plasso_plan.py", "plasso_runs.py",
)  # fmt: skip
_PAGES = ("notebooks.py", "textsafe.py", "plotting.py", "io.py", "report.py")

#: Library code per kind of job (paths relative to the package; a directory means every
#: ``*.py`` under it).
CODE = {
    "simulation": _SIM,
    "figures": (*_PAGES, "summaries.py", "config.py"),
    "tables": ("tables.py", "summaries.py", "claims.py", "config.py", "io.py", "audit"),
    "audit": (
        *_PAGES, "audit", "claims.py", "bound_claims.py", "config.py", "pipeline.py", "envs",
        "summary.py", "summaries.py",
    ),
    "privacy": ("privacy", "mechanisms", "policies", "audit", "config.py", "bound_plan.py",
                "plasso_plan.py", "textsafe.py"),
}  # fmt: skip


@functools.cache
def fingerprint(kind: str) -> str:
    """SHA-256 (hex) of the relative paths and contents of the source files of ``kind``.

    Raises ``KeyError`` for an unknown kind.
    """
    files = set()
    for part in CODE[kind]:
        path = PACKAGE / part
        files |= set(path.rglob("*.py")) if path.is_dir() else {path}
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(str(f.relative_to(PACKAGE)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()
