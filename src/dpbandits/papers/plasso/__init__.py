"""plasso (plasso): Shukla, differentially private high-dimensional bandits
(docs/papers/plasso.md).

A figure-less study (:mod:`dpbandits.papers.study`): its claimed rates are audited by dedicated
experiments. Modules: :mod:`.declaration` (``STUDY``, what the workflow builds), :mod:`.plan`
(the run plan of config/experiments/plasso.yaml), :mod:`.runs` (one run), :mod:`.verdicts` (the
verdict rules), :mod:`.plots`, :mod:`.privacy` (the plan's rows of the delivered-epsilon audit)
and :mod:`.bench` (its ``make bench`` workload). The hooks below import lazily, so that reading
the declaration stays cheap while the workflow parses.
"""

from .declaration import STUDY  # noqa: F401  (the workflow reads it from the package)


def load_plan(path, schema, tier: str = "core", scale: str = "paper"):
    """The validated run plan (:func:`.plan.load_plan`)."""
    from .plan import load_plan as load

    return load(path, schema, tier, scale)


def simulate(run: dict, files: dict, timing: str, tier: str, scale: str) -> None:
    """One run of the plan to its runs and episodes parquet files and its timing table
    (:func:`.runs.write_run`)."""
    from .plan import Run
    from .runs import write_run

    write_run(Run.from_dict(run), files["runs"], files["episodes"], timing, tier, scale)


def write_verdicts(results, claims, parameters, max_detectable, expected, outputs):
    """Every verdict rule on the results (:class:`.verdicts.PlassoAudit`) and the constants of
    Algorithms 1-2 at the longest PL-E1 horizon; writes the verdict rows, the claim verdicts
    and the constants, and returns the claim verdicts."""
    from dpbandits.io import read_results
    from dpbandits.tables import write_table as write

    from .statements import constants_table
    from .verdicts import VERDICT_SEMANTICS, PlassoAudit

    runs = read_results(results["runs"], required=("trial",), expect=expected)
    episodes = read_results(results["episodes"], required=("trial",), expect=expected)
    rows, verdicts = PlassoAudit(
        runs, episodes, claims, parameters["fit_points"], max_detectable
    ).run()
    write(rows, outputs["rows_csv"], outputs["rows_md"], "plasso: verdict rows",
          VERDICT_SEMANTICS)  # fmt: skip
    write(verdicts, outputs["claims_csv"], outputs["claims_md"], "plasso: claim verdicts",
          VERDICT_SEMANTICS)  # fmt: skip
    e1 = runs[runs["experiment"] == "PL-E1"]
    T_max, first = int(e1["T"].max()), e1.iloc[0]
    consts = constants_table(
        parameters["grids"]["private_lasso"], T_max, int(first["d"]), int(first["s0"]),
        int(first["K"]), dict(parameters["parameters"]),
    )  # fmt: skip
    write(
        consts, outputs["constants_csv"], outputs["constants_md"],
        f"plasso: constants at T = {T_max} (Algorithms 1-2)",
        "Budget split, SVT scale and threshold, TBAP noise of the longest episode (m = s0).",
    )  # fmt: skip
    return verdicts


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`;
    ``account=False``: their identities only)."""
    from .privacy import privacy_rows as rows

    return rows(plan, account)


def bench_workload(root, options) -> None:
    """This paper's ``make bench`` workload (:mod:`.bench`; ``options``: ``dpb bench``'s
    arguments). Loaded by name: no job runs it, so it stays out of the jobs' code fingerprints
    (:mod:`dpbandits.fingerprint`)."""
    import importlib

    importlib.import_module(f"{__name__}.bench").run(root, options)


def warm_up() -> None:
    """Compile the kernels only this paper's runs use (``dpb warmup``, :mod:`.warmup`). Loaded by
    name: no job runs it, so it stays out of the jobs' code fingerprints."""
    import importlib

    importlib.import_module(f"{__name__}.warmup").run()
