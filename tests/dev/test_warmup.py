"""``dpb warmup`` (run by ``make install``) compiles every cached numba kernel of the package, so
that a build compiles nothing: on a fresh clone, a kernel the warm-up missed was compiled inside
the build's jobs (12 signatures, about 20 s of job time at the quick scale, 2026-11-27)."""

import json
import os
import subprocess
import sys

import pytest

from dpbandits.dev.warmup import TEST_ONLY_KERNELS, cached_kernels

#: Run in a fresh process with an empty numba cache: every kernel the warm-up reaches, called
#: directly or from another kernel, is compiled there and so has a signature; with a full cache a
#: kernel called only from another one is never compiled on its own, so this cannot be checked
#: in the test session's process.
PROBE = """
import json
from dpbandits.dev.warmup import cached_kernels, warmup
warmup()
kernels = cached_kernels()
print(json.dumps(sorted(n for n, k in kernels.items() if not k.signatures)))
"""


def test_the_kernel_list_finds_the_engine():
    kernels = cached_kernels()
    assert len(kernels) > 40
    assert "dpbandits.engine.kernels.run_gaussian" in kernels
    assert "dpbandits.normals._fill" in kernels
    assert TEST_ONLY_KERNELS <= kernels.keys()  # the exceptions still name real kernels


@pytest.mark.e2e
def test_the_warmup_compiles_every_cached_kernel_from_an_empty_cache(tmp_path):
    """About 70 s of compilation on the build machine: an end-to-end check (``make test-e2e``)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run(
        [sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True
    )
    uncompiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert sorted(set(uncompiled) - TEST_ONLY_KERNELS) == []
    assert any(tmp_path.rglob("*.nbi"))  # the probe did use the empty cache
