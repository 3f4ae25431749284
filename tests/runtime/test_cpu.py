"""The pin of NumPy's and OpenBLAS's instruction sets (dpbandits.runtime.cpu): what it sets,
that the test session and a fresh process run pinned, and that on an AVX-512 CPU it changes
results."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpbandits.runtime import cpu

AVX2 = {"fpu", "sse4_2", "avx", "avx2", "fma"}


def test_pinned_environment_needs_avx2_and_fma():
    env = cpu.pinned_environment(AVX2 | {"avx512f", "avx512bw"})
    assert env["OPENBLAS_CORETYPE"] == "Haswell"
    assert set(env["NPY_DISABLE_CPU_FEATURES"].split()) >= {"X86_V4", "AVX512_ICL", "AVX512_SKX"}
    assert cpu.pinned_environment(AVX2) == env  # the same pin whether or not AVX-512 is there
    assert cpu.pinned_environment({"fpu", "sse4_2", "avx"}) == {}  # no AVX2: nothing to pin to
    assert cpu.pinned_environment(AVX2 - {"fma"}) == {}
    assert cpu.pinned_environment(set()) == {}  # no /proc/cpuinfo (macOS, arm64 ...)


def test_pin_keeps_the_users_variables_and_honours_the_opt_out(monkeypatch):
    monkeypatch.setattr(cpu, "_cpu_flags", lambda: AVX2)
    env = {"OPENBLAS_CORETYPE": "Zen"}
    assert cpu.pin(env) == {"NPY_DISABLE_CPU_FEATURES": " ".join(cpu.NUMPY_ABOVE_AVX2)}
    assert env["OPENBLAS_CORETYPE"] == "Zen"
    assert cpu.pin({cpu.OPT_OUT: "1"}) == {}


PINNABLE = bool(cpu.pinned_environment())


@pytest.mark.skipif(not PINNABLE, reason="this CPU has no AVX2 with FMA: nothing is pinned")
def test_this_session_runs_pinned():
    """conftest imports dpbandits before anything imports NumPy."""
    assert cpu.numpy_dispatch_above_avx2() == []
    assert cpu.openblas_core_types() and set(cpu.openblas_core_types()) == {"Haswell"}


#: Last-bit-sensitive arithmetic: NumPy's exp, log and power, and an OpenBLAS matrix product.
PROBE = """
import sys, hashlib
sys.path.insert(0, sys.argv[1])
import dpbandits, numpy as np
x = np.random.default_rng(0).uniform(-20, 20, 100_000)
a = x[:4096].reshape(64, 64)
out = np.concatenate([np.exp(x), np.log(np.abs(x)), np.power(np.abs(x), 1.3), (a @ a.T).ravel()])
print(hashlib.sha256(out.tobytes()).hexdigest())
"""


def _probe(**env_changes):
    """The PROBE's hash in a fresh process, with none of the pin's variables but env_changes."""
    env = {k: v for k, v in os.environ.items() if k not in cpu.pinned_environment(AVX2)}
    env.update(env_changes)
    src = str(Path(cpu.__file__).parents[2])
    res = subprocess.run(
        [sys.executable, "-c", PROBE, src], env=env, capture_output=True, text=True, check=True
    )
    return res.stdout.strip()


@pytest.mark.skipif(
    not (PINNABLE and "avx512f" in cpu._cpu_flags()),
    reason="this CPU has no AVX-512: the pinned and the native code paths are the same",
)
def test_on_an_avx512_cpu_the_pin_changes_last_bits_and_a_fresh_process_is_pinned():
    pinned = _probe()  # importing dpbandits pins, NumPy comes after
    native = _probe(**{cpu.OPT_OUT: "1"})
    explicit = _probe(**cpu.pinned_environment())
    assert pinned == explicit != native


def test_provenance_says_whether_the_instructions_were_pinned():
    from dpbandits.provenance import instruction_sets, one_line

    pinned = {**cpu.pinned_environment(AVX2)}
    assert instruction_sets(pinned, AVX2)["mode"] == "pinned to AVX2"
    native = instruction_sets({cpu.OPT_OUT: "1"}, AVX2 | {"avx512f"})
    assert native["mode"] == "native (DPBANDITS_NATIVE_SIMD=1)" and native["cpu_avx512f"]
    assert native["OPENBLAS_CORETYPE"] is None
    assert instruction_sets({}, {"avx"})["mode"] == "native (no AVX2 and FMA to pin to)"
    assert instruction_sets({**pinned, "OPENBLAS_CORETYPE": "Zen"}, AVX2)["mode"] == (
        "set by the user"
    )
    prov = {"git_commit": "0" * 40, "git_dirty": False, "package_version": "x", "python": "3"}
    prov |= {k: "1" for k in ("numpy", "numba", "scipy", "scikit-learn", "dp-accounting")}
    prov |= {"pyarrow": "1", "pandas": "1", "instruction_sets": native}
    assert one_line(prov).endswith("vector instructions native (DPBANDITS_NATIVE_SIMD=1)")


@pytest.mark.skipif(not PINNABLE, reason="this CPU has no AVX2 with FMA: nothing is pinned")
def test_this_sessions_outputs_record_the_pin():
    from dpbandits.provenance import provenance

    assert provenance.__wrapped__()["instruction_sets"]["mode"] == "pinned to AVX2"
