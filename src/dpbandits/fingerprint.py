"""Fingerprints of the library code each kind of job runs, so that code changes rerun jobs.

Snakemake reruns a job when its rule's script, inputs or params change, but it does not see the
package the script imports. Every rule therefore carries ``code = fingerprint(kind)`` as a
param: the SHA-256 of the source files of the modules that kind of job runs. After ``git pull``
or an edit, ``snakemake -n`` lists exactly the jobs whose code changed and what depends on
them (reason: "params have changed").

The lists are deliberately generous (a whole subpackage rather than the modules one engine
imports): a spurious rerun costs minutes, a missed one a stale figure.

What is hashed is the code, not its prose: each file's syntax tree with docstrings removed (so
comments, docstrings and formatting do not count; any change to a name, a constant or a
statement does). Parsing every file costs about half a second, so the hash of each file's code
is cached by the SHA-256 of its bytes in ``.snakemake/code-fingerprints.json`` of the working
directory (content-addressed: a stale entry cannot be hit; an unwritable directory only loses
the cache).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path

from .cache_files import write_atomically

#: Package root (the imported package: a temporary copy on PYTHONPATH is fingerprinted too).
PACKAGE = Path(__file__).resolve().parent

#: Every kind: the package's import pins the instruction sets NumPy and OpenBLAS use (cpu.py).
_BASE = ("__init__.py", "cpu.py")
_SIM = (
    *_BASE, "engine", "envs", "learners", "mechanisms", "policies", "design.py", "seeds.py",
    "config.py", "pipeline.py", "io.py", "result_columns.py", "sizes.py", "joblog.py", "normals.py",
    "settings_params.py",
    "papers/__init__.py", "papers/study.py", "papers/op24/__init__.py", "papers/op24/plan.py",
    "papers/op24/runs.py", "papers/plasso/__init__.py", "papers/plasso/plan.py",
    "papers/plasso/runs.py",
)  # fmt: skip
_PAGES = (*_BASE, "notebooks.py", "pages.py", "textsafe.py", "plotting.py", "io.py",
          "report_captions.py")

#: Library code per kind of job (paths relative to the package; a directory means every
#: ``*.py`` under it).
CODE = {
    "simulation": _SIM,
    "figures": (*_PAGES, "regret_stats.py", "config.py"),
    "tables": (*_BASE, "tables.py", "regret_stats.py", "claims.py", "config.py", "io.py", "audit",
               "pages.py"),
    "audit": (
        *_PAGES, "audit", "claims.py", "bound_claims.py", "config.py", "pipeline.py", "envs",
        "run_summary.py", "regret_stats.py", "front_page.py",
        # the findings on paper 000's page and what they compute with
        "papers/olucb", "policies", "privacy", "normals.py",
    ),
    "privacy": (*_BASE, "privacy", "mechanisms", "policies", "audit", "config.py",
                "papers/study.py", "papers/op24/plan.py", "papers/plasso/plan.py", "textsafe.py",
                "pages.py", "normals.py"),
    "arena": (*_BASE, "arena", "audit/ordering.py", "audit/privacy.py", "privacy", "mechanisms",
              "policies", "envs", "pipeline.py", "config.py", "io.py", "plotting.py", "textsafe.py",
              "pages.py", "tables.py", "normals.py"),
}  # fmt: skip


#: Cache of code hashes by content hash (module docstring); relative to the working directory.
CACHE = Path(".snakemake") / "code-fingerprints.json"
_DOCUMENTED = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def code_hash(source: bytes) -> str:
    """SHA-256 (hex) of a module's code: its syntax tree without docstrings (comments and
    formatting are not in the tree). A file that does not parse hashes as its bytes."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return hashlib.sha256(source).hexdigest()
    for node in ast.walk(tree):
        if isinstance(node, _DOCUMENTED) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                if isinstance(first.value.value, str):
                    node.body = node.body[1:] or [ast.Pass()]
    return hashlib.sha256(ast.dump(tree).encode()).hexdigest()


@functools.cache
def _cache() -> dict:
    try:
        return json.loads(CACHE.read_text())
    except (OSError, ValueError):
        return {}


def _save(cache: dict) -> None:
    """Write the cache atomically (jobs parse the workflow in parallel); errors only lose it."""
    write_atomically(CACHE, json.dumps(cache).encode())


@functools.cache
def fingerprint(kind: str) -> str:
    """SHA-256 (hex) of the relative paths and code (:func:`code_hash`) of the source files of
    ``kind``.

    Raises ``KeyError`` for an unknown kind.
    """
    files = set()
    for part in CODE[kind]:
        path = PACKAGE / part
        files |= set(path.rglob("*.py")) if path.is_dir() else {path}
    cache, new = _cache(), False
    h = hashlib.sha256()
    for f in sorted(files):
        raw = f.read_bytes()
        key = hashlib.sha256(raw).hexdigest()
        if key not in cache:
            cache[key], new = code_hash(raw), True
        h.update(str(f.relative_to(PACKAGE)).encode() + b"\0" + cache[key].encode() + b"\0")
    if new:
        _save(cache)
    return h.hexdigest()
