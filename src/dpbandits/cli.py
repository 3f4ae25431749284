"""Command line: ``dpb warmup`` (compile the kernels) and ``dpb bench`` (speed check).

``dpb bench`` runs the workload of one Figure 1 panel of CZ22 (5 algorithms x 50 trials x
T = 20000, d = 5, epsilon = 1, configuration R1) with the fast engine, exactly as the
pipeline's job does (the reward tables are drawn once and shared by the algorithms), then a
reduced workload with the reference loop, and prints seconds, microseconds per round per
trial, the speed ratio and the peak memory of the process; then it times the rate audit of
CZ22 at paper scale (sweeps and fits, two processes) and the three Figure 1 panels of paper 000
(OnlineUCB with Maler and the five baselines, 50 trials, two processes) and all Figure 2 panels
of paper 004 (configurations F and T, T = 10^6, 20 runs, with the calibration of U; two
processes) and the core tier of paper 001's PrivateLASSO audit (two processes): the workloads
the paper registry names (:mod:`dpbandits.papers`); then AdaC-OFUL as the arena's fresh point at
d = 10 runs it, against its literal reference loop; then ``snakemake -n`` in the project at
both scales (:func:`bench_dry_run`). ``dpb bench --only PREFIX`` times one paper's workload
(``--only cz22``: the panel and the rate audit).
"""

# ruff: noqa: E402  (the thread variables below must be set before numpy is imported)
from __future__ import annotations

import os

from dpbandits.worker import THREAD_VARS  # no numpy: the variables are set before it loads

# Every benchmark job runs single-threaded, as Snakemake runs a job with ``threads: 1`` (it sets
# these variables for each job); set before numpy is first imported.
for _var in THREAD_VARS:
    os.environ.setdefault(_var, "1")

import argparse
import math
import resource
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from dpbandits.audit.fits import bootstrap_means
from dpbandits.audit.rates import evaluate_rate_claims
from dpbandits.authors_script import load_script, time_script
from dpbandits.claims import load_claims
from dpbandits.config import load_experiment, load_yaml
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.engine.private_lasso import simulate_cell as plasso_cell
from dpbandits.envs import bernoulli_reward_table, make_instances, reward_tables, script_instances
from dpbandits.io import read_results
from dpbandits.normals import MIN_COMPILED, standard_normal
from dpbandits.papers import papers
from dpbandits.pipeline import run_cells
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy.accounting import Component, composed_epsilon, pmf_pair_epsilon
from dpbandits.reference_loops import reference_run
from dpbandits.seeds import noise_generator

FIG1_ALGORITHMS = ("linucb", "jdp_standin", "sdp_amp", "sdp_vec", "ldp")

#: One row per timed workload (workload, seconds now, target seconds, what it is compared with),
#: printed as one table at the end of ``dpb bench`` (issue 23).
SUMMARY: list[tuple[str, float, float, str]] = []


def _record(workload: str, seconds: float, target: float, reference: str = "") -> None:
    SUMMARY.append((workload, seconds, target, reference))


def summary_table(rows=None) -> str:
    """The benchmark's one table: every workload, its time now, its target and ``now / target``
    (above 1: the target is missed), and the reference it is compared with."""
    rows = SUMMARY if rows is None else rows
    head = f"{'workload':48s} {'now (s)':>9s} {'target (s)':>10s} {'now/target':>10s}  reference"
    lines = [head, "-" * len(head)]
    for name, sec, target, ref in rows:
        flag = "  MISSED" if sec > target else ""
        lines.append(f"{name:48s} {sec:9.1f} {target:10.1f} {sec / target:10.2f}  {ref}{flag}")
    return "\n".join(lines)


#: Seconds a pure-Python loop of 10^7 additions takes on the machine where the timings of
#: docs/performance.md were measured (its usual range): a bench run on another machine prints
#: its own time for the same loop, so that its table can be read against those.
REFERENCE_LOOP_SECONDS = (0.69, 0.94)


#: The loop, run at module level (global names, as ``python -c`` runs it, which is how the
#: reference times were taken; inside a function it runs about 3x faster).
_LOOP = compile("total = 0\nfor i in range(10_000_000):\n    total += i\n", "<loop>", "exec")


def machine_loop_seconds(repeats: int = 3) -> float:
    """The fastest of ``repeats`` runs of a pure-Python loop of 10^7 additions (seconds)."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        exec(_LOOP, {})
        best = min(best, time.perf_counter() - start)
    return best


def machine_line(
    start: float, end: float, reference: tuple[float, float] = REFERENCE_LOOP_SECONDS
) -> str:
    """One line saying how fast this machine ran the loop at the start and at the end of the
    bench (the machines vary within minutes), against the reference machine's loop."""
    lo, hi = reference
    mid, here = (lo + hi) / 2, (start + end) / 2
    if here > hi:
        pace = f"about {here / mid:.1f}x slower than"
    elif here < lo:
        pace = f"about {mid / here:.1f}x faster than"
    else:
        pace = "as fast as"
    return (
        f"Machine: a Python loop of 10^7 additions took {start:.2f} s at the start and {end:.2f} s "
        f"at the end ({lo:.2f}-{hi:.2f} s where the dated timings were measured): at this loop, "
        f"this machine runs {pace} that one (the rows below depend on more than this loop)"
    )


def _policies(T: int, d: int, epsilon: float):
    setting = Setting(T=T, d=d, epsilon=epsilon, delta=0.1, B=20)
    return [
        make_policy(a, setting, "experiment", Quirks.from_fidelity("script"))
        for a in FIG1_ALGORITHMS
    ]


#: Cached kernels that only the tests call from Python (the batched Maler the learners' tests
#: drive; the pipeline's OnlineUCB runs Maler inside its compiled round loop): :func:`warmup`
#: leaves them to the tests (tests/test_warmup.py checks that it compiles every other one).
TEST_ONLY_KERNELS = frozenset(
    {"dpbandits.learners.maler._predict_all", "dpbandits.learners.maler._update_all"}
)


def cached_kernels() -> dict:
    """Every ``njit(cache=True)`` function defined in a module of the package, by full name
    (what :func:`warmup` must compile; tests/test_warmup.py)."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import dpbandits

    found = {}
    for info in pkgutil.walk_packages(dpbandits.__path__, "dpbandits."):
        module = importlib.import_module(info.name)
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.__module__ == info.name:
                if type(obj._cache).__name__ != "NullCache":  # cache=True
                    found[f"{info.name}.{name}"] = obj
    return found


def _warm_run(policy, instances, T: int) -> None:
    simulate(
        policy,
        instances,
        [0],
        [noise_generator(0, "warmup", "p", policy.algorithm, 0)],
        checkpoint_rounds(T, 2),
    )


def warmup() -> None:
    """Compile (and cache) every numba kernel with a tiny run, with the argument types the
    pipeline passes: a build after ``make install`` compiles nothing (tests/test_warmup.py: a
    kernel missed here would be compiled inside the build's jobs, on their time)."""
    inst = script_instances(1, 10, 3)
    setting = Setting(T=40, d=3, epsilon=1.0, delta=0.1)
    olucb = [
        make_policy("onlineucb", setting),
        make_policy("onlineucb", setting, radius_mode="oracle"),
        make_policy("onlineucb_doubling", setting),
        make_policy("combiner", setting),
    ]
    for policy in _policies(40, 3, 1.0) + olucb:
        for instances in (inst, make_instances("fresh_sphere", 1, 10, 3, 2)):
            if instances.contextual and policy.engine not in ("onlineucb", "combiner"):
                continue
            if instances.contextual and policy.opts.get("radius_mode") == "oracle":
                continue
            _warm_run(policy, instances, 40)
    # the tree mechanism (paper 003's JDP; the arena), DP-DPE's clients (paper 004: the clipped
    # reports' mean and the shuffle protocol's counts), paper 002's fresh-arm contestants (the
    # arena's AdaC-OFUL under zCDP and LinUCB under op24; its JDP-LinUCB runs the same kernels)
    T = 200
    small = Setting(T=T, d=3, epsilon=1.0, delta=0.1)
    _warm_run(make_policy("jdp_tree", small, "experiment", Quirks.from_fidelity("script")), inst, T)
    # explore-then-commit, the rate audit's planted contestant (every rate sweep of a fixed arm set)
    _warm_run(make_policy("etc", Setting(T=T, d=3), explore=50), inst, T)
    fixed = make_instances("fixed_sphere", 1, 10, 3, 2)
    for algorithm in ("ldp_dpe", "sdp_dpe"):
        policy = make_policy(algorithm, Setting(T=T, d=3, epsilon=1.0, delta=0.1, B=1, K=10))
        _warm_run(policy, fixed, T)
    fresh = make_instances("fresh_sphere", 1, 10, 3, 2)
    for algorithm, calibration in (("adac_oful", "zcdp"), ("linucb", "op24")):
        _warm_run(make_policy(algorithm, small, calibration), fresh, T)
    # PrivateLASSO (paper 001): the TBAP round kernel and the trust-region solver
    plasso_cell("PL-E1", "F1", 10, 2, 2, 16, "private_lasso", 1e4, 3, 1)
    # the rate audit's resampling, on a writable and on a read-only table (as read from parquet)
    frozen = np.ones((2, 2))
    frozen.flags.writeable = False
    for Y in (np.ones((2, 2)), frozen):
        bootstrap_means(Y, 2, np.random.default_rng(0))
    # the privacy audit's compiled epsilon search: a dense composed PLD, a pair of pmfs
    composed_epsilon([Component("laplace", 1.0, 1.0, 3)], 1e-5)
    pmf_pair_epsilon(np.array([0.5, 0.5]), np.array([0.4, 0.6]), 1e-5, 2)
    standard_normal(np.random.default_rng(0), MIN_COMPILED)  # the compiled normals
    print("numba kernels compiled and cached")


def bench(
    trials: int, T: int, d: int, ref_trials: int, ref_T: int, authors_script: Path | None = None
) -> None:
    """Time the engine on one Figure 1 panel and the reference loop on a reduced workload, and
    the authors' public script on the same reduced workload when its path is given
    (:mod:`dpbandits.authors_script`). The kernels are compiled beforehand (:func:`warmup`)."""
    inst = script_instances(trials, 100, d)
    cps = checkpoint_rounds(T, 200)
    print(
        f"\nFast engine: one Figure 1 panel (R1, epsilon = 1): {len(FIG1_ALGORITHMS)} algorithms x "
        f"{trials} trials x T = {T}, d = {d}, K = 100"
    )
    start = time.perf_counter()
    seeds = list(range(trials))
    rewards = reward_tables(inst.mu, T, seeds)  # once per job, shared by its algorithms
    total = time.perf_counter() - start
    print(f"  reward tables {total:6.2f} s   (drawn once, shared by the algorithms)")
    for policy in _policies(T, d, 1.0):
        rngs = [noise_generator(1, "bench", "panel", policy.algorithm, i) for i in range(trials)]
        start = time.perf_counter()
        res = simulate(policy, inst, seeds, rngs, cps, rewards=rewards)
        sec = time.perf_counter() - start
        total += sec
        print(
            f"  {policy.algorithm:12s} {sec:6.2f} s"
            f"   {1e6 * sec / (trials * T):6.2f} us/round/trial"
            f"   mean final regret {res.metrics['regret_realized'][:, -1].mean():8.1f}"
        )
    fast_us = 1e6 * total / (len(FIG1_ALGORITHMS) * trials * T)
    print(f"  panel total  {total:6.2f} s   (target <= 10 s, stretch 3 s)")

    print(
        f"\nReference loop: {len(FIG1_ALGORITHMS)} algorithms x {ref_trials} trials"
        f" x T = {ref_T}, d = {d}"
    )
    ref_inst = script_instances(ref_trials, 100, d)
    ref_cps = checkpoint_rounds(ref_T, 10)
    ref_total = 0.0
    for policy in _policies(ref_T, d, 1.0):
        start = time.perf_counter()
        for i in range(ref_trials):
            raw = draw_raw(policy, noise_generator(1, "bench", "panel", policy.algorithm, i))
            rewards = bernoulli_reward_table(ref_inst.mu[i], ref_T, i)
            reference_run(policy, ref_inst.X[i], ref_inst.mu[i], rewards, raw, ref_cps)
        sec = time.perf_counter() - start
        ref_total += sec
        print(
            f"  {policy.algorithm:12s} {sec:6.2f} s"
            f"   {1e6 * sec / (ref_trials * ref_T):7.1f} us/round/trial"
        )
    ref_us = 1e6 * ref_total / (len(FIG1_ALGORITHMS) * ref_trials * ref_T)
    reference = f"{ref_us / fast_us:.0f}x faster per round than the reference loop"
    if authors_script is None:
        print("\nThe authors' public script: not timed (dpb bench --authors-script PATH)")
    else:
        print(f"\nThe authors' script ({authors_script}): same reduced workload")
        costs = time_script(authors_script, ref_trials, ref_T, d)
        for algorithm, us in costs.items():
            print(f"  {algorithm:12s} {us:7.1f} us/round/trial")
        script_us = sum(costs.values()) / len(costs)
        reference += f", {script_us / fast_us:.0f}x than the authors' script"
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"\nSpeed: engine {fast_us:.2f} us/round/trial, reference {ref_us:.1f} us/round/trial, "
        f"ratio {ref_us / fast_us:.0f}x"
    )
    _record(
        f"cz22 Figure 1 panel ({len(FIG1_ALGORITHMS)} alg x {trials} x T={T}, d={d})",
        total,
        3.0,
        reference,
    )
    print(f"Peak memory of this process: {peak:.0f} MiB (target per job <= 2048 MiB)")


def _run_schedule(task) -> float:
    """Simulate the cells of one sweep schedule into ``out_dir`` (a worker of bench_audit)."""
    cells, out_dir = task
    start = time.perf_counter()
    run_cells(cells, [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in cells])
    return time.perf_counter() - start


def bench_audit(root: Path, workers: int = 2) -> None:
    """Time the rate audit of CZ22 at paper scale: every sweep cell, then the fits.

    Schedules run in ``workers`` processes, as Snakemake's jobs do with ``--cores 2``; files go
    to a temporary directory (the project's results are not touched). The pipeline adds the
    report notebook (about 15 s) to this.
    """
    schemas = root / "workflow" / "schemas"
    cfg = load_yaml(root / "config" / "config.yaml")
    exp = load_experiment(
        root / "config" / "experiments" / "cz22.yaml", cfg, schemas / "experiment.schema.yaml"
    )
    claims = load_claims(root / "config" / "claims" / "cz22.yaml", schemas / "claims.schema.yaml")
    sweep = exp.sweeps[0]
    print(
        f"\nRate audit of cz22 at paper scale: {len(sweep.cells)} sweep cells "
        f"({len(sweep.schedules)} schedules x epsilon x T in {sweep.T}, {sweep.trials} trials), "
        f"{workers} processes"
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        tasks = [(sweep.cells_of(s), tmp) for s in sweep.schedules]
        ctx = get_context("fork")
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
            seconds = list(pool.map(_run_schedule, tasks))
        sim = time.perf_counter() - start
        for sched, sec in sorted(zip(sweep.schedules, seconds, strict=True), key=lambda x: -x[1]):
            print(f"  {sched:18s} {sec:6.1f} s")
        fit_start = time.perf_counter()
        df = read_results(sorted(Path(tmp).glob("*.parquet")))
        rates = evaluate_rate_claims(
            claims,
            df,
            tol=cfg["audit"]["tolerance"],
            n_boot=cfg["audit"]["bootstrap"],
            seed=cfg["audit"]["seed"],
        )
        fits = time.perf_counter() - fit_start
    print(
        f"  sweeps {sim:.1f} s wall, fits {fits:.1f} s ({len(rates)} rows); "
        f"total {sim + fits:.1f} s (target for the whole audit <= 600 s on 2 cores)"
    )
    _record("cz22 rate audit: sweeps + fits, 2 processes", sim + fits, 600.0)


def _run_panel(task) -> tuple[str, float, list[float]]:
    """Simulate one panel's cells into ``out_dir`` (a worker of bench_olucb)."""
    panel, cells, out_dir, calibrated = task
    start = time.perf_counter()
    outs = [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in cells]
    seconds = run_cells(cells, outs, calibrated)
    return panel, time.perf_counter() - start, seconds


def bench_olucb(root: Path, workers: int = 2) -> None:
    """Time the three Figure 1 panels of paper 000 (configuration main, every series, paper
    scale) in ``workers`` processes, as Snakemake's jobs run with ``--cores 2``.

    OnlineUCB's ``c_beta`` is the calibrated value when ``results/calibration/olucb/c_beta.csv``
    exists, else 1e-3 (a pilot value; the run time does not depend on it).
    """
    from dpbandits.pipeline import read_calibrations

    schemas = root / "workflow" / "schemas"
    cfg = load_yaml(root / "config" / "config.yaml")
    exp = load_experiment(
        root / "config" / "experiments" / "olucb.yaml", cfg, schemas / "experiment.schema.yaml"
    )
    table = root / "results" / "calibration" / "olucb" / "c_beta.csv"
    calibrated = read_calibrations([table]) if table.exists() else {"c_beta": 1e-3}
    groups = [(k[0], cells) for k, cells in exp.groups().items() if k[1] == "main"]
    n = sum(len(c) for _, c in groups)
    print(
        f"\nFigure 1 of paper 000 at paper scale: {len(groups)} panels, {n} cells "
        f"(c_beta = {calibrated['c_beta']:.3g}), {workers} processes"
    )
    with tempfile.TemporaryDirectory() as tmp:
        start = time.perf_counter()
        tasks = [(panel, cells, tmp, calibrated) for panel, cells in groups]
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_run_panel, tasks))
        wall = time.perf_counter() - start
    for (panel, sec, per_cell), (_, cells) in zip(results, groups, strict=True):
        detail = ", ".join(f"{c.series} {s:.1f}" for c, s in zip(cells, per_cell, strict=True))
        print(f"  {panel}: {sec:5.1f} s ({detail})")
    print(f"  three panels {wall:.1f} s wall (target <= 180 s on 2 cores)")
    _record("olucb Figure 1, three panels, 2 processes", wall, 180.0)


def _dpdpe_task(task) -> tuple[str, float, int]:
    """Simulate a list of cells, or run a calibration (a worker of bench_dpdpe)."""
    kind, name, payload, out_dir, calibrated = task
    start = time.perf_counter()
    if kind == "calibration":
        from dpbandits.pipeline import run_calibration

        run_calibration(payload, Path(out_dir) / f"{name}.csv")
        return name, time.perf_counter() - start, 0
    outs = [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in payload]
    run_cells(payload, outs, calibrated)
    return name, time.perf_counter() - start, len(payload)


def bench_dpdpe(root: Path, workers: int = 2) -> None:
    """Time all Figure 2 panels of paper 004 (configurations F and T, T = 10^6, 20 runs, every
    series) and the calibration of DPE-FixedU's U in ``workers`` processes, and the share of the
    G-optimal designs in a DPE run (paper 004, Algorithm 1 step 3)."""
    from dpbandits.engine import phased
    from dpbandits.pipeline import read_calibrations

    schemas = root / "workflow" / "schemas"
    cfg = load_yaml(root / "config" / "config.yaml")
    exp = load_experiment(
        root / "config" / "experiments" / "dpdpe.yaml", cfg, schemas / "experiment.schema.yaml"
    )
    table = root / "results" / "calibration" / "dpdpe" / "fixed_u.csv"
    calibrated = read_calibrations([table]) if table.exists() else {"fixed_u": 536}
    groups = [
        (f"{panel}/{conf}", cells)
        for (panel, conf), cells in exp.groups().items()
        if conf in ("faithful", "tight") and panel.startswith("dpdpe_fig2")
    ]
    cal = next(c for c in exp.calibrations if c.id == "fixed_u")
    n = sum(len(c) for _, c in groups)
    print(
        f"\nFigure 2 of paper 004 at paper scale: {len(groups)} panel jobs, {n} cells, "
        f"U = {calibrated['fixed_u']:g}, plus the calibration of U; {workers} processes"
    )
    with tempfile.TemporaryDirectory() as tmp:
        tasks = [("calibration", cal.id, cal, tmp, None)]
        tasks += [("cells", name, cells, tmp, calibrated) for name, cells in groups]
        start = time.perf_counter()
        with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
            results = list(pool.map(_dpdpe_task, tasks))
        wall = time.perf_counter() - start
    for name, sec, cells in sorted(results, key=lambda r: -r[1])[:6]:
        print(f"  {name}: {sec:5.1f} s" + (f" ({cells} cells)" if cells else ""))
    print(f"  all Figure 2 jobs {wall:.1f} s wall (target <= 300 s on 2 cores)")
    _record("dpdpe Figure 2 jobs + calibration of U, 2 processes", wall, 300.0)
    # share of the designs in a cell: design cache cleared, design calls timed
    original = phased.g_optimal_design
    for algorithm in ("dpe", "cdp_dpe", "sdp_dpe"):
        cell = next(
            c
            for name, cells in groups
            for c in cells
            if c.algorithm == algorithm and name.endswith("tight") and c.epsilon in (None, 10.0)
        )
        spent = [0.0]

        def timed(X, spent=spent):
            t0 = time.perf_counter()
            out = original(X)
            spent[0] += time.perf_counter() - t0
            return out

        phased._DESIGNS.clear()
        phased.g_optimal_design = timed
        try:
            with tempfile.TemporaryDirectory() as tmp:
                t0 = time.perf_counter()
                run_cells([cell], [Path(tmp) / "cell.parquet"], calibrated)
                total = time.perf_counter() - t0
        finally:
            phased.g_optimal_design = original
        print(
            f"  G-optimal designs in {cell.series} (20 runs, T = 10^6): {spent[0]:.2f} s of "
            f"{total:.2f} s ({100 * spent[0] / total:.0f} %)"
        )


def _plasso_task(run) -> tuple[str, float, int]:
    """Simulate one run of the PrivateLASSO plan (a worker of bench_plasso)."""
    from dpbandits.papers.plasso.runs import simulate_run

    start = time.perf_counter()
    simulate_run(run)
    rounds = len(run.eps) * sum(run.horizons) * run.trials
    return run.id, time.perf_counter() - start, rounds


def bench_plasso(root: Path, workers: int = 2) -> None:
    """Time the core tier of the PrivateLASSO audit (paper 001, every PL-E1 run of
    docs/papers/plasso.md) in ``workers`` processes against the budget of 6 minutes on 2 cores."""
    from dpbandits.papers.plasso.plan import load_plan

    plan = load_plan(
        root / "config" / "experiments" / "plasso.yaml",
        root / "workflow" / "schemas" / "plasso.schema.yaml",
    )
    runs = sorted(plan.runs, key=lambda r: -len(r.eps))  # longest first
    print(f"\nPrivateLASSO core tier: {len(runs)} runs, {workers} processes")
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=workers, mp_context=get_context("fork")) as pool:
        results = list(pool.map(_plasso_task, runs))
    wall = time.perf_counter() - start
    for name, sec, rounds in results:
        print(f"  {name}: {sec:5.1f} s ({1e6 * sec / rounds:.0f} µs per round per trial)")
    print(f"  all runs {wall:.1f} s wall (target <= 360 s on 2 cores, simulation only)")
    _record("plasso core tier, 2 processes", wall, 360.0)


def bench_adac_oful(trials: int = 20, T: int = 100_000, ref_trials: int = 2, ref_T: int = 300):
    """Time AdaC-OFUL as the arena's fresh point at d = 10 runs it (20 trials, T = 10^5, K = 10
    arms a round, the zCDP calibration's rho at (1, 0.1)) with the compiled engine, the fresh
    arms drawn beforehand and not timed, and a reduced workload with the literal reference loop
    (:func:`dpbandits.reference_loops.reference_adac_oful`); per round per trial."""
    from dpbandits.engine.adac_oful import run_adac_oful
    from dpbandits.envs.contextual import fresh_sphere_instances
    from dpbandits.mechanisms.zcdp import dp_to_zcdp
    from dpbandits.reference_loops import reference_adac_oful

    K, d = 10, 10
    rho = dp_to_zcdp(1.0, 0.1)
    inst = fresh_sphere_instances(trials, K, d)
    arms, uniforms, theta = inst.chunk(0, trials, T, list(range(trials)))
    rngs = [np.random.default_rng([7, i]) for i in range(trials)]
    run_adac_oful(arms[:1, :50], uniforms[:1, :50], theta[:1], rho, rngs[:1], np.array([50]))
    start = time.perf_counter()
    run_adac_oful(arms, uniforms, theta, rho, rngs, np.array([T]))
    fast = time.perf_counter() - start
    del arms, uniforms
    ref_arms, ref_u, ref_theta = inst.chunk(0, ref_trials, ref_T, list(range(ref_trials)))
    start = time.perf_counter()
    for i in range(ref_trials):
        reference_adac_oful(ref_arms[i], ref_u[i], ref_theta[i], rho, np.random.default_rng(i))
    slow = time.perf_counter() - start
    us_fast = 1e6 * fast / (trials * T)
    us_slow = 1e6 * slow / (ref_trials * ref_T)
    print(f"\nAdaC-OFUL, the arena's fresh point (d = {d}, K = {K}, {trials} trials, T = {T}):")
    print(f"  engine     {fast:6.2f} s   {us_fast:6.2f} µs per round per trial")
    print(
        f"  reference  {slow:6.2f} s   {us_slow:6.0f} µs per round per trial ({ref_trials} "
        f"trials, T = {ref_T}; {us_slow / us_fast:.0f}x slower)"
    )
    _record(
        "AdaC-OFUL, arena fresh d = 10 point (20 x 10^5)",
        fast,
        10.0,
        f"reference loop {us_slow / us_fast:.0f}x slower per round",
    )


def bench_shuffle_accounting(d: int = 10, query: float = 1e-5) -> None:
    """Time the delivered epsilon of DP-DPE's shuffle protocol as the privacy audit computes it
    (the count view's exact distributions, composed over the ``s`` coordinates, maximised over
    the phases :data:`dpbandits.privacy.releases.SHUFFLE_PHASES`; epsilon = 1, delta = 0.1,
    ``B = 1``, ``n_l = 2^l`` clients) against dp-accounting's own construction and epsilon search
    (``from_two_probability_mass_functions`` on dicts, ``get_epsilon_for_delta``); the two
    epsilons must be equal."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    from dpbandits.design import support_cap
    from dpbandits.mechanisms.shuffle_sum import vector_params
    from dpbandits.privacy import releases as rel

    B = 1.0
    s = int(math.floor(support_cap(d)))
    prms = [(vector_params(1.0, 0.1, 2**phase, s, B * s**0.5), s) for phase in rel.SHUFFLE_PHASES]
    start = time.perf_counter()
    fast = max(rel.shuffle_sum_epsilon(prm, query, -B, B, k) for prm, k in prms)
    t_fast = time.perf_counter() - start

    def logs(m):
        return {k: math.log(v) for k, v in m.items() if v > 0}

    start = time.perf_counter()
    ref = max(
        float(
            pld.from_two_probability_mass_functions(
                *(logs(m) for m in rel.count_pmf_pair(prm, -B, B)), symmetric=False
            )
            .self_compose(k)
            .get_epsilon_for_delta(query)
        )
        for prm, k in prms
    )
    t_ref = time.perf_counter() - start
    if fast != ref:
        raise RuntimeError(f"shuffle accounting differs from dp-accounting's: {fast} != {ref}")
    print(f"\nDP-DPE shuffle, delivered epsilon (d = {d}, s = {s}, {len(prms)} phases):")
    print(f"  project   {t_fast:6.2f} s   epsilon {fast:.6g} at delta = {query:g}")
    print(f"  library   {t_ref:6.2f} s   (the same epsilon; {t_ref / t_fast:.1f}x slower)")
    _record(
        "DP-DPE shuffle delivered epsilon (d = 10, 8 phases)",
        t_fast,
        3.0,
        f"dp-accounting's own loops {t_ref / t_fast:.1f}x slower",
    )


def bench_dry_run(root: Path, runs: int = 3) -> None:
    """Time ``snakemake -n`` in ``root`` (parsing the Snakefile and building the DAG; the
    issue-23 target is 2 s on a built tree) at quick and paper scale, ``runs`` times each; the
    median is recorded. Whether the tree was built (Snakemake's "Nothing to be done") is
    printed: on an unbuilt tree the DAG has jobs to list and takes longer."""
    import statistics
    import subprocess

    print("\nsnakemake -n (parse + DAG):")
    for scale in ("quick", "paper"):
        times, built = [], True
        for _ in range(runs):
            start = time.perf_counter()
            proc = subprocess.run(
                [sys.executable, "-m", "snakemake", "-n", "--config", f"scale={scale}"],
                cwd=root,
                capture_output=True,
                text=True,
            )
            times.append(time.perf_counter() - start)
            if proc.returncode != 0:
                raise RuntimeError(f"snakemake -n failed in {root}:\n{proc.stderr[-2000:]}")
            built &= "Nothing to be done" in proc.stdout + proc.stderr
        state = "built tree" if built else "tree NOT built: jobs listed"
        span = f"{min(times):.2f}-{max(times):.2f} s over {runs} runs"
        print(f"  {scale:6s} median {statistics.median(times):.2f} s ({span}; {state})")
        _record(f"snakemake -n, {scale} scale ({state})", statistics.median(times), 2.0, span)


#: The per-paper workloads the registry's ``bench`` entries name (besides the engine panel).
PAPER_WORKLOADS = {"bench_olucb": bench_olucb, "bench_dpdpe": bench_dpdpe,
                   "bench_plasso": bench_plasso}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``dpb``."""
    parser = argparse.ArgumentParser(
        prog="dpb", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("warmup", help="compile and cache the numba kernels")
    pg = sub.add_parser(
        "pages",
        help="check a build's HTML pages in headless Chromium (offline) and keep screenshots",
    )
    pg.add_argument("root", type=Path, nargs="?", default=Path("results"))
    b = sub.add_parser("bench", help="time one Figure 1 panel (engine) and the reference loop")
    b.add_argument("--trials", type=int, default=50)
    b.add_argument("--T", type=int, default=20000)
    b.add_argument("--d", type=int, default=5)
    b.add_argument("--ref-trials", type=int, default=2)
    b.add_argument("--ref-T", type=int, default=2000)
    b.add_argument("--no-audit", action="store_true", help="skip the rate-audit timing")
    b.add_argument("--root", type=Path, default=Path.cwd(), help="project root (config/)")
    b.add_argument(
        "--authors-script",
        type=Path,
        help="the authors' public experiment script of paper 003 (cz22), to time it on the "
        "reference loop's reduced workload (not part of the project; dpbandits.authors_script)",
    )
    b.add_argument(
        "--only",
        choices=[p.prefix for p in papers() if p.bench],
        help="time only this paper's workload (the registry's bench entry, dpbandits.papers)",
    )
    args = parser.parse_args(argv)
    workloads = {p.prefix: p.bench for p in papers() if p.bench}
    if getattr(args, "authors_script", None) is not None:
        if args.only and workloads[args.only] != "bench":
            parser.error(
                f"--authors-script times paper 003's Figure 1 panel, which --only {args.only} "
                f"leaves out; use --only {next(k for k, v in workloads.items() if v == 'bench')} "
                "or no --only"
            )
        try:  # a wrong path or file fails here, before anything is timed
            load_script(args.authors_script)
        except (OSError, ValueError) as err:
            parser.error(str(err))
    if args.command == "warmup":
        warmup()
        return 0
    if args.command == "pages":
        from dpbandits.page_check import check_build

        found = check_build(args.root)
        print("\n".join(found) if found else f"every page under {args.root}/ reads: no problem")
        print(f"screenshots: {args.root}/screenshots/")
        return 1 if found else 0
    warmup()  # once, so that no workload times numba's compilation
    loop_start = machine_loop_seconds()
    chosen = [workloads[args.only]] if args.only else list(workloads.values())
    for name in chosen:
        if name == "bench":  # the engine panel, then the rate audit of the same paper
            bench(args.trials, args.T, args.d, args.ref_trials, args.ref_T, args.authors_script)
            if not args.no_audit:
                bench_audit(args.root)
        else:
            PAPER_WORKLOADS[name](args.root)
    if not args.only:  # the arena's costliest algorithm, the privacy audit's costliest accounting
        bench_adac_oful()
        bench_shuffle_accounting()
        bench_dry_run(args.root)  # the Snakefile and the DAG
    if args.command == "bench":
        print("\n" + machine_line(loop_start, machine_loop_seconds()))
        print(summary_table())
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
