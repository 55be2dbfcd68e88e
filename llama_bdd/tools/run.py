"""Run behave, serially, in parallel workers, or as one shard of a CI matrix:
``python -m llama_bdd.tools.run [-j N] [--shard K/N] [--durations FILE] [behave arguments]``.

With ``-j N`` the feature files are spread over N behave processes (longest first, by the durations of the
last run when known, else by scenario count). Each worker has its own temp dirs and servers on free ports,
with ``--threads`` sized so that N servers share the cores instead of fighting over them. Their JUnit files
land in one directory, their HTML parts are rendered into one report (``reports/html/behave.html``, as for
a serial run), the console shows each worker's output as it finishes and then one merged summary, and the
exit code is non-zero if any worker failed. Ctrl-C (or SIGTERM) stops every worker, and every worker stops
its servers.

With ``--shard K/N`` only the K-th of N balanced slices of the features runs (see ``llama_bdd.tools.shard``),
with ``-j`` inside it if asked, and everything it reports lands in ``reports/shard-K-of-N/`` for
``llama_bdd.tools.merge``. ``--durations FILE`` (or ``LLAMA_BDD_DURATIONS``) names the durations the plan
is balanced by; machines of one matrix must use the same file.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from llama_bdd.tools.html_report import PARTS_FORMAT, PARTS_SUFFIX, merge_parts
from llama_bdd.tools.shard import MANIFEST, Shard, balance, feature_key, finish_manifest, write_manifest

ROOT = Path(__file__).resolve().parents[2]
# Where runs report; a test (or a CI job) may point it elsewhere.
REPORTS = Path(os.environ.get("LLAMA_BDD_REPORTS_DIR") or ROOT / "reports").resolve()
DURATIONS = Path(os.environ.get("LLAMA_BDD_DURATIONS") or REPORTS / "durations.json")
RUN_TIMEOUT = float(os.environ.get("LLAMA_BDD_RUN_TIMEOUT", "7200"))
_SUMMARY = re.compile(r"^(\d+) (feature|scenario|step)s? passed, (.*)$")
_COUNT = re.compile(r"(\d+) (failed|errors?|skipped|untested|undefined|hook_error)")
# behave options that take a value: their value is never a feature path
_VALUE_OPTIONS = {"-f", "--format", "-o", "--outfile", "-t", "--tags", "-D", "--define", "-n", "--name",
                  "-i", "--include", "-e", "--exclude", "--junit-directory", "--lang", "-l",
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


def split_shard(argv: list[str]) -> tuple[Shard | None, Path, list[str]]:
    """Take ``--shard K/N`` and ``--durations FILE`` (also in their ``=`` forms) out of the arguments."""
    shard, durations, rest, index = None, DURATIONS, [], 0
    while index < len(argv):
        arg = argv[index]
        name, _, value = arg.partition("=")
        if name in ("--shard", "--durations"):
            if not value:
                if index + 1 >= len(argv):
                    raise ValueError(f"{name} needs a value")
                value, index = argv[index + 1], index + 1
            if name == "--shard":
                shard = Shard.parse(value)
            else:
                durations = Path(value).resolve()
        else:
            rest.append(arg)
        index += 1
    return shard, durations, rest


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


def partition(features: list[Path], jobs: int, durations: dict[str, float]) -> list[list[Path]]:
    """Longest-processing-time-first: each feature goes to the least loaded worker (no empty workers)."""
    return [members for members in balance(features, jobs, durations) if members]


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


def record_durations(stats_files: list[Path], target: Path) -> None:
    """Add the per-feature seconds of these worker stats to the durations file ``target``."""
    durations: dict[str, float] = json.loads(target.read_text()) if target.is_file() else {}
    for stats_file in stats_files:
        if stats_file.is_file():
            per_feature: dict[str, float] = {}
            for record in json.loads(stats_file.read_text())["scenarios"]:
                key = feature_key(record["feature"])
                per_feature[key] = round(per_feature.get(key, 0.0) + record["seconds"], 3)
            durations.update(per_feature)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(durations, indent=1, sort_keys=True))


def read_durations(path: Path) -> dict[str, float]:
    return json.loads(path.read_text()) if path.is_file() else {}


def behave_command() -> list[str]:
    return [sys.executable, "-m", "behave"]


def worker_command() -> list[str]:
    """behave for one worker: the same, minus behave.ini's HTML page (the workers' parts make one page)."""
    return [sys.executable, "-m", "llama_bdd.tools.worker"]


@dataclass
class RunPlan:
    """What one invocation runs: the behave options, the feature groups (one per worker) and where its
    reports go. A plain ``-j N`` run reports into ``reports/``; a shard into ``reports/shard-K-of-N/``."""

    options: list[str]
    groups: list[list[Path]]
    report_dir: Path
    html: Path
    durations_out: Path
    shard: Shard | None = None


def plan_run(jobs: int, shard: Shard | None, durations_file: Path, args: list[str]) -> RunPlan:
    paths, options = split_paths(args)
    durations = read_durations(durations_file)
    features = feature_files(paths)
    if shard is None:
        return RunPlan(options, partition(features, jobs, durations), REPORTS, REPORTS / "html" / "behave.html",
                       durations_file)
    report_dir = REPORTS / shard.name
    _clear(report_dir)
    plan = balance(features, shard.count, durations)
    # Every scenario of the shard's features shows in its JUnit, those the tags leave out as skipped: the
    # merge counts on that to find the scenarios of a lost shard.
    options = [*options, "--show-skipped", f"--junit-directory={report_dir / 'junit'}"]
    write_manifest(report_dir, shard, plan, durations, options)
    mine = plan[shard.number - 1]
    # A shard measures its own features' durations; the file the plan came from stays as it was, so shards
    # started on one machine at different times still agree on the plan.
    return RunPlan(options, partition(mine, jobs, durations), report_dir, report_dir / "html" / "behave.html",
                   report_dir / "durations.json", shard)


def _clear(report_dir: Path) -> None:
    """A shard's directory holds this run's reports only: stale JUnit files would count twice in a merge."""
    for sub in ("junit", "html", "stats", "workers"):
        shutil.rmtree(report_dir / sub, ignore_errors=True)
    for name in (MANIFEST, "durations.json"):
        (report_dir / name).unlink(missing_ok=True)


def junit_directory(options: list[str]) -> Path:
    """Where the workers' behave writes its JUnit XML: ``--junit-directory`` of the options, else behave.ini's."""
    for index, option in enumerate(options):
        if option.startswith("--junit-directory="):
            return ROOT / option.split("=", 1)[1]
        if option == "--junit-directory" and index + 1 < len(options):
            return ROOT / options[index + 1]
    ini = configparser.ConfigParser()
    ini.read(ROOT / "behave.ini")
    return ROOT / ini.get("behave", "junit_directory", fallback="reports")


def run_workers(plan: RunPlan) -> int:
    """Start one behave process per group, wait for all, merge their summaries and HTML reports."""
    if len(plan.groups) > 1 and os.environ.get("PORT"):
        print("llama-bdd: PORT pins one port for every server; it cannot be used with -j > 1", file=sys.stderr)
        return 2
    started = time.monotonic()
    label = f"shard {plan.shard}: " if plan.shard else ""
    if not plan.groups:
        print(f"llama-bdd: {label}no feature falls in this shard", flush=True)
        return _finish(plan, started, [], [], [])
    user_formats = any(opt in ("-f", "--format") or opt.startswith("--format=") for opt in plan.options)
    threads = max(1, (os.cpu_count() or 2) // len(plan.groups))
    stats_dir = Path(os.environ.get("LLAMA_BDD_STATS_DIR") or plan.report_dir / "stats")
    parts_dir = plan.report_dir / "html" / "parts"
    for old in [*stats_dir.glob("worker-*.json"), *parts_dir.glob("*" + PARTS_SUFFIX)]:
        old.unlink()
    stats_files: list[Path] = []
    workers: list[tuple[int, subprocess.Popen, Path]] = []
    (plan.report_dir / "workers").mkdir(parents=True, exist_ok=True)
    # behave's JUnit reporter makes its directory with exists()-then-makedirs(): two workers ending their first
    # features at once race, and the loser's report of that feature is lost. The directory exists beforehand.
    junit_directory(plan.options).mkdir(parents=True, exist_ok=True)
    print(f"llama-bdd: {label}{len(plan.groups)} worker(s), {threads} server thread(s) each", flush=True)
    for number, group in enumerate(plan.groups, start=1):
        env = dict(os.environ)
        env.setdefault("LLAMA_BDD_SERVER_THREADS", str(threads))
        stats_file = stats_dir / f"worker-{number}.json"
        stats_files.append(stats_file)
        env["LLAMA_BDD_STATS_FILE"] = str(stats_file)
        # Each worker hands its part of the HTML report over as data; one page is rendered from all parts.
        formats = [] if user_formats else ["--format=progress2", "--outfile=-", f"--format={PARTS_FORMAT}",
                                           f"--outfile={parts_dir / f'worker-{number}{PARTS_SUFFIX}'}"]
        log = plan.report_dir / "workers" / f"worker-{number}.log"
        with log.open("w") as out:
            process = subprocess.Popen([*worker_command(), *formats, *plan.options, *map(str, group)], cwd=ROOT,
                                       env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        workers.append((number, process, log))
    outputs, codes = _collect(workers)
    if codes is None:
        return 130
    return _finish(plan, started, outputs, codes, stats_files)


def _finish(plan: RunPlan, started: float, outputs: list[str], codes: list[int], stats_files: list[Path]) -> int:
    record_durations(stats_files, plan.durations_out)
    parts = sorted((plan.report_dir / "html" / "parts").glob("*" + PARTS_SUFFIX))
    if parts:
        title = f"llama-bdd shard {plan.shard}" if plan.shard else None
        count = merge_parts(parts, plan.html, title)
        print(f"\nllama-bdd: HTML report of {count} feature(s): {plan.html}")
    if len(outputs) > 1:
        print("\n===== all workers =====")
        for line in merged_summary(outputs):
            print(line)
    code = 0 if all(code == 0 for code in codes) else 1
    if plan.shard:
        finish_manifest(plan.report_dir, time.monotonic() - started, code)
        print(f"llama-bdd: shard {plan.shard} reports in {plan.report_dir} (merge them with "
              f"python -m llama_bdd.tools.merge)")
    return code


def _collect(workers: list[tuple[int, subprocess.Popen, Path]]) -> tuple[list[str], list[int] | None]:
    """Wait for every worker, printing each one's output as it ends; on Ctrl-C stop them all (codes None)."""
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
                    header = f"worker {number} (exit {process.returncode})"
                    print(f"\n===== {header} =====\n{output}" if len(workers) > 1 else output, flush=True)
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
        return outputs, None
    return outputs, codes


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
    try:
        shard, durations_file, args = split_shard(args)
    except ValueError as error:
        print(f"llama-bdd: {error}", file=sys.stderr)
        return 2
    os.chdir(ROOT)
    if jobs == 1 and shard is None:
        os.execv(sys.executable, [*behave_command(), *args])
    return run_workers(plan_run(jobs, shard, durations_file, args))


if __name__ == "__main__":
    sys.exit(main())
