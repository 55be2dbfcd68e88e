"""Rehearse features/cache.disk.feature against a fake server that has the disk prompt cache.

Today's default llama-server lacks ``--cache-disk``, so those scenarios are skipped in the acceptance run.
Here they run end to end against tests/fakes/fake_cache_disk_server.py, which behaves as the seed test of
the feature describes: the steps' files, log tags, restarts, kill -9 and start failures are exercised,
and a fake that writes its files in place must make the kill -9 scenario fail (FAKE_CACHE_DISK_BUG in
the fake lists more planted bugs to try by hand; each bounded wait they trip costs 10 s).
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fakes" / "fake_cache_disk_server.py"
FEATURE = "features/cache.disk.feature"


def run_feature(tmp_path, bug="", name=None):
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    env = {key: value for key, value in os.environ.items()
           if key not in ("LLAMA_SERVER_ARGS", "LLAMA_BDD_SERVER_URL", "DEBUG", "PORT", "LLAMA_BDD_PRESERVE")}
    env.update(LLAMA_SERVER_BIN_PATH=str(FAKE), LLAMA_BDD_MODEL_PATH=str(model), LLAMA_BDD_MODEL_TAGS="smollm2-135m",
               LLAMA_BDD_CACHE=str(tmp_path / "cache"), LLAMA_BDD_WORKDIR=str(tmp_path / "work"),
               LLAMA_BDD_MM_MODEL_PATH=str(model), LLAMA_BDD_MMPROJ_PATH=str(model), FAKE_CACHE_DISK_BUG=bug)
    command = [sys.executable, "-m", "behave", FEATURE, "--no-junit", "--format=plain", "--no-capture"]
    if name:
        command += ["--name", name]
    return subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def test_every_scenario_passes_against_a_correct_server(tmp_path):
    result = run_feature(tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert "10 scenarios passed, 0 failed, 0 skipped" in result.stdout


def test_a_partial_file_left_by_kill_fails_its_scenario(tmp_path):
    result = run_feature(tmp_path, bug="non-atomic", name="killed half-way")
    assert result.returncode != 0, result.stdout[-4000:]
    assert "every disk cache file is complete ... failed" in result.stdout, result.stdout[-4000:]
    assert "partial *.kvc file(s), shorter than a complete one" in result.stdout
