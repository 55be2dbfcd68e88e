"""Starting, watching and stopping llama-server processes.

Every server binds 127.0.0.1 on a free port (``PORT`` pins it), writes its log to a file of its own, is
ready when ``GET /health`` answers 200, and is stopped by PID: SIGTERM, a bounded wait (the disk cache
flushes on a graceful shutdown), then SIGKILL to its process group. Servers still running when the
Python process exits are stopped by an ``atexit`` handler, and on Linux each server also gets SIGKILL
from the kernel if the process that started it dies (``PR_SET_PDEATHSIG``), so none is ever left behind.
"""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence

import requests

from .capabilities import Capabilities
from .config import ServerConfig
from .errors import HarnessError, ServerStartError
from .http import loopback_session
from .launch import Flag, LaunchCommand, build_launch_command, flag_value, passed_flags
from .logs import LogReader
from .timing import timed

LOOPBACK = "127.0.0.1"
DEFAULT_START_TIMEOUT = float(os.environ.get("LLAMA_BDD_START_TIMEOUT", "120"))
DEFAULT_STOP_TIMEOUT = 20.0

_LIVE: dict[int, "ServerProcess"] = {}


def free_port() -> int:
    """A TCP port nobody listens on right now (``PORT`` in the environment pins it instead)."""
    pinned = os.environ.get("PORT")
    if pinned:
        return int(pinned)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOOPBACK, 0))
        return probe.getsockname()[1]


# loaded here, in the parent: the child may only make the prctl call (no dlopen between fork and exec)
_LIBC = ctypes.CDLL("libc.so.6", use_errno=True) if sys.platform.startswith("linux") else None
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    # SIGKILL, not SIGTERM: once the parent is gone nobody is left to escalate, and a server stuck in its
    # graceful shutdown (it waits for open connections) would live on. The signal comes when the thread
    # that forked exits, so servers are started from threads that live as long as the run (the main one).
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


@dataclass
class ServerProcess:
    """One llama-server started by this harness."""

    command: LaunchCommand = field(repr=False)  # may hold an API key; command.render() masks it
    port: int
    log_path: Path
    env: dict[str, str] | None = None
    popen: subprocess.Popen | None = field(default=None, repr=False)
    startup_seconds: float | None = None
    exit_code: int | None = None
    scheme: str = "http"  # https for a server given a certificate (the harness trusts its CA)

    @property
    def base_url(self) -> str:
        return f"{self.scheme}://{LOOPBACK}:{self.port}"

    @property
    def pid(self) -> int | None:
        return self.popen.pid if self.popen else None

    def start(self) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            log.write(f"### llama-bdd started: {self.command.render()}\n".encode())
            log.flush()
            self.popen = subprocess.Popen(
                self.command.argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=_die_with_parent, env=self.env, close_fds=True)
        _LIVE[self.popen.pid] = self

    def is_running(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def wait_until_healthy(self, timeout: float = DEFAULT_START_TIMEOUT) -> None:
        """Poll ``GET /health`` until 200; fail at once, with the log tail, if the process exits."""
        started = time.monotonic()
        deadline = started + timeout
        last_answer = "no answer yet"
        with loopback_session() as session:
            while True:
                if not self.is_running():
                    code = self.popen.returncode if self.popen else None
                    self.exit_code = code
                    _LIVE.pop(self.pid, None)
                    raise ServerStartError(
                        f"llama-server exited with code {code} before it became healthy.\n"
                        f"command: {self.command.render()}\n{self.describe_log()}")
                try:
                    answer = session.get(f"{self.base_url}/health", timeout=2)
                    if answer.status_code == 200:
                        self.startup_seconds = time.monotonic() - started
                        return
                    last_answer = f"HTTP {answer.status_code}: {answer.text[:200]}"
                except requests.RequestException as error:
                    last_answer = f"{type(error).__name__}"
                if time.monotonic() > deadline:
                    raise ServerStartError(
                        f"llama-server did not become healthy within {timeout:.0f}s "
                        f"(last /health answer: {last_answer}).\n"
                        f"command: {self.command.render()}\n{self.describe_log()}")
                time.sleep(0.05)

    def stop(self, timeout: float = DEFAULT_STOP_TIMEOUT) -> int | None:
        """Graceful stop: SIGTERM, wait up to ``timeout``, then SIGKILL the whole process group."""
        if self.popen is None:
            return None
        with timed("server_stop"):
            return self._stop(timeout)

    def _stop(self, timeout: float) -> int | None:
        # The leader is reaped last: until then its pid, which is also the group id, cannot be reused,
        # so the SIGKILL to the group can only reach this server and what it spawned.
        if self.popen.returncode is None:
            try:
                os.kill(self.popen.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            if not self._exited(timeout):
                self._kill_group()
                self._exited(10)
            self._kill_group()  # anything the server itself spawned
            self.popen.wait(timeout=10)
        self.exit_code = self.popen.returncode
        _LIVE.pop(self.popen.pid, None)
        return self.exit_code

    def kill(self) -> None:
        """Abrupt stop (``kill -9``), as a crash would do it."""
        if self.popen is not None and self.popen.returncode is None:
            self._kill_group()
            self.popen.wait(timeout=10)
            self.exit_code = self.popen.returncode
        if self.popen is not None:
            _LIVE.pop(self.popen.pid, None)

    def _exited(self, timeout: float) -> bool:
        """Wait (bounded) until the leader has exited, without reaping it."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if os.waitid(os.P_PID, self.popen.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                    return True
            except ChildProcessError:
                return True  # already reaped
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.02)

    def _kill_group(self) -> None:
        if self.popen.returncode is not None:
            return  # reaped: the group id may already belong to someone else
        try:
            os.killpg(self.popen.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def log_reader(self) -> LogReader:
        return LogReader(self.log_path)

    def describe_log(self, lines: int = 40) -> str:
        tail = LogReader(self.log_path).tail(lines)
        return f"last {lines} lines of the server log {self.log_path}:\n{tail}"


def stop_all_servers() -> None:
    """Stop every server this Python process started and has not stopped yet."""
    for server in list(_LIVE.values()):
        try:
            server.stop(timeout=10)
        except Exception:  # noqa: BLE001 - a cleanup must reach every server
            pass


def live_servers() -> list[ServerProcess]:
    return list(_LIVE.values())


atexit.register(stop_all_servers)


def plan_launch(binary: Path, config: ServerConfig, capabilities: Capabilities, user_args: Sequence[str],
                port: int, extra_flags: Sequence[Flag] = ()) -> LaunchCommand:
    """The command that would start a server for ``config``; ``unsupported`` lists what the binary lacks."""
    user_args = [*user_args, *config.extra_args]
    if "--host" in passed_flags(user_args, capabilities):
        raise HarnessError("User arguments may not set --host: the suite binds llama-server to 127.0.0.1 only.")
    flags = [Flag("--host", (LOOPBACK,)), Flag("--port", (str(port),)), *config.flags(), *extra_flags]
    return build_launch_command(str(binary), flags, user_args, capabilities)


def launch_server(binary: Path, config: ServerConfig, capabilities: Capabilities, user_args: Sequence[str],
                  log_path: Path, extra_flags: Sequence[Flag] = (), env: dict[str, str] | None = None,
                  timeout: float = DEFAULT_START_TIMEOUT) -> ServerProcess:
    """Start a server for ``config`` and wait until it is healthy.

    A free port is picked (unless ``PORT`` or a user ``--port`` pins one) and picked again if another
    process took it before the server could bind it.
    """
    user_port = flag_value([*user_args, *config.extra_args], "--port")
    pinned = user_port is not None or bool(os.environ.get("PORT"))
    attempts = 1 if pinned else 3
    for attempt in range(1, attempts + 1):
        port = int(user_port) if user_port is not None else free_port()
        command = plan_launch(binary, config, capabilities, user_args, port, extra_flags)
        if command.unsupported:
            raise HarnessError(f"{binary} ({capabilities.version}) does not support "
                               f"{', '.join(command.unsupported)}")
        server = ServerProcess(command=command, port=port, log_path=log_path, env=env, scheme=config.scheme)
        try:
            with timed("server_start"):
                server.start()
                server.wait_until_healthy(timeout)
            return server
        except ServerStartError:
            server.stop(timeout=5)
            port_taken = "bind" in LogReader(log_path).tail(20).lower()
            if attempt == attempts or not port_taken:
                raise
        except BaseException:
            server.stop(timeout=5)
            raise
    raise AssertionError("unreachable")
