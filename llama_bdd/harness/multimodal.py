"""A multimodal model for image scenarios, and a test image made on the spot (scenarios never download).

The default model has no vision; a run names a multimodal model and its projector with
``LLAMA_BDD_MM_MODEL_PATH`` and ``LLAMA_BDD_MMPROJ_PATH``. Scenarios that need them are skipped, with
that reason, when they are not set.
"""

from __future__ import annotations

import base64
import os
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

MM_MODEL_ENV = "LLAMA_BDD_MM_MODEL_PATH"
MMPROJ_ENV = "LLAMA_BDD_MMPROJ_PATH"


@dataclass(frozen=True)
class MultimodalModel:
    model: Path
    projector: Path


def multimodal_model(environ: Mapping[str, str] = os.environ) -> tuple[MultimodalModel | None, str | None]:
    """The configured multimodal model, or None and the reason it cannot be used."""
    model, projector = environ.get(MM_MODEL_ENV, ""), environ.get(MMPROJ_ENV, "")
    if not model or not projector:
        return None, (f"no multimodal model with a projector: set {MM_MODEL_ENV} (model .gguf) and "
                      f"{MMPROJ_ENV} (its mmproj .gguf) to run image scenarios")
    missing = [f"{name}={value}" for name, value in ((MM_MODEL_ENV, model), (MMPROJ_ENV, projector))
               if not Path(value).expanduser().is_file()]
    if missing:
        return None, f"multimodal model files not found: {', '.join(missing)}"
    return MultimodalModel(Path(model).expanduser(), Path(projector).expanduser()), None


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def sample_image_png(width: int = 64, height: int = 64) -> bytes:
    """A small RGB PNG (a colour gradient with a square in it): a real image any decoder accepts."""
    rows = []
    for y in range(height):
        row = bytearray([0])  # filter type 0 for every scanline
        for x in range(width):
            inside = width // 4 <= x < 3 * width // 4 and height // 4 <= y < 3 * height // 4
            colour = (255, 255, 255) if inside else (x * 255 // max(width - 1, 1), y * 255 // max(height - 1, 1), 128)
            row += bytes(colour)
        rows.append(bytes(row))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header)
            + _png_chunk(b"IDAT", zlib.compress(b"".join(rows))) + _png_chunk(b"IEND", b""))


def sample_image_base64() -> str:
    return base64.b64encode(sample_image_png()).decode("ascii")

