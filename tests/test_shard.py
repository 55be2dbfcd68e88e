"""Shards: the plan, the merge's checks, and whole sharded runs whose union must equal a full run.

The whole runs use behave itself: on ``tests/shard_features`` (no server, passing, failing and skipped
scenarios) and on the real ``features/`` in ``--dry-run`` (every scenario id of the suite, no server).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from llama_bdd.tools import merge
from llama_bdd.tools.run import split_shard
from llama_bdd.tools.shard import Shard, balance, scenario_ids

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "shard_features"


def test_shard_parse():
    assert Shard.parse("2/3") == Shard(2, 3)
    assert Shard.parse(" 1 / 1 ").name == "shard-1-of-1"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0"):
        with pytest.raises(ValueError):
            Shard.parse(bad)


def test_split_shard_takes_its_options_out(tmp_path):
    shard, durations, rest = split_shard(["--shard", "2/3", "--tags=@x", f"--durations={tmp_path / 'd.json'}", "f"])
    assert (shard, durations, rest) == (Shard(2, 3), tmp_path / "d.json", ["--tags=@x", "f"])
    assert split_shard(["--shard=1/2"])[0] == Shard(1, 2)
    with pytest.raises(ValueError):
        split_shard(["--shard"])


def test_balance_is_a_deterministic_partition():
    features = [Path(f"features/{name}.feature") for name in "abcdefgh"]
    durations = {f"features/{name}.feature": seconds for name, seconds in zip("abcdefgh", [9, 8, 7, 6, 5, 4, 3, 3])}
    plan = balance(features, 3, durations)
    shuffled = features[:]
    random.Random(7).shuffle(shuffled)
    assert balance(shuffled, 3, durations) == plan  # the order features come in changes nothing
    assert sorted(f for bucket in plan for f in bucket) == sorted(features)  # each exactly once
    loads = [sum(durations[str(f)] for f in bucket) for bucket in plan]
    assert max(loads) - min(loads) <= 3
    assert balance(features[:1], 3, durations) == [[features[0]], [], []]


def test_scenario_ids_expand_outlines_and_rules():
    assert scenario_ids(FAKE / "alpha.feature") == [
        "Alpha :: one", "Alpha :: two", "Alpha :: row 1 -- @1.1 ", "Alpha :: row 2 -- @1.2 ",
        "Alpha :: row 3 -- @1.3 "]
    assert scenario_ids(FAKE / "gamma.feature") == ["Gamma with rules :: four", "Gamma with rules :: five"]


def _manifest(directory: Path, number: int, count: int, scenarios: list[str], exit_code: int = 0) -> None:
    directory.mkdir(parents=True)
    (directory / "shard.json").write_text(json.dumps({
        "shard": number, "count": count, "durations_digest": "d", "plan": [["a"], ["b"]],
        "features": ["a"], "scenarios": scenarios, "behave_options": [], "wall_seconds": 10.0 * number,
        "exit_code": exit_code}))
    cases = "".join(f'<testcase classname="x.F" name="{s.split(" :: ")[1]}" status="passed" />' for s in scenarios)
    (directory / "junit").mkdir()
    (directory / "junit" / f"TESTS-{number}.xml").write_text(f'<testsuite name="x.F">{cases}</testsuite>')


def test_merge_finds_missing_shards_and_scenarios(tmp_path):
    _manifest(tmp_path / "s1", 1, 2, ["F :: one", "F :: two"])
    verdict = merge.judge(merge.load_shards([tmp_path]))
    assert not verdict.passed
    assert any("shard 2/2 is missing" in problem for problem in verdict.problems)
    _manifest(tmp_path / "s2", 2, 2, ["F :: three"])
    verdict = merge.judge(merge.load_shards([tmp_path]))
    assert verdict.passed and verdict.totals == Counter(passed=3) and verdict.balance == 2.0
    (tmp_path / "s2" / "junit" / "TESTS-2.xml").write_text('<testsuite name="x.F" />')
    assert any("1 scenario(s) missing: F :: three" in p for p in merge.judge(merge.load_shards([tmp_path])).problems)


def test_merge_finds_doubled_scenarios_and_failed_shards(tmp_path):
    _manifest(tmp_path / "s1", 1, 2, ["F :: one"])
    _manifest(tmp_path / "s2", 2, 2, ["F :: two"], exit_code=1)
    (tmp_path / "s2" / "junit" / "TESTS-extra.xml").write_text(
        '<testsuite name="x.F"><testcase classname="x.F" name="one" status="passed" /></testsuite>')
    problems = merge.judge(merge.load_shards([tmp_path])).problems
    assert "shard 2/2 exited 1" in problems
    assert any("reported more than once: F :: one" in p for p in problems)


def _run(args: list[str], reports: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, LLAMA_BDD_REPORTS_DIR=str(reports), LLAMA_BDD_DURATIONS=str(reports / "plan.json"))
    return subprocess.run([sys.executable, "-m", "llama_bdd.tools.run", *args], cwd=ROOT, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)


def _sharded_and_full(tmp_path: Path, args: list[str],
                      jobs: str = "1") -> tuple[list[merge.ShardReport], merge.ShardReport, str]:
    """Shards 1/3, 2/3 and 3/3 as three processes at once, then the full run as shard 1/1 elsewhere."""
    sharded, full = tmp_path / "sharded", tmp_path / "full"
    sharded.mkdir()
    # Durations that make one feature as long as the others together: the plan must still give each once.
    (sharded / "plan.json").write_text(json.dumps({"tests/shard_features/alpha.feature": 40.0}))
    env = dict(os.environ, LLAMA_BDD_REPORTS_DIR=str(sharded), LLAMA_BDD_DURATIONS=str(sharded / "plan.json"))
    processes = [subprocess.Popen([sys.executable, "-m", "llama_bdd.tools.run", "-j", jobs, "--shard", f"{k}/3",
                                   *args], cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT) for k in (1, 2, 3)]
    outputs = []
    for process in processes:
        output, _ = process.communicate(timeout=600)
        assert "shard" in output, output
        outputs.append(output)
    whole = _run(["--shard", "1/1", *args], full)
    assert (full / "shard-1-of-1" / "shard.json").is_file(), whole.stdout
    # what each run printed, for the message of a failed comparison
    printed = "\n".join(f"---- run {number} ----\n{output[-3000:]}"
                         for number, output in enumerate([*outputs, whole.stdout], 1))
    return merge.load_shards([sharded]), merge.load_shards([full])[0], printed


def test_three_shards_cover_exactly_the_scenarios_of_a_full_run(tmp_path):
    shards, full, printed = _sharded_and_full(tmp_path, ["--tags=not @fails", str(FAKE.relative_to(ROOT))],
                                              jobs="2")
    assert sorted(s.manifest["shard"] for s in shards) == [1, 2, 3]
    ids = [scenario_id for shard in shards for scenario_id, _ in shard.results]
    assert sorted(ids) == sorted(scenario_id for scenario_id, _ in full.results), printed
    assert len(ids) == len(set(ids)) == 12  # those the tags leave out show as skipped
    verdict = merge.judge(shards)
    assert verdict.passed, verdict.problems
    assert verdict.totals == Counter(status for _, status in full.results) == Counter(passed=11, skipped=1)
    out = tmp_path / "merged"
    assert merge.main([str(tmp_path / "sharded"), "--out", str(out)]) == 0
    page = (out / "behave.html").read_text()
    assert all(f"Feature: {name}" in page for name in ("Alpha", "Beta", "Gamma with rules", "Delta", "Epsilon"))
    assert len(list((out / "junit").glob("TESTS-*.xml"))) == 5


def test_the_merge_fails_when_a_scenario_fails_or_a_shard_is_lost(tmp_path, capsys):
    shards, full, _ = _sharded_and_full(tmp_path, [str(FAKE.relative_to(ROOT))])
    verdict = merge.judge(shards)
    assert verdict.totals == Counter(status for _, status in full.results) == Counter(passed=10, failed=1, skipped=1)
    assert not verdict.passed and any("exited 1" in p for p in verdict.problems)
    lost = next(s for s in shards if s.results)
    for path in (lost.directory / "junit").glob("*.xml"):
        path.unlink()
    (lost.directory / "shard.json").unlink()
    assert merge.main([str(tmp_path / "sharded"), "--out", str(tmp_path / "merged")]) == 1
    assert f"shard {lost.label} is missing" in capsys.readouterr().out


def test_real_suite_shards_cover_every_scenario_id(tmp_path):
    """The real features, dry-run: no server, but every scenario id the suite has."""
    shards, full, _ = _sharded_and_full(tmp_path, ["--dry-run"])
    ids = sorted(scenario_id for shard in shards for scenario_id, _ in shard.results)
    assert ids == sorted(scenario_id for scenario_id, _ in full.results)
    assert ids == sorted(i for shard in shards for i in shard.manifest["scenarios"])
    assert merge.judge(shards).totals == Counter(status for _, status in full.results)
    assert len(ids) > 100
