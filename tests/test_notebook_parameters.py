"""The parameters cell papermill injects into the pipeline's notebooks, and when it writes the
executed notebook.

``dpbandits.notebooks.execute`` registers a translator under the pipeline's kernel name so that
papermill writes its plain ``name = value`` lines instead of passing them through Black (about 2 s
per audit page, and a cell that depended on whether Black was installed). The cell must still
assign exactly the values passed.
"""

import sys
import types

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook

from dpbandits import notebooks

PARAMETERS = {
    "paper": "dpdpe",
    "figures": [f"results/audit/dpdpe_rates_{i}.png" for i in range(40)],
    "grids": [["sweep", "entry", ["a", "b"], [1.0, 0.5, 0.25]]],
    "options": {"alpha": 0.05, "bootstrap": 2000, "nested": {"x": None, "y": True}},
    "ratio": 1e-3,
}


def _notebook():
    nb = new_notebook(cells=[new_code_cell("paper = ''", metadata={"tags": ["parameters"]})])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    nb.metadata["papermill"] = {}  # as papermill's execute_notebook prepares it
    return nb


def _injected(kernel_name):
    from papermill.parameterize import parameterize_notebook

    nb = parameterize_notebook(
        _notebook(), dict(PARAMETERS), kernel_name=kernel_name, language="python"
    )
    cells = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert len(cells) == 1
    return cells[0].source


@pytest.fixture
def black_forbidden(monkeypatch):
    """A ``black`` module whose formatter fails the test when called."""
    stub = types.ModuleType("black")

    class FileMode:
        def __init__(self, **kwargs):
            pass

    def format_str(*args, **kwargs):
        raise AssertionError("the parameters cell went through Black")

    stub.FileMode = FileMode
    stub.format_str = format_str
    monkeypatch.setitem(sys.modules, "black", stub)


def test_pipeline_kernel_cell_is_papermill_plain_assignments(black_forbidden):
    from papermill.translators import PythonTranslator

    notebooks._register_translator()
    source = _injected(notebooks.KERNEL_NAME)
    assert source == "# Parameters\n" + "".join(
        f"{k} = {PythonTranslator.translate(v)}\n" for k, v in PARAMETERS.items()
    )
    assert source.startswith("# Parameters\n")
    namespace = {}
    exec(compile(source, "<parameters>", "exec"), namespace)
    assert {k: namespace[k] for k in PARAMETERS} == PARAMETERS


def test_other_kernels_keep_papermill_default(black_forbidden):
    """The registration is under the pipeline's kernel name only: a ``python3`` notebook still
    goes through papermill's own translator (here: the stub formatter, which fails)."""
    notebooks._register_translator()
    with pytest.raises(AssertionError, match="Black"):
        _injected("python3")


def test_executed_notebook_carries_the_plain_cell(tmp_path, black_forbidden):
    """End to end through :func:`dpbandits.notebooks.execute` (a real kernel)."""
    nb = new_notebook(
        cells=[
            new_code_cell("paper = ''\nratio = 0.0", metadata={"tags": ["parameters"]}),
            new_code_cell("print(paper, ratio)"),
        ]
    )
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    notebooks.execute(src, out, {"paper": "cz22", "ratio": 0.25})
    done = nbformat.read(out, as_version=4)
    injected = [c for c in done.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected[0].source == '# Parameters\npaper = "cz22"\nratio = 0.25\n'
    assert done.cells[-1].outputs[0]["text"] == "cz22 0.25\n"


def test_the_executed_notebook_is_written_once_and_on_failure(tmp_path, monkeypatch):
    """papermill writes the output notebook before and after every cell by default (a growing
    file of images, rewritten ~2 x cells times); ``execute`` has it written once, at the end,
    and still when a cell fails (with the error, before the exception propagates)."""
    import papermill.engines
    import papermill.execute
    import papermill.iorw

    writes = []
    real = papermill.iorw.write_ipynb

    def counted(nb, path):
        writes.append(path)
        return real(nb, path)

    monkeypatch.setattr(papermill.iorw, "write_ipynb", counted)
    for module in (papermill.execute, papermill.engines):  # where papermill calls it
        monkeypatch.setattr(module, "write_ipynb", counted)
    cells = [new_code_cell("x = 0", metadata={"tags": ["parameters"]})]
    nb = new_notebook(cells=cells + [new_code_cell(f"x += {i}") for i in range(5)])
    nb.metadata["kernelspec"] = {"name": "python3", "language": "python"}
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    notebooks.execute(src, out, {"x": 1})
    assert writes == [str(out)]
    assert nbformat.read(out, as_version=4).cells[-1].execution_count is not None
    writes.clear()
    nb.cells.append(new_code_cell("raise ValueError('a failing cell')"))
    nbformat.write(nb, src)
    with pytest.raises(Exception, match="a failing cell"):
        notebooks.execute(src, out, {"x": 1})
    assert writes == [str(out)] and "a failing cell" in out.read_text()
