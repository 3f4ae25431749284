"""The notebook jobs' kernel manager (dpbandits.runtime.notebook_kernels): jupyter_client's,
without its waits on a clock, and the same notebook outputs.

The client's ready handshake is checked against scripted channels (what it reads, when it asks
again, when it gives up), with jupyter_client's own method on the same script as the contrast
that shows the check sees a wait for silence. The manager is checked on real kernels.
"""

import asyncio
import json
import signal
import tempfile
from pathlib import Path
from queue import Empty

import pytest
from jupyter_client.asynchronous import AsyncKernelClient
from jupyter_client.manager import AsyncKernelManager, KernelManager

from dpbandits import notebooks
from dpbandits.runtime import notebook_kernels as kernels

SILENCE = Empty  # a scripted get_msg that times out


class Channel:
    """A channel whose ``get_msg`` returns the scripted messages in order (SILENCE: times out;
    an exhausted script is silent too) and records every call."""

    def __init__(self, script):
        self.script = list(script)
        self.calls = 0
        self.silences = 0

    async def get_msg(self, timeout=None):
        self.calls += 1
        item = self.script.pop(0) if self.script else SILENCE
        if item is SILENCE:
            self.silences += 1
            raise Empty
        return item


def _reply(parent):
    return {
        "msg_type": "kernel_info_reply",
        "parent_header": {"msg_id": parent},
        "content": {"protocol_version": "5.3"},
    }


def _status(parent, state):
    return {
        "msg_type": "status",
        "parent_header": {"msg_id": parent},
        "content": {"execution_state": state},
    }


def _scripted(base, shell, iopub, alive=True):
    """A client of class ``base`` talking to scripted channels; its kernel_info requests are
    numbered k1, k2, ..."""

    class Scripted(base):
        @property
        def shell_channel(self):
            return self._shell

        @property
        def iopub_channel(self):
            return self._iopub

        def kernel_info(self):
            self.requests += 1
            return f"k{self.requests}"

        async def _async_is_alive(self):
            return alive

        is_alive = _async_is_alive

    client = Scripted()
    client._shell, client._iopub, client.requests = Channel(shell), Channel(iopub), 0
    return client


LATER = {"msg_type": "stream", "parent_header": {"msg_id": "other"}, "content": {}}


def test_ready_stops_at_the_idle_status_of_its_request_without_waiting_for_silence():
    iopub = [_status("k1", "busy"), _status("other", "idle"), _status("k1", "idle"), LATER]
    client = _scripted(kernels.ReadyClient, [_reply("k1")], iopub)
    asyncio.run(client.wait_for_ready(timeout=5))
    assert client.requests == 1
    assert client._iopub.calls == 3 and client._iopub.silences == 0  # LATER is left unread


def test_jupyter_clients_own_ready_waits_for_silence_on_the_same_script():
    """The contrast: the check above fails for the method it replaces."""
    iopub = [_status("k1", "busy"), _status("other", "idle"), _status("k1", "idle"), LATER]
    client = _scripted(AsyncKernelClient, [_reply("k1")], iopub)
    asyncio.run(client.wait_for_ready(timeout=5))
    assert client._iopub.silences == 1 and client._iopub.calls == 5


def test_ready_asks_again_while_iopub_is_not_connected():
    """The first request's statuses were published before IOPub connected (lost): silence for
    IOPUB_WAIT, then a second request whose idle arrives."""
    shell = [_reply("k1"), _reply("k2")]
    iopub = [SILENCE, _status("k2", "busy"), _status("k2", "idle")]
    client = _scripted(kernels.ReadyClient, shell, iopub)
    asyncio.run(client.wait_for_ready(timeout=5))
    assert client.requests == 2 and client._iopub.silences == 1


def test_a_late_first_reply_does_not_stall_the_wait():
    """The kernel answers every request in turn and its first answer comes after the first
    second: each later request then reads the reply to the one before it. The wait ends at the
    first reply and the idle status of a request of its own (it used to ask until the timeout)."""
    shell = [SILENCE, _reply("k1"), _reply("k2"), _reply("k3"), _reply("k4")]
    iopub = [_status("k1", "busy"), _status("k1", "idle"), _status("k2", "busy")]
    client = _scripted(kernels.ReadyClient, shell, iopub)
    asyncio.run(client.wait_for_ready(timeout=5))
    assert client.requests == 2 and client._shell.calls == 2


def test_replies_and_statuses_of_other_requests_do_not_count():
    """Messages whose parent is not one of the client's requests (another client's, a kernel's
    start-up status) neither end the wait nor count as its idle status."""
    shell = [_reply("other"), _reply("k2")]
    iopub = [_status(None, "idle"), _status("other", "idle"), _status("k2", "idle")]
    client = _scripted(kernels.ReadyClient, shell, iopub)
    asyncio.run(client.wait_for_ready(timeout=5))
    assert client.requests == 2 and client._iopub.calls == 3


@pytest.mark.parametrize("alive, timeout, message", [(False, 5, "died"), (True, 0, "respond")])
def test_a_dead_or_silent_kernel_fails_the_wait(alive, timeout, message):
    client = _scripted(kernels.ReadyClient, [], [], alive=alive)
    with pytest.raises(RuntimeError, match=message):
        asyncio.run(client.wait_for_ready(timeout=timeout))


@pytest.fixture
def signals(monkeypatch):
    """Every signal a kernel manager sends its kernel, and every exit poll interval."""
    sent, polls = [], []
    original_signal = KernelManager._async_signal_kernel
    original_wait = KernelManager._async_wait

    async def signal_kernel(self, signum):
        sent.append(signum)
        await original_signal(self, signum)

    async def wait(self, pollinterval=0.1):
        polls.append(pollinterval)
        await original_wait(self, pollinterval)

    monkeypatch.setattr(KernelManager, "_async_signal_kernel", signal_kernel)
    monkeypatch.setattr(KernelManager, "_async_wait", wait)
    return sent, polls


NOTEBOOK = {
    "cells": [
        {"cell_type": "code", "id": "p", "metadata": {"tags": ["parameters"]}, "source": ["x = 1"]},
        {"cell_type": "code", "id": "c", "metadata": {}, "source": ["print(x + 1)\n", "x * 3"]},
    ],
    "metadata": {"kernelspec": {"name": "python3", "language": "python", "display_name": "P"}},
    "nbformat": 4,
    "nbformat_minor": 5,
}


def _outputs(path):
    cells = json.loads(path.read_text())["cells"]
    return [c.get("outputs", []) for c in cells]


def test_a_notebook_runs_with_the_same_outputs_and_no_interrupt_at_shutdown(
    tmp_path, monkeypatch, signals
):
    """``notebooks.execute`` uses the manager: the same outputs as jupyter_client's manager,
    no SIGINT before the shutdown (jupyter_client's manager sends one, the contrast), and the
    kernel's exit polled every EXIT_POLL seconds."""
    sent, polls = signals
    src = tmp_path / "nb.ipynb"
    src.write_text(json.dumps(NOTEBOOK))
    notebooks.execute(src, tmp_path / "ours.ipynb", {"x": 4})
    assert sent == [] and polls and set(polls) == {kernels.EXIT_POLL}

    import papermill as pm

    real = pm.execute_notebook

    def with_jupyters_manager(*args, **kwargs):
        return real(*args, **{**kwargs, "kernel_manager_class": AsyncKernelManager})

    monkeypatch.setattr(pm, "execute_notebook", with_jupyters_manager)
    notebooks.execute(src, tmp_path / "theirs.ipynb", {"x": 4})
    assert signal.SIGINT in sent
    ours, theirs = _outputs(tmp_path / "ours.ipynb"), _outputs(tmp_path / "theirs.ipynb")
    assert ours == theirs and ours[2][0]["text"] == ["5\n"]  # the injected x = 4


def test_an_interrupt_outside_a_shutdown_is_still_sent(signals):
    sent, _ = signals

    async def run():
        km = kernels.Manager(kernel_name="python3")
        await km.start_kernel()
        client = km.client()
        client.start_channels()
        try:
            await client.wait_for_ready(timeout=60)
            await km.interrupt_kernel()
        finally:
            client.stop_channels()
            await km.shutdown_kernel()

    asyncio.run(run())
    assert sent == [signal.SIGINT]


def test_kernels_talk_over_private_unix_sockets_that_are_removed_after(tmp_path, monkeypatch):
    """Two kernels at once get their own socket directories (jupyter_client's default for IPC,
    "kernel-ipc" in the working directory, would give both the same files), the kernels serve
    on them, and shutting a kernel down removes its directory."""
    monkeypatch.chdir(tmp_path)

    async def run():
        managers = [kernels.Manager(kernel_name="python3") for _ in range(2)]
        for km in managers:
            await km.start_kernel()
        folders = [Path(km.ip).parent for km in managers]
        try:
            for km in managers:
                client = km.client()
                client.start_channels()
                await client.wait_for_ready(timeout=60)
                client.stop_channels()
            seen = [sorted(p.name for p in folder.iterdir()) for folder in folders]
        finally:
            for km in managers:
                await km.shutdown_kernel()
        return managers, folders, seen

    managers, folders, seen = asyncio.run(run())
    assert all(km.transport == "ipc" for km in managers)
    assert folders[0] != folders[1] and list(tmp_path.iterdir()) == []
    assert seen == [[f"ipc-{n}" for n in range(1, 6)]] * 2  # shell, iopub, stdin, hb, control
    assert not any(folder.exists() for folder in folders)


def test_a_long_temporary_directory_falls_back_to_tmp(tmp_path, monkeypatch):
    long = tmp_path / ("d" * 120)
    long.mkdir()
    monkeypatch.setenv("TMPDIR", str(long))
    monkeypatch.setattr(tempfile, "tempdir", None)  # re-read TMPDIR
    ip = Path(kernels.Manager(kernel_name="python3").ip)
    try:
        assert ip.parent.parent == Path("/tmp") and len(str(ip)) <= kernels.IPC_PATH_MAX
        assert list(long.iterdir()) == []  # the too-long directory was removed
    finally:
        ip.parent.rmdir()


def test_a_socket_path_the_user_chose_is_left_alone(tmp_path):
    """Only the directory the manager made is removed: an ``ip`` given by the user is not."""
    mine = tmp_path / "mine"
    mine.mkdir()
    km = kernels.Manager(kernel_name="python3", ip=str(mine / "ipc"))
    asyncio.run(km.cleanup_resources())
    assert mine.is_dir()
