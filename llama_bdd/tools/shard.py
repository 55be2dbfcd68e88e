"""Shards: a deterministic 1/N of the suite for one CI machine, balanced by recorded durations.

``bin/bdd --shard K/N`` runs shard K of N. The unit of a shard is the feature file, as for ``-j``: the server
pool shares a server between the scenarios of a feature, behave writes one JUnit file per feature, and a
feature split over two machines would start its servers twice. Every feature of the selection lands in
exactly one shard, so every scenario does.

The plan depends only on the sorted list of feature files and the durations file, never on the machine or
on the order files come from the disk: machines that share a durations file (the workflow checks one in,
or restores it from its cache) agree on it without talking to each other. Each shard writes a manifest
(``shard.json``) with the whole plan and the scenarios it owes, which ``llama_bdd.tools.merge`` checks.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from behave.parser import parse_file

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = "shard.json"
_LOCATION = re.compile(r"(:\d+)+$")  # features/x.feature:12 names one scenario of a feature


@dataclass(frozen=True)
class Shard:
    """Shard ``number`` of ``count`` (1-based, as written on the command line: ``--shard 2/3``)."""

    number: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
        if not match:
            raise ValueError(f"--shard takes K/N (for example 2/3), not {text!r}")
        number, count = int(match.group(1)), int(match.group(2))
        if count < 1 or not 1 <= number <= count:
            raise ValueError(f"--shard {text}: K must be between 1 and N")
        return cls(number, count)

    @property
    def name(self) -> str:
        return f"shard-{self.number}-of-{self.count}"

    def __str__(self) -> str:
        return f"{self.number}/{self.count}"


def feature_key(feature: Path | str) -> str:
    """The name a feature has in the durations file: relative to the repository, so every machine agrees."""
    path = Path(feature)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(ROOT)
        except ValueError:
            pass
    return path.as_posix()


def estimated_seconds(feature: Path, durations: dict[str, float]) -> float:
    """The recorded duration of a feature; without one, a guess from its scenario and example-row count."""
    key = feature_key(feature)
    if key in durations:
        return float(durations[key])
    text = Path(_LOCATION.sub("", str(feature))).read_text(errors="replace")
    scenarios = len(re.findall(r"^\s*Scenario", text, re.M))
    rows = len(re.findall(r"^\s*\|", text, re.M))  # outline rows (headers included: a rough guess)
    return 2.0 * (scenarios + rows)


def balance(features: list[Path], count: int, durations: dict[str, float]) -> list[list[Path]]:
    """Longest first, each feature to the least loaded bucket; exactly ``count`` buckets, some maybe empty.

    Ties are broken by the feature's name and the bucket's index, so the result depends on nothing but the
    features and the durations: not on their order, not on the machine.
    """
    loads = [0.0] * count
    buckets: list[list[Path]] = [[] for _ in range(count)]
    for feature in sorted(set(features), key=lambda f: (-estimated_seconds(f, durations), feature_key(f))):
        index = min(range(count), key=lambda i: (round(loads[i], 6), i))
        loads[index] += estimated_seconds(feature, durations)
        buckets[index].append(feature)
    return buckets


def durations_digest(durations: dict[str, float]) -> str:
    """A short fingerprint of the durations a plan was made from: shards that disagree on it disagree on
    the plan, and the merge says so instead of reporting missing or doubled scenarios."""
    return hashlib.sha256(json.dumps(durations, sort_keys=True).encode()).hexdigest()[:16]


def scenario_ids(feature: Path) -> list[str]:
    """The id of every scenario behave will report for this feature (outline rows expanded, rules walked),
    as ``<feature name> :: <scenario name>``: the names behave's JUnit report carries."""
    parsed = parse_file(str(_LOCATION.sub("", str(feature))))
    if parsed is None:
        return []
    return [f"{parsed.name} :: {scenario.name}" for scenario in parsed.walk_scenarios()]


def matrix_label() -> str:
    """What this matrix tests, so the merge keeps one model's shards apart from another's: the
    ``LLAMA_BDD_SHARD_LABEL`` a workflow sets, else the model's file or name (``bin/bdd --model``)."""
    path, name = os.environ.get("LLAMA_BDD_MODEL_PATH"), os.environ.get("LLAMA_BDD_MODEL")
    return (os.environ.get("LLAMA_BDD_SHARD_LABEL") or (Path(path).name if path else None)
            or (f"{name} model" if name else "default model"))


def write_manifest(directory: Path, shard: Shard, plan: list[list[Path]], durations: dict[str, float],
                   options: list[str]) -> dict:
    """Record what this shard owes and how the plan was made (read by the merge)."""
    mine = plan[shard.number - 1]
    manifest = {
        "shard": shard.number, "count": shard.count, "label": matrix_label(),
        "durations_digest": durations_digest(durations),
        "plan": [[feature_key(f) for f in bucket] for bucket in plan],
        "estimated_seconds": [round(sum(estimated_seconds(f, durations) for f in bucket), 2) for bucket in plan],
        "features": [feature_key(f) for f in mine],
        "scenarios": [scenario_id for feature in mine for scenario_id in scenario_ids(feature)],
        "behave_options": options,
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1))
    return manifest


def finish_manifest(directory: Path, wall_seconds: float, exit_code: int) -> None:
    """Add the shard's wall time and exit code once it has run (the merge reports the balance from them)."""
    path = directory / MANIFEST
    manifest = json.loads(path.read_text())
    manifest.update(wall_seconds=round(wall_seconds, 2), exit_code=exit_code)
    path.write_text(json.dumps(manifest, indent=1))
