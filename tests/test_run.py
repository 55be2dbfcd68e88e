"""The parallel runner's pure parts: argument splitting, partitioning, summary merging, the worker's formats."""

from pathlib import Path

import pytest

from llama_bdd.tools.bench import MODES, split_modes
from llama_bdd.tools.run import ROOT, junit_directory, merged_summary, partition, split_jobs, split_paths


def test_split_jobs():
    assert split_jobs(["-j", "2", "features"]) == (2, ["features"])
    assert split_jobs(["-j3", "--tags=@x"]) == (3, ["--tags=@x"])
    assert split_jobs(["--jobs=4"]) == (4, [])
    assert split_jobs(["features/x.feature"]) == (1, ["features/x.feature"])


def test_split_paths_keeps_option_values(tmp_path):
    feature = tmp_path / "a.feature"
    feature.write_text("Feature: a\n")
    paths, options = split_paths(["-D", "preserve=failed", "--tags", "@slots", str(feature), "-f", "plain", str(tmp_path),
                                  f"{feature}:3"])
    assert paths == [str(feature), str(tmp_path), f"{feature}:3"]
    assert options == ["-D", "preserve=failed", "--tags", "@slots", "-f", "plain"]


def test_partition_balances_by_duration():
    features = [Path(f"{name}.feature") for name in "abcd"]
    durations = {"a.feature": 10, "b.feature": 9, "c.feature": 2, "d.feature": 1}
    groups = partition(features, 2, durations)
    loads = sorted(sum(durations[str(f)] for f in group) for group in groups)
    assert loads == [11, 11]
    assert partition(features[:1], 3, durations) == [[Path("a.feature")]]


def test_merged_summary():
    one = "1 feature passed, 0 failed, 0 skipped\n3 scenarios passed, 1 failed, 0 skipped\n9 steps passed, 1 failed, 2 skipped\n"
    two = "2 features passed, 0 failed, 1 skipped\n4 scenarios passed, 0 failed, 2 skipped\n10 steps passed, 0 failed, 0 skipped, 3 untested\n"
    assert merged_summary([one, two]) == [
        "features: 3 passed, 0 failed, 1 skipped",
        "scenarios: 7 passed, 1 failed, 2 skipped",
        "steps: 19 passed, 1 failed, 2 skipped, 3 untested",
    ]


def test_worker_drops_the_ini_page_when_it_hands_over_parts():
    from types import SimpleNamespace

    from llama_bdd.tools.html_report import PARTS_FORMAT
    from llama_bdd.tools.worker import without_page

    config = SimpleNamespace(format=["html-pretty", "progress2", PARTS_FORMAT], outputs=["ini.html", "-", "w.parts"])
    without_page(config)
    assert (config.format, config.outputs) == (["progress2", PARTS_FORMAT], ["-", "w.parts"])
    plain = SimpleNamespace(format=["html-pretty", "plain"], outputs=["ini.html"])
    without_page(plain)  # no parts asked for: the user's own formats stay as they are
    assert (plain.format, plain.outputs) == (["html-pretty", "plain"], ["ini.html"])


def test_bench_modes_are_taken_from_the_front_of_the_arguments():
    assert split_modes(["-t", "smoke"]) == (MODES, ["-t", "smoke"])
    assert split_modes(["--modes", "serial", "-t", "smoke"]) == (("serial",), ["-t", "smoke"])
    assert split_modes(["--modes", "serial,shards"]) == (("serial", "shards"), [])
    with pytest.raises(SystemExit, match="unknown mode"):
        split_modes(["--modes", "fast"])


def test_the_workers_junit_directory_is_the_options_else_behave_ini(tmp_path):
    assert junit_directory([f"--junit-directory={tmp_path}/junit", "--show-skipped"]) == tmp_path / "junit"
    assert junit_directory(["--junit-directory", str(tmp_path)]) == tmp_path
    assert junit_directory(["--tags=@x"]) == ROOT / "reports" / "junit"
