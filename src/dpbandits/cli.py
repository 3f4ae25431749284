"""Command line ``dpb``: ``dpb warmup`` (compile the numba kernels), ``dpb pages`` (check a
build's pages in a browser) and ``dpb bench`` (the speed benchmark, :mod:`dpbandits.dev.bench`).
"""

# ruff: noqa: E402  (the thread variables below must be set before numpy is imported)
from __future__ import annotations

import os

from dpbandits.runtime.worker import THREAD_VARS  # no numpy: the variables are set before it loads

# Every benchmark job runs single-threaded, as Snakemake runs a job with ``threads: 1`` (it sets
# these variables for each job); set before numpy is first imported.
for _var in THREAD_VARS:
    os.environ.setdefault(_var, "1")

import argparse
import sys
from pathlib import Path

import numpy as np

from dpbandits.audit.fits import bootstrap_means
from dpbandits.dev.authors_script import load_script
from dpbandits.engine import checkpoint_rounds, simulate
from dpbandits.engine.private_lasso import simulate_cell as private_lasso_cell
from dpbandits.envs import make_instances, script_instances
from dpbandits.normals import MIN_COMPILED, standard_normal
from dpbandits.papers import papers
from dpbandits.policies import Quirks, Setting, make_policy
from dpbandits.privacy.accounting import Component, composed_epsilon, pmf_pair_epsilon
from dpbandits.seeds import noise_generator

#: The LinUCB family's algorithms whose kernels :func:`warmup` compiles under the script's
#: quirks (the shuffle, local and joint privacy variants of the engine's LinUCB).
LINUCB_FAMILY = ("linucb", "jdp_standin", "sdp_amp", "sdp_vec", "ldp")


def _linucb_family(T: int, d: int, epsilon: float):
    setting = Setting(T=T, d=d, epsilon=epsilon, delta=0.1, B=20)
    return [
        make_policy(a, setting, "experiment", Quirks.from_fidelity("script")) for a in LINUCB_FAMILY
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
    onlineucb = [
        make_policy("onlineucb", setting),
        make_policy("onlineucb", setting, radius_mode="oracle"),
        make_policy("onlineucb_doubling", setting),
        make_policy("combiner", setting),
    ]
    for policy in _linucb_family(40, 3, 1.0) + onlineucb:
        for instances in (inst, make_instances("fresh_sphere", 1, 10, 3, 2)):
            if instances.contextual and "fresh" not in policy.runs_on(policy.calibration):
                continue
            if instances.contextual and policy.opts.get("radius_mode") == "oracle":
                continue
            _warm_run(policy, instances, 40)
    # the tree mechanism (LinUCB-JDP), DP-DPE's clients (the clipped reports' mean and the
    # shuffle protocol's counts), the fresh-arm contestants (AdaC-OFUL under zCDP and LinUCB
    # under the fresh-arm calibration; JDP-LinUCB runs the same kernels)
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
    # PrivateLASSO: the TBAP round kernel and the trust-region solver
    private_lasso_cell("PL-E1", "F1", 10, 2, 2, 16, "private_lasso", 1e4, 3, 1)
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
    b = sub.add_parser("bench", help="time the workloads against their targets (make bench)")
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
        help="the authors' public experiment script of the paper whose panel the bench times, "
        "timed on the reference loop's reduced workload (not part of the project; "
        "dpbandits.dev.authors_script)",
    )
    b.add_argument(
        "--only",
        choices=[p.prefix for p in papers() if p.hook("bench_workload") is not None],
        help="time only this paper's workload (the bench hook of its package, dpbandits.papers)",
    )
    args = parser.parse_args(argv)
    if getattr(args, "authors_script", None) is not None:
        (owner,) = [p.prefix for p in papers() if p.hook("BENCH_TIMES_AUTHORS_SCRIPT")]
        if args.only and args.only != owner:
            parser.error(
                f"--authors-script times {owner}'s Figure 1 panel, which --only {args.only} "
                f"leaves out; use --only {owner} or no --only"
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
    from dpbandits.dev.bench import run

    warmup()  # once, so that no workload times numba's compilation
    run(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
