"""Fingerprints of the library code a job runs, so that code changes rerun jobs.

Snakemake reruns a job when its rule's script, inputs or params change, but it does not see the
package the script imports. Every rule therefore carries ``code = fingerprint(script, ...)`` as
a param: the SHA-256 of the source files of every ``dpbandits`` module its script (and the
notebook it executes) imports, directly or through other modules: the import closure, resolved
from the source (:func:`closure`), not from a list kept by hand. After ``git pull`` or an edit,
``snakemake -n`` lists exactly the jobs whose code changed and what depends on them (reason:
"params have changed").

Every ``import`` statement counts, inside functions too; a module's import also loads its parent
packages; the paper registry (``papers/__init__.py``) loads every paper package by name at run
time, so it pulls them all in. ``tests/test_fingerprint.py`` checks that every module of the
package is in some job's closure or in :data:`NOT_IN_JOBS`.

What is hashed is the code, not its prose: each file's syntax tree with docstrings removed (so
comments, docstrings and formatting do not count; any change to a name, a constant or a
statement does), except in a module whose docstrings a job writes into its outputs (a closure
file reads ``<name>.__doc__`` of a name imported from it): there the docstrings count too.
Parsing every file costs about half a second, so the hash of each file is cached by the SHA-256
of its bytes in ``.snakemake/code-fingerprints.json`` of the working directory
(content-addressed: a stale entry cannot be hit; an unwritable directory only loses the cache).
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
from pathlib import Path

from dpbandits.runtime.atomic_files import write_atomically

#: Package root (the imported package: a temporary copy on PYTHONPATH is fingerprinted too).
PACKAGE = Path(__file__).resolve().parent

#: Modules that no job imports (paths relative to the package, ``fnmatch`` patterns): the
#: command-line tools and their helpers (``dpb`` and the build checks of
#: :mod:`dpbandits.checks`), the developer tools (the benchmark and the warm-up, with every
#: paper's workload and warm-up, loaded by name), the tests' slow reference loops, and what runs
#: in Snakemake's own process while it reads the workflow or ends a run (captions, the run's
#: summary, the job-rate setting). Every other module (this one too: the matched calibration's
#: search cache keys on code fingerprints) must be in some job's closure
#: (``tests/test_fingerprint.py``).
NOT_IN_JOBS = (
    "cli.py",
    "checks/*.py",
    "dev/*.py",
    "papers/*/bench.py",
    "papers/*/warmup.py",
    "dev/authors_script.py",
    "dev/reference_loops.py",
    "learners/maler_reference.py",
    "report_captions.py",
    "runtime/run_summary.py",
    "runtime/rate_limit.py",
)


def not_in_jobs(modules) -> set[str]:
    """The ``modules`` (package-relative paths) that :data:`NOT_IN_JOBS` declares outside jobs."""
    import fnmatch

    return {m for m in modules if any(fnmatch.fnmatchcase(m, p) for p in NOT_IN_JOBS)}


def _source(path: Path) -> str:
    """A Python file's text, or a notebook's code cells joined (magics left to the parser)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix != ".ipynb":
        return text
    cells = json.loads(text)["cells"]
    return "\n".join(
        "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        for c in cells
        if c["cell_type"] == "code"
    )


@functools.cache
def _module_file(name: str) -> Path | None:
    """The file of module ``dpbandits[.a.b]``: ``a/b.py`` or ``a/b/__init__.py``; None if none."""
    parts = name.split(".")[1:]
    base = PACKAGE.joinpath(*parts)
    for f in (base.with_suffix(".py") if parts else None, base / "__init__.py"):
        if f is not None and f.is_file():
            return f
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["dpbandits", *parts])


@functools.cache
def _imports(path: Path) -> tuple[frozenset[str], frozenset[str]]:
    """The ``dpbandits`` modules a file imports anywhere in it, and those whose docstrings it
    reads (``<name>.__doc__`` of a name imported from them, or its own ``__doc__``); cached
    by the file's path and bytes (:data:`CACHE`)."""
    raw = path.read_bytes()
    key = "imports:" + hashlib.sha256(str(path).encode() + b"\0" + raw).hexdigest()
    cache = _cache()
    if key not in cache:
        found, docs = _scan_imports(path)
        cache[key] = [sorted(found), sorted(docs)]
        _CHANGED.append(key)
    found, docs = cache[key]
    return frozenset(found), frozenset(docs)


#: Cache keys added in this process (written once, by :func:`fingerprint`).
_CHANGED: list[str] = []


def _scan_imports(path: Path) -> tuple[set[str], set[str]]:
    """:func:`_imports` without the cache."""
    try:
        tree = ast.parse(_source(path))
    except SyntaxError:
        return set(), set()
    here = _module_name(path) if path.is_relative_to(PACKAGE) else ""
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found, bound = set(), {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "dpbandits" or a.name.startswith("dpbandits."):
                    found.add(a.name)
                    bound[(a.asname or a.name).split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package.split(".")
                up = up[: len(up) - node.level + 1] if node.level > 1 else up
                base = ".".join([*up, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            if not (base == "dpbandits" or base.startswith("dpbandits.")):
                continue
            for a in node.names:
                sub = f"{base}.{a.name}"
                target = sub if _module_file(sub) else base
                found.add(target)
                bound[a.asname or a.name] = target
    docs = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "__doc__":
            if isinstance(node.value, ast.Name) and node.value.id in bound:
                docs.add(bound[node.value.id])
        elif isinstance(node, ast.Name) and node.id == "__doc__" and here:
            docs.add(here)
    return found, docs


def closure(entries) -> tuple[set[Path], set[Path]]:
    """The package files that the scripts or notebooks ``entries`` load (every module imported,
    directly or not, with its parent packages; the paper registry with every paper package),
    and the subset whose docstrings are written into outputs (module docstring)."""
    todo = [Path(e) for e in entries]
    files, docs, seen = set(), set(), set()
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        if path.is_relative_to(PACKAGE):
            files.add(path)
            if path.name == "__init__.py" and path.parent == PACKAGE / "papers":
                todo += sorted(PACKAGE.glob("papers/*/__init__.py"))
        names, doc_names = _imports(path)
        for name in names | doc_names:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):  # the module and its parent packages
                f = _module_file(".".join(parts[:i]))
                if f is not None:
                    todo.append(f)
        docs |= {f for f in map(_module_file, doc_names) if f is not None}
    return files, docs


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
def fingerprint(*entries: str) -> str:
    """SHA-256 (hex) of the relative paths and code (:func:`code_hash`; the whole text of a
    module whose docstrings are written, :func:`closure`) of every package file that the
    scripts or notebooks ``entries`` (paths) load. ``FileNotFoundError`` for a missing entry."""
    for e in entries:
        if not Path(e).is_file():
            raise FileNotFoundError(f"fingerprint: no such script or notebook: {e}")
    files, docs = closure(entries)
    cache, new = _cache(), False
    h = hashlib.sha256()
    for f in sorted(files):
        raw = f.read_bytes()
        key = hashlib.sha256(raw).hexdigest()
        if f in docs:
            code = key  # its docstrings are written into outputs: every character counts
        else:
            if key not in cache:
                cache[key], new = code_hash(raw), True
            code = cache[key]
        h.update(str(f.relative_to(PACKAGE)).encode() + b"\0" + code.encode() + b"\0")
    if new or _CHANGED:
        _save(cache)
        _CHANGED.clear()
    return h.hexdigest()
