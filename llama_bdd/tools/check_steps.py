"""Fail when any feature uses a step no step definition matches.

Checks ``features/`` and the feature files written for the original llama.cpp suite
(``tests/seed_features/``), whose phrases this library keeps defined. Runs behave in dry-run mode:
nothing is started.
"""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

from behave.configuration import Configuration
from behave.runner import Runner

ROOT = Path(__file__).resolve().parents[2]
FEATURE_PATHS = ("features", "tests/seed_features", "tests/final_era_features")


def undefined_steps(paths: tuple[str, ...] = FEATURE_PATHS) -> list[str]:
    config = Configuration(["--dry-run", "--no-junit", "--no-summary", "--format=plain", "--outfile=/dev/null", *paths],
                           load_config=False)  # behave.ini would add its console and HTML formatters
    runner = Runner(config)
    with contextlib.redirect_stdout(io.StringIO()):
        runner.run()
    return sorted({f"{step.location}: {step.keyword} {step.name}" for step in runner.undefined_steps})


def main() -> int:
    import os
    os.chdir(ROOT)
    missing = undefined_steps()
    if missing:
        print(f"{len(missing)} undefined step(s):", file=sys.stderr)
        for line in missing:
            print(f"  {line}", file=sys.stderr)
        return 1
    print(f"every step of {', '.join(FEATURE_PATHS)} is defined")
    return 0


if __name__ == "__main__":
    sys.exit(main())
