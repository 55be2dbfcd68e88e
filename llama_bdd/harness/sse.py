"""Server-sent events, as llama-server streams them (``data: {...}`` blocks, ``data: [DONE]`` at the end)."""

from __future__ import annotations

import codecs
from dataclasses import dataclass, field


@dataclass
class SseEvent:
    data: str
    event: str | None = None
    # every other "name: value" line of the block (llama-server sends "error: {...}" on some failures)
    fields: dict[str, str] = field(default_factory=dict)


def parse_sse(text: str) -> list[SseEvent]:
    """Split a complete event-stream body into events; comment lines (``:``) are ignored."""
    events: list[SseEvent] = []
    data: list[str] = []
    event_name: str | None = None
    fields: dict[str, str] = {}

    def flush() -> None:
        nonlocal data, event_name, fields
        if data or fields:
            events.append(SseEvent(data="\n".join(data), event=event_name, fields=fields))
        data, event_name, fields = [], None, {}

    for raw_line in text.splitlines():
        line = raw_line.rstrip("\r")
        if not line:
            flush()
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if name == "data":
            data.append(value)
        elif name == "event":
            event_name = value
        else:
            fields[name] = value
    flush()
    return events


class SseReader:
    """An event stream read as it arrives: ``feed`` each network chunk, get the events it completed.

    Bytes are decoded incrementally (a UTF-8 character split between two reads stays whole) and ``\\r\\n``
    line ends are read as ``\\n``; ``text`` is everything received so far.
    """

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._pending = ""
        self.text = ""

    def feed(self, chunk: bytes) -> list[SseEvent]:
        decoded = self._decoder.decode(chunk)
        self.text += decoded
        *blocks, self._pending = (self._pending + decoded).replace("\r\n", "\n").split("\n\n")
        return parse_sse("\n\n".join(blocks) + "\n\n") if blocks else []
