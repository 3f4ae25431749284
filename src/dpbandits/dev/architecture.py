"""Checks of the package's shape that the tests enforce: no import cycle between modules, no
module over :data:`MAX_LINES` lines (compiled kernels aside), and no branch on a paper's name
outside the paper's own package and the policy classes (docs/design.md, "Layers").

The import graph is the one the code fingerprints follow (:mod:`dpbandits.fingerprint`): every
``import`` statement of a module, inside functions too, to the module it names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

from ..fingerprint import PACKAGE, _imports, _module_file, _module_name

#: Most lines a module may have.
MAX_LINES = 600
#: Modules exempt from :data:`MAX_LINES` (package-relative): numba kernels, whose loops cannot be
#: split without a call per round in the compiled code.
COMPILED_KERNELS = ("engine/kernels.py",)
#: Where a branch on a paper's name belongs (package-relative prefixes).
PAPER_PLACES = ("papers/", "policies/")


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Module name -> the package modules it imports (itself excluded)."""
    files = sorted(package.rglob("*.py"))
    names = {f: _module_name(f) for f in files}
    graph: dict[str, set[str]] = {}
    for f in files:
        found, docs = _imports(f)
        targets = {_module_file(n) for n in found | docs}
        graph[names[f]] = {names[t] for t in targets if t in names and t != f}
    return graph


def cycles(graph: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without
    recursion), each sorted; empty when the graph has no cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(graph.get(root, ())))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, edges = work[-1]
            w = next(edges, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(graph.get(w, ()))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                component = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    component.append(w)
                    if w == v:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def long_modules(package: Path = PACKAGE, limit: int = MAX_LINES) -> dict[str, int]:
    """Package-relative path -> line count of every module over ``limit`` lines, compiled kernels
    aside."""
    out = {}
    for f in sorted(package.rglob("*.py")):
        rel = f.relative_to(package).as_posix()
        n = len(f.read_text().splitlines())
        if n > limit and rel not in COMPILED_KERNELS:
            out[rel] = n
    return out


def _strings(node: ast.AST) -> set[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return set().union(*(_strings(e) for e in node.elts)) if node.elts else set()
    return set()


def name_branches(source: str, names: Iterable[str]) -> list[tuple[int, str]]:
    """``(line, name)`` of every comparison in ``source`` (``==``, ``!=``, ``in``, ``not in``)
    against a string constant (or a tuple, list or set of them) among ``names``."""
    names = set(names)
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                for hit in sorted(_strings(side) & names):
                    out.append((node.lineno, hit))
    return sorted(out)


def paper_branches(package: Path = PACKAGE, names: Iterable[str] | None = None) -> list[str]:
    """``path:line: name`` of every branch on a paper's name (its prefix; by default the
    registry's) outside :data:`PAPER_PLACES`."""
    if names is None:
        from ..papers import PAPERS

        names = PAPERS
    out = []
    for f in sorted(package.rglob("*.py")):
        rel = f.relative_to(package).as_posix()
        if rel.startswith(PAPER_PLACES):
            continue
        for line, name in name_branches(f.read_text(), names):
            out.append(f"{rel}:{line}: {name}")
    return out
