"""What a GGUF model file says about the model: its architecture, sliding-window attention, pooling, BOS.

Read with the ``gguf`` package. Its reader parses every field, the vocabulary's arrays included (seconds for
a 256k-token vocabulary), so the result is kept per file version (path + size + mtime), in memory and on
disk, like the capabilities of a binary.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass
from pathlib import Path

from gguf import GGUFReader
from gguf.constants import GGUFValueType


@dataclass(frozen=True)
class ModelMetadata:
    architecture: str | None
    sliding_window: int | None  # tokens of the sliding-window attention; None: every layer sees the whole context
    pooling_type: int | None  # the model's own pooling (llama_pooling_type), None when it names none
    add_bos_token: bool | None


_MEMORY: dict[str, ModelMetadata] = {}


def read_model_metadata(path: Path, cache_dir: Path | None = None) -> ModelMetadata:
    stat = path.stat()
    key = hashlib.sha256(f"{path.resolve()}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:24]
    if key in _MEMORY:
        return _MEMORY[key]
    cached = cache_dir / f"{key}.json" if cache_dir is not None else None
    if cached is not None and cached.is_file():
        metadata = ModelMetadata(**json.loads(cached.read_text()))
    else:
        metadata = _parse(path)
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            cached.write_text(json.dumps(asdict(metadata)))
    _MEMORY[key] = metadata
    return metadata


def _parse(path: Path) -> ModelMetadata:
    fields = {name: field.contents() for name, field in GGUFReader(path).fields.items()
              if field.types and field.types[0] != GGUFValueType.ARRAY}
    arch = fields.get("general.architecture")
    window = fields.get(f"{arch}.attention.sliding_window")
    pooling = fields.get(f"{arch}.pooling_type")
    add_bos = fields.get("tokenizer.ggml.add_bos_token")
    return ModelMetadata(architecture=arch, sliding_window=int(window) if window else None,
                         pooling_type=int(pooling) if pooling is not None else None,
                         add_bos_token=bool(add_bos) if add_bos is not None else None)
