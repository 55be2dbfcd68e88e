"""Ctrl-C (SIGINT to the run's process group) or SIGTERM mid-scenario leaves no server behind.

Runs behave for real on tests/interrupt_features, with the fake server standing in for llama-server.
"""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fakes" / "fake_llama_server.py"


def server_gone(pid: int) -> bool:
    return not psutil.pid_exists(pid) or psutil.Process(pid).status() == psutil.STATUS_ZOMBIE


@pytest.mark.parametrize("how", ["ctrl-c", "sigterm"])
def test_interrupt_leaves_no_server(tmp_path, how):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    pid_file = tmp_path / "pid"
    env = {**os.environ, "LLAMA_SERVER_BIN_PATH": str(FAKE), "LLAMA_BDD_MODEL_PATH": str(model),
           "LLAMA_BDD_CACHE": str(tmp_path / "cache"), "LLAMA_BDD_WORKDIR": str(tmp_path / "work")}
    env.pop("PORT", None)
    run = subprocess.Popen([sys.executable, "-m", "behave", "--no-junit", "-f", "plain", "-D", f"pid_file={pid_file}",
                            "tests/interrupt_features"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, start_new_session=True)
    deadline = time.monotonic() + 60
    while not (pid_file.exists() and pid_file.read_text()):
        assert run.poll() is None, run.stdout.read()
        assert time.monotonic() < deadline, "the scenario never started its server"
        time.sleep(0.1)
    server_pid = int(pid_file.read_text())
    assert psutil.pid_exists(server_pid)
    if how == "ctrl-c":
        os.killpg(run.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
    else:
        run.send_signal(signal.SIGTERM)  # what CI does
    output, _ = run.communicate(timeout=60)
    assert run.returncode != 0, output
    deadline = time.monotonic() + 10
    while not server_gone(server_pid):
        assert time.monotonic() < deadline, f"server {server_pid} survived the interrupted run:\n{output}"
        time.sleep(0.1)
    assert not any(p.name() == "fake_llama_server.py" or str(FAKE) in " ".join(p.cmdline())
                   for p in psutil.Process(os.getpid()).children(recursive=True) if p.is_running()
                   and p.status() != psutil.STATUS_ZOMBIE)
    # temp dirs of the run are cleaned up too
    leftovers = [p for p in (tmp_path / "work").rglob("*") if p.is_file()]
    assert leftovers == [], leftovers
