"""Run behave, serially or in parallel workers: ``python -m llama_bdd.tools.run [-j N] [behave arguments]``.

With ``-j N`` the feature files are spread over N behave processes (longest first, by the durations of the
last run when known, else by scenario count). Each worker has its own temp dirs and servers on free ports,
with ``--threads`` sized so that N servers share the cores instead of fighting over them. Their JUnit files
land in one directory, each worker writes its own HTML report, the console shows each worker's output as
it finishes and then one merged summary, and the exit code is non-zero if any worker failed. Ctrl-C (or
SIGTERM) stops every worker, and every worker stops its servers.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORTS = ROOT / "reports"
DURATIONS = REPORTS / "durations.json"
RUN_TIMEOUT = float(os.environ.get("LLAMA_BDD_RUN_TIMEOUT", "7200"))
_SUMMARY = re.compile(r"^(\d+) (feature|scenario|step)s? passed, (.*)$")
_COUNT = re.compile(r"(\d+) (failed|errors?|skipped|untested|undefined|hook_error)")
# behave options that take a value: their value is never a feature path
_VALUE_OPTIONS = {"-f", "--format", "-o", "--outfile", "-t", "--tags", "-D", "--define", "-n", "--name",
                  "-i", "--include", "-e", "--exclude", "--junit-directory", "-k", "--lang", "-l",
                  "--logging-level", "--logging-format", "--logging-datefmt", "--logging-filter", "-c",
                  "--color", "--runner", "-r", "--stage"}


def split_jobs(argv: list[str]) -> tuple[int, list[str]]:
    """Take ``-j N`` / ``-jN`` / ``--jobs N`` / ``--jobs=N`` out of the arguments."""
    jobs, rest, index = 1, [], 0
    while index < len(argv):
        arg = argv[index]
        if arg in ("-j", "--jobs") and index + 1 < len(argv):
            jobs, index = int(argv[index + 1]), index + 2
            continue
        match = re.fullmatch(r"(?:-j|--jobs=)(\d+)", arg)
        if match:
            jobs = int(match.group(1))
        else:
            rest.append(arg)
        index += 1
    return max(1, jobs), rest


def split_paths(args: list[str]) -> tuple[list[str], list[str]]:
    """Separate feature paths (files or dirs) from behave options."""
    paths, options, previous = [], [], ""
    for arg in args:
        feature_part = re.sub(r"(:\d+)+$", "", arg)  # features/x.feature:12 names one scenario
        if previous in _VALUE_OPTIONS or arg.startswith("-") or not (feature_part.endswith(".feature")
                                                                      or Path(arg).is_dir()):
            options.append(arg)
        else:
            paths.append(arg)
        previous = arg
    return paths, options


def feature_files(paths: list[str]) -> list[Path]:
    files: list[Path] = []
    for path in map(Path, paths or ["features"]):
        files.extend(sorted(path.rglob("*.feature")) if path.is_dir() else [path])
    return files


def estimated_seconds(feature: Path, durations: dict[str, float]) -> float:
    if str(feature) in durations:
        return durations[str(feature)]
    text = Path(re.sub(r"(:\d+)+$", "", str(feature))).read_text(errors="replace")
    scenarios = len(re.findall(r"^\s*Scenario", text, re.M))
    rows = len(re.findall(r"^\s*\|", text, re.M))  # outline rows (headers included: a rough guess)
    return 2.0 * (scenarios + rows)


def partition(features: list[Path], jobs: int, durations: dict[str, float]) -> list[list[Path]]:
    """Longest-processing-time-first: each feature goes to the least loaded worker."""
    buckets: list[tuple[float, list[Path]]] = [(0.0, []) for _ in range(jobs)]
    for feature in sorted(features, key=lambda f: -estimated_seconds(f, durations)):
        load, members = min(buckets, key=lambda bucket: bucket[0])
        buckets.remove((load, members))
        buckets.append((load + estimated_seconds(feature, durations), members + [feature]))
    return [members for _, members in buckets if members]


def merged_summary(outputs: list[str]) -> list[str]:
    totals: dict[str, dict[str, int]] = {}
    for output in outputs:
        for line in output.splitlines():
            summary = _SUMMARY.match(line.strip())
            if summary:
                counts = totals.setdefault(summary.group(2) + "s", {})
                counts["passed"] = counts.get("passed", 0) + int(summary.group(1))
                for count, status in _COUNT.findall(summary.group(3)):
                    counts[status] = counts.get(status, 0) + int(count)
    return [f"{kind}: " + ", ".join(f"{n} {status}" for status, n in counts.items()) for kind, counts in totals.items()]


def record_durations(stats_files: list[Path]) -> None:
    durations: dict[str, float] = json.loads(DURATIONS.read_text()) if DURATIONS.is_file() else {}
    for stats_file in stats_files:
        if stats_file.is_file():
            per_feature: dict[str, float] = {}
            for record in json.loads(stats_file.read_text())["scenarios"]:
                per_feature[record["feature"]] = per_feature.get(record["feature"], 0.0) + record["seconds"]
            durations.update(per_feature)
    DURATIONS.parent.mkdir(parents=True, exist_ok=True)
    DURATIONS.write_text(json.dumps(durations, indent=1, sort_keys=True))


def behave_command() -> list[str]:
    return [sys.executable, "-m", "behave"]


def run_parallel(jobs: int, args: list[str]) -> int:
    if os.environ.get("PORT"):
        print("llama-bdd: PORT pins one port for every server; it cannot be used with -j > 1", file=sys.stderr)
        return 2
    paths, options = split_paths(args)
    durations = json.loads(DURATIONS.read_text()) if DURATIONS.is_file() else {}
    groups = partition(feature_files(paths), jobs, durations)
    user_formats = any(opt in ("-f", "--format") or opt.startswith("--format=") for opt in options)
    threads = max(1, (os.cpu_count() or 2) // len(groups))
    stats_dir = Path(os.environ.get("LLAMA_BDD_STATS_DIR") or REPORTS / "stats")
    stats_files: list[Path] = []
    workers: list[tuple[int, subprocess.Popen, Path]] = []
    (REPORTS / "workers").mkdir(parents=True, exist_ok=True)
    (REPORTS / "html").mkdir(parents=True, exist_ok=True)
    print(f"llama-bdd: {len(groups)} workers, {threads} server thread(s) each", flush=True)
    for number, group in enumerate(groups, start=1):
        env = dict(os.environ)
        env.setdefault("LLAMA_BDD_SERVER_THREADS", str(threads))
        stats_file = stats_dir / f"worker-{number}.json"
        stats_files.append(stats_file)
        env["LLAMA_BDD_STATS_FILE"] = str(stats_file)
        formats = [] if user_formats else ["--format=progress2", "--outfile=-", "--format=html-pretty",
                                           f"--outfile={REPORTS / 'html' / f'worker-{number}.html'}"]
        log = REPORTS / "workers" / f"worker-{number}.log"
        with log.open("w") as out:
            process = subprocess.Popen([*behave_command(), *formats, *options, *map(str, group)], cwd=ROOT,
                                       env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        workers.append((number, process, log))
    return _collect(workers, stats_files)


def _collect(workers: list[tuple[int, subprocess.Popen, Path]], stats_files: list[Path]) -> int:
    outputs, codes, pending = [], [], list(workers)
    deadline = time.monotonic() + RUN_TIMEOUT
    try:
        while pending:
            if time.monotonic() > deadline:
                print(f"llama-bdd: workers still running after {RUN_TIMEOUT:.0f}s (LLAMA_BDD_RUN_TIMEOUT); "
                      f"stopping them", file=sys.stderr, flush=True)
                raise KeyboardInterrupt
            for worker in list(pending):
                number, process, log = worker
                if process.poll() is not None:
                    pending.remove(worker)
                    output = log.read_text(errors="replace")
                    outputs.append(output)
                    codes.append(process.returncode)
                    print(f"\n===== worker {number} (exit {process.returncode}) =====\n{output}", flush=True)
            time.sleep(0.2)
    except KeyboardInterrupt:
        print("\nllama-bdd: interrupted, stopping every worker", file=sys.stderr, flush=True)
        for _, process, _ in pending:
            _signal_group(process, signal.SIGTERM)
        deadline = time.monotonic() + 30
        for _, process, _ in pending:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _signal_group(process, signal.SIGKILL)
                process.wait(timeout=30)
        return 130
    record_durations(stats_files)
    print("\n===== all workers =====")
    for line in merged_summary(outputs):
        print(line)
    return 0 if all(code == 0 for code in codes) else 1


def _signal_group(process: subprocess.Popen, signum: int) -> None:
    try:
        os.killpg(process.pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def main(argv: list[str] | None = None) -> int:
    signal.signal(signal.SIGTERM, _interrupt)
    jobs, args = split_jobs(list(sys.argv[1:] if argv is None else argv))
    os.chdir(ROOT)
    if jobs == 1:
        os.execv(sys.executable, [*behave_command(), *args])
    return run_parallel(jobs, args)


if __name__ == "__main__":
    sys.exit(main())
