"""olucb (olucb): improved rate for locally differentially private linear bandits
(docs/papers/olucb.md).

What belongs to this paper alone beyond its configuration: :mod:`.findings` (the findings its
audit page reports: delivered privacy of Algorithm 1's noise, the hidden 1/epsilon^3, lambda_min
of the played arms, the combiner's grid) and :mod:`.robustness` (the constants sweep behind the
failed Figure 1 ordering). Its policies (OnlineUCB, the combiner) are in :mod:`dpbandits.policies`.
"""

#: The audit page's findings (:mod:`.findings`) read the figure cells' final rows as well as the
#: sweeps', so this paper's page depends on its figure cells' files (a paper without the flag:
#: its page does not read them; workflow/rules/common.smk, ``page_figure_cells``).
FINDINGS_READ_FIGURES = True


def status_inputs(results: str) -> dict[str, str]:
    """Files besides the shared ones that decide this paper's claim statuses (the scoreboard
    job's inputs, ``workflow/rules/common.smk``): the constants sweep's table."""
    return {"robustness": f"{results}/audit/olucb_robustness.csv"}


def claim_notes(inputs) -> dict[str, str]:
    """Claim id -> a note the scoreboard appends to the claim's reason
    (:func:`.robustness.claim_notes`: the constants sweep's classification); ``inputs``: the
    scoreboard job's inputs (:func:`status_inputs` among them)."""
    from .robustness import claim_notes as robustness_notes

    return robustness_notes(inputs["robustness"])


def robustness_job(job, log) -> None:
    """The rule ``olucb_robustness`` (``rules.smk``, through ``workflow/scripts/paper_job.py``):
    the constants sweep of :mod:`.robustness` on the calibrations ``job.input.calibrations``,
    its comparison table and verdict to ``job.output.csv`` / ``.md``."""
    import time

    from dpbandits.config import load_experiment
    from dpbandits.pipeline import read_calibrations

    from .robustness import classify, comparison_table, run_study, write_outputs

    experiment = load_experiment(job.params.config_file, job.config, job.params.schema)
    study = experiment.data["robustness"]
    start = time.perf_counter()
    finals = run_study(experiment, job.config, read_calibrations(job.input.calibrations))
    table = comparison_table(finals, study["series"], study["reference"])
    verdict = classify(table)
    write_outputs(table, verdict, study, job.output.csv, job.output.md)
    log.info(
        "robustness: %s (reproducing: %s); %.1f s",
        verdict["verdict"],
        verdict["reproducing"],
        time.perf_counter() - start,
    )


def bench_workload(root, options) -> None:
    """This paper's ``make bench`` workload (:mod:`.bench`; ``options``: ``dpb bench``'s
    arguments). Loaded by name: no job runs it, so it stays out of the jobs' code fingerprints
    (:mod:`dpbandits.fingerprint`)."""
    import importlib

    importlib.import_module(f"{__name__}.bench").run(root, options)
