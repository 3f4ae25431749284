"""Shared fixtures: paths of the project's configuration."""

from pathlib import Path

import pytest

# First, before anything imports NumPy: dpbandits pins NumPy's and OpenBLAS's instruction sets,
# so the tests see the numbers of any x86-64 CPU with AVX2 (dpbandits.cpu).
import dpbandits  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "workflow" / "schemas"


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
