"""What the served model is, read from the server: the facts that decide model-dependent expectations.

Expectations that hold for one model and not another (an empty prompt generates nothing, a restored
prompt re-processes only its last token, CLS pooling tells texts apart) depend on properties, not names:
whether the model adds a BOS token to every prompt (``/tokenize`` with and without ``add_special``),
whether it uses sliding-window attention (the model file ``/props`` names, read with ``gguf``), and its
sizes (``meta`` of ``/v1/models``). Each is read once per server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from llama_bdd.harness.gguf_meta import read_model_metadata
from llama_bdd.harness.http import HttpClient

from .checks import expect_status
from .tokenize import tokenize


@dataclass(frozen=True)
class ModelFacts:
    adds_bos: bool  # every prompt starts with the BOS token, so an "empty" prompt is one token
    bos_token: str | None
    architecture: str | None
    # tokens each sliding-window attention layer sees; None when the model has none; unknown when the model
    # file is not readable here (an external server on another machine)
    sliding_window: int | None
    sliding_window_known: bool
    n_ctx_train: int | None
    n_vocab: int | None
    n_embd: int | None

    def describe(self) -> str:
        return f"the model{f' ({self.architecture})' if self.architecture else ''}"


def read_model_facts(http: HttpClient, headers: dict[str, str], metadata_cache: Path | None = None,
                     swa_full: bool = False) -> ModelFacts:
    """The facts of the model this server serves; ``swa_full`` when the server keeps the whole context."""
    props = expect_status(http.get("/props", headers=headers), 200).body
    adds_bos = len(tokenize(http, "", True, headers)) > len(tokenize(http, "", False, headers))
    models = http.get("/v1/models", headers=headers)
    meta = {}
    if models.status == 200:
        meta = next((m.get("meta") or {} for m in models.body.get("data") or [] if m.get("meta")), {})
    path = Path(props.get("model_path") or "")
    metadata = read_model_metadata(path, metadata_cache) if path.is_file() else None
    window = metadata.sliding_window if metadata is not None and not swa_full else None
    return ModelFacts(adds_bos=adds_bos, bos_token=props.get("bos_token"),
                      architecture=metadata.architecture if metadata else None,
                      sliding_window=window, sliding_window_known=metadata is not None or swa_full,
                      n_ctx_train=meta.get("n_ctx_train"), n_vocab=meta.get("n_vocab"), n_embd=meta.get("n_embd"))
