"""Reproduction pipeline for differentially private linear bandit papers.

Run `snakemake --cores all` (or `make reproduce`); `snakemake --list-target-rules` shows every
target. Configuration: config/config.yaml and config/experiments/*.yaml (see README.md).
"""

import gc
import time

from snakemake.utils import min_version

from dpbandits.report_captions import workflow_description
from dpbandits.runtime import rate_limit
from dpbandits.runtime import worker
from dpbandits.config import exit_if_unreadable
from dpbandits.runtime.run_summary import build_summary

min_version("9.0")
# Snakemake's process keeps what it imported, and then the rules and configuration this file
# builds, until it exits. Freezing them (gc.freeze: Python's cyclic garbage collector skips
# them from now on) spares the collector walking them at every collection while this file is
# read and the DAG built: `snakemake -n` ~0.6 s faster (docs/performance.md). Nothing else
# changes: objects are still freed when no longer referenced; only a reference cycle among
# frozen objects would stay until the process exits.
gc.freeze()


# a syntax error or a byte that is not UTF-8 is refused with its line (Snakemake's own loader
# names none)
exit_if_unreadable("config/config.yaml")


configfile: "config/config.yaml"


report: workflow_description("workflow/report/workflow.rst")


# common.smk validates every config file (config/config.yaml and --config included) against its
# schema and prints a refusal as its own message, before any job (config/README.md)
include: "workflow/rules/common.smk"
include: "workflow/rules/simulate.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/papers.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/studies.smk"
include: "workflow/rules/privacy.smk"
include: "workflow/rules/arena.smk"
include: "workflow/rules/front.smk"


# a paper's own rules (src/dpbandits/papers/<prefix>/rules.smk; dpbandits.papers.Paper.rules)
for _paper in PAPERS.values():
    if _paper.rules:

        include: _paper.rules


_STARTED = time.time()
# the run's warm worker (dpbandits.runtime.worker), started by onstart in local runs
_WORKER = []


onstart:
    gc.freeze()  # the DAG's jobs, kept until the run ends (see gc.freeze() at the top)
    # Snakemake's default job-rate limit only costs a local run time (dpbandits.runtime.rate_limit)
    rate_limit.drop(workflow)
    if worker.wanted(workflow, config.get("warm_worker", True)):
        sources = [
            f"{workflow.basedir}/{d}" for d in ("workflow/scripts", "notebooks")
        ]
        _WORKER.append(worker.start(sources, f"{LOGS}/worker.log"))


onerror:
    worker.stop(_WORKER.pop() if _WORKER else None)


onsuccess:
    worker.stop(_WORKER.pop() if _WORKER else None)
    # what this run wrote and where (dpbandits.runtime.run_summary), and the command of the HTML report
    meta = "--report-metadata workflow/report/metadata.yaml"
    if config["scale"] == "paper":
        command = (
            f"snakemake --report {RESULTS}/report.html {meta}  (or make report)"
        )
    else:
        command = f"snakemake --report {RESULTS}/report.html {meta} --config scale={config['scale']}"
    # the report lists every marked file: hint at it only when the whole DAG is there
    whole = all(os.path.exists(f) for f in rules.all.input)
    quick = config["scale"] == "quick"
    print(
        build_summary(
            RESULTS, _STARTED, report=command if whole else None, quick=quick
        )
    )


rule all:
    default_target: True
    input:
        ALL_TARGETS,
        rules.audit.output,
        [f for name in STUDY_PLANS for f in study_outputs(name).values()],
        rules.privacy.input,
        [f for name in EXPERIMENTS for f in paper_table_outputs(name).values()],
        arena_outputs().values() if ARENA else [],
        FRONT_PAGE,


# the rules and configuration built above, kept until the process exits (see the top)
gc.freeze()
