"""The typed state of one scenario: made in ``before_scenario``, thrown away after it.

Steps read and write ``context.state`` (a ``ScenarioState``), never loose ``context`` attributes.
"""

from __future__ import annotations

import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

from llama_bdd.harness.config import ServerConfig
from llama_bdd.harness.http import Exchange, HttpClient
from llama_bdd.harness.process import ServerProcess

DEFAULT_REQUEST_SEED = 42
CORS_TEST_ORIGIN = "my.super.domain"

T = TypeVar("T")


@dataclass
class RequestDraft:
    """The request a scenario is building up before it sends it."""

    prompts: list[str] = field(default_factory=list)
    system_prompt: str | None = None
    model: str | None = None
    n_predict: int | None = None
    streaming: bool = False
    user_api_key: str | None = None
    seed: int | None = None
    # further request fields set by steps, merged into the JSON body (e.g. {"temperature": 0})
    fields: dict[str, Any] = field(default_factory=dict)

    @property
    def effective_seed(self) -> int:
        return self.seed if self.seed is not None else DEFAULT_REQUEST_SEED

    def auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.user_api_key}"} if self.user_api_key is not None else {}


@dataclass
class Completion:
    """A finished generation, whichever endpoint produced it."""

    content: str
    predicted_n: int
    exchange: Exchange | None = None
    finish_reason: str | None = None
    raw: Any = None


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
    # exchanges of background requests, collected when they finish (for failure reports)
    background: list[Exchange] = field(default_factory=list)
    embeddings: list[list[float]] = field(default_factory=list)
    tokens: list[int] = field(default_factory=list)
    tokenized_text: str | None = None
    last: Exchange | None = None


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
