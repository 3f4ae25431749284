# Loads and validates the configuration, expands every experiment into cells (simulations)
# and figures (notebook executions). An invalid file stops the workflow here, before any job.

import json
import os
import sys

from dpbandits.arena.spec import load_arena
from dpbandits.audit.privacy import delivered_table
from dpbandits.audit.privacy_claims import check_selectors
from dpbandits.bound_claims import load_bound_registry
from dpbandits.fingerprint import fingerprint as code_fingerprint
from dpbandits.papers import PAPERS, paper, select as select_papers
from dpbandits.papers import study as study_layout
from dpbandits.claims import check_claim_targets, load_registry
from dpbandits.config import (
    ConfigError,
    check_config,
    config_refusal,
    job_mem_mb,
    load_experiment,
    load_yaml,
    results_root,
    typed_overrides,
)
from dpbandits.front_page import figure_cards
from dpbandits.report_captions import CATEGORIES, caption_file, entries, figure_entries
from dpbandits.settings_params import flatten as flatten_settings

SCHEMAS = "workflow/schemas"
# The environment of every job (used with --sw-deployment-method conda; see README).
CONDA_ENV = "../../environment.yml"


def _shown(path):
    """A config file's path as messages show it: relative to the working directory if inside."""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


try:
    # the config files as written: a repeated key or a syntax error is refused here
    # (Snakemake's own loader keeps the last of two equal keys); each is a layer of `config`,
    # so that a refusal names the file (and line), or --config, that set the bad key
    _REPLACED = workflow.config_settings.replace_workflow_config
    _CONFIG_FILES = [
        *([] if _REPLACED else ["config/config.yaml"]),
        *(_shown(str(_file)) for _file in workflow.config_settings.configfiles),
    ]
    _LAYERS = [(_file, load_yaml(_file)) for _file in _CONFIG_FILES]
    _LAYERS.append(("--config", dict(workflow.config_settings.config)))
    typed_overrides(config, dict(workflow.config_settings.config))
    # the papers to build: every registered one unless `experiments` / `bound_audits` select
    try:
        select_papers(config)
    except ConfigError as exc:
        # "config key experiments: ..." -> "<file>: experiments: ... (line <n>)"
        _text = str(exc).removeprefix("config key ")
        _key = "bound_audits" if _text.startswith("bound_audits") else "experiments"
        raise ConfigError(config_refusal(_LAYERS, [_key], _text)) from None
    check_config(config, f"{SCHEMAS}/config.schema.yaml", _LAYERS)
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
    _BOUND_CLAIMS = {}
    for _name, _plan in STUDY_PLANS.items():
        paper(_name).module.STUDY.check(_name)
        _BOUND_CLAIMS[_plan.claims] = load_bound_registry(
            _plan.claims,
            f"{SCHEMAS}/bound_claims.schema.yaml",
            paper(_name).module.STUDY.experiments,
        )["claims"]
    # Every privacy claim's selectors against the rows the privacy audit will hold (their
    # identities, no accounting): a typo is refused now, not when the status job runs
    _IDENTITIES = delivered_table(EXPERIMENTS, STUDY_PLANS, account=False)
    for _path, _claims in [
        *((f"config/claims/{n}.yaml", c) for n, c in CLAIMS.items()),
        *_BOUND_CLAIMS.items(),
    ]:
        check_selectors(_claims, _IDENTITIES, _path, PAPERS)
    # The arena across papers (config/arena.yaml; rules in arena.smk)
    ARENA = (
        load_arena(
            "config/arena.yaml",
            f"{SCHEMAS}/arena.schema.yaml",
            config["scale"],
            config["root_seed"],
            calibrations_built=set(EXPERIMENTS),
            max_job_mb=config["max_job_mb"],
        )
        if config.get("arena", True)
        else None
    )
except ConfigError as exc:
    # The message alone: it names the file (or --config), key, value and what is allowed.
    # Raised, Snakemake would print it as "WorkflowError in file .../common.smk, line N" with a
    # traceback line; SystemExit passes through Snakemake 9 as it is (exit status 1, no job
    # run, nothing else printed).
    print(exc, file=sys.stderr, flush=True)
    sys.exit(1)

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
    for name in ("leaderboard", "claims", "claim_rows", "frontier", "frontier_leaders"):
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
            out[f"{suite}_matched_{ext}"] = f"{root}/frontier_matched_{suite}.{ext}"
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
    ``dpbandits.papers.<prefix>``), else none (a figure paper needs no package)."""
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


def settings_params(prefix, items, cells):
    """Rule parameters of ``items`` (cell settings, or None), one per setting, labelled with
    ``cells``' stems (dpbandits.settings_params): a rerun's reason names what changed.
    """
    return flatten_settings(prefix, items, [c.stem for c in cells])


def status_file(name):
    """Paper ``name``'s rows of the scoreboard (every claim's status, decided once)."""
    root = study_root(name) if name in STUDY_PLANS else RESULTS
    return f"{root}/audit/{name}_status.csv"


def status_inputs(name):
    """What decides the statuses of paper ``name``'s claims: its registry, its verdicts (rate
    fits and orderings, or a study's verdict table), the privacy audit, and the files its
    package names (``status_inputs(results)``)."""
    out = {
        "privacy_delivered": PRIVACY_FILES["delivered_csv"],
        "privacy_empirical": PRIVACY_FILES["empirical_csv"],
    }
    if name in STUDY_PLANS:
        out["claims"] = STUDY_PLANS[name].claims
        out["verdicts"] = study_outputs(name)["claims_csv"]
    else:
        out["claims"] = f"config/claims/{name}.yaml"
        out["rates"] = audit_outputs(name)["rates_csv"]
        out["orderings"] = table_outputs(name)["claims"]
        if communication_outputs(name):
            out["communication"] = communication_outputs(name)["summary_csv"]
    # a paper's own (e.g. olucb's constants sweep)
    extra = paper(name).hook("status_inputs")
    if extra:
        out.update(extra(RESULTS))
    return out


def panel_image(panel):
    """The PNG that shows ``panel``: its own image, or its figure's combined image where the
    panels are points of one plot (the first configuration that draws it)."""
    for fig in FIGURES.values():
        if any(p.id == panel for p in fig.panels):
            own = panel in fig.image_names
            return figure_image(panel if own else fig.image_names[0], "png")
    return figure_image(panel, "png")


def claim_evidence(name):
    """Claim id -> the files that decide it, relative to the results folder: the rate fit's
    plot, the figure panels and the ordering table, the communication audit, the privacy page
    (privacy claims), a study's page; a summary claim (``check: summary``) the files of the
    claims it summarises."""
    rel = lambda path: os.path.relpath(path, RESULTS)
    out = {}
    if name in STUDY_PLANS:
        claims = load_bound_registry(
            STUDY_PLANS[name].claims, f"{SCHEMAS}/bound_claims.schema.yaml"
        )["claims"]
        for c in claims:
            out[c["id"]] = [rel(study_outputs(name)["page"])]
    else:
        claims = CLAIMS[name]
        plots = audit_plots(name)
        comm = communication_outputs(name)
        comm_claims = set(
            EXPERIMENTS[name].data.get("communication", {}).get("claims", {}).values()
        )
        for c in claims:
            files = []
            if f"{c['id']}_png" in plots:
                files.append(rel(plots[f"{c['id']}_png"]))
            for panel in c["audit"].get("panels", []):
                image = panel_image(panel)
                if rel(image) not in files:
                    files.append(rel(image))
            if c["audit"].get("panels"):
                files.append(rel(table_outputs(name)["claims"]))
            if c["id"] in comm_claims and comm:
                files.append(rel(comm["summary_csv"]))
            out[c["id"]] = files
        for c in claims:
            if c["audit"].get("check") != "summary":
                continue
            for part in c["audit"].get("of", []):
                for f in out.get(part, []):
                    if f not in out[c["id"]]:
                        out[c["id"]].append(f)
    for c in claims:
        if c.get("kind") == "privacy" and c.get("audit", {}).get("privacy_audit"):
            out[c["id"]] = [*out.get(c["id"], []), rel(PRIVACY_FILES["page"])]
    return out


#: The front door of a build: every paper's figures and claims, then privacy and the arena.
FRONT_PAGE = f"{RESULTS}/index.html"


def front_page_cards(name):
    """The figure cards of figure paper ``name`` (dpbandits.front_page.figure_cards)."""
    return figure_cards(
        EXPERIMENTS[name],
        CLAIMS[name],
        image=lambda f: figure_image(f.image_names[0], "png"),
        notebook=lambda f: figure_outputs(f)["html"],
    )


def front_page_papers():
    """Per paper (registry order) what the front page shows: title, audit page, docs, links
    and the figure cards (a figure-less study: its audit figures)."""
    out = []
    for name, exp in EXPERIMENTS.items():
        out.append(
            {
                "name": name,
                "title": exp.data["title"],
                "audit_page": audit_outputs(name)["page"],
                "docs": f"docs/papers/{name}.md",
                "links": {
                    "final regret table": table_outputs(name)["final_md"],
                    "ordering verdicts": table_outputs(name)["claims_md"],
                    "rate fits": audit_outputs(name)["rates_md"],
                    "simulated data (parquet)": f"{RESULTS}/sim/{name}",
                },
                "cards": front_page_cards(name),
            }
        )
    for name, plan in STUDY_PLANS.items():
        outs = study_outputs(name)
        out.append(
            {
                "name": name,
                "title": plan.title,
                "audit_page": outs["page"],
                "docs": f"docs/papers/{name}.md",
                "links": {
                    "claim verdicts": outs["claims_csv"],
                    "simulated data (parquet)": f"{RESULTS}/sim/{name}",
                },
                "cards": [
                    {
                        "figure": f"{name}_{fig}",
                        "title": f"{plan.title}: {fig}",
                        "caption": " ".join(str(caption).split()),
                        "published_note": "The paper has no figures: an audit figure of "
                        "this project.",
                        "claims": [],
                        "main": {
                            "configuration": plan.tier,
                            "label": f"tier {plan.tier}",
                            "image": outs[f"{fig}_png"],
                            "notebook": outs["page"],
                        },
                        "others": [],
                    }
                    for fig, caption in study(name).figures.items()
                ],
            }
        )
    return out


def front_page_sections():
    """The sections after the papers: privacy, the arena, the claim report, the docs."""
    out = [
        {
            "id": "privacy",
            "title": "Privacy audit",
            "text": "Delivered against nominal epsilon of every series of every figure, with "
            "the empirical lower bounds.",
            "links": {
                "privacy page": PRIVACY_FILES["page"],
                "privacy.csv": PRIVACY_FILES["delivered_csv"],
            },
        }
    ]
    if ARENA:
        out.append(
            {
                "id": "arena",
                "title": "Arena",
                "text": "Every private linear bandit of the papers on shared instances at one "
                "privacy target: leaderboard, frontier figures and the papers' pairwise claims.",
                "links": {
                    "arena page": arena_outputs()["page"],
                    "leaderboard": arena_outputs()["leaderboard_md"],
                    "docs/arena.md": "docs/arena.md",
                },
            }
        )
    out.append(
        {
            "id": "audit",
            "title": "Claim audit and docs",
            "text": "Every claim of every paper with its status, reason and evidence; how the "
            "audit decides; how to run and extend the pipeline.",
            "links": {
                "claim report": SUMMARY_FILES["report"],
                "scoreboard.csv": SUMMARY_FILES["scoreboard_csv"],
                "docs/auditing.md": "docs/auditing.md",
                "docs/running.md": "docs/running.md",
                "README": "README.md",
            },
        }
    )
    return out


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
