"""Running servers kept for reuse by later scenarios with an identical configuration.

A server is handed out again only when its key (binary, configuration, user arguments) is identical,
and only after it answers ``/health`` 200 with every slot idle. At most ``capacity`` idle servers are
kept; the least recently used one is stopped to make room.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Hashable, Mapping

import requests

from .http import loopback_session
from .process import ServerProcess


def is_reusable(server: ServerProcess, headers: Mapping[str, str] | None = None, timeout: float = 5.0) -> bool:
    """Running, healthy, and no slot busy with an earlier request (``headers`` carry an API key if needed)."""
    if not server.is_running():
        return False
    try:
        with loopback_session() as session:
            health = session.get(f"{server.base_url}/health", timeout=timeout)
            slots = session.get(f"{server.base_url}/slots", headers=headers, timeout=timeout)
        listing = slots.json() if slots.status_code == 200 else None
    except (requests.RequestException, ValueError):
        return False
    if health.status_code != 200:
        return False
    if isinstance(listing, list):  # /slots may be disabled (--no-slots) or protected; health alone then
        return not any(slot.get("is_processing") for slot in listing)
    return True


class ServerPool:
    def __init__(self, capacity: int = 3):
        self.capacity = capacity
        self._idle: OrderedDict[Hashable, ServerProcess] = OrderedDict()
        self.reuses = 0

    def acquire(self, key: Hashable, headers: Mapping[str, str] | None = None) -> ServerProcess | None:
        server = self._idle.pop(key, None)
        if server is None:
            return None
        if not is_reusable(server, headers):
            server.stop(timeout=5)
            return None
        self.reuses += 1
        return server

    def release(self, key: Hashable, server: ServerProcess) -> None:
        previous = self._idle.pop(key, None)
        if previous is not None and previous is not server:
            previous.stop()
        self._idle[key] = server
        while len(self._idle) > self.capacity:
            _, oldest = self._idle.popitem(last=False)
            oldest.stop()

    def close(self) -> None:
        while self._idle:
            _, server = self._idle.popitem()
            server.stop()

    def __len__(self) -> int:
        return len(self._idle)
