# Chowdhury & Zhou (ICML 2022): the tables, and `cz22` for every output of the paper. Its
# figure rules (cz22_fig1, cz22_fig1a, cz22_fig1_r2, ...) come from the registry (figures.smk).

CZ22 = EXPERIMENTS["cz22"]


rule cz22_tables:
    input:
        results=[cell.path for cell in CZ22.cells],
        claims="config/claims/cz22.yaml",
    output:
        **table_outputs("cz22"),
    log:
        f"{LOGS}/tables/cz22.log",
    benchmark:
        f"{BENCH}/tables/cz22.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=2048,
        runtime=10,
    params:
        experiment="cz22",
        cells=[cell.as_dict() for cell in CZ22.cells],
        claims_schema=f"{SCHEMAS}/claims.schema.yaml",
    script:
        "../scripts/experiment_tables.py"


rule cz22:
    input:
        [f for fig in CZ22.figures for f in figure_outputs(fig).values()],
        rules.cz22_tables.output,
        f"{RESULTS}/audit/cz22.html",
