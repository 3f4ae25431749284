"""The warm worker (dpbandits.runtime.worker): a job handed to it behaves as the same job run cold.

A real worker process serves a folder of tiny job scripts; clients are separate processes that
call ``hand_off`` as a job script does. Byte-identity of real jobs, warm against cold, is
checked in tests/workflow/test_pipeline.py (test_rebuilds_are_byte_identical_...).
"""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from dpbandits.runtime import worker

JOB = textwrap.dedent(
    """
    import os, sys, time
    from dpbandits.runtime.worker import hand_off

    hand_off(snakemake, __file__)
    with open("ran.txt", "w") as f:  # relative: the client's working directory
        f.write(f"{os.getpid()} {os.getppid()} {os.environ.get('JOB_VALUE')} {snakemake.rule}")
    print("to stdout", flush=True)
    print("to stderr", file=sys.stderr, flush=True)
    if snakemake.rule == "fail":
        raise ValueError("planted failure")
    if snakemake.rule == "exit3":
        sys.exit(3)
    if snakemake.rule == "sleep":
        time.sleep(60)
    if snakemake.rule == "malloc":  # where a 64-MiB array's memory comes from (glibc)
        import ctypes
        import numpy as np

        class Info(ctypes.Structure):
            _fields_ = [(name, ctypes.c_size_t) for name in (
                "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                "uordblks", "fordblks", "keepcost")]

        libc = ctypes.CDLL(None)
        libc.mallinfo2.restype = Info
        a = np.ones(1 << 23)
        info = libc.mallinfo2()
        with open("malloc.txt", "w") as f:
            f.write(f"{info.hblkhd} {info.arena} {a.nbytes}")
    if snakemake.rule == "notebook":
        from dpbandits.notebooks import execute

        execute(os.path.join(os.path.dirname(__file__), "probe.ipynb"), "out.ipynb", {})
    """
)

#: A notebook reporting its kernel's process and what a cold kernel sets up for Matplotlib.
PROBE = {
    "cells": [
        {"cell_type": "code", "metadata": {"tags": ["parameters"]}, "source": ["x = 1"]},
        {
            "cell_type": "code",
            "metadata": {},
            "source": [
                "import os, sys\n",
                "import matplotlib\n",
                "import pandas as pd\n",
                "import matplotlib.pyplot as plt\n",
                "open('kernel.txt', 'w').write(f'{os.getpid()} {os.getppid()}')\n",
                "print(matplotlib.get_backend(), os.environ['MPLBACKEND'], sys.path[0] == '')\n",
                "print(pd.get_option('display.max_columns'))\n",
                "plt.plot([1, 2], [3, 1])",  # left open: the inline backend shows it
            ],
        },
    ],
    "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}

CLIENT = textwrap.dedent(
    """
    import runpy, sys, types
    smk = types.SimpleNamespace(rule=sys.argv[2], threads=int(sys.argv[3]))
    runpy.run_path(sys.argv[1], init_globals={"snakemake": smk}, run_name="__main__")
    """
)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """A worker serving a scripts folder with the job above; its socket and process."""
    folder = tmp_path_factory.mktemp("scripts")
    (folder / "job.py").write_text(JOB)
    (folder / "probe.ipynb").write_text(json.dumps(PROBE))
    proc = worker.start([folder], folder / "worker.log", wait=30)
    path = os.environ[worker.SOCKET_ENV]
    yield folder, path, proc
    worker.stop(proc)
    assert not os.path.exists(path) and proc.poll() is not None


def _client(folder, cwd, rule, threads=1, socket_path=None, **popen):
    env = dict(os.environ, JOB_VALUE="from-the-client")
    if socket_path is not None:
        env[worker.SOCKET_ENV] = socket_path
    return subprocess.Popen(
        [sys.executable, "-c", CLIENT, str(folder / "job.py"), rule, str(threads)],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,
    )


def _ran(cwd):
    pid, ppid, value, rule = (cwd / "ran.txt").read_text().split()
    return int(pid), int(ppid), value, rule


def _wait_ran(cwd, timeout=30.0):
    """:func:`_ran` once the job has written its whole line (the file exists, empty, between
    its ``open`` and its ``write``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        path = cwd / "ran.txt"
        if path.exists() and len(path.read_text().split()) == 4:
            break
        time.sleep(0.01)
    return _ran(cwd)


def test_a_job_runs_in_a_child_of_the_worker_with_the_clients_directory_env_and_streams(
    served, tmp_path
):
    folder, path, proc = served
    client = _client(folder, tmp_path, "ok")
    out, err = client.communicate(timeout=60)
    assert client.returncode == 0, err
    pid, ppid, value, rule = _ran(tmp_path)
    assert ppid == proc.pid and pid != client.pid  # forked by the worker, not the client
    assert (value, rule) == ("from-the-client", "ok")
    assert out == "to stdout\n" and err == "to stderr\n"  # the client's own streams
    assert f"worker: job {pid} ok: exit 0" in (folder / "worker.log").read_text()


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION") is None,
    reason="glibc's allocator settings: Linux with glibc only",
)
def test_a_jobs_large_arrays_come_from_the_heap(served, tmp_path):
    """The worker starts with :data:`dpbandits.runtime.worker.ALLOCATOR_ENV`, so a job it forks
    takes a 64-MiB array from the heap (reused after it is freed), not from a fresh mmap."""
    folder, _, _ = served
    client = _client(folder, tmp_path, "malloc")
    _, err = client.communicate(timeout=60)
    assert client.returncode == 0, err
    mmapped, heap, size = map(int, (tmp_path / "malloc.txt").read_text().split())
    assert mmapped < size <= heap


@pytest.mark.parametrize(("rule", "code"), [("fail", 1), ("exit3", 3)])
def test_a_failing_job_fails_its_client_with_its_exit_code_and_traceback(
    served, tmp_path, rule, code
):
    folder, _, _ = served
    client = _client(folder, tmp_path, rule)
    _, err = client.communicate(timeout=60)
    assert client.returncode == code
    assert _ran(tmp_path)[3] == rule
    if rule == "fail":
        assert "ValueError: planted failure" in err and "Traceback" in err


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}/stat").read_text().split(")")[1].split()[0] != "Z"


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_killed_client_takes_its_job_down(served, tmp_path, sig):
    folder, _, _ = served
    client = _client(folder, tmp_path, "sleep")
    pid = _wait_ran(tmp_path)[0]
    assert _alive(pid)
    client.send_signal(sig)
    client.communicate(timeout=30)
    assert client.returncode != 0
    line = f"worker: job {pid} killed by signal 9"  # logged once the worker has reaped it
    deadline = time.monotonic() + 5
    while line not in (folder / "worker.log").read_text() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not _alive(pid)
    assert line in (folder / "worker.log").read_text()


@pytest.mark.parametrize(
    ("threads", "socket_path"), [(1, "/nonexistent/socket"), (1, ""), (2, None)]
)
def test_without_a_worker_or_for_a_multithreaded_job_the_script_runs_cold(
    served, tmp_path, threads, socket_path
):
    folder, _, _ = served
    client = _client(folder, tmp_path, "ok", threads=threads, socket_path=socket_path)
    _, err = client.communicate(timeout=60)
    assert client.returncode == 0, err
    pid, _, value, _ = _ran(tmp_path)
    assert pid == client.pid and value == "from-the-client"


def test_the_worker_exits_when_its_snakemake_is_gone(tmp_path):
    """A parent that dies without stopping its worker (Snakemake killed): the worker leaves."""
    (tmp_path / "job.py").write_text(JOB)
    parent = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, sys; from dpbandits.runtime import worker; "
            f"worker.start([{str(tmp_path)!r}], {str(tmp_path / 'worker.log')!r}, wait=30); "
            f"print(os.environ[worker.SOCKET_ENV])",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    path = parent.stdout.strip()
    deadline = time.monotonic() + 30
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not os.path.exists(path), (tmp_path / "worker.log").read_text()


def test_the_worker_imports_what_the_scripts_and_notebooks_import(tmp_path):
    (tmp_path / "a.py").write_text("import numpy as np\nfrom dpbandits.io import x\n")
    (tmp_path / "b.py").write_text("from . import y\nimport os.path\ndef f():\n    import scipy\n")
    cells = [
        {"cell_type": "code", "source": ["import pandas as pd\n", "x = 1"]},
        {"cell_type": "code", "source": ["%matplotlib inline\nimport seaborn"]},  # not Python
        {"cell_type": "markdown", "source": ["import json"]},
    ]
    (tmp_path / "c.ipynb").write_text(json.dumps({"cells": cells}))
    assert worker.imports_of([tmp_path]) == ["dpbandits.io", "numpy", "os.path", "pandas"]
    root = Path(__file__).parents[2]
    found = worker.imports_of([root / "workflow" / "scripts", root / "notebooks"])
    assert {"dpbandits.pipeline", "dpbandits.plotting"} <= set(found)


def test_a_notebook_kernel_forked_from_the_worker_runs_as_a_cold_one(served, tmp_path):
    """A job's notebook runs in a kernel forked from the worker (not a new interpreter), with
    the same outputs as a cold kernel's: Matplotlib's inline backend (an open figure shown),
    pandas' display width, the same import path; and like a cold kernel it knows it was started
    by a kernel manager, so it prints no stand-alone banner into the build's output."""
    folder, _, proc = served
    deadline = time.monotonic() + 120  # a fully warm worker: it has imported ipykernel
    while "warm after" not in (folder / "worker.log").read_text():
        assert time.monotonic() < deadline, "the worker did not finish warming up"
        time.sleep(0.2)
    outputs = {}
    for how, socket_path in (("warm", None), ("cold", "")):
        run = tmp_path / how
        run.mkdir()
        client = _client(folder, run, "notebook", socket_path=socket_path)
        out, err = client.communicate(timeout=120)
        assert client.returncode == 0, err
        assert "To connect another client to this kernel" not in out + err, (how, out)
        pid, ppid = map(int, (run / "kernel.txt").read_text().split())
        assert (ppid == proc.pid) == (how == "warm"), (how, ppid, proc.pid)
        cell = json.loads((run / "out.ipynb").read_text())["cells"][1]
        outputs[how] = [
            (o["output_type"], o.get("text"), sorted(o.get("data", {}))) for o in cell["outputs"]
        ]
    assert outputs["warm"] == outputs["cold"]
    assert any("image/png" in data for _, _, data in outputs["cold"])  # the inline figure


def test_the_last_warm_up_step_compiles_the_pages_exporter():
    """Forked page jobs inherit a used exporter (~0.5 s of template and selector compiling each)."""
    from dpbandits import notebooks

    notebooks._exporter.cache_clear()
    worker._warm_steps([])[-1]()
    assert notebooks._exporter.cache_info().currsize == 1


def test_a_worker_killed_with_sigkill_takes_its_jobs_down(tmp_path):
    """Issue 45: after ``kill -9`` of the worker its forked jobs lived on (parent 1), computed
    and wrote complete outputs after Snakemake had given up. Now they die with it."""
    folder = tmp_path / "scripts"
    folder.mkdir()
    (folder / "job.py").write_text(JOB)
    saved = os.environ.get(worker.SOCKET_ENV)
    proc = worker.start([folder], folder / "worker.log", wait=30)
    path = os.environ[worker.SOCKET_ENV]
    try:
        client = _client(folder, tmp_path, "sleep", socket_path=path)
        job, parent, _, _ = _wait_ran(tmp_path)
        assert parent == proc.pid and _alive(job)
        proc.kill()  # SIGKILL: no exit handler of the worker's runs
        proc.wait()
        deadline = time.monotonic() + 5
        while _alive(job) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not _alive(job)
        client.communicate(timeout=30)
        assert client.returncode != 0
    finally:
        worker.stop(proc)
        if saved is not None:
            os.environ[worker.SOCKET_ENV] = saved


def test_folders_of_workers_whose_owner_is_gone_are_removed(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    stale = tmp_path / f"{worker.FOLDER_PREFIX}{gone}-abc"
    live = tmp_path / f"{worker.FOLDER_PREFIX}{os.getpid()}-def"
    old_empty = tmp_path / f"{worker.FOLDER_PREFIX}xyz"
    for d in (stale, live, old_empty):
        d.mkdir()
    (live / "socket").write_text("")
    assert sorted(worker.remove_stale_folders(tmp_path)) == sorted([stale, old_empty])
    assert live.exists() and not stale.exists()
