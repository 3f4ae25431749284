"""Code fingerprints: a job reruns when, and only when, code it loads changes.

A job's code is the import closure of its script (and the notebook it runs) within the package,
resolved from the source (dpbandits.fingerprint): no module can be missed by a list kept by hand.
"""

import fnmatch
import re
import shutil
from pathlib import Path

import pytest

from dpbandits import fingerprint as fp

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "workflow/scripts").glob("*.py"))
NOTEBOOKS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "notebooks").glob("*.ipynb"))


def _clear():
    for f in (fp.fingerprint, fp._imports, fp._module_file, fp._cache):
        f.cache_clear()


@pytest.fixture
def package(tmp_path, monkeypatch):
    copy = tmp_path / "dpbandits"
    shutil.copytree(fp.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fp, "PACKAGE", copy)
    monkeypatch.chdir(ROOT)
    _clear()
    yield copy
    _clear()


def _edit(path, text="\n_an_edit = 1\n"):
    path.write_text(path.read_text() + text)
    _clear()


def _prints(entries):
    return {e: fp.fingerprint(*e) for e in entries}


ENTRIES = [
    ("workflow/scripts/simulate.py",),
    ("workflow/scripts/render_notebook.py", "notebooks/regret_curves.ipynb"),
    ("workflow/scripts/study_table.py",),
    ("workflow/scripts/arena_results.py",),
    ("workflow/scripts/front_page.py",),
]


@pytest.mark.parametrize(
    "module,changed",
    [
        # the simulations, the arena (it runs policies) and op24's table (through its paper)
        ("engine/kernels.py", {0, 2, 3}),
        ("plotting/__init__.py", {1, 3}),
        # a paper's own module, loaded by name through the registry (issue 45: op24's table)
        # (the registry loads every paper: the arena, which reads the registry, too)
        ("papers/op24/table1.py", {2, 3}),
        # the pages' helpers: every job that writes a page or a table of claims, not the
        # simulations (the warm worker warms the page exporter by name, without importing it)
        ("pages.py", {1, 2, 3, 4}),
        ("runtime/cpu.py", {0, 1, 2, 3, 4}),  # the instruction-set pin: every number of every job
    ],
)
def test_an_edit_changes_the_fingerprints_of_the_jobs_that_load_it(package, module, changed):
    before = _prints(ENTRIES)
    _edit(package / module)
    after = _prints(ENTRIES)
    assert {i for i, e in enumerate(ENTRIES) if before[e] != after[e]} == changed


def test_every_module_is_in_some_jobs_closure_or_declared_outside_jobs():
    _clear()
    files, _ = fp.closure([*SCRIPTS, *NOTEBOOKS])
    modules = {p.relative_to(fp.PACKAGE).as_posix() for p in fp.PACKAGE.rglob("*.py")}
    covered = {p.relative_to(fp.PACKAGE).as_posix() for p in files}
    assert modules - covered == fp.not_in_jobs(modules)
    for pattern in fp.NOT_IN_JOBS:  # no stale entry
        assert fp.not_in_jobs(modules) & {m for m in modules if fnmatch.fnmatchcase(m, pattern)}


def test_every_rule_fingerprints_its_own_script_and_notebook():
    """The rules pass their own script (and notebook) to code_fingerprint: the closure is that of
    the code the job really runs."""
    for smk in sorted((ROOT / "workflow/rules").glob("*.smk")):
        text = smk.read_text()
        for m in re.finditer(r"code=code_fingerprint\(([^)]*)\)", text):
            script = re.compile(r'script:\s*\n\s*"\.\./scripts/(\w+\.py)"').search(text, m.end())
            args = m.group(1)
            assert f'"workflow/scripts/{script.group(1)}"' in args, (smk.name, args)
            if script.group(1) == "render_notebook.py":
                assert "notebook" in args, (smk.name, args)


def test_a_new_module_imported_by_a_job_counts_and_an_unused_one_does_not(package):
    before = fp.fingerprint("workflow/scripts/simulate.py")
    (package / "engine" / "unused.py").write_text("x = 1\n")
    _clear()
    assert fp.fingerprint("workflow/scripts/simulate.py") == before
    (package / "engine" / "helper.py").write_text("x = 1\n")
    _edit(package / "engine" / "run.py", "\nfrom dpbandits.engine import helper  # noqa\n")
    middle = fp.fingerprint("workflow/scripts/simulate.py")
    assert middle != before
    _edit(package / "engine" / "helper.py", "y = 2\n")
    assert fp.fingerprint("workflow/scripts/simulate.py") != middle


def test_relative_imports_and_imports_inside_functions_count(package):
    (package / "engine" / "deep.py").write_text("z = 1\n")
    _edit(package / "engine" / "noise.py", "\ndef _f():\n    from . import deep  # noqa\n")
    before = fp.fingerprint("workflow/scripts/simulate.py")
    _edit(package / "engine" / "deep.py", "z = 2\n")
    assert fp.fingerprint("workflow/scripts/simulate.py") != before


def test_prose_does_not_count_but_code_does(package, tmp_path, monkeypatch):
    """Comments, docstrings and formatting leave every fingerprint unchanged (no rerun after a
    documentation edit); a changed constant or name changes it."""
    cache = tmp_path / "cache.json"
    monkeypatch.setattr(fp, "CACHE", cache)  # a fresh cache file
    _clear()
    target = package / "engine" / "noise.py"
    before = fp.fingerprint("workflow/scripts/simulate.py")
    text = target.read_text()
    prose = text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n\n\n"
    target.write_text(prose)
    _clear()
    assert fp.fingerprint("workflow/scripts/simulate.py") == before
    assert cache.exists()  # the cache was written ...
    _clear()
    assert fp.fingerprint("workflow/scripts/simulate.py") == before  # ... and a reread agrees
    target.write_text(prose.replace("def ", "def renamed_", 1))
    _clear()
    assert fp.fingerprint("workflow/scripts/simulate.py") != before


def test_docstrings_a_job_writes_into_its_outputs_count(package):
    """arena_results.py writes arena/claims.py's docstring into claims.md (issue 45): a reworded
    docstring there reruns the job; elsewhere it does not."""
    claims = package / "arena" / "claims.py"
    before = fp.fingerprint("workflow/scripts/arena_results.py")
    claims.write_text(claims.read_text().replace('"""', '"""Reworded. ', 1))
    _clear()
    assert fp.fingerprint("workflow/scripts/arena_results.py") != before
    simulate = fp.fingerprint("workflow/scripts/simulate.py")
    noise = package / "engine" / "noise.py"
    noise.write_text(noise.read_text().replace('"""', '"""Reworded. ', 1))
    _clear()
    assert fp.fingerprint("workflow/scripts/simulate.py") == simulate


def test_a_missing_entry_is_refused():
    with pytest.raises(FileNotFoundError, match="no such script"):
        fp.fingerprint("workflow/scripts/no_such_script.py")


def test_a_constant_inside_a_function_counts():
    a = b"def f():\n    '''doc'''\n    return 1\n"
    b = b"def f():\n    '''other doc'''\n    # note\n    return  1\n"
    c = b"def f():\n    '''doc'''\n    return 2\n"
    assert fp.code_hash(a) == fp.code_hash(b) != fp.code_hash(c)
    assert fp.code_hash(b"def f(:\n") != fp.code_hash(b"def g(:\n")  # unparsable: its bytes


_PAPER_JOBS = {  # the entries of each paper's own jobs (workflow/rules/*.smk)
    "cz22": [
        ("workflow/scripts/render_notebook.py", "notebooks/audit_report.ipynb"),
        ("workflow/scripts/communication_audit.py",),
    ],
    "olucb": [
        ("workflow/scripts/render_notebook.py", "notebooks/audit_report.ipynb"),
        ("workflow/scripts/paper_job.py",),
    ],
    "dpdpe": [
        ("workflow/scripts/render_notebook.py", "notebooks/audit_report.ipynb"),
        ("workflow/scripts/communication_audit.py",),
    ],
    "op24": [
        ("workflow/scripts/render_notebook.py", "notebooks/op24_audit.ipynb"),
        ("workflow/scripts/study_table.py",),
        ("workflow/scripts/study_verdicts.py",),
    ],
    "plasso": [
        ("workflow/scripts/render_notebook.py", "notebooks/plasso_audit.ipynb"),
        ("workflow/scripts/study_verdicts.py",),
    ],
}


@pytest.mark.parametrize("prefix", sorted(_PAPER_JOBS))
def test_an_edit_to_any_module_of_a_paper_reruns_one_of_its_jobs(package, prefix):
    """Issue 45: edits to a paper's own modules (op24's table1, verdicts, plots; plasso's
    verdicts, plots; dpdpe's communication; cz22's package) reran nothing."""
    for module in sorted((package / "papers" / prefix).glob("*.py")):
        if fp.not_in_jobs([f"papers/{prefix}/{module.name}"]):
            continue  # its bench workload: no job runs it (fingerprint.NOT_IN_JOBS)
        before = _prints(_PAPER_JOBS[prefix])
        _edit(module)
        assert _prints(_PAPER_JOBS[prefix]) != before, module
