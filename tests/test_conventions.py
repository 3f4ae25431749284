"""Conventions checked with the tests: ruff, snakemake --lint, snakefmt."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT

BIN = Path(sys.executable).parent


def _run(*cmd):
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env=env)


def test_ruff_is_clean():
    proc = _run(str(BIN / "ruff"), "check", "src", "tests", "workflow", "notebooks")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_snakefmt_is_clean():
    proc = _run(str(BIN / "snakefmt"), "--check", "Snakefile", "workflow")
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.pipeline
def test_snakemake_lint_is_clean():
    proc = _run(sys.executable, "-m", "snakemake", "--lint")
    assert proc.returncode == 0 and "Lints for" not in proc.stdout + proc.stderr, proc.stdout
