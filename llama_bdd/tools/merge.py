"""Merge the reports of N shards into one verdict: ``python -m llama_bdd.tools.merge [options] DIR...``.

Each DIR is a shard's report directory (``reports/shard-K-of-N/``) or any folder above some (the downloaded
CI artifacts); several matrices (one per model) may be merged at once, each checked on its own. For every
matrix the merge checks that all N shards are there and made the same plan, that every scenario the plan
gave out appears in exactly one shard's JUnit files, and that every shard finished. It prints one summary
(scenarios by status, per shard, the balance of the shards' wall times), writes one HTML report from the
shards' HTML parts, one JUnit directory and the merged durations (for the next plan), and exits non-zero
if any scenario failed, any shard failed or is missing, or any scenario is missing or counted twice.

    python -m llama_bdd.tools.merge reports/            # every shard-K-of-N below reports/
    python -m llama_bdd.tools.merge --out reports/merged artifacts/
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import xml.etree.ElementTree as ElementTree
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from llama_bdd.tools.html_report import PARTS_SUFFIX, merge_parts
from llama_bdd.tools.shard import MANIFEST

ROOT = Path(__file__).resolve().parents[2]
FAILING = ("failed", "error", "hook_error", "undefined", "pending")
STATUS_ORDER = ("passed", "failed", "error", "hook_error", "undefined", "pending", "skipped", "untested")


@dataclass
class ShardReport:
    """One shard's manifest and the scenarios its JUnit files hold (id -> status)."""

    directory: Path
    manifest: dict
    results: list[tuple[str, str]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.manifest['shard']}/{self.manifest['count']}"


@dataclass
class Verdict:
    """What the merge of one matrix found; ``problems`` empty and no failing scenario means a pass."""

    totals: Counter
    problems: list[str]
    shards: list[ShardReport]
    balance: float | None

    @property
    def passed(self) -> bool:
        return not self.problems and not any(self.totals[status] for status in FAILING)


def junit_results(directory: Path, feature_names: list[str]) -> list[tuple[str, str]]:
    """(scenario id, status) of every testcase in behave's JUnit files under ``directory``.

    behave names a testcase's class ``<file path with dots>.<feature name>``; the id keeps the feature
    name (the longest of ``feature_names`` the class ends with) so it matches the plan's ids.
    """
    names = sorted(set(feature_names), key=len, reverse=True)
    results = []
    for path in sorted(directory.glob("TESTS-*.xml")):
        for case in ElementTree.parse(path).iter("testcase"):
            classname = case.get("classname", "")
            feature = next((n for n in names if classname == n or classname.endswith("." + n)), classname)
            results.append((f"{feature} :: {case.get('name', '')}", case.get("status", "passed")))
    return results


def load_shards(directories: list[Path]) -> list[ShardReport]:
    manifests = sorted({path.resolve() for d in directories for path in
                        ([d / MANIFEST] if (d / MANIFEST).is_file() else d.rglob(MANIFEST))})
    shards = []
    for path in manifests:
        manifest = json.loads(path.read_text())
        names = [scenario_id.split(" :: ", 1)[0] for scenario_id in manifest["scenarios"]]
        shards.append(ShardReport(path.parent, manifest, junit_results(path.parent / "junit", names)))
    return shards


def matrices(shards: list[ShardReport]) -> dict[tuple[str, int, str, str], list[ShardReport]]:
    """Group shards into matrices: same label (model), shard count, durations and plan."""
    groups: dict[tuple[str, int, str, str], list[ShardReport]] = {}
    for shard in shards:
        manifest = shard.manifest
        key = (manifest.get("label", ""), manifest["count"], manifest["durations_digest"], json.dumps(manifest["plan"]))
        groups.setdefault(key, []).append(shard)
    return groups


def judge(shards: list[ShardReport]) -> Verdict:
    """Check one matrix's shards against their common plan and add up their results."""
    count = shards[0].manifest["count"]
    problems: list[str] = []
    numbers = Counter(shard.manifest["shard"] for shard in shards)
    for number in range(1, count + 1):
        if numbers[number] == 0:
            features = shards[0].manifest["plan"][number - 1]
            problems.append(f"shard {number}/{count} is missing ({len(features)} feature(s): "
                            f"{', '.join(features) or 'none'})")
        elif numbers[number] > 1:
            problems.append(f"shard {number}/{count} appears {numbers[number]} times")
    expected: Counter = Counter()
    seen: Counter = Counter()
    totals: Counter = Counter()
    for shard in shards:
        expected.update(shard.manifest["scenarios"])
        seen.update(scenario_id for scenario_id, _ in shard.results)
        totals.update(status for _, status in shard.results)
        if "exit_code" not in shard.manifest:
            problems.append(f"shard {shard.label} never finished (no exit code in {shard.directory / MANIFEST})")
        elif shard.manifest["exit_code"] != 0:
            problems.append(f"shard {shard.label} exited {shard.manifest['exit_code']}")
    missing = expected - seen
    doubled = sorted(i for i, n in seen.items() if expected[i] and n > expected[i])
    unplanned = sorted(i for i in seen if not expected[i])
    if missing:
        problems.append(f"{sum(missing.values())} scenario(s) missing: " + "; ".join(sorted(missing)[:20]))
    if doubled:
        problems.append(f"{len(doubled)} scenario(s) reported more than once: " + "; ".join(doubled[:20]))
    if unplanned:
        problems.append(f"{len(unplanned)} scenario(s) no shard was given: " + "; ".join(unplanned[:20]))
    walls = [s.manifest["wall_seconds"] for s in shards if s.manifest.get("wall_seconds")]
    balance = round(max(walls) / min(walls), 2) if len(walls) > 1 and min(walls) > 0 else None
    return Verdict(totals, problems, sorted(shards, key=lambda s: s.manifest["shard"]), balance)


def describe(totals: Counter) -> str:
    ordered = [status for status in STATUS_ORDER if totals[status] or status in ("passed", "failed", "skipped")]
    ordered += sorted(status for status in totals if status not in STATUS_ORDER)
    return ", ".join(f"{totals[status]} {status}" for status in ordered)


def merge_durations(shards: list[ShardReport], target: Path) -> None:
    durations: dict[str, float] = {}
    for shard in shards:
        path = shard.directory / "durations.json"
        if path.is_file():
            durations.update(json.loads(path.read_text()))
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(durations, indent=1, sort_keys=True))


def merge_junit(shards: list[ShardReport], target: Path) -> None:
    """One JUnit directory for CI's test reporters (a feature lives in one shard: no name clashes)."""
    shutil.rmtree(target, ignore_errors=True)
    target.mkdir(parents=True)
    for shard in shards:
        for path in (shard.directory / "junit").glob("TESTS-*.xml"):
            shutil.copy(path, target / path.name)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m llama_bdd.tools.merge", description=__doc__.split("\n")[0])
    parser.add_argument("directories", nargs="+", type=Path, help="shard report directories, or folders above them")
    parser.add_argument("--out", type=Path, default=ROOT / "reports" / "merged",
                        help="where the merged HTML, JUnit and durations go (default reports/merged)")
    parser.add_argument("--title", default="llama-bdd release gate", help="title of the HTML report")
    args = parser.parse_args(argv)
    shards = load_shards(args.directories)
    if not shards:
        print(f"llama-bdd merge: no {MANIFEST} under {', '.join(map(str, args.directories))}", file=sys.stderr)
        return 2
    groups = matrices(shards)
    verdicts = []
    for index, group in enumerate(groups.values(), start=1):
        verdict = judge(group)
        verdicts.append(verdict)
        label = group[0].manifest.get("label", "")
        folder = re.sub(r"[^A-Za-z0-9_.-]+", "-", label) or f"matrix-{index}"
        out = args.out if len(groups) == 1 else args.out / folder
        merge_junit(group, out / "junit")
        merge_durations(group, out / "durations.json")
        parts = [part for shard in verdict.shards
                 for part in sorted((shard.directory / "html" / "parts").glob("*" + PARTS_SUFFIX))]
        html = out / "behave.html"
        if parts:
            merge_parts(parts, html, args.title)
        print(f"\n===== {label}: {len(group)} of {group[0].manifest['count']} shard(s) merged into {out} =====")
        if group[0].manifest["behave_options"]:
            print("behave options: " + " ".join(o for o in group[0].manifest["behave_options"]
                                                if not o.startswith("--junit-directory")))
        for shard in verdict.shards:
            own = Counter(status for _, status in shard.results)
            print(f"shard {shard.label}: {len(shard.manifest['features'])} feature(s), {describe(own)}; "
                  f"exit {shard.manifest.get('exit_code', '?')}, {shard.manifest.get('wall_seconds', '?')}s")
        print(f"scenarios: {describe(verdict.totals)}")
        if verdict.balance is not None:
            print(f"shard balance (slowest / fastest wall time): {verdict.balance}")
        print(f"HTML report: {html}" if parts else "HTML report: none (no HTML parts in the shards)")
        for problem in verdict.problems:
            print(f"FAIL: {problem}")
        print("verdict: " + ("PASS" if verdict.passed else "FAIL"))
    return 0 if all(verdict.passed for verdict in verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
