# Loads and validates the configuration, expands every experiment into cells (simulations)
# and figures (notebook executions). An invalid file stops the workflow here, before any job.

import json
import os

from snakemake.exceptions import WorkflowError

from dpbandits.bound_claims import load_bound_registry
from dpbandits.fingerprint import fingerprint as code_fingerprint
from dpbandits.papers import paper, select as select_papers
from dpbandits.claims import check_claim_targets, load_registry
from dpbandits.config import (
    ConfigError,
    check_schema,
    job_mem_mb,
    load_experiment,
    load_yaml,
    results_root,
    typed_overrides,
)
from dpbandits.report_captions import CATEGORIES, caption_file, entries, figure_entries

SCHEMAS = "workflow/schemas"
# The environment of every job (used with --sw-deployment-method conda; see README).
CONDA_ENV = "../../environment.yml"

try:
    # the config files as written: a repeated key or a syntax error is refused here
    # (Snakemake's own loader keeps the last of two equal keys)
    for _file in ["config/config.yaml", *workflow.configfiles]:
        load_yaml(_file)
    typed_overrides(config, dict(workflow.config_settings.config))
    # the papers to build: every registered one unless `experiments` / `bound_audits` select
    select_papers(config)
    check_schema(
        config,
        f"{SCHEMAS}/config.schema.yaml",
        "config/config.yaml (with --config overrides)",
    )
    EXPERIMENTS = {
        name: load_experiment(
            f"config/experiments/{name}.yaml",
            config,
            f"{SCHEMAS}/experiment.schema.yaml",
        )
        for name in config["experiments"]
    }
    REGISTRIES = {
        name: load_registry(
            f"config/claims/{name}.yaml", f"{SCHEMAS}/claims.schema.yaml"
        )
        for name in config["experiments"]
    }
    CLAIMS = {name: registry["claims"] for name, registry in REGISTRIES.items()}
    for name, claims in CLAIMS.items():
        check_claim_targets(claims, EXPERIMENTS[name], f"config/claims/{name}.yaml")
    # The figure-less papers' run plans, through their registry entries (dpbandits.papers).
    # op24's rules are in bounds.smk, plasso's (its own plan format) in plasso.smk.
    _PLANS = {
        name: paper(name).module.load_plan(
            f"config/experiments/{name}.yaml",
            f"{SCHEMAS}/{name}.schema.yaml",
            config["tier"],
            config["scale"],
        )
        for name in config["bound_audits"]
    }
    BOUND_PLANS = {name: plan for name, plan in _PLANS.items() if name != "plasso"}
    PLASSO_PLAN = _PLANS.get("plasso")
    for _plan in [*BOUND_PLANS.values(), *([PLASSO_PLAN] if PLASSO_PLAN else [])]:
        load_bound_registry(_plan.claims, f"{SCHEMAS}/bound_claims.schema.yaml")
except ConfigError as exc:
    raise WorkflowError(str(exc)) from None

# Generated files of a non-paper scale live under results/<scale>, logs/<scale>, benchmarks/<scale>.
RESULTS = results_root(config["scale"])
#: The privacy audit's root: the scale's root, plus /full for the full tier (more auditor samples).
PRIVACY_ROOT = RESULTS if config["tier"] == "core" else f"{RESULTS}/full"
PRIVACY_TAG = (
    "" if config["tier"] == "core" else "_full"
)  # logs and benchmarks of the full tier
LOGS = RESULTS.replace("results", "logs", 1)
BENCH = RESULTS.replace("results", "benchmarks", 1)

FIGURES = {fig.id: fig for exp in EXPERIMENTS.values() for fig in exp.figures}


def calibration_inputs(name, cells):
    """Calibration tables that ``cells`` (of experiment ``name``) take values from."""
    exp = EXPERIMENTS[name]
    ids = {cid for c in cells for cid in c.calibration_ids}
    return sorted(exp.calibration(cid).path for cid in ids)


def figure_outputs(fig):
    """Files one notebook execution writes: every image (pdf, png) and the notebook itself."""
    out = {}
    for name in fig.image_names:
        out[f"{name}_pdf"] = f"{RESULTS}/figures/{name}.pdf"
        out[f"{name}_png"] = f"{RESULTS}/figures/{name}.png"
    out["ipynb"] = f"{RESULTS}/notebooks/{fig.id}.ipynb"
    out["html"] = f"{RESULTS}/notebooks/{fig.id}.html"
    return out


def table_outputs(name):
    """Output files of an experiment's tables rule."""
    base = f"{RESULTS}/tables/{name}"
    return {
        "final": f"{base}_final_regret.csv",
        "final_md": f"{base}_final_regret.md",
        "claims": f"{base}_claims.csv",
        "claims_md": f"{base}_claims.md",
        "matrix": f"{base}_claims_matrix.csv",
        "matrix_md": f"{base}_claims_matrix.md",
        "metrics": f"{base}_metrics.csv",
        "metrics_md": f"{base}_metrics.md",
    }


def reported_file(path, name, subcategory, caption, labels):
    """``path`` marked for Snakemake's report (`make report`) in the category of ``name`` (a
    paper, or ``"privacy"``), with ``caption`` (text) and ``labels``."""
    return report(
        path,
        caption=caption_file(caption),
        category=CATEGORIES[name],
        subcategory=subcategory,
        labels=labels,
    )


def reported(outputs, name, subcategory, items):
    """``outputs`` with the files of ``items`` (key -> dpbandits.report_captions.Entry) marked for
    Snakemake's report (`make report`), in the category of paper ``name``."""
    out = dict(outputs)
    for key, entry in items.items():
        out[key] = reported_file(
            outputs[key], name, subcategory, entry.caption, entry.labels
        )
    return out


def paper_title(name):
    """Title of paper ``name`` (an experiment, a bound audit, or the PrivateLASSO audit)."""
    if name in EXPERIMENTS:
        return EXPERIMENTS[name].data["title"]
    if name in BOUND_PLANS:
        return BOUND_PLANS[name].title
    return PLASSO_PLAN.title


def audit_plots(name):
    """Plot files of every rate claim of a paper (one figure per slope/slope_between claim)."""
    prefix = f"{name}."
    out = {}
    for claim in CLAIMS[name]:
        if claim["audit"].get("check") in ("slope", "slope_between", "slope_trend"):
            short = claim["id"][len(prefix) :]
            for ext in ("pdf", "png"):
                out[f"{claim['id']}_{ext}"] = (
                    f"{RESULTS}/audit/{name}_rates_{short}.{ext}"
                )
    return out


def expected_settings(cells):
    """Path -> the settings its file must hold (``dpbandits.io.read_results(expect=...)``), as
    plain JSON values (Snakemake passes a nested tuple to a job as its string)."""
    return json.loads(json.dumps({c.path: c.as_dict() for c in cells}))


def sweep_files(name):
    """Every sweep parquet file of a paper."""
    return [c.path for sw in EXPERIMENTS[name].sweeps for c in sw.cells]


ALL_TARGETS = [f for fig in FIGURES.values() for f in figure_outputs(fig).values()] + [
    f for name in EXPERIMENTS for f in table_outputs(name).values()
]


def communication_outputs(name):
    """The analytic communication audit's tables (experiments with a `communication` section)."""
    if "communication" not in EXPERIMENTS[name].data:
        return {}
    stem = f"{RESULTS}/audit/{name}_communication"
    return {
        "summary_csv": f"{stem}.csv",
        "summary_md": f"{stem}.md",
        "costs_csv": f"{stem}_costs.csv",
        "costs_md": f"{stem}_costs.md",
    }


#: Figures of a bound audit (docs/papers/op24.md): OP-E1, OP-E2 and the Section 3 gap.
BOUND_FIGURES = ("e1", "e2", "gap")
#: Their report captions (what the audit notebook draws).
BOUND_FIGURE_CAPTIONS = {
    "e1": "OP-E1 (finite-armed, AdaC-UCB): regret against T on I1 and the minimax "
    "family I2 with the bounds' non-private terms as guides; the private excess over Ada-UCB "
    "against T and, at T_max, against rho (slope -1/2 reference).",
    "e2": "OP-E2 (linear, AdaC-GOPE): the same panels for J1 and the hypercube family J2.",
    "gap": "OP-E3, the Section 3 gap: regret against T for LinUCB, JDP-LinUCB (epsilon, "
    "delta = 0.01), OFUL-RS and AdaC-OFUL (rho); the excess over the non-private reference "
    "against T and, at T_max, against epsilon with the upper (-1/2) and lower (-1) bounds' "
    "slopes.",
}


def bound_root(name):
    """Root of a bound audit's outputs: the scale's root, plus /full for the full tier."""
    return RESULTS if BOUND_PLANS[name].tier == "core" else f"{RESULTS}/full"


def bound_sim_files(name):
    """Parquet file of every run of a bound audit's plan."""
    return [
        f"{bound_root(name)}/sim/{name}/{run.id}.parquet"
        for run in BOUND_PLANS[name].runs
    ]


def expected_runs(plan, paths):
    """Path -> the run its file must hold (op24 and plasso plans; see expected_settings)."""
    return json.loads(
        json.dumps(
            {
                path: {"run": run.as_dict(), "tier": plan.tier, "scale": plan.scale}
                for path, run in zip(paths, plan.runs)
            }
        )
    )


def bound_outputs(name):
    """Every output file of a bound audit (verdicts, table, figures, report page)."""
    root = bound_root(name)
    out = {
        "verdicts_csv": f"{root}/audit/{name}_verdicts.csv",
        "verdicts_md": f"{root}/audit/{name}_verdicts.md",
        "claims_csv": f"{root}/audit/{name}_claims.csv",
        "claims_md": f"{root}/audit/{name}_claims.md",
        "page": f"{root}/audit/{name}.html",
        "ipynb": f"{root}/audit/{name}.ipynb",
    }
    for ext in ("csv", "md", "tex"):
        out[f"table1_{ext}"] = f"{root}/tables/{name}_table1.{ext}"
    for fig in BOUND_FIGURES:
        for ext in ("pdf", "png"):
            out[f"{fig}_{ext}"] = f"{root}/figures/{name}_{fig}.{ext}"
    return out


#: Figures of the PrivateLASSO audit (docs/papers/plasso.md); `scans` is PL-E2 (full tier).
PLASSO_FIGURES = ("regret_vs_T", "normalised", "eps", "ratio", "support", "scans")
#: Their report captions (what the audit notebook draws).
PLASSO_FIGURE_CAPTIONS = {
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
}


def plasso_root():
    """Root of the PrivateLASSO audit's outputs: the scale's root, plus /full for the full tier."""
    return RESULTS if PLASSO_PLAN.tier == "core" else f"{RESULTS}/full"


def plasso_sim_files(kind="runs"):
    """Run (``runs``) or episode (``episodes``) parquet file of every run of the plan."""
    suffix = "" if kind == "runs" else "_episodes"
    return [
        f"{plasso_root()}/sim/plasso/{run.id}{suffix}.parquet"
        for run in PLASSO_PLAN.runs
    ]


def plasso_outputs():
    """Every output of the PrivateLASSO audit: verdict tables, figures, report page."""
    root = plasso_root()
    out = {
        "rows_csv": f"{root}/tables/plasso_claims.csv",
        "rows_md": f"{root}/tables/plasso_claims.md",
        "claims_csv": f"{root}/audit/plasso_claims.csv",
        "claims_md": f"{root}/audit/plasso_claims.md",
        "constants_csv": f"{root}/tables/plasso_constants.csv",
        "constants_md": f"{root}/tables/plasso_constants.md",
        "page": f"{root}/audit/plasso.html",
        "ipynb": f"{root}/audit/plasso.ipynb",
    }
    for fig in PLASSO_FIGURES:
        for ext in ("pdf", "png"):
            out[f"{fig}_{ext}"] = f"{root}/figures/plasso_{fig}.{ext}"
    return out


def bound_pages():
    """Report entries of the papers audited by dedicated experiments (op24, plasso): title,
    claim verdicts, page file and its link relative to the report."""
    entries = [
        {
            "name": name,
            "title": plan.title,
            "claims": bound_outputs(name)["claims_csv"],
            "file": bound_outputs(name)["page"],
            "page": os.path.relpath(bound_outputs(name)["page"], f"{RESULTS}/audit"),
        }
        for name, plan in BOUND_PLANS.items()
    ]
    if PLASSO_PLAN:
        entries.append(
            {
                "name": "plasso",
                "title": PLASSO_PLAN.title,
                "claims": plasso_outputs()["claims_csv"],
                "file": plasso_outputs()["page"],
                "page": os.path.relpath(plasso_outputs()["page"], f"{RESULTS}/audit"),
            }
        )
    return entries
