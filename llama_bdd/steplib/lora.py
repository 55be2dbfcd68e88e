"""LoRA adapters: a generated adapter loaded at start, its global scale, and per-request scales.

The adapter is made for the scenario's model by ``llama_bdd.harness.lora`` (cached per model and generator
version). Its effect is read off a probe: a greedy, uncached completion of a fixed prompt, kept under a label,
so texts of one scenario (or of two servers of one scenario) can be compared.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_bdd.client import lora as lora_client
from llama_bdd.client.lora import LoraAdapter, ProbeText
from llama_bdd.harness import lora as lora_files
from llama_bdd.harness import provision

from .core import expect, expect_equal, state_of, step, suite_of


@dataclass
class LoraState:
    """What the LoRA steps remember between steps of a scenario."""

    adapter: Path | None = None  # the generated adapter file
    listing: list[LoraAdapter] | None = None  # of the last 'the LoRA adapters are listed'
    texts: dict[str, ProbeText] = field(default_factory=dict)  # probe texts by label


def _generated_adapter(context: Any) -> Path:
    state = state_of(context)
    model = state.config.model_file or suite_of(context).default_model
    expect(model is not None, "no model file to generate a LoRA adapter for (an external server?)")
    adapter = lora_files.ensure_lora(Path(model), provision.cache_root())
    state.part(LoraState).adapter = adapter
    return adapter


def _probe(context: Any, label: str) -> ProbeText:
    texts = state_of(context).part(LoraState).texts
    expect(label in texts, f"no probe text {label}: add 'When the probe text is generated as {label}' first; "
                           f"generated: {', '.join(texts) or 'none'}")
    return texts[label]


@step("a LoRA adapter generated for the model")
def step_generated_lora(context: Any) -> None:
    """Load a LoRA adapter made for the scenario's model at start (``--lora FILE``, global scale 1).

        Given a LoRA adapter generated for the model
    """
    state_of(context).config.options["--lora"] = str(_generated_adapter(context))


@step("a LoRA adapter generated for the model, scaled by {scale:g}")
def step_generated_lora_scaled(context: Any, scale: float) -> None:
    """Load the generated adapter with a global scale of its own (``--lora-scaled FILE:SCALE``).

        Given a LoRA adapter generated for the model, scaled by 0.5
    """
    state_of(context).config.options["--lora-scaled"] = f"{_generated_adapter(context)}:{scale:g}"


@step("the LoRA adapters are listed")
def step_list_adapters(context: Any) -> None:
    """``GET /lora-adapters`` (200, a JSON array of id, path, scale); the listing is kept for the checks.

        When the LoRA adapters are listed
    """
    state = state_of(context)
    listing, exchange = lora_client.list_adapters(state.client(), headers=state.request.auth_headers())
    state.part(LoraState).listing = listing
    state.results.last = exchange


@step("LoRA adapter {adapter_id:d} is listed with scale {scale:g}")
def step_adapter_listed(context: Any, adapter_id: int, scale: float) -> None:
    """The last listing has this adapter, with the generated file's path and this global scale.

        Then LoRA adapter 0 is listed with scale 0.5
    """
    lora = state_of(context).part(LoraState)
    expect(lora.listing is not None, "no listing yet: add 'When the LoRA adapters are listed' first")
    exchange = state_of(context).results.last
    found = [adapter for adapter in lora.listing if adapter.id == adapter_id]
    expect(len(found) == 1, f"LoRA adapter {adapter_id} is not listed (exactly once)", exchange)
    if lora.adapter is not None:
        expect_equal(Path(found[0].path).name, lora.adapter.name, f"file of LoRA adapter {adapter_id}", exchange)
    expect_equal(found[0].scale, scale, f"scale of LoRA adapter {adapter_id}", exchange)


@step("the global scale of LoRA adapter {adapter_id:d} is set to {scale:g}")
def step_set_global_scale(context: Any, adapter_id: int, scale: float) -> None:
    """``POST /lora-adapters`` with this one adapter's scale; 200 ``{"success": true}``.

        When the global scale of LoRA adapter 0 is set to 0
    """
    state = state_of(context)
    state.results.last = lora_client.set_global_scales(state.client(), {adapter_id: scale},
                                                       headers=state.request.auth_headers())


@step("the probe text is generated as {label:w}")
def step_probe_global(context: Any, label: str) -> None:
    """A greedy completion of the probe prompt with the global LoRA scales, kept as ``label``.

        When the probe text is generated as base
    """
    state = state_of(context)
    probe = lora_client.complete_probe(state.client(), None, state.request.effective_seed,
                                       headers=state.request.auth_headers())
    state.part(LoraState).texts[label] = probe
    state.results.last = probe.exchange


@step("the probe text is generated as {label:w} with LoRA adapter {adapter_id:d} at scale {scale:g}")
def step_probe_per_request(context: Any, label: str, adapter_id: int, scale: float) -> None:
    """The same probe with the request's own ``lora`` field (this adapter at this scale, for this request only).

        When the probe text is generated as off with LoRA adapter 0 at scale 0
    """
    state = state_of(context)
    probe = lora_client.complete_probe(state.client(), {adapter_id: scale}, state.request.effective_seed,
                                       headers=state.request.auth_headers())
    state.part(LoraState).texts[label] = probe
    state.results.last = probe.exchange


@step("probe texts {first:w} and {second:w} are identical")
def step_probes_identical(context: Any, first: str, second: str) -> None:
    """Both greedy texts are the same, character for character.

        Then probe texts base and off are identical
    """
    one, two = _probe(context, first), _probe(context, second)
    expect_equal(two.content, one.content, f"probe text {second} (compared with {first})", two.exchange)


@step("probe texts {first:w} and {second:w} are different")
def step_probes_different(context: Any, first: str, second: str) -> None:
    """The two greedy texts differ: the LoRA scale changed what the model says.

        Then probe texts base and full are different
    """
    one, two = _probe(context, first), _probe(context, second)
    expect(one.content != two.content,
           f"probe texts {first} and {second} are both {one.content!r}: the LoRA scale made no difference",
           two.exchange)


@step("probe text {label:w} reports LoRA adapter {adapter_id:d} applied at scale {scale:g}")
def step_probe_reports_scale(context: Any, label: str, adapter_id: int, scale: float) -> None:
    """The completion's ``generation_settings.lora`` lists this adapter at this scale.

        Then probe text off reports LoRA adapter 0 applied at scale 0
    """
    probe = _probe(context, label)
    expect_equal(lora_client.applied_scale(probe, adapter_id), scale,
                 f"generation_settings.lora scale of adapter {adapter_id}", probe.exchange)
