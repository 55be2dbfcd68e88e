"""Saving a slot's KV cache to a file, restoring it, erasing it: ``POST /slots/{id}?action=...``.

The server needs ``--slot-save-path DIR``; files are written under that directory only, by the name the
client gives (``{"filename": "a.bin"}``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from llama_bdd.harness.http import Exchange
from llama_bdd.harness.kvcache_files import files_outside

from .core import expect, expect_equal, expect_status, state_of, step
from .core.scenario import last_exchange, prompt_token_count

SLOT_SAVE_DIR = "slot-save"


def slot_save_dir(context: Any) -> Path:
    return state_of(context).cache_dir(SLOT_SAVE_DIR)


def slot_action(context: Any, slot: int, action: str, filename: str | None = None) -> Exchange:
    """Send one slot action; the answer becomes the last response for the plain HTTP checks."""
    state = state_of(context)
    body = {"filename": filename} if filename is not None else None
    exchange = state.client().post(f"/slots/{slot}", body, params={"action": action})
    state.results.last = exchange
    return exchange


@step("a slot save directory")
def step_slot_save_directory(context: Any) -> None:
    """Start the server with ``--slot-save-path`` set to a fresh directory of this scenario.

    The directory survives server restarts within the scenario and is removed with it.

        Given a slot save directory
    """
    state_of(context).config.options["--slot-save-path"] = str(slot_save_dir(context))


@step("slot {slot:d} is saved to the file {filename}", fresh_server=True)
def step_slot_saved(context: Any, slot: int, filename: str) -> None:
    """Save the slot's KV cache (``action=save``); the server must answer 200.

        When slot 0 is saved to the file prompt-a.bin
    """
    exchange = expect_status(slot_action(context, slot, "save", filename), 200)
    expect_equal(exchange.body.get("filename"), filename, "filename in the save response", exchange)


@step("slot {slot:d} is restored from the file {filename}", fresh_server=True)
def step_slot_restored(context: Any, slot: int, filename: str) -> None:
    """Load a saved KV cache into the slot (``action=restore``); the server must answer 200.

        When slot 0 is restored from the file prompt-a.bin
    """
    exchange = expect_status(slot_action(context, slot, "restore", filename), 200)
    expect_equal(exchange.body.get("filename"), filename, "filename in the restore response", exchange)


@step("slot {slot:d} is erased", fresh_server=True)
def step_slot_erased(context: Any, slot: int) -> None:
    """Clear the slot's KV cache (``action=erase``); the server must answer 200.

        When slot 0 is erased
    """
    expect_status(slot_action(context, slot, "erase"), 200)


@step("the slot save file {filename} exists and is not empty")
def step_slot_save_file_exists(context: Any, filename: str) -> None:
    """The file is in the slot save directory and has at least one byte.

        Then the slot save file prompt-a.bin exists and is not empty
    """
    path = slot_save_dir(context) / filename
    expect(path.is_file(), f"{path} does not exist; the slot save directory holds: "
                           f"{', '.join(p.name for p in path.parent.iterdir()) or 'nothing'}")
    expect(path.stat().st_size > 0, f"{path} is empty")


@step("the response reports {field} equal to the token count of prompt {name:w}")
def step_response_reports_token_count(context: Any, field: str, name: str) -> None:
    """A count in the last response (``n_saved``, ``n_restored``, ``n_erased``) is the prompt's length.

        Then the response reports n_saved equal to the token count of prompt A
    """
    exchange = last_exchange(context)
    expect_equal(exchange.body.get(field), prompt_token_count(context, name),
                 f"{field} (the token count of prompt {name})", exchange)


@step("the response reports {field} equal to the size of the slot save file {filename}")
def step_response_reports_file_size(context: Any, field: str, filename: str) -> None:
    """A byte count in the last response (``n_written``, ``n_read``) is the size of the file on disk.

        Then the response reports n_written equal to the size of the slot save file prompt-a.bin
    """
    path = slot_save_dir(context) / filename
    expect(path.is_file(), f"{path} does not exist")
    exchange = last_exchange(context)
    expect_equal(exchange.body.get(field), path.stat().st_size, f"{field} (the size of {path} in bytes)", exchange)


@step("the slot save directory is empty")
def step_slot_save_directory_empty(context: Any) -> None:
    """Nothing was written into the slot save directory.

        Then the slot save directory is empty
    """
    entries = sorted(p.name for p in slot_save_dir(context).iterdir())
    expect(not entries, f"the slot save directory should be empty, it holds: {', '.join(entries)}",
           state_of(context).results.last)


@step("no file was written outside the slot save directory")
def step_nothing_outside_slot_save_directory(context: Any) -> None:
    """The scenario's directory, the parent of the slot save directory, holds no file besides logs.

        Then no file was written outside the slot save directory
    """
    state = state_of(context)
    strays = files_outside(state.workdir, slot_save_dir(context))
    expect(not strays, f"files were written outside the slot save directory: {', '.join(map(str, strays))}",
           state.results.last)

