"""LoRA adapters: ``GET``/``POST /lora-adapters`` and the per-request ``lora`` field of ``/completion``.

``GET /lora-adapters`` lists every adapter loaded at start (``--lora``, ``--lora-scaled FILE:SCALE``) as
``{"id", "path", "scale", "task_name", "prompt_prefix"}``; the scale is 1 (``--lora``), the given one
(``--lora-scaled``), or 0 with ``--lora-init-without-apply``. ``POST /lora-adapters`` with
``[{"id": 0, "scale": 0.5}]`` sets the global scales (an adapter left out gets 0) and answers
``{"success": true}``. A completion's ``lora`` field (same form) overrides the global scales for that request
only; its ``generation_settings.lora`` says what was applied.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from llama_bdd.harness.http import Exchange, HttpClient

from .checks import expect, expect_equal, expect_status

LORA_ADAPTERS_PATH = "/lora-adapters"
PROBE_PROMPT = "Once upon a time"
PROBE_TOKENS = 16


@dataclass
class LoraAdapter:
    id: int
    path: str
    scale: float


@dataclass
class ProbeText:
    """What one greedy completion of the probe prompt said, and the LoRA scales it reports as applied."""

    content: str
    applied: list[dict[str, Any]]
    exchange: Exchange


def list_adapters(http: HttpClient, headers: dict[str, str] | None = None) -> tuple[list[LoraAdapter], Exchange]:
    exchange = expect_status(http.get(LORA_ADAPTERS_PATH, headers=headers), 200)
    body = exchange.body
    expect(isinstance(body, list), "GET /lora-adapters must answer a JSON array", exchange)
    adapters = []
    for entry in body:
        expect(isinstance(entry, dict) and {"id", "path", "scale"} <= set(entry),
               f"every adapter has id, path and scale; got {entry!r}", exchange)
        adapters.append(LoraAdapter(int(entry["id"]), str(entry["path"]), float(entry["scale"])))
    return adapters, exchange


def set_global_scales(http: HttpClient, scales: dict[int, float], headers: dict[str, str] | None = None) -> Exchange:
    """``POST /lora-adapters``; the answer must be 200 ``{"success": true}``."""
    body = [{"id": adapter_id, "scale": scale} for adapter_id, scale in sorted(scales.items())]
    exchange = expect_status(http.post(LORA_ADAPTERS_PATH, body, headers=headers), 200)
    expect_equal(exchange.body, {"success": True}, "answer of POST /lora-adapters", exchange)
    return exchange


def probe_payload(scales: dict[int, float] | None, seed: int) -> dict[str, Any]:
    """A greedy, uncached completion of the probe prompt; ``scales`` become the request's ``lora`` field."""
    payload: dict[str, Any] = {"prompt": PROBE_PROMPT, "n_predict": PROBE_TOKENS, "temperature": 0, "seed": seed,
                               "cache_prompt": False}
    if scales is not None:
        payload["lora"] = [{"id": adapter_id, "scale": scale} for adapter_id, scale in sorted(scales.items())]
    return payload


def complete_probe(http: HttpClient, scales: dict[int, float] | None, seed: int,
                   headers: dict[str, str] | None = None) -> ProbeText:
    exchange = expect_status(http.post("/completion", probe_payload(scales, seed), headers=headers), 200)
    body = exchange.body
    content = body.get("content") if isinstance(body, dict) else None
    expect(isinstance(content, str) and content != "", "the probe completion has no content", exchange)
    applied = (body.get("generation_settings") or {}).get("lora")
    expect(isinstance(applied, list), "the completion's generation_settings.lora is missing", exchange)
    return ProbeText(content, applied, exchange)


def applied_scale(probe: ProbeText, adapter_id: int) -> float | None:
    """The scale ``generation_settings.lora`` reports for an adapter (None when it is not listed)."""
    for entry in probe.applied:
        if entry.get("id") == adapter_id:
            return float(entry.get("scale"))
    return None
