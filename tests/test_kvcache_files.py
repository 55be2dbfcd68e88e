"""Listing, waiting for and damaging KV cache files."""

import threading
import time

import pytest

from llama_bdd.harness import kvcache_files as kv


def make(path, size, fill=b"\x01"):
    path.write_bytes(fill * size)
    return path


def test_lists_only_kvc_files_sorted(tmp_path):
    make(tmp_path / "b.kvc", 3)
    make(tmp_path / "a.kvc", 2)
    make(tmp_path / "a.kvc.tmp", 1)
    (tmp_path / "dir.kvc").mkdir()
    assert [p.name for p in kv.kvc_files(tmp_path)] == ["a.kvc", "b.kvc"]
    assert kv.kvc_files(tmp_path / "missing") == []
    assert kv.total_size(kv.kvc_files(tmp_path)) == 5
    assert kv.describe_files(kv.kvc_files(tmp_path)) == "a.kvc (2 bytes), b.kvc (3 bytes)"
    assert kv.describe_files([]) == "(none)"


def test_total_size_ignores_files_gone_meanwhile(tmp_path):
    assert kv.total_size([make(tmp_path / "a.kvc", 4), tmp_path / "gone.kvc"]) == 4


def test_wait_for_files_sees_a_file_appear(tmp_path):
    threading.Timer(0.2, lambda: make(tmp_path / "late.kvc", 1)).start()
    held, files = kv.wait_for_files(tmp_path, lambda f: len(f) == 1, timeout=5)
    assert held and [p.name for p in files] == ["late.kvc"]


def test_wait_for_files_times_out_with_the_last_listing(tmp_path):
    make(tmp_path / "a.kvc", 1)
    began = time.monotonic()
    held, files = kv.wait_for_files(tmp_path, lambda f: not f, timeout=0.2)
    assert not held and len(files) == 1 and time.monotonic() - began < 2


def test_wait_for_new_entry_catches_any_name(tmp_path):
    make(tmp_path / "old.kvc", 1)
    threading.Timer(0.1, lambda: make(tmp_path / "x.kvc.partial", 1)).start()
    assert kv.wait_for_new_entry(tmp_path, {"old.kvc"}, timeout=5) == "x.kvc.partial"


def test_wait_for_new_entry_stops_on_bail_or_timeout(tmp_path):
    began = time.monotonic()
    assert kv.wait_for_new_entry(tmp_path, set(), timeout=10, stop=lambda: True) is None
    assert kv.wait_for_new_entry(tmp_path, set(), timeout=0.1) is None
    assert time.monotonic() - began < 2


def test_corrupt_after_header_overwrites_the_token_section(tmp_path):
    path = make(tmp_path / "a.kvc", 100, b"\x00")
    assert kv.corrupt_after_header(path) == 52
    data = path.read_bytes()
    assert len(data) == 100
    assert data[:52] == bytes(52) and data[52:56] == b"\xff" * 4 and data[56:] == bytes(44)


def test_overwrite_refuses_to_grow_the_file(tmp_path):
    path = make(tmp_path / "short.kvc", 50)
    with pytest.raises(ValueError):
        kv.corrupt_after_header(path)
    assert path.stat().st_size == 50


def test_truncate_to_fraction(tmp_path):
    path = make(tmp_path / "a.kvc", 101)
    assert kv.truncate_to_fraction(path, 0.5) == 50
    assert path.stat().st_size == 50
    one = make(tmp_path / "one.kvc", 1)
    assert kv.truncate_to_fraction(one, 0.99) == 0  # always at least one byte shorter
    with pytest.raises(ValueError):
        kv.truncate_to_fraction(path, 1.0)


def test_fingerprint_tells_content_changes(tmp_path):
    path = make(tmp_path / "a.kvc", 60)
    before = kv.fingerprint(tmp_path)
    assert set(before) == {"a.kvc"} and before["a.kvc"].size == 60
    assert kv.fingerprint(tmp_path) == before
    kv.corrupt_after_header(path)
    after = kv.fingerprint(tmp_path)
    assert after["a.kvc"].size == 60 and after != before


def test_files_outside_a_directory(tmp_path):
    inside = tmp_path / "slot-save"
    inside.mkdir()
    make(inside / "kept.bin", 1)
    make(tmp_path / "server-1.log", 1)
    assert kv.files_outside(tmp_path, inside) == []
    stray = make(tmp_path / "escape.bin", 1)
    (tmp_path / "sub").mkdir()
    deeper = make(tmp_path / "sub" / "x.bin", 1)
    assert kv.files_outside(tmp_path, inside) == [stray, deeper]
