# One simulation job per (experiment, panel, configuration): all trials of every series of that
# panel, one parquet file per series. (Jobs are grouped by panel rather than by series because
# each job is a process with ~1 s of start-up; see README "Design notes".)


def cells_of(name):
    """Params function: the cells of one (panel, configuration) of experiment ``name``."""
    groups = EXPERIMENTS[name].groups()

    def cells(wildcards):
        key = (wildcards.panel, wildcards.configuration)
        if key not in groups:
            raise WorkflowError(
                f"{name}: no panel/configuration {key} in config/experiments/"
            )
        return [cell.as_dict() for cell in groups[key]]

    return cells


for _name, _exp in EXPERIMENTS.items():

    rule:
        name:
            f"{_name}_simulate"
        output:
            [
                f"{RESULTS}/sim/{_name}/{{panel}}/{{configuration}}/{s}.parquet"
                for s in _exp.series
            ],
        log:
            f"{LOGS}/sim/{_name}/{{panel}}/{{configuration}}.log",
        benchmark:
            f"{BENCH}/sim/{_name}/{{panel}}/{{configuration}}.tsv"
        wildcard_constraints:
            panel="[a-z0-9_]+",
            configuration="[a-z0-9]+",
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=30,
        params:
            cells=cells_of(_name),
        script:
            "../scripts/simulate.py"


# Horizon sweeps of the rate audit: one job per (experiment, sweep, schedule), all epsilon and T.
for _name, _exp in EXPERIMENTS.items():
    for _sweep in _exp.sweeps:
        for _sched in _sweep.schedules:

            rule:
                name:
                    f"{_name}_sweep_{_sweep.id}_{_sched}"
                output:
                    [c.path for c in _sweep.cells_of(_sched)],
                log:
                    f"{LOGS}/sim/{_name}/{_sweep.id}/{_sched}.log",
                benchmark:
                    f"{BENCH}/sim/{_name}/{_sweep.id}/{_sched}.tsv"
                conda:
                    CONDA_ENV
                threads: 1
                resources:
                    mem_mb=2048,
                    runtime=30,
                params:
                    cells=[c.as_dict() for c in _sweep.cells_of(_sched)],
                script:
                    "../scripts/simulate.py"
