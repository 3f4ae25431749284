"""``dpb bench`` (``make bench``): fixed workloads timed against their targets, one table.

Every paper whose package offers a ``bench_workload(root, options)`` hook (its ``bench``
module) adds its longest workload; then AdaC-OFUL as the arena's fresh point at d = 10 runs it,
against its literal reference loop (:func:`bench_adac_oful`); DP-DPE's shuffle certificate
against dp-accounting's own construction (:func:`bench_shuffle_accounting`); its certificate
over every part at one matched level (:func:`bench_every_part`); DP-PE's over every user count
(:func:`bench_every_count`); and ``snakemake -n`` at both
scales (:func:`bench_dry_run`). Each workload adds a row with :func:`record`;
:func:`run` prints the table after the machine's own pace (:func:`machine_line`). The kernels
are compiled beforehand (``dpb warmup``), so no workload times numba's compilation. Today's
numbers and targets: docs/performance.md.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

from dpbandits.papers import papers

#: One row per timed workload (workload, seconds now, target seconds, what it is compared with),
#: printed as one table at the end of ``dpb bench`` (:func:`record`).
SUMMARY: list[tuple[str, float, float, str]] = []


def record(workload: str, seconds: float, target: float, reference: str = "") -> None:
    """Add one workload's row to :data:`SUMMARY`: its seconds now, its target in seconds and
    what it is compared with."""
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


def bench_adac_oful(trials: int = 20, T: int = 100_000, ref_trials: int = 2, ref_T: int = 300):
    """Time AdaC-OFUL as the arena's fresh point at d = 10 runs it (20 trials, T = 10^5, K = 10
    arms a round, the zCDP calibration's rho at (1, 0.1)) with the compiled engine, the fresh
    arms drawn beforehand and not timed, and a reduced workload with the literal reference loop
    (:func:`dpbandits.dev.reference_loops.reference_adac_oful`); per round per trial."""
    from dpbandits.dev.reference_loops import reference_adac_oful
    from dpbandits.engine.adac_oful import run_adac_oful
    from dpbandits.envs.contextual import fresh_sphere_instances
    from dpbandits.mechanisms.zcdp import dp_to_zcdp

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
    record(
        "AdaC-OFUL, arena fresh d = 10 point (20 x 10^5)",
        fast,
        10.0,
        f"reference loop {us_slow / us_fast:.0f}x slower per round",
    )


#: Phases of :func:`bench_shuffle_accounting` (``n_l = 2^l`` clients).
BENCH_PHASES = (1, 2, 4, 8, 12, 16, 20, 25)


def bench_shuffle_accounting(d: int = 10, query: float = 1e-5) -> None:
    """Time the delivered epsilon of DP-DPE's shuffle protocol as the privacy audit computes it
    (the count view's exact distributions, composed over the ``s`` coordinates, maximised over
    the phases :data:`BENCH_PHASES`; epsilon = 1, delta = 0.1,
    ``B = 1``, ``n_l = 2^l`` clients) against dp-accounting's own construction and epsilon search
    (``from_two_probability_mass_functions`` on dicts, ``get_epsilon_for_delta``); the two
    epsilons must be equal."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    from dpbandits.g_optimal import support_cap
    from dpbandits.mechanisms.shuffle_sum import vector_params
    from dpbandits.privacy import releases as rel

    B = 1.0
    s = int(math.floor(support_cap(d)))
    prms = [(vector_params(1.0, 0.1, 2**phase, s, B * s**0.5), s) for phase in BENCH_PHASES]
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
    record(
        "DP-DPE shuffle delivered epsilon (d = 10, 8 phases)",
        t_fast,
        3.0,
        f"dp-accounting's own loops {t_ref / t_fast:.1f}x slower",
    )


def bench_every_part(eps: float = 597.6124024644057, d: int = 20, T: int = 10**6) -> None:
    """Time DP-DPE's shuffle certificate over every phase that reports and every support size
    (:func:`dpbandits.privacy.every_part.worst`) at one privacy level of dpdpe's matched Figure
    2(a) (delta = 1/4, ``B = 1``, ``alpha = 0.8``, ``h1 = 2``), from a cold part cache: what a
    matched search and its privacy row pay once per level."""
    import tempfile

    from dpbandits.privacy import binomial_shift, every_part, part_cache

    phases = every_part.released_phases(T, 2.0)
    key = (eps, 0.25, d, 1.0, 0.8, None, 1.0, phases)
    with tempfile.TemporaryDirectory() as tmp:
        saved = part_cache.PART_CACHE, dict(part_cache._PARTS)
        part_cache.PART_CACHE, part_cache._PARTS = Path(tmp) / "parts.json", {}
        every_part.screen.cache_clear()
        binomial_shift.shift_epsilon.cache_clear()
        try:
            start = time.perf_counter()
            value, certified = every_part.worst(*key, 0.25)
            seconds = time.perf_counter() - start
        finally:
            part_cache.PART_CACHE, part_cache._PARTS = saved[0], saved[1]
    parts = len(every_part.labels(d, phases))
    print(
        f"\nDP-DPE shuffle certificate over every part (d = {d}, {phases} phases, {parts} parts):"
    )
    print(f"  {seconds:6.2f} s   epsilon {value:.6g}, {len(certified)} parts on the fine grid")
    record(
        f"DP-DPE shuffle certificate over every part (d = {d}, {parts} parts)",
        seconds,
        10.0,
        f"{len(certified)} parts certified on the fine grid",
    )


def bench_every_count(eps: float = 36.9, T: int = 10**4) -> None:
    """Time DP-PE's shuffle certificate over every user count ``1 .. T``
    (:func:`dpbandits.privacy.every_count.worst`) at the arena's largest matched level of
    DP-PE-shuffle (``delta = 0.1``, ``B = 1``), uncached: what a matched search pays for the whole
    certificate at each point it evaluates it."""
    from dpbandits.privacy import every_count

    every_count._worst.cache_clear()
    start = time.perf_counter()
    value, at = every_count._worst(eps, 0.1, 1.0, 1.0, T, 0.1)
    seconds = time.perf_counter() - start
    print(f"\nDP-PE shuffle certificate over every user count (1..{T}):")
    print(f"  {seconds:6.2f} s   epsilon {value:.6g}, largest at n = {at}")
    record(
        f"DP-PE shuffle certificate over every user count (1..{T})",
        seconds,
        3.0,
        f"largest at n = {at}",
    )


def bench_dry_run(root: Path, runs: int = 3) -> None:
    """Time ``snakemake -n`` in ``root`` (parsing the Snakefile and building the DAG; the
    target is 2 s on a built tree) at quick and paper scale, ``runs`` times each; the
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
        record(f"snakemake -n, {scale} scale ({state})", statistics.median(times), 2.0, span)


def workloads() -> dict:
    """Prefix -> the ``bench_workload(root, options)`` hook of every paper that offers one."""
    return {
        p.prefix: p.hook("bench_workload") for p in papers() if p.hook("bench_workload") is not None
    }


def paper_experiment(root: Path, prefix: str):
    """The experiment of figure paper ``prefix`` as the workflow loads it from ``root``."""
    from dpbandits.config import load_experiment, load_yaml

    schemas = root / "workflow" / "schemas"
    cfg = load_yaml(root / "config" / "config.yaml")
    path = root / "config" / "experiments" / f"{prefix}.yaml"
    return load_experiment(path, cfg, schemas / "experiment.schema.yaml")


def run(options) -> None:
    """Every workload (``options.only``: one paper's only), then the table.

    ``options``: the parsed ``dpb bench`` arguments (``root``, ``only`` and each paper's own)."""
    loop_start = machine_loop_seconds()
    hooks = workloads()
    for prefix in [options.only] if options.only else list(hooks):
        hooks[prefix](options.root, options)
    if not options.only:  # the arena's costliest algorithm, the accountant's costliest case
        bench_adac_oful()
        bench_shuffle_accounting()
        bench_every_part()
        bench_every_count()
        bench_dry_run(options.root)  # the Snakefile and the DAG
    print("\n" + machine_line(loop_start, machine_loop_seconds()))
    print(summary_table())
