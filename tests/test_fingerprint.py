"""Code fingerprints: each kind of job reruns when, and only when, code it runs changes."""

import shutil

import pytest

from dpbandits import fingerprint as fp


@pytest.fixture
def package(tmp_path, monkeypatch):
    copy = tmp_path / "dpbandits"
    shutil.copytree(fp.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(fp, "PACKAGE", copy)
    fp.fingerprint.cache_clear()
    yield copy
    fp.fingerprint.cache_clear()


def _edit(path):
    path.write_text(path.read_text() + "\n_an_edit = 1\n")
    fp.fingerprint.cache_clear()


@pytest.mark.parametrize(
    "module,changed",
    [
        ("engine/kernels.py", {"simulation"}),
        ("policies/dpdpe.py", {"simulation", "privacy", "arena", "audit"}),
        ("plotting.py", {"figures", "audit", "arena"}),
        ("audit/fits.py", {"tables", "audit", "privacy"}),
        ("privacy/accounting.py", {"privacy", "arena", "audit"}),
        # the findings of paper 000's audit page
        ("papers/olucb/findings.py", {"audit"}),
        ("envs/linear.py", {"simulation", "audit", "arena"}),
        ("cpu.py", set(fp.CODE)),  # the instruction-set pin: every number of every kind
    ],
)
def test_an_edit_changes_the_fingerprints_of_the_jobs_that_run_it(package, module, changed):
    before = {k: fp.fingerprint(k) for k in fp.CODE}
    _edit(package / module)
    after = {k: fp.fingerprint(k) for k in fp.CODE}
    assert {k for k in fp.CODE if before[k] != after[k]} == changed


def test_every_listed_path_exists_and_a_new_module_counts(package):
    for kind, parts in fp.CODE.items():
        for part in parts:
            assert (package / part).exists(), (kind, part)
    before = fp.fingerprint("simulation")
    (package / "engine" / "new_kernel.py").write_text("x = 1\n")
    fp.fingerprint.cache_clear()
    assert fp.fingerprint("simulation") != before


def test_prose_does_not_count_but_code_does(package, tmp_path, monkeypatch):
    """Comments, docstrings and formatting leave every fingerprint unchanged (no rerun after a
    documentation edit); a changed constant or name changes it."""
    monkeypatch.chdir(tmp_path)  # a fresh cache file
    fp._cache.cache_clear()
    target = package / "engine" / "noise.py"
    before = fp.fingerprint("simulation")
    text = target.read_text()
    prose = text.replace('"""', '"""Reworded. ', 1) + "\n# a comment\n\n\n"
    target.write_text(prose)
    fp.fingerprint.cache_clear()
    assert fp.fingerprint("simulation") == before
    assert (tmp_path / fp.CACHE).exists()  # the cache was written ...
    fp._cache.cache_clear()
    fp.fingerprint.cache_clear()
    assert fp.fingerprint("simulation") == before  # ... and a reread gives the same hash
    target.write_text(prose.replace("def ", "def renamed_", 1))
    fp.fingerprint.cache_clear()
    assert fp.fingerprint("simulation") != before


def test_a_constant_inside_a_function_counts():
    a = b"def f():\n    '''doc'''\n    return 1\n"
    b = b"def f():\n    '''other doc'''\n    # note\n    return  1\n"
    c = b"def f():\n    '''doc'''\n    return 2\n"
    assert fp.code_hash(a) == fp.code_hash(b) != fp.code_hash(c)
    assert fp.code_hash(b"def f(:\n") != fp.code_hash(b"def g(:\n")  # unparsable: its bytes
