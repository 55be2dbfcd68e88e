"""Server-sent events, as llama-server streams them (``data: {...}`` blocks, ``data: [DONE]`` at the end)."""

from __future__ import annotations

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
