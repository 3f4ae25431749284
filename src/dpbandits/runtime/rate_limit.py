"""Snakemake's default job-rate limit, turned off in local runs (a scheduler cost, not a setting).

Snakemake limits job submissions to ``--max-jobs-per-timespan`` (default 100 per second), a
guard for cluster schedulers. While the limit is set, its scheduler (9.x) ends every pass over
the ready jobs by starting a timer that wakes it for another pass one timespan later, and the
passes those timers trigger start timers too. So each pass with another cause (a job finished)
starts a chain of passes, one a timespan, that lasts until the run ends: after ``n`` finished jobs
the scheduler makes about ``n`` passes a second, and every pass looks up the size of every input
file of every ready job: a DAG of ``n`` jobs costs about ``n^2`` passes instead of ``n``, and
Snakemake's own process competes with the jobs for the cores (docs/performance.md).

A local run submits nothing to a cluster, so the limit only costs time there: :func:`drop` turns
it off when Snakemake's default is in force. A limit the user set (any other value) is kept, and
cluster runs keep theirs. No job or output depends on it; jobs start as soon as cores are free,
as before.

No documented setting does the same: ``--max-jobs-per-timespan`` (a workflow profile could set it)
only moves the timers. A long timespan postpones them, but each is a non-daemon
``threading.Timer`` that keeps Snakemake's process alive until it fires (a run would end a
timespan after its last job); a short one makes the chains of passes denser. Hence the
scheduler's own attribute, set only where Snakemake's default is in force.
"""

from __future__ import annotations

#: Snakemake's default ``--max-jobs-per-timespan`` (``"100/1s"``): jobs, seconds.
SNAKEMAKE_DEFAULT = (100, 1)
#: What a run whose limit :func:`drop` turned off logs.
MESSAGE = (
    "Local run: Snakemake's default job-rate limit (100 jobs a second, for clusters) is off "
    "(dpbandits.runtime.rate_limit)."
)


def drop(workflow) -> bool:
    """Turn off Snakemake's default job-rate limit for a local run (before its first job).

    Parameters
    ----------
    workflow : snakemake.workflow.Workflow
        The running workflow (``workflow`` in a Snakefile), called from its ``onstart`` hook,
        after Snakemake built its scheduler and before the scheduler's first pass.

    Returns
    -------
    bool
        True if the limit was turned off; False for a cluster run, a job process, a limit the
        user set, or a Snakemake whose scheduler has no such limiter (nothing to do).
    """
    if not workflow.local_exec or not workflow.is_main_process:
        return False
    scheduler = getattr(workflow, "scheduler", None)
    if getattr(scheduler, "job_rate_limiter", None) is None:
        return False
    limit = workflow.scheduling_settings.max_jobs_per_timespan
    if (limit.max_jobs, limit.timespan) != SNAKEMAKE_DEFAULT:
        return False  # the user's own limit
    scheduler.job_rate_limiter = None
    from snakemake.logging import logger  # only inside Snakemake

    logger.info(MESSAGE)
    return True
