"""What made an output: the code's commit and the versions of the numerical stack.

Every results file (parquet metadata, key ``provenance``), every table's Markdown note and the
claim audit's front page carry :func:`provenance`, so a number found later can be traced to the
commit (and whether the work tree had uncommitted changes), to the library versions that
computed it and to whether NumPy's and OpenBLAS's vector instructions were pinned to AVX2
(:mod:`dpbandits.runtime.cpu`; a native run on an AVX-512 CPU gives other numbers). It is
computed once per process.
"""

from __future__ import annotations

import functools
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from . import __version__
from .runtime import cpu

#: Distributions whose versions can change a number.
NUMERICAL = ("numpy", "numba", "scipy", "scikit-learn", "dp-accounting", "pyarrow", "pandas")


def instruction_sets(environ: dict | None = None, flags: set[str] | None = None) -> dict:
    """How this process's vector instructions were chosen (:mod:`dpbandits.runtime.cpu`).

    Returns
    -------
    dict
        ``mode``: ``"pinned to AVX2"`` (the pin's variables in force), ``"native
        (DPBANDITS_NATIVE_SIMD=1)"``, ``"native (no AVX2 and FMA to pin to)"`` or ``"set by the
        user"`` (other values of the variables); the two variables as set (None if unset); and
        whether the CPU has AVX-512F (where a native run gives other numbers).
    """
    environ = os.environ if environ is None else environ
    flags = cpu._cpu_flags() if flags is None else flags
    wanted = cpu.pinned_environment(flags)
    if environ.get(cpu.OPT_OUT) == "1":
        mode = f"native ({cpu.OPT_OUT}=1)"
    elif not wanted:
        mode = "native (no AVX2 and FMA to pin to)"
    elif all(environ.get(k) == v for k, v in wanted.items()):
        mode = "pinned to AVX2"
    else:
        mode = "set by the user"
    return {
        "mode": mode,
        **{k: environ.get(k) for k in ("NPY_DISABLE_CPU_FEATURES", "OPENBLAS_CORETYPE")},
        "cpu_avx512f": "avx512f" in flags,
    }


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
        "instruction_sets": instruction_sets(),
    }


def one_line(prov: dict | None = None) -> str:
    """The provenance as one line for notes and pages."""
    p = provenance() if prov is None else prov
    commit = p["git_commit"][:12] + (" (uncommitted changes)" if p["git_dirty"] else "")
    libs = ", ".join(f"{k} {p[k]}" for k in ("python", *NUMERICAL))
    simd = p.get("instruction_sets", {}).get("mode", "not recorded")
    return (
        f"dpbandits {p['package_version']} at commit {commit}; {libs}; vector instructions {simd}"
    )
