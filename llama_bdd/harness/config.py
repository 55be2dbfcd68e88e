"""The configuration of one llama-server, as a scenario describes it."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from .launch import Flag


@dataclass
class ServerConfig:
    """Everything that decides how a llama-server is launched.

    ``None`` means "leave the server's default". ``options`` holds further flags by name (value ``None``
    for a switch) for the areas that have no field of their own, e.g. ``{"--pooling": "mean"}``.
    """

    model_file: Path | None = None
    without_model: bool = False  # router mode: no --model at all, not even the default model
    model_alias: str | None = None
    seed: int | None = None
    n_ctx: int | None = None
    n_slots: int | None = None
    n_predict: int | None = None
    n_batch: int | None = None
    threads: int | None = None
    continuous_batching: bool = False
    embeddings: bool = False
    metrics: bool = False
    api_keys: list[str] = field(default_factory=list, repr=False)  # secrets: never printed
    verbose: bool = False
    options: dict[str, str | None] = field(default_factory=dict)
    extra_args: list[str] = field(default_factory=list)

    def flags(self) -> list[Flag]:
        """The flags this configuration asks for, in a stable order (host and port are added at start)."""
        flags: list[Flag] = []

        def add(name: str, value: object | None = None, required: bool = True) -> None:
            flags.append(Flag(name, () if value is None else (str(value),), required))

        if self.model_file is not None:
            add("--model", self.model_file)
        if self.model_alias is not None:
            add("--alias", self.model_alias)
        if self.seed is not None:
            add("--seed", self.seed)
        if self.n_ctx is not None:
            add("--ctx-size", self.n_ctx)
        if self.n_slots is not None:
            add("--parallel", self.n_slots)
        if self.n_predict is not None:
            add("--n-predict", self.n_predict)
        if self.n_batch is not None:
            add("--batch-size", self.n_batch)
        if self.threads is not None:
            add("--threads", self.threads, required=False)
        if self.continuous_batching:
            add("--cont-batching")
        if self.embeddings:
            add("--embedding")
        if self.metrics:
            add("--metrics")
        if self.api_keys:
            add("--api-key", ",".join(self.api_keys))
        if self.verbose:
            add("--verbose")
        for name, value in self.options.items():
            add(name, value)
        return flags

    @property
    def scheme(self) -> str:
        """``https`` when the server is given a certificate and its key (``--ssl-cert-file``, ``--ssl-key-file``)."""
        return "https" if self.options.get("--ssl-cert-file") and self.options.get("--ssl-key-file") else "http"

    def identity(self) -> tuple:
        """What makes two configurations launch the same server (used to share a running one)."""
        return (str(self.model_file), self.model_alias, self.seed, self.n_ctx, self.n_slots, self.n_predict,
                self.n_batch, self.threads, self.continuous_batching, self.embeddings, self.metrics,
                tuple(self.api_keys), self.verbose, tuple(sorted(self.options.items(), key=str)),
                tuple(self.extra_args))
