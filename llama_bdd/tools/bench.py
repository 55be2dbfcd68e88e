"""Benchmark the suite: the whole default run serially, then with 2 workers, then as 3 shards.

    python -m llama_bdd.tools.bench [--modes serial,parallel-2,shards] [behave arguments]      (bin/bench)

``--modes`` picks some of the three (``--modes serial``: the serial wall time alone, a third of the time).

Prints, for each mode: scenarios run and skipped, wall time, server starts, time spent starting and
stopping servers, time spent in HTTP requests, the harness overhead (the rest), and the ten slowest
scenarios; writes the same to reports/bench/bench.json. Also checks that no feature started more than
one server per distinct configuration, apart from scenarios that demand a fresh one.

The shard mode runs ``--shard 1/3``, ``2/3`` and ``3/3`` one after the other (as three CI machines would
run them side by side), planned from the durations the 2-worker run just recorded, and reports the shard
balance (slowest shard's wall time / fastest's) and whether the merged shards count the same scenarios,
by status, as the serial run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

from llama_bdd.tools import merge

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "reports" / "bench"
MODE_TIMEOUT = 7200  # one whole run; the suite takes minutes
SHARDS = 3


def run_mode(name: str, jobs: int, args: list[str]) -> dict:
    stats_dir = OUT / name
    for old in stats_dir.glob("*.json"):
        old.unlink()
    env = dict(os.environ, LLAMA_BDD_STATS_DIR=str(stats_dir))
    if jobs == 1:
        env["LLAMA_BDD_STATS_FILE"] = str(stats_dir / "worker-1.json")
    command = [sys.executable, "-m", "llama_bdd.tools.run", "-j", str(jobs), "--format=progress2", *args]
    started = time.monotonic()
    result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            timeout=MODE_TIMEOUT)
    wall = time.monotonic() - started
    (OUT / f"{name}.log").write_text(result.stdout)
    workers = [json.loads(path.read_text()) for path in sorted(stats_dir.glob("worker-*.json"))]
    return summarize(name, jobs, wall, result.returncode, workers)


def run_shards(count: int, args: list[str]) -> dict:
    """Each shard of ``count`` in turn, then the merge's checks; the balance is slowest / fastest wall time."""
    reports = OUT / f"shards-{count}"
    env = dict(os.environ, LLAMA_BDD_REPORTS_DIR=str(reports),
               LLAMA_BDD_DURATIONS=str(ROOT / "reports" / "durations.json"))
    env.pop("LLAMA_BDD_STATS_DIR", None)
    log = []
    for number in range(1, count + 1):
        command = [sys.executable, "-m", "llama_bdd.tools.run", "--shard", f"{number}/{count}", "--format=progress2",
                   *args]
        result = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                timeout=MODE_TIMEOUT)
        log.append(result.stdout)
    (OUT / f"shards-{count}.log").write_text("\n".join(log))
    shards = [s for s in merge.load_shards([reports]) if s.manifest["count"] == count]
    verdict = merge.judge(shards) if shards else None
    walls = {s.label: s.manifest.get("wall_seconds") for s in shards}
    return {"mode": f"shards-{count}", "shards": count, "shard_wall_seconds": walls,
            "estimated_seconds": shards[0].manifest["estimated_seconds"] if shards else None,
            "balance_slowest_over_fastest": verdict.balance if verdict else None,
            "totals": dict(verdict.totals) if verdict else {},
            "problems": verdict.problems if verdict else ["no shard ran"]}


def serial_totals() -> dict[str, int]:
    """Scenarios by status in the serial run's JUnit files (what the merged shards must add up to)."""
    return dict(Counter(status for _, status in merge.junit_results(ROOT / "reports" / "junit", [])))


def summarize(name: str, jobs: int, wall: float, exit_code: int, workers: list[dict]) -> dict:
    scenarios = [record for worker in workers for record in worker["scenarios"]]

    def seconds(category: str) -> float:
        return round(sum(w["timing"].get(category, {}).get("seconds", 0.0) for w in workers), 2)

    worker_wall = sum(w["wall_seconds"] for w in workers)
    busy = seconds("server_start") + seconds("server_stop") + seconds("http")
    extra_starts = []
    by_feature: dict[str, list[dict]] = defaultdict(list)
    for record in scenarios:
        by_feature[record["feature"]].append(record)
    for feature, records in by_feature.items():
        shared = [r for r in records if not r["fresh_server"] and r["config"]]
        starts = sum(r["server_starts"] for r in shared)
        configs = len({r["config"] for r in shared})
        if starts > configs:
            extra_starts.append(f"{feature}: {starts} starts for {configs} configurations")
    return {
        "mode": name, "workers": jobs, "exit_code": exit_code, "wall_seconds": round(wall, 2),
        "scenarios_run": sum(r["status"] != "skipped" for r in scenarios),
        "scenarios_skipped": sum(r["status"] == "skipped" for r in scenarios),
        "scenarios_failed": sum(r["status"] in ("failed", "error") for r in scenarios),
        "server_starts": sum(w["server_starts"] for w in workers),
        "server_reuses": sum(w["server_reuses"] for w in workers),
        "server_start_seconds": seconds("server_start"), "server_stop_seconds": seconds("server_stop"),
        "http_seconds": seconds("http"),
        "harness_overhead_seconds": round(worker_wall - busy, 2),
        "harness_overhead_percent": round(100 * (worker_wall - busy) / worker_wall, 1) if worker_wall else None,
        "extra_server_starts": extra_starts,
        "slowest": sorted(({"scenario": r["scenario"], "feature": r["feature"], "seconds": r["seconds"]}
                           for r in scenarios), key=lambda r: -r["seconds"])[:10],
    }


def show(result: dict) -> None:
    print(f"\n== {result['mode']} ({result['workers']} worker(s)), exit {result['exit_code']}")
    for key in ("wall_seconds", "scenarios_run", "scenarios_skipped", "scenarios_failed", "server_starts",
                "server_reuses", "server_start_seconds", "server_stop_seconds", "http_seconds",
                "harness_overhead_seconds", "harness_overhead_percent"):
        print(f"  {key:26} {result[key]}")
    print("  extra server starts:       " + ("; ".join(result["extra_server_starts"]) or "none"))
    print("  slowest scenarios:")
    for record in result["slowest"]:
        print(f"    {record['seconds']:7.2f}s  {record['feature']}: {record['scenario']}")


MODES = ("serial", "parallel-2", "shards")


def split_modes(args: list[str]) -> tuple[tuple[str, ...], list[str]]:
    """``--modes serial[,parallel-2][,shards]`` (default: all three) from the front of the arguments; the rest
    go to behave."""
    if args[:1] != ["--modes"]:
        return MODES, args
    if len(args) < 2:
        raise SystemExit(f"--modes needs a value: a comma-separated subset of {','.join(MODES)}")
    modes = tuple(mode for mode in args[1].split(",") if mode)
    unknown = [mode for mode in modes if mode not in MODES]
    if unknown or not modes:
        raise SystemExit(f"unknown mode(s) {','.join(unknown) or '(none)'}: choose from {','.join(MODES)}")
    return modes, args[2:]


def main(argv: list[str] | None = None) -> int:
    modes, args = split_modes(list(sys.argv[1:] if argv is None else argv))
    OUT.mkdir(parents=True, exist_ok=True)
    results = []
    if "serial" in modes:
        results.append(run_mode("serial", 1, args))
    serial = serial_totals() if "serial" in modes else None
    if "parallel-2" in modes:
        results.append(run_mode("parallel-2", 2, args))
    for result in results:
        show(result)
    speedup = None
    if len(results) == 2 and results[1]["wall_seconds"]:
        speedup = results[0]["wall_seconds"] / results[1]["wall_seconds"]
        print(f"\n2 workers vs 1: {speedup:.2f}x")
    shards = None
    if "shards" in modes:
        shards = run_shards(SHARDS, args)
        shards["same_totals_as_serial"] = serial is None or shards["totals"] == serial
        print(f"\n== {SHARDS} shards, one after the other")
        print(f"  wall seconds per shard:    {shards['shard_wall_seconds']} (planned {shards['estimated_seconds']})")
        print(f"  shard balance:             {shards['balance_slowest_over_fastest']} (slowest / fastest)")
        compared = ("not run" if serial is None else "same" if shards["totals"] == serial else "DIFFERENT")
        print(f"  merged scenarios:          {shards['totals']}; serial run: {serial} ({compared})")
        for problem in shards["problems"]:
            print(f"  merge problem: {problem}")
    (OUT / "bench.json").write_text(json.dumps({"modes": list(modes), "results": results,
                                                "speedup_2_workers": speedup, "shards": shards}, indent=1))
    print(f"written: {OUT / 'bench.json'}")
    shards_ok = shards is None or shards["same_totals_as_serial"]
    return 0 if all(r["exit_code"] == 0 for r in results) and shards_ok else 1


if __name__ == "__main__":
    sys.exit(main())
