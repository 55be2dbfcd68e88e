"""A small deterministic LoRA adapter for a base model, written as GGUF with the ``gguf`` package.

No adapter for the default model ships anywhere, so the suite makes one: for every attention query and
value matrix of the base model (``blk.N.attn_q.weight``, ``blk.N.attn_v.weight``) a pair of low-rank
matrices ``<name>.lora_a`` and ``<name>.lora_b`` drawn from a seeded random generator. The metadata is
what llama.cpp's ``convert_lora_to_gguf.py`` writes and ``llama-adapter.cpp`` checks on load:
``general.type`` ``adapter``, ``general.architecture`` the base model's, ``adapter.type`` ``lora`` and
``adapter.lora.alpha``.

Shapes follow ``llama-adapter.cpp``: a base tensor with dimensions ``ne = [n_in, n_out]`` gets ``lora_a``
with ``ne = [n_in, rank]`` and ``lora_b`` with ``ne = [rank, n_out]`` (numpy shapes are the reverse:
``(rank, n_in)`` and ``(n_out, rank)``). The adapter is strong on purpose (``DEFAULT_STRENGTH``): at scale 1
the model's greedy text changes, at scale 0 it is the base model's.

Adapters are built once and cached under ``<cache>/lora/``, keyed by the base model's SHA-256 and
``GENERATOR_VERSION`` (bump it whenever what is written changes).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

GENERATOR_VERSION = 1
ADAPTER_TARGETS = ("attn_q", "attn_v")  # the usual LoRA targets
DEFAULT_RANK = 8
DEFAULT_ALPHA = 8.0  # alpha == rank: the effective scale is the scale the server is given
DEFAULT_STRENGTH = 0.08  # standard deviation of every A and B entry
DEFAULT_SEED = 4711


@dataclass(frozen=True)
class LoraSpec:
    """What the generated adapter looks like; every field is part of the cache key."""

    rank: int = DEFAULT_RANK
    alpha: float = DEFAULT_ALPHA
    strength: float = DEFAULT_STRENGTH
    seed: int = DEFAULT_SEED
    targets: tuple[str, ...] = ADAPTER_TARGETS

    def key(self) -> str:
        text = f"v{GENERATOR_VERSION}:{self.rank}:{self.alpha}:{self.strength}:{self.seed}:{','.join(self.targets)}"
        return hashlib.sha256(text.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class BaseTensor:
    """A base-model matrix the adapter modifies: its name and ggml dimensions ``ne = (n_in, n_out)``."""

    name: str
    n_in: int
    n_out: int


_SHA_MEMO: dict[tuple[str, int, int], str] = {}


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, computed once per path, size and mtime in this process."""
    info = path.stat()
    memo_key = (str(path.resolve()), info.st_size, info.st_mtime_ns)
    if memo_key not in _SHA_MEMO:
        digest = hashlib.sha256()
        with path.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        _SHA_MEMO[memo_key] = digest.hexdigest()
    return _SHA_MEMO[memo_key]


def base_architecture(model: Path) -> str:
    """``general.architecture`` of a GGUF model (``llama`` for SmolLM2)."""
    import gguf

    field = gguf.GGUFReader(model).fields.get("general.architecture")
    if field is None:
        raise ValueError(f"{model} has no general.architecture: is it a GGUF model?")
    return str(field.contents())


def adapter_targets(model: Path, targets: tuple[str, ...] = ADAPTER_TARGETS) -> list[BaseTensor]:
    """The 2-D tensors of ``model`` named ``blk.N.<target>.weight``, in file order."""
    import gguf

    found = []
    for tensor in gguf.GGUFReader(model).tensors:
        parts = tensor.name.split(".")
        if len(parts) == 4 and parts[0] == "blk" and parts[2] in targets and parts[3] == "weight":
            n_in, n_out = (int(n) for n in tensor.shape)  # the reader gives ggml's order, ne[0] first
            found.append(BaseTensor(tensor.name, n_in, n_out))
    if not found:
        raise ValueError(f"{model} has no tensor blk.N.{{{','.join(targets)}}}.weight to adapt")
    return found


def write_lora(model: Path, destination: Path, spec: LoraSpec = LoraSpec()) -> Path:
    """Write the adapter for ``model`` to ``destination`` (a complete file or none: written aside, then renamed)."""
    import gguf

    architecture = base_architecture(model)
    targets = adapter_targets(model, spec.targets)
    rng = np.random.default_rng(spec.seed)
    destination.parent.mkdir(parents=True, exist_ok=True)
    partial = destination.with_name(f".{destination.name}.{os.getpid()}.partial")
    writer = gguf.GGUFWriter(partial, arch=architecture)
    writer.add_type(gguf.GGUFType.ADAPTER)
    writer.add_string(gguf.Keys.Adapter.TYPE, "lora")
    writer.add_float32(gguf.Keys.Adapter.LORA_ALPHA, float(spec.alpha))
    writer.add_string(gguf.Keys.General.NAME, f"llama-bdd test adapter {spec.key()}")
    for tensor in targets:
        lora_a = rng.normal(0.0, spec.strength, size=(spec.rank, tensor.n_in)).astype(np.float32)
        lora_b = rng.normal(0.0, spec.strength, size=(tensor.n_out, spec.rank)).astype(np.float32)
        writer.add_tensor(f"{tensor.name}.lora_a", lora_a)
        writer.add_tensor(f"{tensor.name}.lora_b", lora_b)
    try:
        writer.write_header_to_file()
        writer.write_kv_data_to_file()
        writer.write_tensors_to_file()
    finally:
        writer.close()
    partial.replace(destination)
    return destination


def lora_cache_dir(cache_root: Path) -> Path:
    return cache_root / "lora"


def ensure_lora(model: Path, cache_root: Path, spec: LoraSpec = LoraSpec()) -> Path:
    """The cached adapter for ``model``, generated on first use (parallel runs may both write it: the
    rename is atomic and the content identical)."""
    target = lora_cache_dir(cache_root) / f"lora-{file_sha256(model)[:16]}-{spec.key()}.gguf"
    if not target.is_file():
        write_lora(model, target, spec)
    return target
