# Per paper: `<name>_tables` (final-regret table, claim checklist, audit metrics) and `<name>`,
# every output of the paper (figures, tables, calibration tables, audit page). The figure rules
# (cz22_fig1, olucb_fig1, ...) come from the registry (figures.smk).


def figure_timings(name):
    """Timing tables of the figure simulation jobs of experiment ``name``."""
    exp = EXPERIMENTS[name]
    return sorted(
        {f"{RESULTS}/timing/{name}/{panel}/{conf}.csv" for panel, conf in exp.groups()}
    )


for _name, _exp in EXPERIMENTS.items():

    rule:
        name:
            f"{_name}_tables"
        input:
            results=[cell.path for cell in _exp.cells],
            timings=figure_timings(_name),
            claims=f"config/claims/{_name}.yaml",
        output:
            **table_outputs(_name),
        log:
            f"{LOGS}/tables/{_name}.log",
        benchmark:
            f"{BENCH}/tables/{_name}.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            experiment=_name,
            cells=[cell.as_dict() for cell in _exp.cells],
            claims_schema=f"{SCHEMAS}/claims.schema.yaml",
        script:
            "../scripts/experiment_tables.py"

    rule:
        name:
            _name
        input:
            [f for fig in _exp.figures for f in figure_outputs(fig).values()],
            table_outputs(_name).values(),
            [cal.path for cal in _exp.calibrations],
            f"{RESULTS}/audit/{_name}.html",
