"""The Snakemake workflow, run on a temporary copy of the project (slower; marker `pipeline`).

The quick builds of whole papers (the olucb and dpdpe figures, the quick audit of all five DAGs
and its rebuild after deleting intermediates) carry the marker `e2e` as well: they are left out
of `make test` (5-minute budget) and run by `make test-e2e`, which CI runs after it.
"""

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from dpbandits.checks.compare import comparable
from dpbandits.io import read_metadata, read_results
from dpbandits.runtime import rate_limit

from ..conftest import ROOT

pytestmark = pytest.mark.pipeline


def _env(workdir: Path | None = None):
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    if workdir is not None and (workdir / "src" / "dpbandits").is_dir():
        env["PYTHONPATH"] = str(workdir / "src")  # a copy of the package: edits take effect
    return env


def snakemake(workdir: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        cwd=workdir,
        env=_env(workdir),
        capture_output=True,
        text=True,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")
    return proc


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the workflow files (the package itself is installed)."""
    dst = tmp_path_factory.mktemp("project")
    # (docs and README: the pages link to them)
    for name in ("Snakefile", "workflow", "config", "notebooks", "environment.yml", "docs",
                 "README.md"):  # fmt: skip
        src = ROOT / name
        (shutil.copytree if src.is_dir() else shutil.copy)(src, dst / name)
    return dst


def _sha(paths):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths}


def test_dry_run_of_the_full_dag(project):
    out = snakemake(project, "-n", "--cores", "2").stdout
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", out, flags=re.M))
    simulate = {k: int(v) for k, v in counts.items() if k.startswith("simulate_cz22_")}
    assert simulate == {
        f"simulate_cz22_fig{f}{p}_{c}": 1
        for f, panels in ((1, "abc"), (2, "ab"))
        for p in panels
        for c in ("r1", "r2", "r3", "matched", "theory")
    }
    assert counts["cz22_tables"] == "1" and counts["olucb_tables"] == "1"
    assert counts["olucb_calibrate_c_beta"] == "1"
    assert all(
        counts[f"cz22_fig{i}{s}"] == "1"
        for i in (1, 2)
        for s in ("", "_r2", "_r3", "_matched", "_theory")
    )
    listed = snakemake(project, "--list-target-rules").stdout.split()
    for target in (
        "all",
        "cz22",
        "cz22_fig1",
        "cz22_fig2",
        "cz22_fig1a",
        "cz22_fig2b_r3",
        "cz22_fig1_pseudo",
        "cz22_fig1c_theory",
        "cz22_tables",
        "op24",
        "op24_table1",
        "op24_gap",
        "op24_audit",
        "op24_e1",
        "op24_verdicts",
        "op24_sim_e3_C1_d5_jdp",
        "plasso_verdicts",
        "plasso_support",
    ):
        assert target in listed
    # op24: one job per run of the core plan (docs/papers/op24.md; the planted contestant
    # included), then its audit
    op24 = {k for k in counts if k.startswith("op24_sim_")}
    assert len(op24) == 9 and counts["op24_verdicts"] == counts["op24_audit"] == "1"
    # plasso: one job per (family, algorithm) of the core plan (docs/papers/plasso.md)
    plasso = {k for k in counts if k.startswith("plasso_sim_e1_")}
    # (12: the 10 of the plan and the support-block tree ablation on F1 and F2)
    assert len(plasso) == 12 and counts["plasso_verdicts"] == counts["plasso_audit"] == "1"
    assert "plasso_audit" in listed and "plasso_sim_e1_F1_d100_K2_s5_private_lasso" in listed
    # uniform target names: <prefix> for a paper, <prefix>_audit for its audit page
    for prefix in ("cz22", "olucb", "dpdpe", "op24", "plasso"):
        assert prefix in listed and f"{prefix}_audit" in listed
    # the arena: one simulation job per suite and d, its delivered epsilon, then its results
    arena = {k for k in counts if k.startswith("arena_sim_")}
    assert len(arena) == 6 and counts["arena_results"] == "1" and "arena" in listed
    assert counts["arena_privacy"] == "1"


def test_bad_input_is_refused_before_any_job(project, tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(project, bad)
    proc = snakemake(bad, "-n", "--cores", "1", "--config", "scale=huge", check=False)
    text = proc.stdout + proc.stderr  # Snakemake 9 logs errors to stdout
    assert proc.returncode != 0 and "scale = 'huge'" in text and "allowed: paper, quick" in text
    exp = bad / "config/experiments/cz22.yaml"
    data = yaml.safe_load(exp.read_text())
    data["figures"]["cz22_fig1"]["panels"]["b"]["epsilon"] = -1
    exp.write_text(yaml.safe_dump(data))
    proc = snakemake(bad, "--cores", "1", check=False)
    assert proc.returncode != 0
    assert "figures.cz22_fig1.panels.b.epsilon = -1: must be > 0" in proc.stdout + proc.stderr
    assert not (bad / "results").exists()
    # a key repeated in a config file Snakemake reads itself (its loader keeps the last one)
    extra = tmp_path / "extra.yaml"
    extra.write_text("audit:\n  tolerance: 0.05\n  tolerance: 0.5\n")
    proc = snakemake(project, "-n", "--cores", "1", "--configfile", str(extra), check=False)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "key 'tolerance' appears twice" in text, text
    assert "Traceback" not in text


def test_quick_build_of_a_figure_1_panel_through_papermill(project):
    snakemake(project, "--cores", "2", "cz22_fig1b", "--config", "scale=quick")
    res = project / "results/quick"
    for name in ("cz22_fig1b", "cz22_fig1", "cz22_fig1_pseudo"):
        assert (res / f"figures/{name}.pdf").stat().st_size > 1000
        assert (res / f"figures/{name}.png").read_bytes()[:4] == b"\x89PNG"
    nb = json.loads((res / "notebooks/cz22_fig1.ipynb").read_text())
    tags = [c["metadata"].get("tags", []) for c in nb["cells"]]
    assert ["parameters"] in tags and ["injected-parameters"] in tags
    assert all("ename" not in o for c in nb["cells"] for o in c.get("outputs", []))
    assert "cz22_fig1" in (res / "notebooks/cz22_fig1.html").read_text()
    files = sorted((res / "sim/cz22/cz22_fig1b/r1").glob("*.parquet"))
    assert {f.stem for f in files} == {
        "LinUCB",
        "LinUCB-JDP",
        "LinUCB-SDP-Amp",
        "LinUCB-SDP-Vec",
        "LinUCB-LDP",
    }
    df = read_results(files)
    assert set(df["trial"]) == set(range(5)) and df["t"].max() == 2000 and df["T"].eq(2000).all()
    meta = read_metadata(files[0])
    assert meta["cell"]["panel"] == "cz22_fig1b" and len(meta["config_hash"]) == 64
    assert meta["seeds"]["instance_seed"] == 2 and meta["seeds"]["reward_seeds"] == [0, 1, 2, 3, 4]
    # Snakemake's HTML report of this target: the figure's images with their captions and labels
    report = res / "report.html"
    snakemake(project, "--report", str(report.relative_to(project)), "cz22_fig1b",
              "--config", "scale=quick")  # fmt: skip
    html = report.read_text()
    assert 'categories = {"cz22": {"Figures"' in html  # the report category: the prefix
    assert "Seeded, vectorised reproductions" in html
    assert "Made by dpbandits" in html and "numpy" in html  # the front page's provenance
    assert "panels (a), (b), (c), cumulative realized regret. (a) epsilon = 0.2" in html
    # the combined figure of each metric; the single panels stay out of the report
    assert html.count('"figure": "cz22_fig1", "configuration": "r1"') == 2


@pytest.mark.e2e
def test_quick_build_of_the_olucb_figures(project):
    """olucb end to end at quick scale: calibration, Figure 1 and its companions."""
    figures = ("olucb_fig1", "olucb_fig1_learners", "olucb_combiner")
    snakemake(project, "--cores", "2", *figures, "--config", "scale=quick")
    res = project / "results/quick"
    for name in (*figures, "olucb_fig1b", "olucb_fig1_pseudo", "olucb_combinerd"):
        assert (res / f"figures/{name}.png").read_bytes()[:4] == b"\x89PNG", name
    cal = pd.read_csv(res / "calibration/olucb/c_beta.csv")
    chosen = float(cal.loc[cal["chosen"], "value"].iloc[0])
    meta = read_metadata(res / "sim/olucb/olucb_fig1b/main/OnlineUCB.parquet")
    assert meta["calibrated"] == {"c_beta": chosen}
    assert meta["cell"]["instances"] == "paper_text" and meta["cell"]["first_trial"] == 0
    page = (res / "notebooks/olucb_fig1.html").read_text()
    assert "only OnlineUCB" in page and "radius was tuned" in page
    assert f"c_beta = {chosen:.3g}" in page
    df = read_results([res / "sim/olucb/olucb_combinerb/combiner/Combiner.parquet"])
    assert (df["instances"] == "illcond").all() and {"base1_plays", "active_bases"} <= set(df)
    # the notebooks ran in kernels forked from the warm worker; a cold kernel gives the same
    # cells and outputs (tables' text, figures), the same page and the same images
    log = (project / "logs/quick/worker.log").read_text()
    assert re.search(r"job \d+ olucb_fig1: exit 0", log) and "kernel: exit 0" in log, log
    outputs = [res / "notebooks/olucb_fig1.html"]
    outputs += [res / f"figures/olucb_fig1{p}.{e}" for p in ("", "b") for e in ("png", "pdf")]
    ipynb = res / "notebooks/olucb_fig1.ipynb"

    def cells():
        return [(c["source"], c.get("outputs")) for c in json.loads(ipynb.read_text())["cells"]]

    warm = cells(), _sha(outputs)
    snakemake(project, "--cores", "1", "-f", "olucb_fig1", "--config", "scale=quick",
              "warm_worker=false")  # fmt: skip
    assert (cells(), _sha(outputs)) == warm


@pytest.mark.e2e
def test_quick_build_of_the_dpdpe_figures_and_tables(project):
    """dpdpe end to end at quick scale: the calibration of U, Figure 2 (F and T), the DP-PE
    companion and Tables 1-4."""
    figures = ("dpdpe_fig2a", "dpdpe_fig2c", "dpdpe_fig2b_tight")  # one notebook ~ 6 s
    tables = tuple(f"dpdpe_table{i}" for i in range(1, 5))
    snakemake(project, "--cores", "2", *figures, *tables, "--config", "scale=quick")
    res = project / "results/quick"
    for name in figures:
        assert (res / f"figures/{name}.png").read_bytes()[:4] == b"\x89PNG", name
    cal = pd.read_csv(res / "calibration/dpdpe/fixed_u.csv")
    U = int(cal.loc[cal["chosen"], "value"].iloc[0])
    meta = read_metadata(res / "sim/dpdpe/dpdpe_fig2ca/faithful/DPE-FixedU.parquet")
    assert meta["calibrated"] == {"fixed_u": U}
    assert len(meta["phases"]) == 5 and all(ph[0]["l"] == 1 for ph in meta["phases"])
    page = (res / "notebooks/dpdpe_fig2c.html").read_text()
    assert f"fixed_u = {U}" in page and "DPE-FixedU" in page and "reals" in page
    tight = read_results([res / "sim/dpdpe/dpdpe_fig2ba/tight/SDP-DPE-S1-diagnostic.parquet"])
    assert (tight["series"] == "SDP-DPE-S1-diagnostic").all()
    for i in range(1, 5):
        for ext in ("csv", "md", "tex"):
            assert (res / f"tables/dpdpe_table{i}.{ext}").stat().st_size > 200
    t1 = pd.read_csv(res / "tables/dpdpe_table1.csv")
    assert list(t1["Algorithm"]) == ["DPE", "CDP-DPE", "LDP-DPE", "SDP-DPE"]
    fitted = t1["fitted T-exponent of the regret (configuration T, sweep free)"]
    assert fitted.str.match(r"^-?\d\.\d{3} \[").all()
    assert "measured regret (configuration F, Fig. 2)" in t1.columns
    assert "\\begin{tabular}" in (res / "tables/dpdpe_table3.tex").read_text()


def test_rebuilds_are_byte_identical_with_any_cores_warm_or_cold(project):
    """The same files from one job at a time in the warm worker (dpbandits.runtime.worker, the
    default of a local run) and from two at a time, each a cold process (``warm_worker=false``)."""
    targets = [
        f"results/quick/sim/cz22/cz22_fig1{p}/r1/{s}.parquet"
        for p in "ab"
        for s in ("LinUCB", "LinUCB-JDP", "LinUCB-SDP-Amp", "LinUCB-SDP-Vec", "LinUCB-LDP")
    ]
    # op24: a finite-armed run and the JDP-LinUCB run (tree noise, numba kernel)
    targets += [f"results/quick/sim/op24/{r}.parquet" for r in ("e1_I1b", "e3_C1_d5_jdp")]
    # olucb (OnlineUCB with the calibrated radius) and dpdpe (central and shuffle DP-DPE)
    targets += [
        "results/quick/sim/olucb/worst/onlineucb_w/eps1_T500.parquet",
        "results/quick/sim/dpdpe/gap_private/cdp_a80_g1/eps10_T500.parquet",
        "results/quick/sim/dpdpe/gap_private/sdp_a80_g1/eps10_T500.parquet",
    ]
    # plasso: LASSO + sparse vector + tree noise (runs and episodes)
    targets += [
        f"results/quick/sim/plasso/e1_F2_d100_K2_s5_private_lasso{s}.parquet"
        for s in ("", "_episodes")
    ]
    proc = snakemake(project, "--cores", "1", *targets, "--config", "scale=quick")
    # the Snakefile's start hook turned off Snakemake's default job-rate limit (a local run)
    assert rate_limit.MESSAGE in proc.stderr
    paths = [project / t for t in targets]
    first = _sha(paths)
    log = (project / "logs/quick/worker.log").read_text()
    assert log.count(": exit 0,") >= 7, log  # the jobs ran in the worker's children
    for p in paths:
        p.unlink()
    # a second build, with two jobs at once, each its own cold process: a different process,
    # order and scheduling
    snakemake(project, "--cores", "2", *targets, "--config", "scale=quick", "warm_worker=false")
    assert _sha(paths) == first


def test_a_configuration_that_repeats_the_primary_copies_its_results(project):
    """cz22's R2 changes nothing in Fig. 2(b): its job takes R1's files and relabels them
    (dpbandits.config.Experiment.shared_sources), with R1's measured seconds; the values are
    those of simulating R2 (the pipeline's own engine run in this process)."""
    from dpbandits.config import Cell
    from dpbandits.pipeline import run_cell

    target = "results/quick/sim/cz22/cz22_fig2b/r2/LinUCB-LDP.parquet"
    out = snakemake(project, "-n", target, "--config", "scale=quick").stdout
    assert sorted(re.findall(r"rule (simulate_\w+):", out)) == [
        "simulate_cz22_fig2b_r1",
        "simulate_cz22_fig2b_r2",
    ]
    snakemake(project, "--cores", "1", target, "--config", "scale=quick")
    log = (project / "logs/quick/sim/cz22/cz22_fig2b/r2.log").read_text()
    assert log.count("relabelled") == 5 and "trials" not in log, log  # nothing simulated
    timing = pd.read_csv(project / "results/quick/timing/cz22/cz22_fig2b/r2.csv")
    primary = pd.read_csv(project / "results/quick/timing/cz22/cz22_fig2b/r1.csv")
    assert list(timing.configuration) == ["r2"] * 5
    assert list(timing.seconds) == list(primary.seconds)
    cell = Cell.from_dict(read_metadata(project / target)["cell"])
    assert cell.configuration == "r2"
    run_cell(cell, project / "direct.parquet")
    assert comparable(project / "direct.parquet") == comparable(project / target)


@pytest.mark.e2e
def test_quick_audit_builds_the_report(project):
    """The whole quick DAG (the default target): the audit's tables and pages, and every page
    of the build read in headless Chromium offline (dpbandits.checks.browser)."""
    built = snakemake(project, "--cores", "2", "--config", "scale=quick")
    res = project / "results/quick/audit"
    # the configuration's keys in another order (warm_worker set first) rerun nothing: the
    # privacy job's configuration parameter is written with sorted keys
    again = snakemake(project, "-n", "--config", "warm_worker=true", "scale=quick")
    assert "Nothing to be done" in again.stdout + again.stderr, again.stdout
    # the pages: no markup shown as text, no network request, every link resolving, every
    # claim's status the scoreboard's; the run's summary names the front page first
    from dpbandits.checks.browser import MAIN_PAGES, check_build

    assert check_build(project / "results/quick") == []
    for rel in MAIN_PAGES:
        shot = project / "results/quick/screenshots" / (rel.replace("/", "_")[:-5] + ".png")
        assert shot.read_bytes()[:4] == b"\x89PNG"
    summary = built.stdout + built.stderr
    assert summary.split("Open:")[1].split()[0].endswith("results/quick/index.html")
    assert "QUICK" in (project / "results/quick/index.html").read_text()
    # the end-of-run hint builds Snakemake's report: it opens on the landing page (the workflow's
    # description and where to look first) and stays under 25 MB (22.8 MB at quick scale with the
    # matched companions: their figures, orderings and privacy rows, the arena's frontier)
    assert "--report-metadata workflow/report/metadata.yaml" in summary
    snakemake(project, "--report", "results/quick/report.html", "--report-metadata",
              "workflow/report/metadata.yaml", "--config", "scale=quick")  # fmt: skip
    report = project / "results/quick/report.html"
    assert report.stat().st_size < 25e6 and "Open first" in report.read_text()

    rates = pd.read_csv(res / "rates.csv")
    summary = rates[rates["schedule"] == "all"].set_index("claim_id")["verdict"]
    assert {"cz22.thm3.2", "cz22.rem3.10.local", "cz22.sec3.2.between"} <= set(summary.index)
    assert set(summary) <= {"consistent", "exceeds", "below", "inconclusive", "untestable"}
    fits = rates[rates["schedule"] != "all"]
    # the gates hold on the real pipeline: no consistent fit outside the learning regime or
    # beyond the power required; every fit has a planted-violation control
    consistent = fits[fits["verdict"] == "consistent"]
    assert (consistent["regime"] == "learning").all()
    assert (consistent["detectable_excess"] <= 0.1).all()
    controls = pd.read_csv(res / "controls.csv")
    assert len(controls[controls["control"] == "planted violation"]) > 50
    board = pd.read_csv(res / "scoreboard.csv")
    assert set(board["paper"]) == {"cz22", "olucb", "dpdpe", "op24", "plasso"}
    # issue 44: a claim no audit tests says why; no FAIL ordering has an interval containing 0;
    # privacy rows speak the four words and carry both bounds
    quiet = board[board["status"] == "not audited"]
    assert quiet["reason"].fillna("").str.strip().str.len().gt(0).all(), quiet["claim_id"]
    # and an audited one names the files that decided it (a summary claim: its parts' files)
    audited = board[board["status"] != "not audited"]
    bare = audited[audited["evidence"].fillna("").str.len() == 0]
    assert bare.empty, list(bare["claim_id"])
    ords = pd.read_csv(res / "orderings.csv")
    paired = {"below", "between", "mean_order", "decreasing", "gap_decreasing", "mean_above"}
    failed = ords[(ords["verdict"] == "FAIL") & ords["check"].isin(paired) & ords["ci_low"].notna()]
    assert (failed["ci_low"] > 0).all()  # the paired difference's whole interval above 0
    assert {"epsilon_a", "epsilon_b", "unequal_privacy"} <= set(ords.columns)
    priv = pd.read_csv(res / "privacy.csv")
    assert set(priv["verdict"]) <= {"DELIVERED", "NOT-CERTIFIED", "VIOLATED", "NOT-PRIVATE"}
    assert {"delivered_epsilon", "lower_epsilon", "lower_method"} <= set(priv.columns)
    assert set(board["status"]) <= {
        "supported",
        "contradicted",
        "inconclusive",
        "untestable",
        "not audited",
    }
    assert (fits["n_trials"] == 5).all()  # quick sweep
    assert (fits.loc[fits["variable"] == "T", "n_levels"] == 3).all()  # quick horizons
    cz22 = fits[fits["experiment"] == "cz22"]
    assert (cz22["n_levels"] == 3).all()  # epsilon in {0.2, 1, 10}
    orderings = pd.read_csv(res / "orderings.csv")
    assert set(orderings["experiment"]) == {"cz22", "olucb", "dpdpe"} and len(orderings) > 100
    for short in ("thm3.2", "rem3.10.local", "thmB.1", "sec3.2.between"):
        assert (res / f"cz22_rates_{short}.png").read_bytes()[:4] == b"\x89PNG"
        assert (res / f"cz22_rates_{short}.pdf").stat().st_size > 1000
    page = (res / "cz22.html").read_text()
    assert "finite-horizon" in page and "cz22.thm3.2" in page
    # cz22's communication is audited without simulation (Sec. 6); olucb has none
    assert "Communication without simulation" in page
    assert "no analytic communication audit" in (res / "olucb.html").read_text()
    # dpdpe: the analytic communication audit (docs/papers/dpdpe.md), its table and its report
    # section
    comm = pd.read_csv(res / "dpdpe_communication.csv")
    assert len(comm) == 6 and set(comm["unit"]) == {"reals", "bits"}
    assert set(comm["verdict"]) <= {"consistent", "exceeds"}
    assert "Communication without simulation" in (res / "dpdpe.html").read_text()
    assert 'href="cz22.html"' in (res / "report.html").read_text()
    # op24: verdicts of every claim of the registry, Table 1, the figures, its page
    claims = pd.read_csv(res / "op24_claims.csv").set_index("claim_id")
    assert len(claims) == 14 and claims.loc["op.q1", "verdict"] == "NOT-AUDITED"
    # the lower bound's family I2 is saturated at quick scale: the shared vocabulary says so
    assert claims.loc["op.t1.finite.lower", "rule_verdict"] in {
        "CONSISTENT",
        "INCONSISTENT",
        "PRE-ASYMPTOTIC",
    }
    assert claims.loc["op.t1.finite.lower", "verdict"] in {"consistent", "below", "untestable"}
    rows = pd.read_csv(res / "op24_verdicts.csv")
    up = rows[(rows["claim_id"] == "op.t1.finite.upper") & (rows["rule"] == "R-UP-T")]
    assert len(up) == 10 and up["statistic"].between(0.2, 0.8).all()  # sqrt(T)-like on I2
    table = pd.read_csv(project / "results/quick/tables/op24_table1.csv")
    assert list(table["algorithm"]) == ["AdaC-UCB", "AdaC-GOPE"]
    assert "\\sqrt{KT\\log T}" in table.loc[0, "regret upper bound"]
    assert (project / "results/quick/tables/op24_table1.tex").read_text().count("\\\\") >= 3
    for fig in ("e1", "e2", "gap"):
        assert (project / f"results/quick/figures/op24_{fig}.png").read_bytes()[:4] == b"\x89PNG"
    assert "Verdict per claim" in (res / "op24.html").read_text()
    assert 'href="op24.html"' in (res / "report.html").read_text()
    # plasso: a verdict for every claim of the registry, the rows, figures and page
    pl = pd.read_csv(res / "plasso_claims.csv").set_index("claim_id")
    assert len(pl) == 10 and pl.loc["plasso.thm1", "verdict"] == "NOT-AUDITED"
    assert pl.loc["plasso.intro.dim", "verdict"] == "NOT-RUN"  # PL-E2 is full tier
    plrows = pd.read_csv(project / "results/quick/tables/plasso_claims.csv")
    up = plrows[(plrows["claim_id"] == "plasso.thm2") & (plrows["rule"] == "R-UP-T")
                & (plrows["algorithm"] == "private_lasso")]  # fmt: skip
    assert len(up) == 2 * 8 and up["claimed"].between(0.3, 0.6).all()
    for fig in ("regret_vs_T", "normalised", "eps", "ratio", "support", "scans"):
        png = project / f"results/quick/figures/plasso_{fig}.png"
        assert png.read_bytes()[:4] == b"\x89PNG"
    page = (res / "plasso.html").read_text()
    assert "Verdict per claim" in page and "non-shrinking Laplace noise" in page
    assert 'href="plasso.html"' in (res / "report.html").read_text()
    # olucb: its calibration table, its rate fits (sweeps W and F) and its findings
    cal = pd.read_csv(project / "results/quick/calibration/olucb/c_beta.csv")
    assert len(cal) >= 15 and cal["chosen"].sum() == 1
    olucb = fits[fits["experiment"] == "olucb"]
    assert set(olucb["sweep"]) == {"worst", "fav_t", "fav_d", "fav_eps", "fav_lam"}
    page = (res / "olucb.html").read_text()
    assert "Findings beyond the verdicts" in page and "epsilon_pair_joint" in page
    assert "olucb.fig1.eps1.beats_ldp" in page
    # determinism after deleting intermediates: one simulation of every paper and the tables that
    # read it removed, then the tables rebuilt: the same results (dpbandits.checks.compare: byte for
    # byte, the measured run times of the final-regret and claim tables aside)
    quick = project / "results/quick"
    papers = ("cz22", "olucb", "dpdpe")
    tables = [quick / f"tables/{n}_{k}.csv" for n in papers for k in ("claims", "metrics")]
    tables += [quick / "audit/op24_verdicts.csv", quick / "tables/plasso_claims.csv"]
    tables += [quick / f"tables/{n}_final_regret.csv" for n in papers]
    before = [comparable(f) for f in tables]
    sims = [
        quick / "sim/cz22/cz22_fig1b/r1/LinUCB-LDP.parquet",
        quick / "sim/olucb/olucb_fig1b/main/OnlineUCB.parquet",
        quick / "sim/dpdpe/dpdpe_fig2ca/faithful/DPE.parquet",
        quick / "sim/op24/e1_I1b.parquet",
        quick / "sim/plasso/e1_F2_d100_K2_s5_private_lasso.parquet",
    ]
    for f in [*sims, *tables]:  # (Snakemake does not recreate a missing intermediate
        f.unlink()  # by itself while the files downstream of it are present)
    targets = [str(f.relative_to(project)) for f in tables]
    snakemake(project, "--cores", "2", *targets, "--config", "scale=quick")
    assert all(f.exists() for f in sims)
    assert [comparable(f) for f in tables] == before


@pytest.mark.longest
def test_editing_one_number_reruns_only_what_depends_on_it(project, tmp_path):
    edit = tmp_path / "edit"
    shutil.copytree(project, edit)
    # a copy of the package, imported by this copy's jobs (PYTHONPATH): its edits must rerun.
    # With its __pycache__ (copied with the sources' times, numba's caches stay valid: no
    # kernel is compiled again)
    shutil.copytree(ROOT / "src", edit / "src")
    snakemake(edit, "--cores", "2", "cz22_fig1", "--config", "scale=quick")
    assert (
        "Nothing to be done" in snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
    )
    exp = edit / "config/experiments/cz22.yaml"
    data = yaml.safe_load(exp.read_text())
    data["figures"]["cz22_fig1"]["panels"]["c"]["epsilon"] = 8.0
    exp.write_text(yaml.safe_dump(data, sort_keys=False))
    out = snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
    sims = re.findall(r"rule (simulate_\w+):", out)
    assert sims == ["simulate_cz22_fig1c_r1"]
    # the reason names the setting that changed, not every setting of every cell
    reason = next(line for line in out.splitlines() if "Params have changed" in line)
    assert "cz22/cz22_fig1c/r1/LinUCB: epsilon = 8.0" in reason, reason
    assert "epsilon = 10.0" in reason and "trials" not in reason, reason
    assert "rule cz22_fig1:" in out or "localrule cz22_fig1:" in out
    # every setting the figure's page and images depend on is a tracked param of its rule
    # (issue 20): an edit reruns the figure and nothing upstream of it
    for key, value in [
        ("title", "Figure 1, retitled"),
        ("caption", "Another caption."),
        ("band", "std"),
        ("plot", "per_round"),
    ]:
        data = yaml.safe_load((project / "config/experiments/cz22.yaml").read_text())
        data["figures"]["cz22_fig1"][key] = value
        exp.write_text(yaml.safe_dump(data, sort_keys=False))
        out = snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
        assert re.findall(r"rule (\w+):", out) == ["cz22_fig1"], (key, out)
    shutil.copy(project / "config/experiments/cz22.yaml", exp)
    # editing the library reruns the jobs that run the edited code, and only those (issue 22)
    kernels = edit / "src/dpbandits/engine/kernels.py"
    kernels.write_text(kernels.read_text() + "\n# a comment: prose, not code\n")
    out = snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
    assert "Nothing to be done" in out, out  # comments and docstrings rerun nothing
    plotting = edit / "src/dpbandits/plotting/layout.py"
    plotting.write_text(plotting.read_text() + "\n_an_edit = 1\n")  # code, not a comment
    out = snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
    assert re.findall(r"rule (\w+):", out) == ["cz22_fig1"], out
    assert "params have changed" in out
    kernels = edit / "src/dpbandits/engine/kernels.py"
    kernels.write_text(kernels.read_text() + "\n_an_edit = 1\n")
    out = snakemake(edit, "-n", "cz22_fig1", "--config", "scale=quick").stdout
    jobs = re.findall(r"rule (\w+):", out)
    assert sorted(jobs) == ["cz22_fig1"] + [f"simulate_cz22_fig1{p}_r1" for p in "abc"], jobs
    shutil.rmtree(edit / "src")
    shutil.copytree(ROOT / "src", edit / "src")
    # a result file of another cell, copied over this one, is refused by its reader (issue 20)
    sim = edit / "results/quick/sim/cz22"
    shutil.copy(sim / "cz22_fig1b/r1/LinUCB-LDP.parquet", sim / "cz22_fig1c/r1/LinUCB-LDP.parquet")
    proc = snakemake(edit, "--cores", "1", "cz22_fig1", "--config", "scale=quick", check=False)
    log = (edit / "logs/quick/figures/cz22_fig1.log").read_text()
    assert proc.returncode != 0 and "holds other settings than this build expects" in log, log
    assert "panel = 'cz22_fig1b' (expected 'cz22_fig1c')" in log
    assert "epsilon = 1.0 (expected 10.0)" in log


def _descendants(pid: int) -> list[int]:
    """Process ids below ``pid`` (from /proc)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def _start_build_in_copy(project, tmp_path, files):
    """A copy of the project without results, and a quick Snakemake build of ``files`` started
    in it (its own session, so the tests can signal the job or the whole group)."""
    crash = tmp_path / "crash"
    shutil.copytree(project, crash, ignore=shutil.ignore_patterns("results", "logs", ".snakemake"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "snakemake", "--cores", "1", *files, "--config", "scale=quick"],
        cwd=crash,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    return crash, proc


def test_a_killed_job_leaves_no_output_and_the_rerun_equals_an_uninterrupted_run(project, tmp_path):
    """SIGKILL to a simulation job mid-run: Snakemake reports the failure, no partial or corrupt
    parquet remains, and the rerun's files are byte-identical to an uninterrupted build."""
    import signal
    import time

    target = "results/quick/sim/cz22/cz22_fig1c/r1"
    files = [f"{target}/{s}.parquet" for s in ("LinUCB", "LinUCB-SDP-Vec", "LinUCB-LDP")]
    crash, proc = _start_build_in_copy(project, tmp_path, files)
    killed = None
    deadline = time.monotonic() + 120
    while killed is None and time.monotonic() < deadline and proc.poll() is None:
        for pid in _descendants(proc.pid):
            if ".snakemake/scripts" in _cmdline(pid):  # the job's script process
                os.kill(pid, signal.SIGKILL)
                killed = pid
                break
        time.sleep(0.05)
    out = proc.communicate(timeout=120)[0]
    assert killed is not None, f"the job was never seen running:\n{out}"
    assert proc.returncode != 0 and "Error in rule simulate_cz22_fig1c_r1" in out
    sim_dir = crash / target
    assert not sim_dir.exists() or not list(sim_dir.glob("*.parquet"))
    # the rerun resumes (no --unlock or --rerun-incomplete needed) and cleans temporary leftovers
    snakemake(crash, "--cores", "2", *files, "--config", "scale=quick")
    assert not list(sim_dir.glob(".*.tmp"))
    snakemake(project, "--cores", "2", *files, "--config", "scale=quick")
    assert _sha([crash / f for f in files]) == _sha([project / f for f in files])


#: One module of each paper's package whose edit once reran nothing (issue 45), and a rule
#: name part of that paper's jobs.
_PAPER_EDITS = {
    "cz22": ("__init__.py", "cz22"),
    "olucb": ("findings.py", "olucb"),
    "dpdpe": ("communication.py", "dpdpe"),
    "op24": ("table1.py", "op24"),
    "plasso": ("verdicts.py", "plasso"),
}


@pytest.mark.e2e
def test_an_edit_to_a_papers_module_reruns_that_papers_jobs(project):
    """On the quick tree just built: with a copy of the package in the project (a PYTHONPATH
    that takes precedence), nothing is to be done; a statement added to one module of a paper's
    package makes ``snakemake -n`` list jobs of that paper (the fingerprints are the jobs'
    import closures, dpbandits.fingerprint)."""
    shutil.copytree(ROOT / "src", project / "src", ignore=shutil.ignore_patterns("__pycache__"))
    try:
        # the quick-audit test ends by rebuilding some tables (newer files): bring the tree up to
        # date first, so that the dry runs below list only what the edits change
        snakemake(project, "--cores", "2", "--config", "scale=quick")
        same = snakemake(project, "-n", "--config", "scale=quick")
        assert "Nothing to be done" in same.stdout + same.stderr, same.stdout
        for prefix, (name, part) in _PAPER_EDITS.items():
            module = project / "src/dpbandits/papers" / prefix / name
            text = module.read_text()
            module.write_text(text + "\n_EDITED_BY_THE_TEST = 1\n")
            try:
                dry = snakemake(project, "-n", "--config", "scale=quick")
            finally:
                module.write_text(text)
            jobs = re.findall(r"^(?:local)?rule (\S+):", dry.stdout, flags=re.M)
            assert any(part in job for job in jobs), (prefix, jobs)
    finally:
        shutil.rmtree(project / "src")


@pytest.mark.e2e
def test_after_snakemake_itself_is_killed_unlock_and_rerun_incomplete_resume(project, tmp_path):
    """SIGKILL to Snakemake's whole process group mid-job (a closed terminal, an OOM kill): the
    directory stays locked, so a plain rerun is refused; the documented recovery
    (`snakemake --unlock`, then `snakemake --cores all --rerun-incomplete`) gives the same bytes
    as an uninterrupted build."""
    import signal
    import time

    target = "results/quick/sim/cz22/cz22_fig1a/r1"
    files = [f"{target}/{s}.parquet" for s in ("LinUCB", "LinUCB-LDP")]
    crash, proc = _start_build_in_copy(project, tmp_path, files)
    deadline, seen = time.monotonic() + 120, False
    while not seen and time.monotonic() < deadline and proc.poll() is None:
        seen = any(".snakemake/scripts" in _cmdline(p) for p in _descendants(proc.pid))
        time.sleep(0.05)
    assert seen, proc.communicate(timeout=60)[0]
    os.killpg(proc.pid, signal.SIGKILL)  # Snakemake and its job, at once
    proc.communicate(timeout=60)
    sim_dir = crash / target
    assert not sim_dir.exists() or not list(sim_dir.glob("*.parquet"))
    refused = snakemake(crash, "--cores", "1", *files, "--config", "scale=quick", check=False)
    assert refused.returncode != 0 and "--unlock" in refused.stdout + refused.stderr
    snakemake(crash, "--unlock", *files, "--config", "scale=quick")
    snakemake(crash, "--cores", "2", "--rerun-incomplete", *files, "--config", "scale=quick")
    snakemake(project, "--cores", "2", *files, "--config", "scale=quick")
    assert _sha([crash / f for f in files]) == _sha([project / f for f in files])


#: Targets built only on demand (docs/running.md): every other target's files are in `all`.
ON_DEMAND: set[str] = set()


def _dry_run_outputs(workdir, *targets):
    proc = snakemake(
        workdir, *targets, "-n", "--forceall", "--cores", "2", "--config", "scale=quick"
    )
    files = set()
    for block in re.split(r"\n(?=(?:local)?rule \S+:)", proc.stdout + proc.stderr):
        m = re.search(r"^\s+output: (.*)$", block, re.M)
        if m:
            files |= set(m.group(1).split(", "))
    return files


def test_the_default_target_builds_every_listed_target(project):
    # after the default build, a dry run of every target rule has nothing left to do: every
    # file any target rule needs is a file of the default DAG (issue 21: dpdpe's Tables 1-4
    # were missing from it)
    listed = snakemake(project, "--list-target-rules").stdout.split()
    assert "dpdpe_table1" in listed and "all" in listed
    targets = [t for t in listed if t not in ON_DEMAND]
    missing = _dry_run_outputs(project, *targets) - _dry_run_outputs(project)
    assert not missing, sorted(missing)
