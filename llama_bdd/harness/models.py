"""Finding model files named by scenarios."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from .errors import ModelNotFound


def model_search_dirs(extra: Sequence[Path] = ()) -> list[Path]:
    """``LLAMA_BDD_MODELS_DIR`` (os.pathsep-separated) first, then ``extra`` (e.g. the provisioned models)."""
    dirs = [Path(d).expanduser() for d in os.environ.get("LLAMA_BDD_MODELS_DIR", "").split(os.pathsep) if d]
    return [*dirs, *extra]


def resolve_model_file(name: str, search_dirs: Sequence[Path]) -> Path:
    """``name`` as a path (absolute, or relative to the working directory), else a file in a models dir."""
    looked: list[Path] = []
    direct = Path(name).expanduser()
    looked.append(direct.resolve())
    if direct.is_file():
        return direct.resolve()
    for directory in search_dirs:
        candidate = directory / name
        looked.append(candidate)
        if candidate.is_file():
            return candidate
    raise ModelNotFound(
        f"Model file '{name}' was not found. Looked at: {', '.join(str(p) for p in looked)}. "
        f"Put the file in one of these places, set LLAMA_BDD_MODELS_DIR to the folder that holds it, "
        f"or name the default model ('a model file default').")
