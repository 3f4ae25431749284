"""Shared fixtures: paths of the project's configuration."""

from pathlib import Path

import pytest

# First, before anything imports NumPy: dpbandits pins NumPy's and OpenBLAS's instruction sets,
# so the tests see the numbers of any x86-64 CPU with AVX2 (dpbandits.runtime.cpu).
import dpbandits  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "workflow" / "schemas"


def pytest_collection_modifyitems(config, items):
    """Tests marked ``longest`` first (a stable sort): pytest-xdist hands tests out in this
    order, so the longest start at once and the others fill the other workers, instead of the
    run waiting at its end for a long test that started last. Not for the end-to-end tests:
    they share one quick tree per worker in file order (the module-edit test reruns on the
    tree the quick-audit test built)."""
    items.sort(key=lambda item: item.get_closest_marker("longest") is None)


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture
def global_config() -> dict:
    from dpbandits.config import load_yaml

    return load_yaml(ROOT / "config" / "config.yaml")


@pytest.fixture
def cz22_data() -> dict:
    from dpbandits.config import load_yaml

    return load_yaml(ROOT / "config" / "experiments" / "cz22.yaml")


@pytest.fixture(autouse=True)
def _own_matched_searches(request, tmp_path_factory, monkeypatch):
    """Every test searches matched calibrations, and caches the shuffle protocols' part
    certificates, in caches of its own: a test that plants a mutant accountant must leave its
    results neither to another test nor to a build of the project (whose disk caches live in the
    working directory's ``.snakemake/``)."""
    import hashlib

    from dpbandits.privacy import matching

    name = hashlib.sha256(request.node.nodeid.encode()).hexdigest()[:16]
    folder = tmp_path_factory.getbasetemp() / "matched-searches"
    monkeypatch.setattr(matching, "DISK_CACHE", folder / f"{name}.json")
    monkeypatch.setattr(matching, "_CACHE", {})
    from dpbandits.privacy import part_cache

    monkeypatch.setattr(part_cache, "PART_CACHE", folder / f"{name}-parts.json")
    monkeypatch.setattr(part_cache, "_PARTS", {})
    monkeypatch.setattr(part_cache, "_NEW", {})
    from dpbandits.runtime import atomic_files

    monkeypatch.setattr(atomic_files, "_READ", {})  # what this process has read of the caches
