"""Snakemake job: a rule of one paper's own (``src/dpbandits/papers/<prefix>/rules.smk``). The
function ``params.job`` of the paper's package ``dpbandits.papers.<prefix>`` does the work,
given the job (its ``input``, ``output``, ``params``, ``config``) and the job's log."""

# `snakemake` is injected by Snakemake's script directive.
# ruff: noqa: F821, E402

from dpbandits.runtime.worker import hand_off

hand_off(snakemake, __file__)  # in a local run: run in the warm worker (dpbandits.runtime.worker)

from dpbandits.papers import paper
from dpbandits.runtime.joblog import job_log

with job_log(snakemake.log[0]) as log:
    job = paper(snakemake.params.prefix).hook(snakemake.params.job)
    if job is None:
        raise KeyError(
            f"dpbandits.papers.{snakemake.params.prefix} has no job {snakemake.params.job!r}"
        )
    job(snakemake, log)
