"""Reusing running servers between scenarios, against the fake server."""

from pathlib import Path

import pytest

from llama_bdd.harness import capabilities as caps_module
from llama_bdd.harness.capabilities import capabilities_of
from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.pool import ServerPool
from llama_bdd.harness.process import launch_server, stop_all_servers

FAKE = Path(__file__).parent / "fakes" / "fake_llama_server.py"


@pytest.fixture
def start(tmp_path, monkeypatch):
    monkeypatch.setattr(caps_module, "_MEMORY", {})
    monkeypatch.delenv("PORT", raising=False)
    caps = capabilities_of(FAKE)
    counter = iter(range(100))
    yield lambda: launch_server(FAKE, ServerConfig(), caps, [], tmp_path / f"s{next(counter)}.log")
    stop_all_servers()


def test_same_key_gets_the_same_running_server(start):
    pool = ServerPool()
    server = start()
    pool.release("a", server)
    assert pool.acquire("b") is None
    assert pool.acquire("a") is server and pool.reuses == 1
    assert pool.acquire("a") is None  # handed out: not in the pool any more


def test_dead_server_is_not_handed_out(start):
    pool = ServerPool()
    server = start()
    pool.release("a", server)
    server.kill()
    assert pool.acquire("a") is None and pool.reuses == 0


def test_capacity_stops_the_least_recently_used(start):
    pool = ServerPool(capacity=2)
    first, second, third = start(), start(), start()
    pool.release("1", first)
    pool.release("2", second)
    pool.release("3", third)
    assert len(pool) == 2 and not first.is_running() and second.is_running()
    pool.close()
    assert len(pool) == 0 and not second.is_running() and not third.is_running()
