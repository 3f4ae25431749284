"""A warm worker for local runs: the jobs' start-up paid once per Snakemake run.

A Snakemake ``script:`` job is a fresh Python process: importing NumPy, pandas, pyarrow, numba
and the pipeline takes ~0.7 s, and numba's first call of any compiled kernel another ~0.5 s
(its one-time set-up of typing and lowering registries), so a small job spends most of its
~1.7 s starting; a figure job starts a Jupyter kernel as well. In a local run, the Snakefile's
``onstart`` hook starts one worker process (:func:`start`) that does all of this once, then
forks a child per job: the job's script process (the *client*, :func:`hand_off`) sends the
worker its Snakemake object, working directory, environment and standard streams, and waits
for the child's exit status, which becomes its own. The child runs the same script file on the
same inputs: it is still one process per job, only forked from a warm parent instead of
started cold, so every output is the same (the seeds are the only source of randomness;
``tests/workflow/test_pipeline.py`` compares warm and cold jobs' bytes, and so does the SLURM
smoke test, whose cluster jobs run cold).

A notebook job's Jupyter kernel is forked from the worker too: inside such a job the kernelspec
runs ``python -m dpbandits.runtime.worker kernel`` (:func:`kernel_argv`), a client that asks the
worker for a child running ipykernel (with the two settings a fresh kernel makes before the
notebook's imports, :func:`_run_kernel`), instead of a fresh interpreter importing ipykernel,
pandas, Matplotlib and the pipeline again.

The worker serves only the run that started it and only where the job would run the same in
it: local execution, no conda or container deployment, ``threads: 1`` jobs (the worker's BLAS
and OpenMP thread counts are 1, as Snakemake sets them for such a job). Anywhere else (a
cluster node, ``--no-hooks``, ``--config warm_worker=false``, a worker that is not there) the
client returns and the script runs cold, as before.

Failure and interruption behave as for a cold job: an exception's traceback goes to the job's
stderr and log and the client exits non-zero; a client that is killed (Snakemake cancelling the
job, SIGKILL) closes its connection and the worker kills the child's process group at once;
a worker whose Snakemake is gone (killed) kills its children and exits.

What changes is what Snakemake's ``benchmark:`` files measure: the job's wall time (``s``)
stays right, but ``max_rss`` and ``cpu_time`` are the client's. The worker's log has a line per
job (its rule, exit code, seconds, and the child's peak RSS, which counts only the pages the
child touched, not the imports it shares with the worker). Measure each job's memory with
``--config warm_worker=false``.
"""

from __future__ import annotations

import ast
import functools
import os
import pickle
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: The worker's module (``python -m`` runs the worker and its kernel clients).
MODULE = "dpbandits.runtime.worker"
#: Environment variable naming the worker's socket (set by :func:`start` for the run's jobs).
SOCKET_ENV = "DPBANDITS_WORKER"
#: Thread counts of the worker's libraries: those of a ``threads: 1`` job (Snakemake sets them).
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

#: glibc's allocator settings of the worker, and so of every job and kernel it forks: arrays of
#: any size come from the heap, and freed memory stays there for the next one, instead of a
#: fresh ``mmap`` per large array whose pages fault in on first touch and are unmapped on free.
#: The simulations allocate and free arrays of tens to hundreds of MB per chunk of trials, so
#: this trades some peak memory for time (docs/performance.md). Speed only: no number depends on
#: where memory comes from. Values the user set win; other C libraries ignore these variables.
ALLOCATOR_ENV = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30), "MALLOC_TRIM_THRESHOLD_": str(1 << 30)}

#: What the worker imports besides the scripts' and notebooks' own imports: the jobs' Snakemake
#: objects, what pyarrow imports on its first table, what the notebook jobs import inside
#: functions, the notebooks' kernel, and Matplotlib's PDF writer, which every figure and audit
#: page imports on its first ``savefig(...pdf)``: imported once here, not once per job.
LIBRARIES = (
    "snakemake.iocontainers",
    "pyarrow.pandas_compat",
    "papermill",
    "nbconvert",
    "ipykernel.kernelapp",
    "matplotlib.backends.backend_pdf",
    # imported inside functions by many jobs: the progress bar, parquet reads, the privacy
    # accounting; scikit-learn's Lasso, which only plasso's jobs import, is left to them: it
    # would add to the resident memory of every job forked from the worker
    "tqdm",
    "pyarrow.dataset",
    "dp_accounting.pld.privacy_loss_distribution",
)

_HEADER = struct.Struct("!Q")  # payload length
_REPLY = struct.Struct("!ci")  # b"P", child pid | b"X", exit code
_in_child = False  # True in a child forked by the worker: hand_off runs the script here
_serving = ""  # in such a child: the worker's socket (its notebook kernels are forked too)


# --------------------------------------------------------------------------------------------
# The client: a job script's first step
# --------------------------------------------------------------------------------------------


def hand_off(smk, script: str) -> None:
    """Run this job script in the run's warm worker and exit with its status, if one serves.

    Parameters
    ----------
    smk : snakemake.script.Snakemake
        The job's Snakemake object (``snakemake`` in a script).
    script : str
        The script's file (``__file__`` in a script).

    Returns
    -------
    None
        Only when no worker serves this job (or inside the worker's child): the caller then
        runs the script itself. Otherwise the process exits with the child's exit status.
    """
    path = os.environ.get(SOCKET_ENV)
    if _in_child or not path or smk.threads != 1:
        return
    if any(os.environ.get(v, "1") != "1" for v in THREAD_VARS):
        return
    request = {"kind": "script", "script": str(Path(script).resolve()), "snakemake": smk}
    status = _delegate(path, request, interrupt=False)
    if status is not None:
        sys.exit(status)


def _delegate(path: str, request: dict, interrupt: bool) -> int | None:
    """Send ``request`` (with this process's directory, environment, import path and standard
    streams) to the worker at ``path`` and wait for its child's exit code; None if no worker
    answers. SIGTERM kills the child's group; SIGINT too, or is passed on if ``interrupt``
    (a notebook kernel's interrupt)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:  # no worker (a stopped run, another machine): run cold
        sock.close()
        return None
    request = {**request, "cwd": os.getcwd(), "env": dict(os.environ), "path": list(sys.path)}
    payload = pickle.dumps(request)
    sys.stdout.flush()
    sys.stderr.flush()
    socket.send_fds(sock, [_HEADER.pack(len(payload))], [0, 1, 2])
    sock.sendall(payload)
    child = None

    def _cancel(signum, frame):  # Snakemake cancels the job: take the child down with us
        if child is not None:  # its group (the worker, which reaps it, also kills it on EOF)
            try:
                os.killpg(child, signal.SIGKILL)
            except OSError:
                pass
        os._exit(128 + signum)

    def _interrupt(signum, frame):
        if child is not None:
            os.kill(child, signal.SIGINT)

    signal.signal(signal.SIGTERM, _cancel)
    signal.signal(signal.SIGINT, _interrupt if interrupt else _cancel)
    while True:
        reply = _recv_exact(sock, _REPLY.size)
        if reply is None:
            print(f"{MODULE}: the warm worker ended before the job did", file=sys.stderr)
            os._exit(1)
        kind, value = _REPLY.unpack(reply)
        if kind == b"P":
            child = value
        else:
            return value


def kernel_argv() -> list[str]:
    """The command of a notebook's Jupyter kernel: forked from the warm worker inside a job the
    worker runs (:func:`kernel_client`), else ``python -m ipykernel_launcher``."""
    if _in_child and _serving:
        return [sys.executable, "-m", MODULE, "kernel", _serving,
                "-f", "{connection_file}"]  # fmt: skip
    return [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"]


def kernel_client(path: str, argv: list[str]) -> None:
    """Run a Jupyter kernel (``argv``: ipykernel's arguments) in a child of the worker at
    ``path`` and exit with its status; without a worker, exec ipykernel's launcher (cold)."""
    status = _delegate(path, {"kind": "kernel", "argv": argv}, interrupt=True)
    if status is None:
        os.execv(sys.executable, [sys.executable, "-m", "ipykernel_launcher", *argv])
    sys.exit(status)


def _recv_exact(sock: socket.socket, n: int) -> bytes | None:
    """``n`` bytes from ``sock``, or None if the peer closed it first."""
    chunks = []
    while n:
        chunk = sock.recv(n)
        if not chunk:
            return None
        chunks.append(chunk)
        n -= len(chunk)
    return b"".join(chunks)


def _kill_group(pid: int) -> None:
    """SIGKILL the worker's child ``pid`` (not reaped yet, so the pid is still its) and what it
    started: its process group, made right after the fork, or the process alone before that."""
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
            return
        except OSError:
            pass


# --------------------------------------------------------------------------------------------
# The Snakefile's hooks
# --------------------------------------------------------------------------------------------


#: Fewer jobs than this in a run (the target rule counts) and they start cold: the worker's
#: warm-up (2-3 s of CPU) would not pay for itself.
MIN_JOBS = 4


def wanted(workflow, enabled: bool) -> bool:
    """Whether a run should start a worker: enabled in the config, executing (not a dry run),
    local, the main process, at least :data:`MIN_JOBS` jobs to run, and no conda or container
    deployment (a job's interpreter is then not Snakemake's)."""
    if not enabled or workflow.dryrun or not workflow.local_exec or not workflow.is_main_process:
        return False
    if len(workflow.dag) < MIN_JOBS:
        return False
    methods = {str(m).lower() for m in workflow.deployment_settings.deployment_method}
    return not any("conda" in m or "apptainer" in m or "singularity" in m for m in methods)


#: Prefix of a worker's folder (its socket) in the temporary directory: ``<prefix><pid>-<random>``
#: with the pid of the process that started it (Snakemake).
FOLDER_PREFIX = "dpb-worker-"


def remove_stale_folders(root: str | Path | None = None) -> list[Path]:
    """Remove the workers' folders under ``root`` (the temporary directory) whose owner process
    is gone (a Snakemake killed with ``kill -9`` leaves its folder behind); return them. A folder
    without an owner's pid in its name (older versions) is removed when it holds no socket."""
    removed = []
    for folder in Path(root or tempfile.gettempdir()).glob(f"{FOLDER_PREFIX}*"):
        owner = folder.name[len(FOLDER_PREFIX) :].split("-", 1)[0]
        if owner.isdigit():
            try:
                os.kill(int(owner), 0)
                continue  # its Snakemake is running
            except ProcessLookupError:
                pass
            except PermissionError:
                continue  # another user's running process
        elif (folder / "socket").exists():
            continue
        try:
            for f in folder.iterdir():
                f.unlink()
            folder.rmdir()
            removed.append(folder)
        except OSError:
            pass
    return removed


def start(sources: list[str | Path], log: str | Path, wait: float = 10.0) -> subprocess.Popen:
    """Start a worker for this process's jobs and point them at it (:data:`SOCKET_ENV`).

    The worker runs with one thread per library (:data:`THREAD_VARS`) and the allocator settings
    :data:`ALLOCATOR_ENV` (unless the environment sets them), which its jobs inherit.

    Parameters
    ----------
    sources : list of str or Path
        The workflow's script and notebook folders: the worker imports what their files import
        (:func:`imports_of`).
    log : str or Path
        The worker's own log (its start-up, each job's pid and exit status).
    wait : float
        Seconds to wait for the worker's socket; jobs that start earlier run cold.

    Returns
    -------
    subprocess.Popen
        The worker process (pass it to :func:`stop`).
    """
    remove_stale_folders()
    # short: a socket path has ~100 bytes; the owner's pid names it (remove_stale_folders)
    folder = tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-")
    path = os.path.join(folder, "socket")
    env = {**ALLOCATOR_ENV, **os.environ, **{v: "1" for v in THREAD_VARS}}
    Path(log).parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", MODULE, path, str(os.getpid()), *map(str, sources)],
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,  # not in the terminal's group: stopped by stop()
        )
    deadline = time.monotonic() + wait
    while not os.path.exists(path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    if os.path.exists(path):
        os.environ[SOCKET_ENV] = path
    return proc


def stop(proc: subprocess.Popen | None) -> None:
    """Stop the worker started by :func:`start` and remove its socket (jobs then run cold)."""
    path = os.environ.pop(SOCKET_ENV, None)
    if proc is None:
        return
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if path:
        for p in (path, os.path.dirname(path)):
            try:
                (os.rmdir if p != path else os.unlink)(p)
            except OSError:
                pass


# --------------------------------------------------------------------------------------------
# The worker
# --------------------------------------------------------------------------------------------


def imports_of(folders: list[str | Path]) -> list[str]:
    """The modules that the scripts (``*.py``) and notebooks (``*.ipynb``, code cells) in
    ``folders`` import at their top level (sorted, unique; relative imports left out)."""
    import json

    sources = []
    for folder in folders:
        for file in sorted(Path(folder).glob("*.py")):
            sources.append(file.read_text())
        for file in sorted(Path(folder).glob("*.ipynb")):
            for cell in json.loads(file.read_text())["cells"]:
                if cell["cell_type"] == "code":
                    sources.append("".join(cell["source"]))
    names = set()
    for source in sources:
        try:
            body = ast.parse(source).body
        except SyntaxError:  # a notebook cell with IPython magics: its imports are not warmed
            continue
        for node in body:
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return sorted(names)


#: The function that warms the pages' HTML exporter, by name (``module:function``), like the
#: libraries above: the notebook module uses this one (its kernels fork from the worker).
PAGE_WARM_UP = "dpbandits.notebooks:warm_up_html"


def _warm_steps(sources: list[str]) -> list:
    """The worker's warm-up, one step at a time, the simulation jobs' needs first: imports,
    then numba's one-time registry set-up (~0.5 s; a tiny function compiled in memory), the
    other imports, and last the pages' HTML exporter (:data:`PAGE_WARM_UP`)."""
    import importlib

    def _import(name):
        try:
            importlib.import_module(name)
        except Exception as exc:  # the job itself will report it
            print(f"worker: import {name} failed ({exc!r}); jobs import it themselves")

    def _numba():
        from numba import njit

        njit(lambda x: x + 1)(1)

    def _pages():  # the pages' exporter: templates, sanitiser selectors (every page job's)
        module, _, function = PAGE_WARM_UP.partition(":")
        try:
            getattr(importlib.import_module(module), function)()
        except Exception as exc:  # the jobs will render their pages cold
            print(f"worker: page warm-up failed ({exc!r}); jobs render cold")

    first = ["snakemake.iocontainers", "dpbandits.pipeline", "pyarrow.pandas_compat"]
    rest = [n for n in [*LIBRARIES, *imports_of(sources)] if n not in first]
    steps = [functools.partial(_import, n) for n in first]
    return [*steps, _numba, *(functools.partial(_import, n) for n in rest), _pages]


def serve(path: str, parent: int, sources: list[str]) -> None:
    """Serve job requests on the Unix socket ``path`` until stopped or ``parent`` is gone."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path + ".tmp")
    listener.listen(64)
    os.replace(path + ".tmp", path)  # jobs connect from now on and wait for accept()
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    started = time.perf_counter()
    warm_up = _warm_steps(sources)  # taken one by one when no job is waiting: a job that comes
    # before the end forks from a partly warm worker and imports the rest itself (as cold)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    while not stopping and os.getppid() == parent:
        events = sel.select(timeout=0 if warm_up else 0.01)
        if warm_up and not events:
            warm_up.pop(0)()
            if not warm_up:
                took = time.perf_counter() - started
                print(f"worker {os.getpid()}: warm after {took:.2f} s", flush=True)
        for key, _ in events:
            if key.fileobj is listener:
                conn, _ = listener.accept()
                pid = _fork_job(conn, listener, children)
                if pid is not None:
                    children[pid] = conn
                    sel.register(conn, selectors.EVENT_READ, pid)
            else:  # a client's end closed (or it wrote, which it never does): kill its child
                _kill_group(key.data)
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid)
            code = os.waitstatus_to_exitcode(status)
            if code < 0:  # killed (its client was gone, or someone signalled it)
                print(f"worker: job {pid} killed by signal {-code}", flush=True)
                code = 128 - code  # the shell's number
            try:
                conn.sendall(_REPLY.pack(b"X", code))
            except OSError:
                pass
            sel.unregister(conn)
            conn.close()
    for pid in children:
        _kill_group(pid)
    listener.close()
    try:
        os.unlink(path)
    except OSError:
        pass


def _die_with(parent: int) -> None:
    """In a forked child: be killed (SIGKILL) when the worker ``parent`` dies, even by
    ``kill -9`` (Linux's ``prctl(PR_SET_PDEATHSIG)``), so that no job computes on and writes its
    outputs after Snakemake has given it up; exit at once if the worker is already gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1: PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the worker's exit handler still kills jobs
        pass
    if os.getppid() != parent:
        os._exit(1)


def _fork_job(conn: socket.socket, listener, children) -> int | None:
    """Read a job request from ``conn`` and fork its child; the child's pid (None: bad request)."""
    try:
        header, fds, _, _ = socket.recv_fds(conn, _HEADER.size, 3)
        (size,) = _HEADER.unpack(header)
        payload = _recv_exact(conn, size)
        request = pickle.loads(payload)
    except Exception as exc:  # a broken client: drop it, it exits non-zero
        print(f"worker: bad request ({exc!r})", flush=True)
        conn.close()
        return None
    sys.stdout.flush()
    sys.stderr.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the job
        _die_with(parent)
        listener.close()
        for other in children.values():
            other.close()
        conn.close()
        os._exit(_run_job(request, fds))
    for fd in fds:
        os.close(fd)
    conn.sendall(_REPLY.pack(b"P", pid))
    return pid


def _run_job(request: dict, fds: list[int]) -> int:
    """In the forked child: become the job (its streams, directory, environment) and run its
    script as ``__main__``; the exit code."""
    global _in_child, _serving
    import resource
    import runpy
    import traceback

    _in_child = True
    os.setsid()  # its own group: killing the job kills what it started (a notebook's kernel)
    for sig in (signal.SIGTERM, signal.SIGCHLD):
        signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    worker_log = os.dup(1)  # the worker's own log, for this job's line below
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    _serving = os.environ.pop(SOCKET_ENV, "")  # what the job starts runs cold, but kernels
    sys.path[:0] = [p for p in request["path"] if p not in sys.path]
    code = 0
    started = time.perf_counter()
    try:
        if request["kind"] == "kernel":
            name = "kernel"
            _run_kernel(request["argv"])
        else:
            name = request["snakemake"].rule
            sys.argv = [request["script"]]
            runpy.run_path(
                request["script"],
                init_globals={"snakemake": request["snakemake"]},
                run_name="__main__",
            )
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # reported like an uncaught exception, exit 1
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    # the pages this child touched (what it shares with the worker but only read is not counted)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    line = (
        f"worker: job {os.getpid()} {name}: exit {code}, "
        f"{time.perf_counter() - started:.2f} s, peak RSS of the child {peak:.0f} MB\n"
    )
    os.write(worker_log, line.encode())
    return code


def _run_kernel(argv: list[str]) -> None:
    """In the forked child: what ``python -m ipykernel_launcher`` does, from a warm process.

    What a cold kernel's libraries set up on import, inside the kernel, is set here as they
    would have (the worker imported them outside any kernel): ipykernel sets ``MPLBACKEND`` to
    its inline backend before the notebook imports Matplotlib, which reads it on import; pandas
    registers ``display.max_columns`` as 20 in a Jupyter kernel, 0 (fit the terminal) elsewhere.
    And the launcher removes the working directory from the front of the import path.
    ipykernel reads the pid of the kernel manager's process (``JPY_PARENT_PID``) into a default
    when it is imported, which the worker did without it: a warm kernel thought it had been
    started by hand and printed its stand-alone banner (ten lines, "To connect another client
    to this kernel ...") into the build's output, once per notebook job; it is passed as the
    option a cold kernel would have read it as (its parent poller then watches the worker, the
    kernel's parent).
    ``tests/runtime/test_worker.py`` and the figure test of ``tests/workflow/test_pipeline.py``
    compare warm kernels' outputs with cold ones'.
    """
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    if "matplotlib" in sys.modules:
        sys.modules["matplotlib"].rcParams["backend"] = os.environ["MPLBACKEND"]
    if "pandas" in sys.modules:  # pandas.core.config_init: is_terminal() is False in a kernel
        sys.modules["pandas"].set_option("display.max_columns", 20)
    if sys.path and (sys.path[0] == "" or Path(sys.path[0]) == Path.cwd()):
        del sys.path[0]
    if os.environ.get("JPY_PARENT_PID"):
        argv = [*argv, f"--IPKernelApp.parent_handle={os.environ['JPY_PARENT_PID']}"]
    sys.argv = ["ipykernel_launcher", *argv]
    from ipykernel import kernelapp

    kernelapp.launch_new_instance(argv=argv)


def main(argv: list[str]) -> None:
    """``python -m dpbandits.runtime.worker SOCKET PARENT FOLDER...`` serves;
    ``python -m dpbandits.runtime.worker kernel SOCKET -f CONNECTION_FILE`` is a notebook kernel."""
    if argv[0] == "kernel":
        kernel_client(argv[1], argv[2:])
    else:
        serve(argv[0], int(argv[1]), argv[2:])


if __name__ == "__main__":  # run as dpbandits.runtime.worker, not __main__: hand_off sees _in_child
    from dpbandits.runtime.worker import main as _main

    _main(sys.argv[1:])
