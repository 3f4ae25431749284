# One simulation job per (panel, configuration), named simulate_<panel>_<configuration> (or per
# (figure, configuration), simulate_<figure>_<configuration>, in an experiment file with
# `simulation_jobs: figure`): all trials of every series, one parquet file per cell. (Each job is
# a process with ~1.5 s of start-up; dpbandits.config.Experiment.jobs.) A cell that repeats the
# simulation of a cell in an earlier job (the same settings and seeds under another
# configuration's name; dpbandits.config.Experiment.shared_sources) takes that cell's file as
# input and relabels it, with its measured seconds, instead of simulating it again.


for _name, _exp in EXPERIMENTS.items():
    _shared = _exp.shared_sources()
    for (_group, _conf), _cells in _exp.jobs().items():
        _sources = [_shared.get(c.stem) for c in _cells]

        rule:
            name:
                f"simulate_{_group}_{_conf}"
            input:
                calibrations=calibration_inputs(_name, _cells),
                shared=[s[0].path for s in _sources if s],
                shared_timing=sorted({timing_file(_name, *s[1]) for s in _sources if s}),
            output:
                parquet=[c.path for c in _cells],
                timing=timing_file(_name, _group, _conf),
            log:
                f"{LOGS}/sim/{_name}/{_group}/{_conf}.log",
            benchmark:
                f"{BENCH}/sim/{_name}/{_group}/{_conf}.tsv"
            # a job that relabels another's cells is ready only when that one ends, late in a
            # build: it starts before the jobs ready since then (no job left alone at the end)
            priority: 1 if any(_sources) else 0
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=job_mem_mb(_cells),  # from its size (dpbandits.runtime.job_memory)
                runtime=30,
            params:
                **settings_params("cell", [c.as_dict() for c in _cells], _cells),
                **settings_params(
                    "source", [s[0].as_dict() if s else None for s in _sources], _cells
                ),
                code=code_fingerprint("workflow/scripts/simulate.py"),  # reruns when the library code changes
                # one parameter per setting: a rerun's reason names the settings that changed
            script:
                "../scripts/simulate.py"


# Calibrations (grid searches of one option on trials disjoint from the evaluation trials).
for _name, _exp in EXPERIMENTS.items():
    for _cal in _exp.calibrations:

        rule:
            name:
                f"{_name}_calibrate_{_cal.id}"
            output:
                reported_file(
                    _cal.path,
                    _name,
                    "Calibrations",
                    f"{paper_title(_name)}. Calibration {_cal.id}: {_cal.title}. The "
                    f"option {_cal.option} of the series {_cal.series} searched "
                    f"({_cal.objective}) on trials disjoint from the evaluation trials "
                    f"(panel {_cal.base.panel}, configuration {_cal.base.configuration}, "
                    f"calibration {_cal.base.calibration}); the row marked chosen is used.",
                    {"what": _cal.id, "series": _cal.series, "option": _cal.option},
                ),
            log:
                f"{LOGS}/calibration/{_name}/{_cal.id}.log",
            benchmark:
                f"{BENCH}/calibration/{_name}/{_cal.id}.tsv"
            conda:
                CONDA_ENV
            threads: 1
            resources:
                mem_mb=job_mem_mb([_cal.cell(_cal.grid[0] if _cal.grid else 1)]),
                runtime=30,
            params:
                code=code_fingerprint("workflow/scripts/calibrate.py"),  # reruns when the library code changes
                experiment=_name,
                calibration=_cal.id,
                config_file=f"config/experiments/{_name}.yaml",
                schema=f"{SCHEMAS}/experiment.schema.yaml",
            script:
                "../scripts/calibrate.py"


# Horizon sweeps of the rate audit: one job per (experiment, sweep, schedule entry), all epsilon
# and T (a gap grid entry: every gap of the grid).
for _name, _exp in EXPERIMENTS.items():
    for _sweep in _exp.sweeps:
        for _sched in _sweep.grids:

            rule:
                name:
                    f"{_name}_sweep_{_sweep.id}_{_sched}"
                input:
                    calibrations=sorted(
                        {
                            EXPERIMENTS[_name].calibration(cid).path
                            for c in _sweep.cells_of_entry(_sched)
                            for cid in c.calibration_ids
                        }
                    ),
                output:
                    parquet=[c.path for c in _sweep.cells_of_entry(_sched)],
                    timing=timing_file(_name, _sweep.id, _sched),
                log:
                    f"{LOGS}/sim/{_name}/{_sweep.id}/{_sched}.log",
                benchmark:
                    f"{BENCH}/sim/{_name}/{_sweep.id}/{_sched}.tsv"
                conda:
                    CONDA_ENV
                threads: 1
                resources:
                    mem_mb=job_mem_mb(_sweep.cells_of_entry(_sched)),
                    runtime=30,
                params:
                    **settings_params(
                        "cell",
                        [c.as_dict() for c in _sweep.cells_of_entry(_sched)],
                        _sweep.cells_of_entry(_sched),
                    ),
                    code=code_fingerprint("workflow/scripts/simulate.py"),  # reruns when the library code changes
                    # one parameter per setting: a rerun's reason names the settings that changed
                script:
                    "../scripts/simulate.py"
