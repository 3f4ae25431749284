"""Snakemake's default job-rate limit, turned off in local runs (dpbandits.runtime.rate_limit)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from types import SimpleNamespace

import pytest
from snakemake.cli import get_argument_parser
from snakemake.settings.types import MaxJobsPerTimespan

from dpbandits.runtime import rate_limit


def _workflow(limit: str, local: bool = True, main: bool = True):
    limiter = object()  # stands for Snakemake's JobRateLimiter
    return SimpleNamespace(
        local_exec=local,
        is_main_process=main,
        scheduler=SimpleNamespace(job_rate_limiter=limiter),
        scheduling_settings=SimpleNamespace(
            max_jobs_per_timespan=MaxJobsPerTimespan.parse_choice(limit)
        ),
    )


def test_the_default_is_snakemakes_own():
    default = get_argument_parser().get_default("max_jobs_per_timespan")
    if isinstance(default, str):  # argparse converts a string default when it parses
        default = MaxJobsPerTimespan.parse_choice(default)
    assert (default.max_jobs, default.timespan) == rate_limit.SNAKEMAKE_DEFAULT


def test_a_local_run_with_the_default_limit_loses_it():
    wf = _workflow("100/1s")
    assert rate_limit.drop(wf) is True
    assert wf.scheduler.job_rate_limiter is None


@pytest.mark.parametrize(
    "limit, local, main",
    [
        ("10/1s", True, True),  # the user's own limit
        ("100/1m", True, True),
        ("100/1s", False, True),  # a cluster run
        ("100/1s", True, False),  # a job's own Snakemake process
    ],
)
def test_other_runs_keep_their_limit(limit, local, main):
    wf = _workflow(limit, local, main)
    before = wf.scheduler.job_rate_limiter
    assert rate_limit.drop(wf) is False
    assert wf.scheduler.job_rate_limiter is before


def test_no_limiter_nothing_to_do():
    wf = _workflow("100/1s")
    wf.scheduler.job_rate_limiter = None  # a dry run
    assert rate_limit.drop(wf) is False
    del wf.scheduler.job_rate_limiter  # a Snakemake without one
    assert rate_limit.drop(wf) is False


SNAKEFILE = """
from dpbandits.runtime import rate_limit

onstart:
    if config["drop"]:
        rate_limit.drop(workflow)

rule all:
    input: expand("out/{{i}}.txt", i=range({jobs}))

rule one:
    output: "out/{{i}}.txt"
    shell: "sleep 0.3; touch {{output}}"
"""


def _passes(tmp_path, drop: bool, jobs: int) -> int:
    """Scheduler passes that saw ready jobs, in a local run of ``jobs`` jobs on one core."""
    work = tmp_path / ("drop" if drop else "keep")
    work.mkdir()
    (work / "Snakefile").write_text(textwrap.dedent(SNAKEFILE.format(jobs=jobs)))
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--verbose"]
        + ["--config", f"drop={drop}"],
        cwd=work,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    return len(re.findall(r"^Ready jobs: \d+$", proc.stderr, flags=re.M))


def test_without_the_limit_the_scheduler_passes_once_per_finished_job(tmp_path):
    """One job at a time, each 0.3 s, the others waiting: the scheduler passes once at the start
    and once per finished job. With Snakemake's default limit, every pass also starts a timer
    that passes again a second later (and so on): from the first second on, passes come more
    often than jobs finish; the check below sees that design fail (the second run)."""
    jobs = 8
    assert _passes(tmp_path, drop=True, jobs=jobs) <= jobs + 1
    assert _passes(tmp_path, drop=False, jobs=jobs) > jobs + 1
