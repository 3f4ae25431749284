"""The declaration the workflow builds plasso's study from (workflow/rules/studies.smk),
re-exported by the package (``STUDY``); its own module, so that the plan reads it without
importing the package."""

from dpbandits.papers.study import Study

#: The declaration the workflow builds the study from (workflow/rules/studies.smk).
STUDY = Study(
    run_files={"runs": "", "episodes": "_episodes"},
    experiments=("PL-E1", "PL-E2"),
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
            "The algorithm's constants in force in the runs (Algorithms 1-2 of plasso).",
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
