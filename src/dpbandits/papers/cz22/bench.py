"""cz22's ``make bench`` workload (:mod:`dpbandits.dev.bench`): one Figure 1 panel with the
vectorised engine (the reward tables drawn once and shared, as the pipeline's job does) against
the reference loop on a reduced workload, and the authors' public script when its path is
given; then the rate audit at paper scale (every sweep cell in two processes, then the fits)."""

from __future__ import annotations

import resource
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context
from pathlib import Path

from dpbandits.audit.rates import evaluate_rate_claims
from dpbandits.claims import load_claims
from dpbandits.dev.authors_script import time_script
from dpbandits.dev.bench import paper_experiment, record
from dpbandits.dev.reference_loops import reference_run
from dpbandits.engine import checkpoint_rounds, draw_raw, simulate
from dpbandits.envs import bernoulli_reward_table, reward_tables, script_instances
from dpbandits.io import read_results
from dpbandits.pipeline import run_cells
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.seeds import noise_generator

#: The series of Figure 1 (configuration R1).
FIG1_ALGORITHMS = ("linucb", "jdp_standin", "sdp_amp", "sdp_vec", "ldp")


def _policies(T: int, d: int, epsilon: float):
    setting = Setting(T=T, d=d, epsilon=epsilon, delta=0.1, B=20)
    return [
        make_policy(a, setting, "experiment", Quirks.from_fidelity("script"))
        for a in FIG1_ALGORITHMS
    ]


def run(root: Path, options) -> None:
    """The panel (``options``: ``trials``, ``T``, ``d``, ``ref_trials``, ``ref_T``,
    ``authors_script``), then the rate audit unless ``options.no_audit``."""
    panel(
        options.trials, options.T, options.d, options.ref_trials, options.ref_T,
        options.authors_script,
    )  # fmt: skip
    if not options.no_audit:
        rate_audit(root)


def panel(
    trials: int, T: int, d: int, ref_trials: int, ref_T: int, authors_script: Path | None = None
) -> None:
    """Time the engine on one Figure 1 panel and the reference loop on a reduced workload, and
    the authors' public script on the same reduced workload when its path is given
    (:mod:`dpbandits.dev.authors_script`)."""
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
    record(
        f"cz22 Figure 1 panel ({len(FIG1_ALGORITHMS)} alg x {trials} x T={T}, d={d})",
        total,
        3.0,
        reference,
    )
    print(f"Peak memory of this process: {peak:.0f} MiB (target per job <= 2048 MiB)")


def _run_schedule(task) -> float:
    """Simulate the cells of one sweep schedule into ``out_dir`` (a worker of
    :func:`rate_audit`)."""
    cells, out_dir = task
    start = time.perf_counter()
    run_cells(cells, [Path(out_dir) / (c.stem.replace("/", "_") + ".parquet") for c in cells])
    return time.perf_counter() - start


def rate_audit(root: Path, workers: int = 2) -> None:
    """Time the rate audit of CZ22 at paper scale: every sweep cell, then the fits.

    Schedules run in ``workers`` processes, as Snakemake's jobs do with ``--cores 2``; files go
    to a temporary directory (the project's results are not touched). The pipeline adds the
    report notebook (about 15 s) to this.
    """
    from dpbandits.config import load_yaml

    schemas = root / "workflow" / "schemas"
    cfg = load_yaml(root / "config" / "config.yaml")
    exp = paper_experiment(root, "cz22")
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
    record("cz22 rate audit: sweeps + fits, 2 processes", sim + fits, 600.0)
