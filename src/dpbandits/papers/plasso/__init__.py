"""Paper 001 (plasso): Shukla, differentially private high-dimensional bandits
(docs/papers/plasso.md).

A figure-less study (:mod:`dpbandits.papers.study`): its claimed rates are audited by dedicated
experiments. Modules: :mod:`.plan` (the run plan of config/experiments/plasso.yaml),
:mod:`.runs` (one run), :mod:`.verdicts` (the verdict rules), :mod:`.plots` and :mod:`.privacy`
(the plan's rows of the delivered-epsilon audit). The hooks below import lazily, so that reading
the declaration stays cheap while the workflow parses.
"""

from dpbandits.papers.study import Study

#: The declaration the workflow builds the study from (workflow/rules/studies.smk).
STUDY = Study(
    run_files={"runs": "", "episodes": "_episodes"},
    canonical={
        "plasso_rows": (
            "tables/plasso_claims.csv",
            ("claim_id", "rule", "family", "algorithm", "eps"),
            ("statistic", "ci_low", "ci_high", "verdict"),
        ),
    },
    verdict_files={
        "rows": (
            "tables/plasso_claims",
            "Every verdict row of the audit's rules: per claim, family, algorithm and epsilon, "
            "the fitted statistic against the claimed one.",
        ),
        "claims": ("audit/plasso_claims", "The verdict of every claim of the paper."),
        "constants": (
            "tables/plasso_constants",
            "The algorithm's constants in force in the runs (Algorithms 1-2 of paper 001).",
        ),
    },
    figures={
        "regret_vs_T": "PL-E1: regret against T per family, PrivateLASSO at every epsilon, "
        "NP-TH-LASSO, Oracle-OLS, Oracle-TBAP and the svt-noise-off ablation, with guides "
        "proportional to ln^3 T (Theorem 2) and sqrt(T) ln^2 T (Theorem 3).",
        "normalised": "PL-E1: normalised regret R_T / ln^3 T and R_T / (sqrt(T) ln^2 T).",
        "eps": "PL-E1: excess regret at T_max over PrivateLASSO (epsilon = infinity) against "
        "epsilon, paired per trial, reference slope -1; Oracle-TBAP's excess over Oracle-OLS.",
        "ratio": "PL-E1: the ratio R_eps(T) / R_inf(T) against T (claim plasso.thm2.shape).",
        "support": "PL-E1, Lemma 4: share of the true support found and false positives per "
        "episode start, with the cap c_max - s0.",
        "scans": "PL-E2 (full tier): regret at T = 2^15 against d, K - 1 and s0.",
    },
    page="Audit page: verdict per claim, what the simulations say, the constants, the figures "
    "and every verdict row.",
    sim_mem_mb=4096,
    sim_runtime=120,
)


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

    from .verdicts import VERDICT_SEMANTICS, PlassoAudit, constants_table

    runs = read_results(results["runs"], required=("trial",), expect=expected)
    episodes = read_results(results["episodes"], required=("trial",), expect=expected)
    rows, verdicts = PlassoAudit(
        runs, episodes, claims, parameters["fit_points"], max_detectable
    ).run()
    write(rows, outputs["rows_csv"], outputs["rows_md"], "Paper 001: verdict rows",
          VERDICT_SEMANTICS)  # fmt: skip
    write(verdicts, outputs["claims_csv"], outputs["claims_md"], "Paper 001: claim verdicts",
          VERDICT_SEMANTICS)  # fmt: skip
    e1 = runs[runs["experiment"] == "PL-E1"]
    T_max, first = int(e1["T"].max()), e1.iloc[0]
    consts = constants_table(
        parameters["grids"]["private_lasso"], T_max, int(first["d"]), int(first["s0"]),
        int(first["K"]), dict(parameters["parameters"]),
    )  # fmt: skip
    write(
        consts, outputs["constants_csv"], outputs["constants_md"],
        f"Paper 001: constants at T = {T_max} (Algorithms 1-2)",
        "Budget split, SVT scale and threshold, TBAP noise of the longest episode (m = s0).",
    )  # fmt: skip
    return verdicts


def privacy_rows(plan, account: bool = True) -> list[dict]:
    """The plan's rows of the delivered-epsilon audit (:func:`.privacy.privacy_rows`;
    ``account=False``: their identities only)."""
    from .privacy import privacy_rows as rows

    return rows(plan, account)
