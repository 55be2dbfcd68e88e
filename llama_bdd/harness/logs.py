"""Reading a server's log file: the tail for failure reports, and bounded waits for log tags."""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path
from typing import Callable


class LogReader:
    """Reads a log file that another process is still writing, from a remembered offset."""

    def __init__(self, path: Path, from_end: bool = False):
        self.path = Path(path)
        self.offset = self.path.stat().st_size if from_end and self.path.exists() else 0

    def drain(self) -> str:
        """Everything written since the last drain."""
        if not self.path.exists():
            return ""
        with self.path.open("rb") as stream:
            stream.seek(self.offset)
            data = stream.read()
        self.offset += len(data)
        return data.decode("utf-8", errors="replace")

    def tail(self, lines: int = 40) -> str:
        if not self.path.exists():
            return "(no log file)"
        with self.path.open("rb") as stream:
            last = deque(stream, maxlen=lines)
        return b"".join(last).decode("utf-8", errors="replace").rstrip("\n") or "(empty log)"

    def wait_for(self, text: str, timeout: float, bail: Callable[[], bool] | None = None) -> bool:
        """Wait until ``text`` appears after the current offset; False on timeout or when ``bail()``."""
        deadline = time.monotonic() + timeout
        seen = ""
        while True:
            seen += self.drain()
            if text in seen:
                return True
            if time.monotonic() >= deadline or (bail is not None and bail()):
                return False
            time.sleep(0.05)
