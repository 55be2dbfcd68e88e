"""The persistent disk prompt cache: ``--cache-disk``, ``--cache-disk-limit``, ``--cache-disk-write-through``.

Prompts evicted from a slot go to the RAM prompt cache; with a disk cache they also reach ``DIR`` as one
``*.kvc`` file each, at once with write-through, otherwise when the server shuts down gracefully. A later
server finds them there (``__TEST_TAG_CACHE_DISK_STORE__`` and ``__TEST_TAG_CACHE_DISK_HIT__`` in its
``--verbose`` log). The files are checked structurally: how many, how large, unchanged or not.
"""

from __future__ import annotations

import concurrent.futures
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llama_bdd.harness import kvcache_files
from llama_bdd.harness.errors import HarnessError
from llama_bdd.harness.kvcache_files import (MIB, FileFingerprint, describe_files, kvc_files, total_size,
                                              wait_for_files)
from llama_bdd.harness.logs import LogReader

from .core import expect, expect_equal, lifecycle, state_of, step
from .core.scenario import evaluation_payload, named_prompt, send_in_background

DISK_CACHE_DIR = "disk-cache"
FILE_WAIT_TIMEOUT = 10.0
STORE_WATCH_TIMEOUT = 30.0
LOG_TAG_TIMEOUT = 10.0  # the server pumps its log to the file asynchronously
KILLED_REQUEST_TIMEOUT = 10.0


@dataclass
class CacheDiskState:
    """What the disk cache steps remember between steps of a scenario."""

    directory: Path | None = None  # the --cache-disk directory, made on first use
    blocker: Path | None = None  # the regular file that stands where the directory's parent should be
    fingerprint: dict[str, FileFingerprint] | None = None  # the *.kvc files as recorded
    complete_size: int | None = None  # the size of a *.kvc file written without interruption
    start_attempted: bool = False
    start_failure: str | None = None  # why the attempted start failed; None when the server came up


def disk_cache_dir(context: Any) -> Path:
    state = state_of(context)
    remembered = state.part(CacheDiskState)
    if remembered.directory is None:
        remembered.directory = state.cache_dir(DISK_CACHE_DIR)
    return remembered.directory


def only_file(context: Any) -> Path:
    files = kvc_files(disk_cache_dir(context))
    expect_equal(len(files), 1, f"*.kvc files in {disk_cache_dir(context)} ({describe_files(files)})")
    return files[0]


def _use_disk_cache(context: Any, directory: Path) -> None:
    config = state_of(context).config
    config.options["--cache-disk"] = str(directory)
    config.verbose = True  # the store/hit log tags are debug lines


# ----------------------------------------------------------------------------------------------
# configuration
# ----------------------------------------------------------------------------------------------

@step("a disk prompt cache directory")
def step_disk_cache_directory(context: Any) -> None:
    """Start the server with ``--cache-disk`` on a fresh directory of this scenario, and ``--verbose``.

    The directory survives server restarts within the scenario and is removed with it (kept for a failed
    scenario with ``-D preserve=failed``).

        Given a disk prompt cache directory
    """
    _use_disk_cache(context, disk_cache_dir(context))


@step("a disk prompt cache directory that cannot be written")
def step_unwritable_disk_cache_directory(context: Any) -> None:
    """Point ``--cache-disk`` at a path below a regular file: it can be neither created nor written.

    (A read-only directory would not do: the suite may run as root, which writes anyway.)

        Given a disk prompt cache directory that cannot be written
    """
    state = state_of(context)
    blocker = state.workdir / "a-regular-file"
    blocker.write_text("a file where the disk cache directory's parent should be\n")
    remembered = state.part(CacheDiskState)
    remembered.blocker = blocker
    remembered.directory = blocker / DISK_CACHE_DIR
    _use_disk_cache(context, blocker / DISK_CACHE_DIR)


@step("the disk cache writes through")
def step_disk_cache_write_through(context: Any) -> None:
    """``--cache-disk-write-through``: a prompt is written to disk as soon as it enters the RAM cache.

        Given the disk cache writes through
    """
    state_of(context).config.options["--cache-disk-write-through"] = None


@step("a disk cache limit of {mib:d} MiB")
def step_disk_cache_limit(context: Any, mib: int) -> None:
    """``--cache-disk-limit``: the budget of the disk cache directory; the oldest files go first.

        Given a disk cache limit of 5 MiB
    """
    state_of(context).config.options["--cache-disk-limit"] = str(mib)


# ----------------------------------------------------------------------------------------------
# the files
# ----------------------------------------------------------------------------------------------

def _expect_files(context: Any, condition: Any, wanted: str) -> list[Path]:
    directory = disk_cache_dir(context)
    held, files = wait_for_files(directory, condition, FILE_WAIT_TIMEOUT)
    expect(held, f"the disk cache {directory} should hold {wanted} within {FILE_WAIT_TIMEOUT:.0f}s; "
                 f"it holds {len(files)}: {describe_files(files)}", state_of(context).results.last)
    return files


@step("the disk cache holds no files", fresh_server=True)
def step_disk_cache_empty(context: Any) -> None:
    """No ``*.kvc`` file is in the disk cache directory (waits up to 10 s for one being removed).

        Then the disk cache holds no files
    """
    _expect_files(context, lambda files: not files, "no *.kvc file")


@step("the disk cache holds {count:d} files", "the disk cache holds {count:d} file", fresh_server=True)
def step_disk_cache_holds(context: Any, count: int) -> None:
    """Exactly N ``*.kvc`` files are in the disk cache directory (waits up to 10 s for the count).

        Then the disk cache holds 1 file
    """
    _expect_files(context, lambda files: len(files) == count, f"exactly {count} *.kvc file(s)")


@step("the disk cache holds fewer than {count:d} files", fresh_server=True)
def step_disk_cache_holds_fewer(context: Any, count: int) -> None:
    """Fewer than N ``*.kvc`` files are in the disk cache directory (waits up to 10 s).

        Then the disk cache holds fewer than 3 files
    """
    _expect_files(context, lambda files: len(files) < count, f"fewer than {count} *.kvc files")


@step("the disk cache holds at least {count:d} files", "the disk cache holds at least {count:d} file",
      fresh_server=True)
def step_disk_cache_holds_at_least(context: Any, count: int) -> None:
    """At least N ``*.kvc`` files are in the disk cache directory (waits up to 10 s).

        Then the disk cache holds at least 1 file
    """
    _expect_files(context, lambda files: len(files) >= count, f"at least {count} *.kvc file(s)")


@step("the disk cache stays within {mib:d} MiB, or holds a single file", fresh_server=True)
def step_disk_cache_within_budget(context: Any, mib: int) -> None:
    """The ``*.kvc`` files add up to at most N MiB, unless only one (possibly larger) file remains.

        Then the disk cache stays within 5 MiB, or holds a single file
    """
    limit = mib * MIB
    _expect_files(context, lambda files: len(files) <= 1 or total_size(files) <= limit,
                  f"at most {limit} bytes in *.kvc files (or a single file)")


@step("the disk cache files are recorded")
def step_disk_cache_files_recorded(context: Any) -> None:
    """Remember the name, size and content hash of every ``*.kvc`` file, to compare later.

        When the disk cache files are recorded
    """
    state_of(context).part(CacheDiskState).fingerprint = kvcache_files.fingerprint(disk_cache_dir(context))


@step("the disk cache files are unchanged")
def step_disk_cache_files_unchanged(context: Any) -> None:
    """The same ``*.kvc`` files as when they were recorded: same names, sizes and contents.

        Then the disk cache files are unchanged
    """
    recorded = state_of(context).part(CacheDiskState).fingerprint
    expect(recorded is not None, "record the files first: 'When the disk cache files are recorded'")
    expect_equal(kvcache_files.fingerprint(disk_cache_dir(context)), recorded,
                 "the *.kvc files (name -> size, sha256)", state_of(context).results.last)


@step("the disk cache file is corrupted after its header")
def step_disk_cache_file_corrupted(context: Any) -> None:
    """Overwrite 4 bytes of the token section that follows the 48-byte header of the only ``*.kvc`` file.

        When the disk cache file is corrupted after its header
    """
    path = only_file(context)
    offset = kvcache_files.corrupt_after_header(path)
    state_of(context).notes.append(f"(the scenario overwrote 4 bytes of {path} at offset {offset})")


@step("the disk cache file is truncated to half its size")
def step_disk_cache_file_truncated(context: Any) -> None:
    """Cut the only ``*.kvc`` file to half its size, as a crash or a full disk could.

        When the disk cache file is truncated to half its size
    """
    path = only_file(context)
    size = path.stat().st_size
    new_size = kvcache_files.truncate_to_fraction(path, 0.5)
    state_of(context).notes.append(f"(the scenario truncated {path} from {size} to {new_size} bytes)")


@step("the disk cache is emptied")
def step_disk_cache_emptied(context: Any) -> None:
    """Delete every file in the disk cache directory (while no server uses it).

        When the disk cache is emptied
    """
    for path in disk_cache_dir(context).iterdir():
        if path.is_file():
            path.unlink()


@step("the size of the disk cache file is recorded as complete")
def step_disk_cache_complete_size(context: Any) -> None:
    """Remember the size of the only ``*.kvc`` file, written without interruption, as a complete file's.

        When the size of the disk cache file is recorded as complete
    """
    state_of(context).part(CacheDiskState).complete_size = only_file(context).stat().st_size


@step("every disk cache file is complete", fresh_server=True)
def step_disk_cache_files_complete(context: Any) -> None:
    """No ``*.kvc`` file is shorter than the complete file recorded before: nothing half-written.

        Then every disk cache file is complete
    """
    complete = state_of(context).part(CacheDiskState).complete_size
    expect(complete is not None, "record a complete file first: "
                                 "'When the size of the disk cache file is recorded as complete'")
    files = kvc_files(disk_cache_dir(context))
    partial = [path for path in files if path.stat().st_size < complete]
    expect(not partial, f"partial *.kvc file(s), shorter than a complete one ({complete} bytes): "
                        f"{describe_files(partial)}")


# ----------------------------------------------------------------------------------------------
# a store interrupted by kill -9
# ----------------------------------------------------------------------------------------------

@step("the server process is killed", fresh_server=True)
def step_server_process_killed(context: Any) -> None:
    """Stop the server with ``kill -9``, as a crash would: it gets no chance to write anything more.

        When the server process is killed
    """
    state = state_of(context)
    expect(state.server is not None and state.server.is_running(), "no running server of this scenario to kill")
    lifecycle.stop_server(context, graceful=False)


@step("prompt {name:w} is sent and the server process is killed as soon as the disk cache starts writing",
      fresh_server=True)
def step_kill_during_store(context: Any, name: str) -> None:
    """Send the prompt (so the slot's previous prompt is stored) and ``kill -9`` the server mid-store.

    The kill comes the moment a new entry, of any name (a temp file counts), appears in the disk cache
    directory, which is polled every millisecond. Fails if nothing is written within 30 s or the server
    exits by itself. The interrupted request is not checked.

        When prompt B is sent and the server process is killed as soon as the disk cache starts writing
    """
    state = state_of(context)
    expect(state.server is not None and state.server.is_running(), "no running server of this scenario to kill")
    directory = disk_cache_dir(context)
    known = {path.name for path in directory.iterdir()}
    server = state.server
    prompt = named_prompt(context, name)
    send_in_background(context, "/completion", evaluation_payload(context, prompt), {},
                       lambda exchange: exchange)
    entry = kvcache_files.wait_for_new_entry(directory, known, STORE_WATCH_TIMEOUT,
                                             stop=lambda: not server.is_running())
    exited_alone = not server.is_running()
    lifecycle.stop_server(context, graceful=False)
    state.notes.append(f"(the server was killed when '{entry}' appeared in {directory})")
    for pending in state.results.pending:
        try:
            state.results.background.append(pending.future.result(timeout=KILLED_REQUEST_TIMEOUT))
        except concurrent.futures.TimeoutError:
            pending.future.cancel()
    state.results.pending = []
    expect(not exited_alone, f"the server exited by itself (code {server.exit_code}) before the disk cache "
                             f"wrote anything")
    expect(entry is not None, f"nothing was written to {directory} within {STORE_WATCH_TIMEOUT:.0f}s "
                              f"after prompt {name} was sent")


# ----------------------------------------------------------------------------------------------
# a directory the server cannot use
# ----------------------------------------------------------------------------------------------

@step("the server start is attempted")
def step_server_start_attempted(context: Any) -> None:
    """Start the configured server, but let it fail: whether it came up is checked by the next steps.

        When the server start is attempted
    """
    remembered = state_of(context).part(CacheDiskState)
    try:
        lifecycle.start_server(context)
        remembered.start_failure = None
    except HarnessError as error:
        remembered.start_failure = f"{type(error).__name__}: {error}"
    remembered.start_attempted = True


def _whole_log_of(state: Any, failure: str) -> str:
    """The whole log of the server that failed to start (its message quotes only the tail), and the message."""
    if state.server_logs and state.server_logs[-1].is_file():
        return state.server_logs[-1].read_text(errors="replace") + "\n" + failure
    return failure


def lines_naming(text: str, needle: str) -> list[str]:
    """Lines of a log that name ``needle``, leaving out echoes of the command line (they hold ``--port``)."""
    return [line for line in text.splitlines() if needle in line and "--port" not in line]


@step("the unusable disk cache directory is reported clearly")
def step_unusable_directory_reported(context: Any) -> None:
    """The server names the directory it cannot use, and does not crash.

    Either it refused to start (a non-zero exit code, not a signal, and the path in its log), or it
    runs, says so in its log (the path again), and still answers a completion without the disk cache.
    Echoes of the command line do not count as naming the path.

        Then the unusable disk cache directory is reported clearly
    """
    state = state_of(context)
    remembered = state.part(CacheDiskState)
    expect(remembered.start_attempted, "try starting the server first: 'When the server start is attempted'")
    expect(remembered.blocker is not None,
           "no unusable directory was set up: add 'Given a disk prompt cache directory that cannot be written'")
    blocker = str(remembered.blocker)
    failure = remembered.start_failure
    if failure is not None:
        code = re.search(r"exited with code (-?\d+)", failure)
        expect(code is not None, f"the server neither started nor exited:\n{failure}")
        expect(int(code.group(1)) > 0, f"the server should exit with an error code, not be killed by a signal:\n"
                                       f"{failure}")
        expect(bool(lines_naming(_whole_log_of(state, failure), blocker)),
               f"the server exited without naming the directory ({blocker}...) in its log:\n{failure}")
        return
    server = state.server
    reader = LogReader(server.log_path)
    seen = ""
    deadline = time.monotonic() + LOG_TAG_TIMEOUT
    while not lines_naming(seen, blocker) and time.monotonic() < deadline and server.is_running():
        seen += reader.drain()
        time.sleep(0.05)
    seen += reader.drain()
    expect(bool(lines_naming(seen, blocker)),
           f"the server started but its log does not name the unusable directory ({blocker}...)")
    answer = state.client().post("/completion", {"prompt": "Hello", "n_predict": 1})
    state.results.last = answer
    expect_equal(answer.status, 200, "HTTP status of a completion without a usable disk cache", answer)
