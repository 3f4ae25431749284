"""Mutation testing with cosmic-ray, on demand (`make mutation`; never in CI or `make test`).

cosmic-ray mutates a module on disk, one mutant at a time, and runs a test command. So that no
mutant ever touches the work tree, this script copies src/ and tests/ (and pyproject.toml) to a
temporary directory and runs cosmic-ray there, with PYTHONPATH pointing at the copy's src/ (it
comes before the editable install of the work tree). Each module is tested only with the test
files listed for it in workflow/mutation/modules.toml.

Modules matching a prefix of the config's ``warm-up`` list (the engine: its kernels are
``@njit(cache=True)``) first run their test command once, unmutated, in the copy: that writes
numba's on-disk cache into the copy's ``__pycache__``, so no mutant pays the compilation (a mutant
of a module without jitted functions leaves the kernels' sources, hence the cache, valid), no
mutant is counted as a timeout because it compiled, and a failing baseline stops the run.

Usage: python workflow/mutation/run.py [--config workflow/mutation/modules.toml]
           [--out results/mutation] [--sample N] [--jobs J] [MODULE ...]
       python workflow/mutation/run.py --recheck results/mutation/survivors.tsv
Prints killed/survived/timeout/incompetent and the score per module; writes
results/mutation/summary.tsv, survivors.txt (file:line, operator, occurrence, diff) and
survivors.tsv (the input of --recheck). See docs/mutation.md.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(cmd, cwd, env):
    subprocess.run(cmd, cwd=cwd, env=env, check=True, stdout=subprocess.DEVNULL)


def _test_cmd(tests: list[str]) -> str:
    return f"{sys.executable} -m pytest -x -q -p no:cacheprovider " + " ".join(tests)


def _needs_warm_up(module: str, cfg: dict) -> bool:
    return module not in cfg.get("no-jit", []) and any(
        module.startswith(prefix) for prefix in cfg.get("warm-up", [])
    )


def _env(tmp: Path, module: str, cfg: dict) -> dict:
    """The tests' environment: the copy's package first; for a module of the config's ``no-jit``
    list (the numba kernels themselves) numba's JIT is off, so every mutant runs as written and
    none can hide behind a compiled cache (slower: the kernels run as Python)."""
    env = dict(os.environ, PYTHONPATH=str(tmp / "src"))
    if module in cfg.get("no-jit", []):
        env["NUMBA_DISABLE_JIT"] = "1"
    return env


def warm_up(tmp: Path, module: str, tests: list[str], env: dict):
    """Run the module's tests once, unmutated, in the copy (fills numba's cache there)."""
    tests = [t for t in tests if (tmp / t).exists()]
    t0 = time.time()
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    res = subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise SystemExit(f"{module}: the unmutated tests fail, no mutation run\n{res.stdout}")
    print(f"{module}: warm-up (unmutated tests, numba cache) {time.time() - t0:.0f} s", flush=True)


_NUMBA_CACHE = ("*.nbi", "*.nbc")


def _copy_numba_cache(src: Path, dst: Path):
    """Copy numba's cache files of the copy ``src`` into the copy ``dst`` (same layout)."""
    for pattern in _NUMBA_CACHE:
        for f in src.rglob(pattern):
            target = dst / f.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, target)


def mutate_module(tmp: Path, module: str, tests: list[str], cfg: dict, env: dict, sample=None):
    tests = [t for t in tests if (tmp / t).exists()]
    name = Path(module).stem
    toml = tmp / f"cr_{name}.toml"
    db = tmp / f"cr_{name}.sqlite"
    test_cmd = _test_cmd(tests)
    excl = ", ".join(f'"{op}"' for op in cfg.get("exclude-operators", []))
    toml.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{module}"\n'
        f"timeout = {float(cfg.get('timeout', 120.0))}\n"
        "excluded-modules = []\n"
        f'test-command = "{test_cmd}"\n\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excl}]\n"
    )
    bindir = Path(sys.executable).parent
    _run([bindir / "cosmic-ray", "init", toml, db], tmp, env)
    _run([bindir / "cr-filter-pragma", db], tmp, env)
    if cfg.get("exclude-operators"):
        _run([bindir / "cr-filter-operators", db, toml], tmp, env)
    if sample:
        _sample(db, sample)
    _run([bindir / "cosmic-ray", "exec", toml, db], tmp, env)
    return summarise(db)


def _sample(db: Path, n: int):
    """Keep a seeded random sample of ``n`` pending mutants; mark the rest skipped."""
    import random

    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    with use_db(str(db), WorkDB.Mode.open) as wdb:
        pending = sorted(item.job_id for item in wdb.pending_work_items)
        keep = set(random.Random(0).sample(pending, min(n, len(pending))))
        for job_id in pending:
            if job_id not in keep:
                wdb.set_result(job_id, WorkResult(worker_outcome=WorkerOutcome.SKIPPED))


def summarise(db: Path):
    """Counts per outcome and the survivors (file:line operator #occurrence, then the diff)."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    counts = {"killed": 0, "survived": 0, "timeout": 0, "incompetent": 0, "skipped": 0}
    survivors = []
    with use_db(str(db), WorkDB.Mode.open) as wdb:
        for item, result in wdb.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                counts["skipped"] += 1
            elif result.test_outcome == TestOutcome.SURVIVED:
                counts["survived"] += 1
                mut = item.mutations[0]
                survivors.append(
                    f"{mut.module_path}:{mut.start_pos[0]} {mut.operator_name} "
                    f"#{mut.occurrence}\n{result.diff}"
                )
            elif result.test_outcome == TestOutcome.INCOMPETENT:
                counts["incompetent"] += 1
            elif result.output == "timeout":
                counts["timeout"] += 1
            else:
                counts["killed"] += 1
    return counts, survivors


def _copy_tree(tmp: Path):
    ign = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc")
    for extra in ("src", "tests", "config", "workflow", "Snakefile", "pyproject.toml"):
        p = ROOT / extra
        if p.is_dir():
            shutil.copytree(p, tmp / extra, ignore=ign)
        elif p.exists():
            shutil.copy(p, tmp / extra)


def recheck(tsv: Path, cfg: dict):
    """Apply each listed mutant in a temporary copy and run its module's tests again.

    Modules that need a warm-up get one warmed copy each (kept until the end); every mutant's
    fresh copy receives that copy's numba cache (the sources keep their modification times, which
    numba's index checks, so the cache is valid there)."""
    rows = [line.split("\t") for line in tsv.read_text().splitlines()[1:] if line.strip()]
    alive = 0
    bindir = Path(sys.executable).parent
    warmed: dict[str, tempfile.TemporaryDirectory] = {}
    for module, line, op, occ in rows:
        if _needs_warm_up(module, cfg) and module not in warmed:
            warmed[module] = tempfile.TemporaryDirectory(prefix="dpb-mutation-warm-")
            wtmp = Path(warmed[module].name)
            _copy_tree(wtmp)
            warm_up(
                wtmp, module, cfg["modules"][module], dict(os.environ, PYTHONPATH=str(wtmp / "src"))
            )
        with tempfile.TemporaryDirectory(prefix="dpb-mutation-") as d:
            tmp = Path(d)
            _copy_tree(tmp)
            if module in warmed:
                _copy_numba_cache(Path(warmed[module].name), tmp)
            tests = [t for t in cfg["modules"][module] if (tmp / t).exists()]
            cmd = _test_cmd(tests)
            env = _env(tmp, module, cfg)
            res = subprocess.run(
                [bindir / "cosmic-ray", "mutate-and-test", module, op, occ, cmd],
                cwd=tmp,
                env=env,
                capture_output=True,
                text=True,
            )
            outcome = "survived" if '"test_outcome": "survived"' in res.stdout else "killed"
            alive += outcome == "survived"
            print(f"{module}:{line} {op} #{occ}: {outcome}", flush=True)
    for w in warmed.values():
        w.cleanup()
    print(f"recheck: {len(rows) - alive} of {len(rows)} now killed, {alive} still alive")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(ROOT / "workflow/mutation/modules.toml"))
    ap.add_argument("--out", default=str(ROOT / "results/mutation"))
    ap.add_argument(
        "--sample",
        type=int,
        default=None,
        help="test only a seeded random sample of N mutants per module (a quick estimate)",
    )
    ap.add_argument("--jobs", type=int, default=None, help="modules at once (config: jobs)")
    ap.add_argument("modules", nargs="*", help="module paths (default: all in the config)")
    ap.add_argument(
        "--recheck",
        metavar="SURVIVORS_TSV",
        help="re-test only the mutants listed (a survivors.tsv of an earlier run), e.g. after "
        "adding tests; prints each one's outcome",
    )
    args = ap.parse_args(argv)
    cfg = tomllib.loads(Path(args.config).read_text())
    if args.recheck:
        return recheck(Path(args.recheck), cfg)
    modules = args.modules or list(cfg["modules"])
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.time()

    def one(module):
        tests = cfg["modules"].get(module)
        if not tests:
            raise SystemExit(f"{module}: no test files listed in {args.config}")
        t1 = time.time()
        with tempfile.TemporaryDirectory(prefix="dpb-mutation-") as d:
            tmp = Path(d)
            _copy_tree(tmp)
            env = _env(tmp, module, cfg)
            if _needs_warm_up(module, cfg):
                warm_up(tmp, module, tests, env)
            counts, surv = mutate_module(tmp, module, tests, cfg, env, args.sample)
        n = counts["killed"] + counts["timeout"] + counts["survived"]
        score = 100.0 * (n - counts["survived"]) / n if n else float("nan")
        print(
            f"{module}: killed {counts['killed']} survived {counts['survived']} "
            f"timeout {counts['timeout']} incompetent {counts['incompetent']} "
            f"score {score:.1f} % ({time.time() - t1:.0f} s)",
            flush=True,
        )
        return (module, counts, score, time.time() - t1), surv

    with ThreadPoolExecutor(max_workers=args.jobs or int(cfg.get("jobs", 1))) as pool:
        done = list(pool.map(one, modules))
    rows = [r for r, _ in done]
    all_surv = [s for _, surv in done for s in surv]
    with open(out / "summary.tsv", "w") as f:
        f.write("module\tkilled\tsurvived\ttimeout\tincompetent\tscore\tseconds\n")
        for module, c, score, secs in rows:
            f.write(
                f"{module}\t{c['killed']}\t{c['survived']}\t{c['timeout']}\t"
                f"{c['incompetent']}\t{score:.1f}\t{secs:.0f}\n"
            )
    (out / "survivors.txt").write_text("\n".join(all_surv))
    with open(out / "survivors.tsv", "w") as f:
        f.write("module\tline\toperator\toccurrence\n")
        for text in all_surv:
            where, op, occ = text.split("\n", 1)[0].split(" ")
            path, line = where.rsplit(":", 1)
            f.write(f"{path}\t{line}\t{op}\t{occ.lstrip('#')}\n")
    tot = sum(c["killed"] + c["timeout"] + c["survived"] for _, c, _, _ in rows)
    surv = sum(c["survived"] for _, c, _, _ in rows)
    total = 100.0 * (tot - surv) / tot if tot else float("nan")
    print(f"total: {tot - surv}/{tot} killed, score {total:.1f} % ({time.time() - t0:.0f} s)")
    print(f"survivors: {out / 'survivors.txt'}")


if __name__ == "__main__":
    main()
