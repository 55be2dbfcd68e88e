"""Where a run's wall time goes: starting servers, stopping them, waiting on HTTP.

``timed(category)`` adds the time spent in its block to ``totals()``; nested blocks count once (only the
outermost block of a thread is timed), so a health poll inside a server start is not counted twice.
The benchmark (``llama_bdd.tools.bench``) reports these figures.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import defaultdict
from typing import Iterator

_TOTALS: dict[str, float] = defaultdict(float)
_COUNTS: dict[str, int] = defaultdict(int)
_DEPTH = threading.local()
_LOCK = threading.Lock()


@contextlib.contextmanager
def timed(category: str) -> Iterator[None]:
    depth = getattr(_DEPTH, "value", 0)
    _DEPTH.value = depth + 1
    started = time.monotonic()
    try:
        yield
    finally:
        _DEPTH.value = depth
        if depth == 0:
            with _LOCK:
                _TOTALS[category] += time.monotonic() - started
                _COUNTS[category] += 1


def totals() -> dict[str, dict[str, float]]:
    with _LOCK:
        return {name: {"seconds": round(_TOTALS[name], 3), "count": _COUNTS[name]} for name in _TOTALS}


def reset() -> None:
    with _LOCK:
        _TOTALS.clear()
        _COUNTS.clear()
