# The front door of a build (results/index.html): per paper its figure cards and claims, then the
# privacy audit, the arena and the claim report; every status read from the scoreboard.


rule front_page:
    input:
        scoreboard=SUMMARY_FILES["scoreboard_csv"],
        report=SUMMARY_FILES["report"],
        privacy=PRIVACY_FILES["page"],
        arena=[arena_outputs()["page"]] if ARENA else [],
        pages=[p["audit_page"] for p in front_page_papers()],
        images=[
            e["image"]
            for p in front_page_papers()
            for c in p["cards"]
            for e in [c["main"], *c["others"]]
        ],
    output:
        html=FRONT_PAGE,
    log:
        f"{LOGS}/front_page.log",
    benchmark:
        f"{BENCH}/front_page.tsv"
    conda:
        CONDA_ENV
    threads: 1
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        code=code_fingerprint("workflow/scripts/front_page.py"),  # reruns when the library code changes
        scale=config["scale"],
        # the results folder: the front page's own folder
        results_root=lambda wildcards, output: os.path.dirname(output.html),
        papers=front_page_papers(),
        sections=front_page_sections(),
    script:
        "../scripts/front_page.py"
