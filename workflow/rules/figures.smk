# One rule per (figure, configuration) of the registry, named after the figure (`<prefix>_fig1`,
# `<prefix>_fig1_r2`, ...): a papermill execution of the figure's notebook that writes the combined
# figure and every panel. Panel rules (`<prefix>_fig1a`, ...) are targets that request one panel.


def figure_parameters(fig):
    """The papermill parameters of one figure: a plain value, so that Snakemake tracks it and
    an edit of a title, caption, plot kind or band reruns the figure."""
    names = {m: fig.names(m) for m in fig.metrics}
    output = figure_outputs(fig)
    return {
        "figure_id": fig.id,
        "title": fig.title,
        "caption": fig.caption,
        "series": list(fig.series),
        "panels": [
            {
                "id": p.id,
                "letter": p.letter,
                "title": p.title,
                "epsilon": p.epsilon,
                "d": p.d,
                "T": p.T,
                "caption": p.caption,
                "files": [c.path for c in p.cells],
                # what each file must hold (dpbandits.io.read_results refuses another cell)
                "expect": list(expected_settings(p.cells).values()),
            }
            for p in fig.panels
        ],
        "metrics": list(fig.metrics),
        "plot": fig.plot,
        "band": fig.band,
        "names": {
            m: {
                "combined": combined,
                "panels": panels if fig.panel_images(m) else [],
            }
            for m, (combined, panels) in names.items()
        },
        "outputs": {
            name: {"pdf": output[f"{name}_pdf"], "png": output[f"{name}_png"]}
            for name in fig.image_names
        },
    }


for _fig in FIGURES.values():

    rule:
        name:
            _fig.id
        input:
            notebook=_fig.notebook,
            results=_fig.inputs,
        output:
            **reported(
                figure_outputs(_fig),
                _fig.experiment,
                "Figures",
                figure_entries(_fig, paper_title(_fig.experiment)),
            ),
        log:
            f"{LOGS}/figures/{_fig.id}.log",
        benchmark:
            f"{BENCH}/figures/{_fig.id}.tsv"
        conda:
            CONDA_ENV
        threads: 1
        resources:
            mem_mb=2048,
            runtime=10,
        params:
            code=code_fingerprint("workflow/scripts/render_notebook.py", _fig.notebook),
            # reruns when the library code changes
            parameters=figure_parameters(_fig),
        script:
            "../scripts/render_notebook.py"

    for _name in _fig.image_names:
        if _name != _fig.id:

            rule:
                name:
                    _name
                input:
                    figure_image(_name, "pdf"),
                    figure_image(_name, "png"),
