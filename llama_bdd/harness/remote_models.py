"""Models the original llama.cpp behave suite downloaded from Hugging Face, found on disk instead.

Its features name ``a model file tinyllamas/stories260K.gguf from HF repo ggml-org/models`` (downloaded by
the server with ``--hf-repo``/``--hf-file``), usually followed by ``a model file test-model.gguf``, the
local name the download was written to. This suite never downloads: the HF file's base name is looked up in
the models directories (``LLAMA_BDD_MODELS_DIR`` first), and so is the local name; a scenario finding
neither is skipped, naming both files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Sequence
from urllib.parse import urlparse


def file_name_of(reference: str) -> str:
    """The file name of an HF file path (``tinyllamas/stories260K.gguf``) or a download URL."""
    path = urlparse(reference).path if "://" in reference else reference
    return PurePosixPath(path).name


def find_model(name: str, search_dirs: Sequence[Path]) -> Path | None:
    """``name`` in the first models directory that holds it (never the working directory)."""
    for directory in search_dirs:
        candidate = Path(directory) / name
        if candidate.is_file():
            return candidate
    return None


def missing_reason(names: Sequence[str], search_dirs: Sequence[Path], what: str = "model") -> str:
    looked = ", ".join(str(d) for d in search_dirs) or "no directory (LLAMA_BDD_MODELS_DIR is not set)"
    files = " or ".join(dict.fromkeys(names))
    return (f"the {what} file {files} is not available offline (nothing is downloaded): looked in {looked}; "
            f"put it in a folder named by LLAMA_BDD_MODELS_DIR to run this scenario")


@dataclass
class RemoteModel:
    """The HF model a scenario named: where the original suite downloaded it from, and the copy found here."""

    hf_repo: str | None = None
    hf_file: str | None = None
    found: Path | None = None  # the HF file's base name found in a models directory

    @property
    def named(self) -> bool:
        return self.hf_file is not None

    def local_copy(self, local_name: str, search_dirs: Sequence[Path]) -> Path | None:
        """The file to serve once the scenario names the download's local name: that name, else the HF file."""
        return find_model(local_name, search_dirs) or self.found
