"""Health and slots: ``/health``, ``/slots`` (``is_processing``, ``fail_on_no_slot``) and ``/props``.

``/slots?fail_on_no_slot=1`` answers 503 when every slot is processing; the slot list says which ones are.
Every wait here is bounded and polls; a ``bail`` callable ends it early when the state can no longer come.
"""

from __future__ import annotations

import time
from typing import Callable

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect_equal, expect_status, json_or_none

HEALTH_TIMEOUT = 10.0
SLOT_STATE_TIMEOUT = 30.0
POLL_INTERVAL = 0.02


def wait_until_health_ok(http: HttpClient, timeout: float = HEALTH_TIMEOUT) -> Exchange:
    """Poll ``/health`` until it answers 200 ``{"status": "ok"}``; the answer seen is kept in the history."""
    deadline = time.monotonic() + timeout
    while True:
        answer = http.get("/health", record=False, timeout=5)
        if answer.status == 200 and json_or_none(answer) == {"status": "ok"}:
            http.history.append(answer)
            return answer
        if time.monotonic() > deadline:
            http.history.append(answer)
            raise AssertionError(f'/health did not answer 200 {{"status": "ok"}} within {timeout:.0f}s\n'
                                 f"{answer.describe()}")
        time.sleep(0.1)


def total_slots(http: HttpClient) -> int:
    """What ``/props`` says: ``total_slots``."""
    return int(expect_status(http.get("/props"), 200).body["total_slots"])


def wait_for_slots(http: HttpClient, n_slots: int, processing: bool, timeout: float = SLOT_STATE_TIMEOUT,
                   requests_done: Callable[[], bool] | None = None) -> None:
    """Poll ``/slots`` until all ``n_slots`` slots are processing (or all idle).

    ``requests_done`` tells when the requests that keep the slots busy have all finished: waiting for
    busy slots then fails at once, since the state can no longer come.
    """
    deadline = time.monotonic() + timeout
    while True:
        answer = http.get("/slots", params={"fail_on_no_slot": 1}, record=False, timeout=10)
        slots = json_or_none(answer)
        if processing and answer.status == 503:
            # 503 "no slot available": confirm with the slot list that all of them are processing
            listing = http.get("/slots", record=False, timeout=10)
            slots = json_or_none(listing)
            if isinstance(slots, list) and len(slots) == n_slots and all(s.get("is_processing") for s in slots):
                http.history += [answer, listing]
                return
        if not processing and answer.status == 200 and isinstance(slots, list):
            if len(slots) == n_slots and not any(s.get("is_processing") for s in slots):
                http.history.append(answer)
                return
        if processing and requests_done is not None and requests_done():
            http.history.append(answer)
            raise AssertionError(
                f"every request finished before all {n_slots} slots were seen processing at once; "
                f"make the requests longer (more tokens to predict) so the busy state can be observed")
        if time.monotonic() > deadline:
            http.history.append(answer)
            wanted = "processing" if processing else "idle"
            raise AssertionError(f"not all {n_slots} slots were {wanted} within {timeout:.0f}s\n{answer.describe()}")
        time.sleep(POLL_INTERVAL)


def expect_slots_state(http: HttpClient, n_slots: int, processing: bool) -> None:
    """One read of ``/slots``: exactly ``n_slots`` slots, each processing (or not) right now."""
    answer = expect_status(http.get("/slots"), 200)
    slots = answer.body
    expect_equal(len(slots), n_slots, "number of slots in /slots", answer)
    for slot in slots:
        expect_equal(slot["is_processing"], processing, f"slot {slot['id']} is_processing", answer)


def expect_slot_count(http: HttpClient, n_slots: int) -> None:
    """``/slots`` lists slots 0..N-1 and ``/props`` says ``total_slots`` N."""
    listing = expect_status(http.get("/slots"), 200)
    expect_equal([slot["id"] for slot in listing.body], list(range(n_slots)), "slot ids in /slots", listing)
    props = expect_status(http.get("/props"), 200)
    expect_equal(props.body.get("total_slots"), n_slots, "total_slots in /props", props)
