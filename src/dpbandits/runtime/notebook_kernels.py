"""The notebook jobs' kernel manager: jupyter_client's, without its waits on a clock.

papermill runs a notebook through nbclient, which starts, waits for and shuts down the kernel
with jupyter_client's ``AsyncKernelManager``. Three of its steps wait on a clock instead of on
the kernel. In each of them the job's core idles, a large share of a short notebook job:

- Once the kernel has answered ``kernel_info``, the client reads IOPub until it has been
  silent for 0.2 s (``KernelClient.wait_for_ready``). :class:`ReadyClient` stops at the
  kernel's ``idle`` status for its request instead (for one of its requests, when it asked
  more than once). ipykernel publishes it after the reply, so
  IOPub is connected and every message the kernel sent before it has been read.
- At shutdown the manager polls every 0.1 s for the kernel's process to exit. :class:`Manager`
  polls every 0.01 s, with the same time limits before SIGTERM and SIGKILL.
- Before asking the kernel to shut down, the manager interrupts it (SIGINT). The kernel is
  idle then: papermill shuts it down after the last cell, or after the cell that failed. An
  interrupt that lands while ipykernel handles a message also printed "KeyboardInterrupt caught
  in kernel." into the build's output. :class:`Manager` skips the interrupt at shutdown only;
  an interrupt asked for at any other time is sent as before.

The manager also talks to the kernel over Unix sockets (ZeroMQ's IPC transport) in a private
temporary directory instead of TCP on localhost. Other users of the machine cannot reach the
sockets, and ipykernel no longer logs, once per notebook job, that it "is running over TCP
without encryption".

None of this changes what a notebook computes or records. nbclient takes only the messages
whose parent is its own request, and the kernel's own shutdown (its ``shutdown_request``) is
unchanged. tests/runtime/test_notebook_kernels.py runs notebooks through this manager and checks
the behaviour of each step.
"""

from __future__ import annotations

import math
import shutil
import tempfile
import time
from pathlib import Path
from queue import Empty

from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager
from traitlets import CaselessStrEnum, DottedObjectName, Type, default

#: How long to wait for IOPub messages after a ``kernel_info`` reply before asking again
#: (jupyter_client's own value: an IOPub not yet connected loses the kernel's messages).
IOPUB_WAIT = 0.2
#: How often to check whether the kernel's process has exited after ``shutdown_request``.
EXIT_POLL = 0.01
#: The longest prefix of a kernel's socket files: a Unix socket's path has at most 107 bytes on
#: Linux, and jupyter_client appends "-<n>".
IPC_PATH_MAX = 100


class ReadyClient(AsyncKernelClient):
    """An ``AsyncKernelClient`` whose :meth:`wait_for_ready` ends at the kernel's ``idle``."""

    async def wait_for_ready(self, timeout: float | None = None) -> None:
        """Wait until the kernel answers ``kernel_info`` on the shell channel and the ``idle``
        status of one of these requests arrives on IOPub (then IOPub is connected).

        A request is sent each time the shell channel stays silent for a second or IOPub for
        :data:`IOPUB_WAIT`, and the kernel answers every one of them in turn: a reply to any of
        them counts. (Counting only the last request's reply never caught up once a reply came
        late: each new request read the reply to the one before it, until the timeout, as
        happens on a loaded machine.)

        Parameters
        ----------
        timeout : float, optional
            Seconds before giving up (no limit if None).

        Raises
        ------
        RuntimeError
            If the kernel dies or does not answer in time (as jupyter_client's method).
        """
        deadline = time.monotonic() + (math.inf if timeout is None else timeout)
        sent: set[str] = set()
        while True:
            sent.add(self.kernel_info())
            try:
                reply = await self.shell_channel.get_msg(timeout=1)
            except Empty:
                reply = None
            if (
                reply is not None
                and reply["msg_type"] == "kernel_info_reply"
                and reply["parent_header"].get("msg_id") in sent
                and await self._idle_after(sent)
            ):
                self._handle_kernel_info_reply(reply)
                return
            if not await self.is_alive():
                raise RuntimeError("Kernel died before replying to kernel_info")
            if time.monotonic() > deadline:
                raise RuntimeError(f"Kernel didn't respond in {timeout:g} seconds")

    async def _idle_after(self, requests: set[str]) -> bool:
        """Read IOPub up to the kernel's ``idle`` status for one of ``requests``; False if IOPub
        stays silent for :data:`IOPUB_WAIT` seconds first (not connected yet: ask again)."""
        while True:
            try:
                msg = await self.iopub_channel.get_msg(timeout=IOPUB_WAIT)
            except Empty:
                return False
            if (
                msg["msg_type"] == "status"
                and msg["parent_header"].get("msg_id") in requests
                and msg["content"].get("execution_state") == "idle"
            ):
                return True


class Manager(AsyncKernelManager):
    """An ``AsyncKernelManager`` with :class:`ReadyClient`, no interrupt before a shutdown, a
    0.01-s poll for the kernel's exit, and IPC sockets in a directory of the kernel's own
    (removed with the kernel's other files)."""

    transport = CaselessStrEnum(["tcp", "ipc"], default_value="ipc", config=True)
    client_class = DottedObjectName(f"{__name__}.ReadyClient")
    client_factory = Type(ReadyClient, klass=AsyncKernelClient)

    @default("ip")
    def _ip_default(self) -> str:
        if self.transport != "ipc":
            return super()._ip_default()
        # the sockets' files in a directory of this kernel's own: jupyter_client's default
        # ("kernel-ipc" in the working directory) lets two jobs' kernels pick the same files.
        # A socket's path has at most 107 bytes on Linux: a long TMPDIR falls back to /tmp.
        for where in (None, "/tmp"):
            path = Path(tempfile.mkdtemp(prefix="dpbandits-kernel-", dir=where)) / "ipc"
            if len(str(path).encode()) <= IPC_PATH_MAX:
                self._ipc_folder = path.parent
                return str(path)
            path.parent.rmdir()
        raise OSError(f"no directory short enough for a kernel's socket files ({path})")

    async def _async_cleanup_resources(self, restart: bool = False) -> None:
        await super()._async_cleanup_resources(restart=restart)
        folder = getattr(self, "_ipc_folder", None)  # only the folder made above, never a user's
        if folder is not None and not restart:
            shutil.rmtree(folder, ignore_errors=True)

    cleanup_resources = _async_cleanup_resources  # the public name too (nbclient calls it)

    async def _async_interrupt_kernel(self) -> None:
        if self.shutting_down:  # the kernel is idle: papermill has finished or failed a cell
            return
        await super()._async_interrupt_kernel()

    async def _async_finish_shutdown(
        self, waittime: float | None = None, pollinterval: float = EXIT_POLL, restart=False
    ) -> None:
        await super()._async_finish_shutdown(waittime, pollinterval, restart)
