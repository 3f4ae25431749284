# Loads and validates the configuration, expands every experiment into cells (simulations)
# and figures (notebook executions). An invalid file stops the workflow here, before any job.

import json
import os

from snakemake.exceptions import WorkflowError

from dpbandits.arena.spec import load_arena
from dpbandits.bound_claims import load_bound_registry
from dpbandits.fingerprint import fingerprint as code_fingerprint
from dpbandits.papers import paper, select as select_papers
from dpbandits.papers import study as study_layout
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
    # The figure-less studies' run plans, through their packages (dpbandits.papers.study);
    # their rules are in studies.smk.
    STUDY_PLANS = {
        name: paper(name).module.load_plan(
            f"config/experiments/{name}.yaml",
            f"{SCHEMAS}/{name}.schema.yaml",
            config["tier"],
            config["scale"],
        )
        for name in config["bound_audits"]
    }
    for _name, _plan in STUDY_PLANS.items():
        paper(_name).module.STUDY.check(_name)
        load_bound_registry(_plan.claims, f"{SCHEMAS}/bound_claims.schema.yaml")
    # The arena across papers (config/arena.yaml; rules in arena.smk)
    ARENA = (
        load_arena(
            "config/arena.yaml",
            f"{SCHEMAS}/arena.schema.yaml",
            config["scale"],
            config["root_seed"],
            calibrations_built=set(EXPERIMENTS),
        )
        if config.get("arena", True)
        else None
    )
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


# Output paths: every generated file's path is made by one function or constant of this file
# (tests/workflow/test_output_paths.py keeps the other rules files free of path literals).


def sorted_config(value):
    """``value`` with every mapping's keys sorted: a rule parameter that holds configuration
    then reads the same whatever order its keys were set in (Snakemake compares parameters by
    their text, and ``--config scale=paper`` puts `scale` before the file's keys, which made
    such a job rerun)."""
    if isinstance(value, dict):
        return {k: sorted_config(value[k]) for k in sorted(value)}
    if isinstance(value, list):
        return [sorted_config(v) for v in value]
    return value


def timing_file(name, group, entry):
    """Timing table of one simulation job of figure paper ``name`` (panel and configuration,
    or sweep and schedule); kept out of the byte-reproducible parquet."""
    return f"{RESULTS}/timing/{name}/{group}/{entry}.csv"


def audit_outputs(name):
    """Every output of figure paper ``name``'s audit: the rate fits and their controls (CSV
    and Markdown), the sweeps' final rows the fits read (parquet, for the page), the audit page
    and its executed notebook."""
    stem = f"{RESULTS}/audit/{name}"
    return {
        "finals": f"{stem}_finals.parquet",
        "rates_csv": f"{stem}_rates.csv",
        "rates_md": f"{stem}_rates.md",
        "controls_csv": f"{stem}_controls.csv",
        "controls_md": f"{stem}_controls.md",
        "ipynb": f"{stem}.ipynb",
        "page": f"{stem}.html",
    }


#: The privacy audit's outputs (delivered epsilon, empirical lower bounds, page).
PRIVACY_FILES = {
    "delivered_csv": f"{PRIVACY_ROOT}/audit/privacy.csv",
    "delivered_md": f"{PRIVACY_ROOT}/audit/privacy.md",
    "empirical_csv": f"{PRIVACY_ROOT}/audit/privacy_empirical.csv",
    "empirical_md": f"{PRIVACY_ROOT}/audit/privacy_empirical.md",
    "page": f"{PRIVACY_ROOT}/audit/privacy.html",
}

#: The cross-paper audit's outputs (stacked tables, scoreboard, report index).
SUMMARY_FILES = {
    "rates": f"{RESULTS}/audit/rates.csv",
    "orderings": f"{RESULTS}/audit/orderings.csv",
    "controls": f"{RESULTS}/audit/controls.csv",
    "scoreboard_csv": f"{RESULTS}/audit/scoreboard.csv",
    "scoreboard_md": f"{RESULTS}/audit/scoreboard.md",
    "report": f"{RESULTS}/audit/report.html",
}

#: The on-demand robustness study of paper 000's failed ordering.
OLUCB_ROBUSTNESS_FILES = {
    "csv": f"{RESULTS}/audit/olucb_robustness.csv",
    "md": f"{RESULTS}/audit/olucb_robustness.md",
}


def paper_table_outputs(name):
    """Output files of the paper's own tables: CSV, Markdown and LaTeX of each."""
    return {
        f"{t}_{ext}": f"{RESULTS}/tables/{t}.{ext}"
        for t in REGISTRIES[name].get("tables", {})
        for ext in ("csv", "md", "tex")
    }


def arena_outputs():
    """Every output of the arena after its simulations (tables, figures, page)."""
    root = f"{RESULTS}/arena"
    out = {}
    for name in ("leaderboard", "claims", "claim_rows"):
        out[f"{name}_csv"] = f"{root}/{name}.csv"
        out[f"{name}_md"] = f"{root}/{name}.md"
    built = (
        [s for s, spec in ARENA.suites.items() if "not_built" not in spec]
        if ARENA
        else []
    )
    for suite in built:
        for ext in ("pdf", "png"):
            out[f"{suite}_{ext}"] = f"{root}/frontier_{suite}.{ext}"
    out["page"] = f"{root}/arena.html"
    return out


def arena_privacy_file():
    """The delivered epsilon of every arena cell (made before the results job)."""
    return f"{RESULTS}/arena/delivered.csv"


def arena_timing(job):
    """Timing table of one arena simulation job (one suite and dimension)."""
    return f"{RESULTS}/timing/arena/{job}.csv"


def figure_image(name, ext):
    """One image of a figure (``ext``: pdf or png)."""
    return f"{RESULTS}/figures/{name}.{ext}"


def calibration_inputs(name, cells):
    """Calibration tables that ``cells`` (of experiment ``name``) take values from."""
    exp = EXPERIMENTS[name]
    ids = {cid for c in cells for cid in c.calibration_ids}
    return sorted(exp.calibration(cid).path for cid in ids)


def figure_outputs(fig):
    """Files one notebook execution writes: every image (pdf, png) and the notebook itself."""
    out = {}
    for name in fig.image_names:
        out[f"{name}_pdf"] = figure_image(name, "pdf")
        out[f"{name}_png"] = figure_image(name, "png")
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
    """Title of figure paper ``name`` (its experiment file's ``title``)."""
    return EXPERIMENTS[name].data["title"]


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


def page_figure_cells(name):
    """The figure cells whose files the audit page of paper ``name`` reads: every one when the
    page shows findings computed from them (``FINDINGS_READ_FIGURES`` of the paper's package,
    e.g. ``dpbandits.papers.olucb``), else none (a figure paper needs no package)."""
    from importlib.util import find_spec

    has_package = find_spec(f"dpbandits.papers.{name}") is not None
    reads = has_package and getattr(paper(name).module, "FINDINGS_READ_FIGURES", False)
    return list(EXPERIMENTS[name].cells) if reads else []


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


def study(name):
    """The declaration of figure-less study ``name`` (dpbandits.papers.study.Study)."""
    return paper(name).module.STUDY


def study_root(name):
    """Root of a study's outputs: the scale's root, plus /full for the full tier."""
    return RESULTS if STUDY_PLANS[name].tier == "core" else f"{RESULTS}/full"


def study_runs(name):
    """Kind -> the parquet file of that kind of every run of the study's plan."""
    return study_layout.run_paths(
        name, study(name), STUDY_PLANS[name], study_root(name)
    )


def study_timing(name, run):
    """Timing table of one simulation job of a study (kept out of the parquet)."""
    return study_layout.timing_path(name, run, study_root(name))


def study_expected(name):
    """Path -> the run its file must hold (dpbandits.io.read_results(expect=...))."""
    return study_layout.expected_runs(STUDY_PLANS[name], study_runs(name))


def study_outputs(name):
    """Every output of a study after its simulations (verdicts, tables, figures, page)."""
    return study_layout.outputs(name, study(name), study_root(name))


def study_page_parameters(name):
    """The parameters of a study's audit notebook."""
    return study_layout.page_parameters(
        name, study(name), STUDY_PLANS[name], study_root(name)
    )


def study_pages():
    """Report entries of the figure-less studies: title, claim verdicts, page file and its
    link relative to the report."""
    return [
        {
            "name": name,
            "title": plan.title,
            "claims": study_outputs(name)["claims_csv"],
            "file": study_outputs(name)["page"],
            "page": os.path.relpath(study_outputs(name)["page"], f"{RESULTS}/audit"),
        }
        for name, plan in STUDY_PLANS.items()
    ]
