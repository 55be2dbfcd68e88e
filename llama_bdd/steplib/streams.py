"""Resumable streams: streamed chats kept under a conversation id, looked up, replayed and stopped.

Conversation names in phrases become ids unique to the scenario (the server keeps finished streams for
300 s, and a server may be shared by several scenarios).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from llama_bdd.client import streams as streams_client
from llama_bdd.client.checks import expect_error
from llama_bdd.client.streams import StreamedChat
from llama_bdd.harness.http import Exchange

from .core import expect, expect_equal, expect_status, state_of, step

CHAT_TOKENS = 24


@dataclass
class StreamsState:
    """What the stream steps remember between steps of a scenario."""

    ids: dict[str, str] = field(default_factory=dict)  # conversation name -> id sent to the server
    chats: dict[str, StreamedChat] = field(default_factory=dict)
    replays: dict[str, Exchange] = field(default_factory=dict)  # conversation name -> last replay from 0
    probes: list[tuple[str, Exchange, Exchange]] = field(default_factory=list)  # what, answer, reference


def _id(context: Any, name: str) -> str:
    ids = state_of(context).part(StreamsState).ids
    return ids.setdefault(name, f"{name}-{uuid.uuid4().hex[:12]}")


def _chat(context: Any, name: str) -> StreamedChat:
    chats = state_of(context).part(StreamsState).chats
    expect(name in chats, f"no streamed chat {name}: add 'When a streamed chat is sent as conversation {name}'")
    return chats[name]


def _send(context: Any, name: str, drop: bool) -> None:
    state = state_of(context)
    payload = streams_client.chat_payload(CHAT_TOKENS, state.request.effective_seed)
    chat = streams_client.stream_chat(state.client().base_url, _id(context, name), payload, drop,
                                      headers=state.request.auth_headers())
    state.part(StreamsState).chats[name] = chat
    state.results.background.append(chat.exchange)
    state.results.last = chat.exchange


@step("a streamed chat is sent as conversation {name:w}")
def step_streamed_chat(context: Any, name: str) -> None:
    """Stream a greedy chat of a fixed length with ``X-Conversation-Id``, and read it whole.

        When a streamed chat is sent as conversation mine
    """
    _send(context, name, drop=False)


@step("a streamed chat is sent as conversation {name:w} and dropped after its first event")
def step_streamed_chat_dropped(context: Any, name: str) -> None:
    """The same chat, but the caller hangs up as soon as the first event arrived (a page reload, say).

        When a streamed chat is sent as conversation mine and dropped after its first event
    """
    _send(context, name, drop=True)


@step("conversation {name:w} is replayed")
def step_replay(context: Any, name: str) -> None:
    """``GET /v1/stream?conv_id=ID&from=0`` once the server says the stream is done; 200, event stream.

        When conversation mine is replayed
    """
    state = state_of(context)
    headers = state.request.auth_headers()
    streams_client.wait_until_done(state.client(), _id(context, name), headers=headers)
    exchange = expect_status(streams_client.replay(state.client(), _id(context, name), 0, headers=headers), 200)
    state.part(StreamsState).replays[name] = exchange
    state.results.last = exchange


@step("the replay of conversation {name:w} is what its caller received")
def step_replay_is_original(context: Any, name: str) -> None:
    """The replay from byte 0 is, byte for byte, the stream its caller read to the end.

        Then the replay of conversation mine is what its caller received
    """
    chat, replay = _chat(context, name), _replay(context, name)
    expect(not chat.dropped, f"conversation {name} was dropped: its caller did not receive it all")
    expect_equal(replay.response_text, chat.raw, f"replay of conversation {name}", replay)


@step("the replay of conversation {name:w} is the whole chat")
def step_replay_is_whole(context: Any, name: str) -> None:
    """The replay holds every token of the chat (usage counts them all) and ends with ``data: [DONE]``, and it
    starts with what the caller received before hanging up.

        Then the replay of conversation mine is the whole chat
    """
    chat, replay = _chat(context, name), _replay(context, name)
    content, usage, done = streams_client.chat_of(replay.response_text)
    expect(done, "the replay does not end with data: [DONE]", replay)
    expect(usage is not None, "the replay carries no usage", replay)
    expect_equal(usage.get("completion_tokens"), CHAT_TOKENS, "usage.completion_tokens of the replay", replay)
    expect(content != "", "the replay carries no content", replay)
    first_event = chat.raw.split("\n\n", 1)[0]
    expect(replay.response_text.startswith(first_event),
           f"the replay does not start with what the caller received first ({first_event[:200]!r})", replay)


@step("the replay of conversation {name:w} from byte {offset:d} is the rest of it")
def step_replay_from(context: Any, name: str, offset: int) -> None:
    """``GET /v1/stream?...&from=N`` answers exactly the full replay's bytes from N on.

        Then the replay of conversation mine from byte 100 is the rest of it
    """
    state = state_of(context)
    full = _replay(context, name)
    part = expect_status(streams_client.replay(state.client(), _id(context, name), offset,
                                               headers=state.request.auth_headers()), 200)
    state.results.last = part
    expect_equal(part.response_text, full.response_text.encode()[offset:].decode("utf-8", errors="replace"),
                 f"replay from byte {offset}", part)


def _replay(context: Any, name: str) -> Exchange:
    replays = state_of(context).part(StreamsState).replays
    expect(name in replays, f"conversation {name} was not replayed: add 'When conversation {name} is replayed'")
    return replays[name]


@step("the lookup of conversation {name:w} says it is done, with the size of its replay")
def step_lookup_done(context: Any, name: str) -> None:
    """``POST /v1/streams/lookup`` for the id: one entry, that id, ``is_done``, ``total_bytes`` the replay's size.

        Then the lookup of conversation mine says it is done, with the size of its replay
    """
    state = state_of(context)
    exchange = streams_client.lookup(state.client(), [_id(context, name)], headers=state.request.auth_headers())
    state.results.last = exchange
    entries = streams_client.lookup_entries(exchange)
    expect_equal([entry.get("conversation_id") for entry in entries], [_id(context, name)], "ids found", exchange)
    expect_equal(entries[0].get("is_done"), True, "is_done", exchange)
    expect_equal(entries[0].get("total_bytes"), len(_replay(context, name).response_text.encode()),
                 "total_bytes (the size of the replay)", exchange)


@step("conversation {name:w} is stopped")
def step_stop(context: Any, name: str) -> None:
    """``DELETE /v1/stream?conv_id=ID``: 204.

        When conversation mine is stopped
    """
    state = state_of(context)
    exchange = state.client().request("DELETE", streams_client.stream_path(_id(context, name)),
                                      headers=state.request.auth_headers())
    state.results.last = expect_status(exchange, 204)


@step("the server knows nothing of conversation {name:w}")
def step_unknown(context: Any, name: str) -> None:
    """The lookup of its id finds nothing and its replay is 404 ``not_found_error``.

        Then the server knows nothing of conversation mine
    """
    state = state_of(context)
    headers = state.request.auth_headers()
    exchange = streams_client.lookup(state.client(), [_id(context, name)], headers=headers)
    expect_equal(streams_client.lookup_entries(exchange), [], f"lookup of conversation {name}", exchange)
    replay = streams_client.replay(state.client(), _id(context, name), 0, headers=headers)
    state.results.last = replay
    expect_error(replay, 404, "not_found_error")


@step("a caller who does not know the id of conversation {name:w} looks for streams")
def step_stranger_looks(context: Any, name: str) -> None:
    """A stranger tries what it can without the id: similar ids, a prefix of it, an empty lookup, listing routes.

    Each answer is kept with the answer the same request gets for an id nobody ever used.

        When a caller who does not know the id of conversation mine looks for streams
    """
    state = state_of(context)
    client, headers = state.client(), state.request.auth_headers()
    known, never = _id(context, name), f"never-used-{uuid.uuid4().hex[:12]}"
    probes = []
    for what, guess in (("a prefix of the id", known[: len(known) // 2]), ("the id's name part", name),
                        ("another id", f"{name}-{uuid.uuid4().hex[:12]}")):
        probes.append((f"lookup of {what}", streams_client.lookup(client, [guess], headers=headers),
                       streams_client.lookup(client, [never], headers=headers)))
        probes.append((f"replay of {what}", streams_client.replay(client, guess, 0, headers=headers),
                       streams_client.replay(client, never, 0, headers=headers)))
    probes.append(("an empty lookup", streams_client.lookup(client, [], headers=headers),
                   streams_client.lookup(client, [never], headers=headers)))
    probes.append(("a lookup without ids", client.post(streams_client.LOOKUP_PATH, {}, headers=headers),
                   streams_client.lookup(client, [never], headers=headers)))
    for route in ("/v1/streams", "/v1/streams/lookup"):
        probes.append((f"GET {route}", client.get(route, headers=headers),
                       client.get(f"/v1/no-such-route-{uuid.uuid4().hex[:6]}", headers=headers)))
    state.part(StreamsState).probes = probes


@step("the caller learns nothing about conversation {name:w}")
def step_stranger_learns_nothing(context: Any, name: str) -> None:
    """Every answer the stranger got equals (status and body) the answer about an id that never existed, or
    for a route that does not exist, and none of them names the conversation's id.

        Then the caller learns nothing about conversation mine
    """
    probes = state_of(context).part(StreamsState).probes
    expect(bool(probes), f"nobody looked yet: add 'When a caller who does not know the id of conversation {name} "
                         f"looks for streams'")
    known = _id(context, name)
    failures = []
    for what, answer, reference in probes:
        same = answer.status == reference.status and (answer.status == 404 or answer.response_text ==
                                                       reference.response_text)
        if not same or known in answer.response_text or answer.status == 200 and answer.response_text != "[]":
            failures.append(f"{what}: HTTP {answer.status} {answer.response_text[:200]!r}, while the reference got "
                            f"HTTP {reference.status} {reference.response_text[:200]!r}\n{answer.describe(600)}")
    expect(not failures, "a caller without the id learned something:\n" + "\n".join(failures))
