"""The typed state of one scenario: made in ``before_scenario``, thrown away after it.

Steps read and write ``context.state`` (a ``ScenarioState``), never loose ``context`` attributes.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from llama_bdd.client.answers import Completion
from llama_bdd.client.cache import NamedPrompt
from llama_bdd.client.request import RequestDraft
from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.http import EventWatch, Exchange, HttpClient
from llama_bdd.harness.process import ServerProcess

T = TypeVar("T")


@dataclass
class PendingRequest:
    """A request running in the background, and how to turn its answer into a result."""

    future: Future
    describe: str
    to_result: Callable[[Exchange], Any]


@dataclass
class Results:
    """What came back."""

    completions: list[Completion] = field(default_factory=list)
    pending: list[PendingRequest] = field(default_factory=list)
    # endless streams read while the scenario goes on (router events): stopped at its end, never gathered
    watches: list[EventWatch] = field(default_factory=list)
    # exchanges of background requests, collected when they finish (for failure reports)
    background: list[Exchange] = field(default_factory=list)
    embeddings: list[list[float]] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    tokenized_text: str | None = None
    last: Exchange | None = None
    # what the openai client raised on the last request a step sent with it (embeddings, audio), if anything
    openai_error: Exception | None = None


@dataclass
class CompletionState:
    """What the completion steps remember between steps (the context checks read the last body too)."""

    last_payload: dict[str, Any] | None = None  # the last native completion body sent
    last_path: str = "/completion"  # where it was last sent
    # the stop word of a repeated request, the text expected before it, and the full completion it came from
    stop_word: tuple[str, str, Completion] | None = None


@dataclass
class CacheState:
    """Named prompts and their evaluations, shared by the RAM cache, slot save and disk cache steps."""

    prompts: dict[str, NamedPrompt] = field(default_factory=dict)
    # prompt_n + cache_n of each prompt's first evaluation: its length in tokens
    token_counts: dict[str, int] = field(default_factory=dict)
    # the timings of each prompt's last evaluation, with its exchange
    timings: dict[str, tuple[dict[str, Any], Exchange]] = field(default_factory=dict)


@dataclass
class ScenarioState:
    """All a scenario knows: its server configuration, the request being built, and the results."""

    name: str
    workdir: Path
    config: ServerConfig = field(default_factory=ServerConfig)
    request: RequestDraft = field(default_factory=RequestDraft)
    results: Results = field(default_factory=Results)
    server: ServerProcess | None = None
    base_url: str | None = None
    http: HttpClient | None = None
    server_starts: int = 0
    fresh_server: bool = False  # never share this scenario's server (tag or state-dependent step)
    pool_key: tuple | None = None  # set when the server may be handed to a later scenario
    config_digest: str | None = None  # short hash of the launch configuration (benchmark statistics)
    notes: list[str] = field(default_factory=list)  # lines added to a failure report
    server_logs: list[Path] = field(default_factory=list)  # every server log of the scenario (kept on failure)
    started_at: float = field(default_factory=time.monotonic)
    # what step modules remember between steps, one dataclass instance per module (see ``part``)
    parts: dict[type, Any] = field(default_factory=dict)

    def part(self, kind: type[T]) -> T:
        """This scenario's state for one step module: an instance of that module's dataclass, made on first use."""
        if kind not in self.parts:
            self.parts[kind] = kind()
        return self.parts[kind]

    def cache_dir(self, name: str = "cache") -> Path:
        """A directory of this scenario that survives server restarts and is removed with the scenario."""
        path = self.workdir / name
        path.mkdir(parents=True, exist_ok=True)
        return path

    def client(self) -> HttpClient:
        if self.http is None:
            raise AssertionError("No server is running in this scenario yet: add 'Then the server is starting'.")
        return self.http

    def exchanges(self) -> list[Exchange]:
        """Every exchange of the scenario, oldest first, whichever client made it."""
        return sorted([*(self.http.history if self.http else []), *self.results.background],
                      key=lambda exchange: exchange.started_at)
