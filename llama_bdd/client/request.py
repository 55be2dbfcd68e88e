"""The request a scenario builds before sending it, and what every request of the suite carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

DEFAULT_REQUEST_SEED = 42
# the Origin header the suite sends with completions, so every answer's CORS echo can be checked
CORS_TEST_ORIGIN = "my.super.domain"
NO_KEY = "nope"  # the openai and anthropic clients insist on some key


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
