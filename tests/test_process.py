"""Starting, health-waiting and stopping servers, against a small fake llama-server."""

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from llama_bdd.harness import capabilities as caps_module
from llama_bdd.harness.capabilities import capabilities_of
from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.errors import HarnessError, ServerStartError
from llama_bdd.harness.process import launch_server, live_servers, stop_all_servers

FAKE = Path(__file__).parent / "fakes" / "fake_llama_server.py"


@pytest.fixture
def caps(monkeypatch):
    monkeypatch.setattr(caps_module, "_MEMORY", {})
    monkeypatch.delenv("PORT", raising=False)
    return capabilities_of(FAKE)


@pytest.fixture(autouse=True)
def no_leftovers():
    yield
    stop_all_servers()


def start(tmp_path, caps, *user_args, timeout=15):
    return launch_server(FAKE, ServerConfig(), caps, list(user_args), tmp_path / "server.log", timeout=timeout)


def test_starts_on_loopback_and_stops_gracefully(tmp_path, caps):
    server = start(tmp_path, caps)
    assert server.is_running() and server.base_url.startswith("http://127.0.0.1:")
    assert server.command.injected[:2] == ["--host", "127.0.0.1"]
    assert server in live_servers()
    assert server.stop() == 0
    assert not psutil.pid_exists(server.pid) or psutil.Process(server.pid).status() == psutil.STATUS_ZOMBIE
    assert server not in live_servers()
    assert "### llama-bdd started:" in (tmp_path / "server.log").read_text()


def test_waits_through_loading(tmp_path, caps):
    server = start(tmp_path, caps, "--slow-start", "0.5")
    assert server.startup_seconds >= 0.4


def test_process_exit_fails_at_once_with_log_tail(tmp_path, caps):
    began = time.monotonic()
    with pytest.raises(ServerStartError) as failure:
        start(tmp_path, caps, "--crash", timeout=60)
    assert time.monotonic() - began < 10
    message = str(failure.value)
    assert "exited with code 3" in message and "model file not found" in message and "--crash" in message


def test_health_deadline(tmp_path, caps):
    with pytest.raises(ServerStartError, match="did not become healthy within 1s"):
        start(tmp_path, caps, "--slow-start", "30", timeout=1)
    assert live_servers() == []


def test_sigterm_ignored_means_sigkill(tmp_path, caps):
    server = start(tmp_path, caps, "--ignore-sigterm")
    began = time.monotonic()
    code = server.stop(timeout=1)
    assert code == -signal.SIGKILL and time.monotonic() - began < 5


def test_user_may_not_move_off_loopback(tmp_path, caps):
    with pytest.raises(HarnessError, match="127.0.0.1 only"):
        start(tmp_path, caps, "--host", "0.0.0.0")


def test_pinned_port(tmp_path, caps, monkeypatch):
    import socket
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("PORT", str(port))
    server = start(tmp_path, caps)
    assert server.port == port and f"--port {port}" in " ".join(server.command.args)


@pytest.mark.parametrize("server_args", [[], ["--ignore-sigterm"]], ids=["graceful", "hangs-on-sigterm"])
def test_servers_die_with_the_process_that_started_them(tmp_path, server_args):
    # A child Python process starts a fake server, then is SIGKILLed: no cleanup code runs in it,
    # yet the server must go (PR_SET_PDEATHSIG), so no server outlives a killed test run; the kernel
    # sends SIGKILL, so even a server that would hang in its SIGTERM shutdown goes.
    script = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from llama_bdd.harness.capabilities import capabilities_of
        from llama_bdd.harness.config import ServerConfig
        from llama_bdd.harness.process import launch_server
        fake = Path({str(FAKE)!r})
        server = launch_server(fake, ServerConfig(), capabilities_of(fake), {server_args!r}, Path({str(tmp_path / 'x.log')!r}))
        print(server.pid, flush=True)
        time.sleep(60)
    """)
    runner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "PORT": ""})
    server_pid = int(runner.stdout.readline())
    try:
        assert psutil.pid_exists(server_pid)
        runner.kill()
        runner.wait()
        deadline = time.monotonic() + 10
        while psutil.pid_exists(server_pid) and psutil.Process(server_pid).status() != psutil.STATUS_ZOMBIE:
            assert time.monotonic() < deadline, "the server outlived the process that started it"
            time.sleep(0.1)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(server_pid, signal.SIGKILL)  # only if the test failed: never leave the fake behind
