"""The LoRA generator: a file llama.cpp accepts for the base model (metadata, names, shapes), cached by key."""

from __future__ import annotations

from pathlib import Path

import gguf
import numpy as np
import pytest

from llama_bdd.harness import lora


@pytest.fixture(scope="module")
def base_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny llama-architecture GGUF with two blocks (q: 16x16, v: 16x8), as the generator reads it."""
    path = tmp_path_factory.mktemp("base") / "base.gguf"
    writer = gguf.GGUFWriter(path, arch="llama")
    for block in range(2):
        writer.add_tensor(f"blk.{block}.attn_q.weight", np.zeros((16, 16), dtype=np.float32))
        writer.add_tensor(f"blk.{block}.attn_v.weight", np.zeros((8, 16), dtype=np.float32))
        writer.add_tensor(f"blk.{block}.attn_norm.weight", np.ones(16, dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def test_the_adapter_carries_the_metadata_llama_cpp_checks(base_model: Path, tmp_path: Path) -> None:
    adapter = gguf.GGUFReader(lora.write_lora(base_model, tmp_path / "a.gguf"))
    assert adapter.fields["general.type"].contents() == "adapter"
    assert adapter.fields["general.architecture"].contents() == "llama"
    assert adapter.fields["adapter.type"].contents() == "lora"
    assert adapter.fields["adapter.lora.alpha"].contents() == pytest.approx(lora.DEFAULT_ALPHA)


def test_every_target_gets_a_transposed_pair_of_the_base_shapes(base_model: Path, tmp_path: Path) -> None:
    spec = lora.LoraSpec(rank=4)
    adapter = gguf.GGUFReader(lora.write_lora(base_model, tmp_path / "a.gguf", spec))
    shapes = {tensor.name: tuple(int(n) for n in tensor.shape) for tensor in adapter.tensors}
    base = {tensor.name: tuple(int(n) for n in tensor.shape) for tensor in gguf.GGUFReader(base_model).tensors}
    targets = [name for name in base if name.split(".")[2] in spec.targets]
    assert sorted(shapes) == sorted([f"{name}.lora_a" for name in targets] + [f"{name}.lora_b" for name in targets])
    for name in targets:
        n_in, n_out = base[name]
        assert shapes[f"{name}.lora_a"] == (n_in, spec.rank)  # ggml ne order, as llama-adapter.cpp checks
        assert shapes[f"{name}.lora_b"] == (spec.rank, n_out)


def test_the_adapter_is_deterministic_and_non_zero(base_model: Path, tmp_path: Path) -> None:
    one = lora.write_lora(base_model, tmp_path / "one.gguf")
    two = lora.write_lora(base_model, tmp_path / "two.gguf")
    assert one.read_bytes() == two.read_bytes()
    assert all(np.abs(tensor.data).max() > 0 for tensor in gguf.GGUFReader(one).tensors)


def test_the_cache_is_keyed_by_model_and_spec(base_model: Path, tmp_path: Path) -> None:
    first = lora.ensure_lora(base_model, tmp_path)
    assert first.parent == tmp_path / "lora" and first.is_file()
    assert lora.ensure_lora(base_model, tmp_path) == first
    other = lora.ensure_lora(base_model, tmp_path, lora.LoraSpec(seed=1))
    assert other != first
    assert not list((tmp_path / "lora").glob(".*partial"))


def test_a_model_without_targets_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "empty.gguf"
    writer = gguf.GGUFWriter(path, arch="llama")
    writer.add_tensor("token_embd.weight", np.zeros((4, 4), dtype=np.float32))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    with pytest.raises(ValueError, match="no tensor"):
        lora.write_lora(path, tmp_path / "a.gguf")
