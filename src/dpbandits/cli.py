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

from dpbandits.dev.authors_script import load_script
from dpbandits.papers import papers


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
    from dpbandits.dev.warmup import warmup

    if args.command == "warmup":
        warmup()
        return 0
    if args.command == "pages":
        from dpbandits.checks.browser import check_build

        if not Path(args.root).is_dir():
            parser.error(
                f"{args.root}: no such folder (a build's results, e.g. results or results/quick)"
            )
        try:
            found = check_build(args.root)
        except RuntimeError as err:  # Chromium missing, or the browser failed
            parser.error(str(err))
        print("\n".join(found) if found else f"every page under {args.root}/ reads: no problem")
        print(f"screenshots: {args.root}/screenshots/")
        return 1 if found else 0
    from dpbandits.dev.bench import run

    warmup()  # once, so that no workload times numba's compilation
    run(args)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
