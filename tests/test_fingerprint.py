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
    path.write_text(path.read_text() + "\n# an edit\n")
    fp.fingerprint.cache_clear()


@pytest.mark.parametrize(
    "module,changed",
    [
        ("engine/kernels.py", {"simulation"}),
        ("policies/dpdpe.py", {"simulation", "privacy"}),
        ("plotting.py", {"figures", "audit"}),
        ("audit/fits.py", {"tables", "audit", "privacy"}),
        ("privacy/accounting.py", {"privacy"}),
        ("envs/linear.py", {"simulation", "audit"}),
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
