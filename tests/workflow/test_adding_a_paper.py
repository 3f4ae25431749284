"""Adding a sixth paper is a registry line and its files (docs/adding-a-paper.md).

In a temporary copy of the project: a toy figure paper with two policies (LinUCB and a new
algorithm), one figure and one claim, and a toy bounds paper (``toy_bounds/``: its package, plan,
plan schema, claims, audit notebook and docs page, none of which exists in the project) are
registered; both build their targets and get their figures, verdicts and scoreboard rows (marker
e2e, about 1 min). The new algorithm is its policy module, its line in the policy registry and
its name in the experiment schema: no engine, size or privacy module names it (each policy class
states its own dispatch)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ..conftest import ROOT

pytestmark = [pytest.mark.pipeline, pytest.mark.e2e]

EXPERIMENT = """\
# A toy paper: LinUCB on the published script's instances (docs/adding-a-paper.md).
experiment: toy
title: A toy paper (LinUCB on the script's instances)

defaults:
  T: 2000
  trials: 10
  K: 10
  delta: 0.1
  B: 20
  instance_seed: 2
  reward_seed_offset: 0

series:
  LinUCB: {algorithm: linucb}
  Greedy: {algorithm: toy_greedy}

primary: main
configurations:
  main:
    title: As published
    description: The experiment calibration of the published script.
    calibration: experiment
    fidelity: script
    instances: script

figures:
  toy_fig1:
    title: Figure 1 of the toy paper
    caption: Cumulative regret of LinUCB, K = 10 arms, d = 5.
    panels:
      a: {epsilon: null, d: 5}
"""

CLAIMS = """\
# The toy paper's one claim.
prefix: toy
claims:
- id: toy.fig1.learns
  source: Fig. 1
  kind: ordering
  algorithm: LinUCB
  bound: LinUCB plays the best arm in at least a twentieth of the rounds
  T_exp: null
  eps_exp: null
  d_exp: null
  conditions: K = 10, d = 5
  direction: upper
  audit:
    experiment: toy
    check: metric_at_least
    panels: [toy_fig1a]
    series: [LinUCB]
    metric: best_arm_rounds
    threshold: 100
"""

REGISTRY_LINE = '        Paper("toy", "999", "A toy paper", "figures"),\n'
#: The toy bounds paper: every file it adds, laid out as in the project.
BOUNDS_PAPER = Path(__file__).parent / "toy_bounds"
BOUNDS_REGISTRY_LINE = '        Paper("toyb", "998", "A toy bounds paper", "bounds"),\n'

#: The new algorithm: greedy LinUCB (confidence width 0), run by the fixed-arm engine.
POLICY = """\
\"\"\"Greedy LinUCB, the toy paper's algorithm (docs/adding-a-paper.md).\"\"\"

import numpy as np

from .linucb import LinUCB


class ToyGreedy(LinUCB):
    \"\"\"LinUCB with confidence width 0: it plays its least-squares estimate's best arm.\"\"\"

    algorithm = "toy_greedy"
    label = "Greedy (toy)"
    calibrations = ("experiment",)

    def _radius_at(self, t, L):
        return np.zeros(np.shape(t))
"""


def _copy(dst: Path) -> None:
    for name in ("Snakefile", "workflow", "config", "notebooks", "environment.yml", "src"):
        src = ROOT / name
        # numba's caches come along (valid: same sources, same time stamps): no recompilation
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dst / name)


def _register_paper(project: Path, line: str) -> None:
    """The paper's line in the registry (the end of the PAPERS tuple)."""
    registry = project / "src/dpbandits/papers/__init__.py"
    text = registry.read_text()
    anchor = "    )\n}\n"
    assert text.count(anchor) == 1
    registry.write_text(text.replace(anchor, line + anchor))


def _register(project: Path) -> None:
    """Exactly the steps of docs/adding-a-paper.md for a figure paper."""
    (project / "config/experiments/toy.yaml").write_text(EXPERIMENT)
    (project / "config/claims/toy.yaml").write_text(CLAIMS)
    _register_paper(project, REGISTRY_LINE)
    _add_algorithm(project)


def _register_bounds_paper(project: Path) -> None:
    """The steps of docs/adding-a-paper.md for a paper without figures: its own files, each of
    them new (no shared file is edited), and its registry line."""
    files = [f for f in BOUNDS_PAPER.rglob("*") if f.is_file() and "__pycache__" not in f.parts]
    assert len(files) == 6
    for f in files:
        target = project / f.relative_to(BOUNDS_PAPER)
        assert not target.exists(), f"{target} exists in the project: not the paper's own file"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(f, target)
    _register_paper(project, BOUNDS_REGISTRY_LINE)


def _add_algorithm(project: Path) -> None:
    """A new algorithm: its module, its entry in the policy registry (the import and the class),
    its name in the experiment schema."""
    policies = project / "src/dpbandits/policies"
    (policies / "toy_greedy.py").write_text(POLICY)
    registry = policies / "__init__.py"
    text = registry.read_text()
    anchor = "        ExploreThenCommit,\n"
    assert text.count(anchor) == 1
    text = text.replace(anchor, anchor + "        ToyGreedy,\n")
    imports = "from .vec import SDPVec, SDPVecRU\n"
    assert text.count(imports) == 1
    text = text.replace(imports, imports + "from .toy_greedy import ToyGreedy\n")
    registry.write_text(text)
    schema = project / "workflow/schemas/experiment.schema.yaml"
    text = schema.read_text()
    assert text.count("oracle_ols, etc]") == 1
    schema.write_text(text.replace("oracle_ols, etc]", "oracle_ols, etc, toy_greedy]"))


def _snakemake(project: Path, *args: str) -> subprocess.CompletedProcess:
    path = str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")
    env = {"PATH": path, "PYTHONPATH": str(project / "src")}
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=project,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, f"snakemake {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_toy_papers_registered_in_a_copy_build_their_targets(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    _copy(project)
    _register(project)
    _register_bounds_paper(project)
    # the selection is the config's (the other papers are left out to keep the test short)
    config = ["--config", "scale=quick", "experiments=[toy]", "bound_audits=[toyb]"]
    _snakemake(project, "--cores", "2", "toy", "toyb", *config)
    results = project / "results/quick"
    assert (results / "figures/toy_fig1.png").stat().st_size > 0
    assert (results / "notebooks/toy_fig1.html").stat().st_size > 0
    # the new algorithm ran on the same instances: greedy play is not LinUCB's
    sims = results / "sim/toy/toy_fig1a/main"
    greedy = pd.read_parquet(sims / "Greedy.parquet")
    linucb = pd.read_parquet(sims / "LinUCB.parquet")
    assert len(greedy) == len(linucb) > 0
    assert not greedy["regret_pseudo"].equals(linucb["regret_pseudo"])
    claims = pd.read_csv(results / "tables/toy_claims.csv")
    final = claims[(claims["comparison"] == "all") & (claims["metric"] == "realized")]
    assert list(final["verdict"]) == ["PASS"]
    assert (results / "audit/toy.html").stat().st_size > 0
    # the bounds paper: its run, its verdict, its figure drawn by its page
    assert len(pd.read_parquet(results / "sim/toyb/random.parquet")) == 3 * 100
    verdicts = pd.read_csv(results / "audit/toyb_claims.csv")
    assert verdicts.set_index("claim_id").loc["toyb.prop1", "verdict"] == "SUPPORTED"
    assert (results / "figures/toyb_regret.png").stat().st_size > 0
    assert "toyb.prop1" in (results / "audit/toyb.html").read_text()  # its claim table
    assert "Nothing to be done" in _snakemake(project, "-n", "toy", "toyb", *config).stdout
    # the cross-paper outputs include both: the scoreboard and the report's categories
    _snakemake(project, "--cores", "2", "audit", *config)
    board = pd.read_csv(results / "audit/scoreboard.csv").set_index("claim_id")
    assert board.loc["toy.fig1.learns", "status"] == "supported"
    assert board.loc["toyb.prop1", "status"] == "supported"
    # nothing else was edited: config.yaml selects every registered paper by default
    selection = yaml.safe_load((project / "config/config.yaml").read_text())
    assert "experiments" not in selection and "bound_audits" not in selection
    rules = set(_snakemake(project, "--list-target-rules").stdout.split())
    assert {"toy", "toy_fig1", "toy_tables", "toy_audit"} <= rules
    assert {"toyb", "toyb_audit", "toyb_verdicts", "toyb_regret"} <= rules
