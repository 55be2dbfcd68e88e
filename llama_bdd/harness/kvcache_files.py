"""Files of the server's KV caches on disk: listing, waiting for them, and damaging them on purpose.

The persistent disk prompt cache (``--cache-disk DIR``) keeps one ``*.kvc`` file per cached prompt: a
48-byte header, then the serialized prompt tokens, then the KV state. Slot save files
(``--slot-save-path``) are named by the client. Nothing here knows of behave.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable

KVC_PATTERN = "*.kvc"
KVC_HEADER_SIZE = 48
# Where the seed test damages a cache file: 4 bytes into the token section that follows the header.
CORRUPT_OFFSET = KVC_HEADER_SIZE + 4
CORRUPT_BYTES = b"\xff\xff\xff\xff"
MIB = 1024 * 1024


def kvc_files(directory: Path) -> list[Path]:
    """The ``*.kvc`` files directly in ``directory``, sorted by name (none when it does not exist)."""
    directory = Path(directory)
    if not directory.is_dir():
        return []
    return sorted(path for path in directory.glob(KVC_PATTERN) if path.is_file())


def total_size(paths: Iterable[Path]) -> int:
    """The summed size in bytes of the files that still exist."""
    size = 0
    for path in paths:
        try:
            size += Path(path).stat().st_size
        except FileNotFoundError:
            pass
    return size


def describe_files(paths: Iterable[Path]) -> str:
    """``name (N bytes)`` per file, for failure messages."""
    lines = []
    for path in paths:
        try:
            lines.append(f"{Path(path).name} ({Path(path).stat().st_size} bytes)")
        except FileNotFoundError:
            lines.append(f"{Path(path).name} (gone)")
    return ", ".join(lines) or "(none)"


def wait_for_files(directory: Path, condition: Callable[[list[Path]], bool], timeout: float,
                   poll: float = 0.05) -> tuple[bool, list[Path]]:
    """Poll the ``*.kvc`` listing until ``condition(files)`` holds; (held, last listing) after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        files = kvc_files(directory)
        if condition(files):
            return True, files
        if time.monotonic() >= deadline:
            return False, files
        time.sleep(poll)


def wait_for_new_entry(directory: Path, known: set[str], timeout: float,
                       stop: Callable[[], bool] | None = None, poll: float = 0.001) -> str | None:
    """The name of the first entry of ``directory`` not in ``known`` (any name: temp files count).

    Polls fast, so a writer can be caught in the act. None on timeout or as soon as ``stop()`` is true.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            with os.scandir(directory) as entries:
                for entry in entries:
                    if entry.name not in known:
                        return entry.name
        except FileNotFoundError:
            pass
        if time.monotonic() >= deadline or (stop is not None and stop()):
            return None
        time.sleep(poll)


def overwrite_bytes(path: Path, offset: int, data: bytes) -> None:
    """Write ``data`` over the file's bytes at ``offset`` (the file keeps its size when it is long enough)."""
    size = Path(path).stat().st_size
    if offset + len(data) > size:
        raise ValueError(f"{path} has {size} bytes; cannot overwrite {len(data)} bytes at offset {offset}")
    with open(path, "r+b") as stream:
        stream.seek(offset)
        stream.write(data)


def corrupt_after_header(path: Path) -> int:
    """Damage the token section right after the 48-byte header, as the seed test does; returns the offset."""
    overwrite_bytes(path, CORRUPT_OFFSET, CORRUPT_BYTES)
    return CORRUPT_OFFSET


def truncate_to_fraction(path: Path, fraction: float) -> int:
    """Cut the file to ``fraction`` of its size (at least one byte shorter); returns the new size."""
    if not 0 <= fraction < 1:
        raise ValueError(f"fraction must be in [0, 1), got {fraction}")
    size = Path(path).stat().st_size
    new_size = min(int(size * fraction), max(size - 1, 0))
    os.truncate(path, new_size)
    return new_size


@dataclass(frozen=True)
class FileFingerprint:
    size: int
    sha256: str


def fingerprint(directory: Path) -> dict[str, FileFingerprint]:
    """Name -> size and content hash of every ``*.kvc`` file in ``directory``."""
    prints = {}
    for path in kvc_files(directory):
        prints[path.name] = FileFingerprint(path.stat().st_size, hashlib.sha256(path.read_bytes()).hexdigest())
    return prints


def files_outside(root: Path, inside: Path, ignore_suffixes: tuple[str, ...] = (".log",)) -> list[Path]:
    """Files under ``root`` that are neither under ``inside`` nor end with one of ``ignore_suffixes``."""
    root, inside = Path(root).resolve(), Path(inside).resolve()
    found = []
    for path in sorted(root.rglob("*")):
        if not path.is_file() or path.name.endswith(ignore_suffixes):
            continue
        resolved = path.resolve()
        if resolved == inside or inside in resolved.parents:
            continue
        found.append(path)
    return found
