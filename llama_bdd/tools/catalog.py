"""The step catalog: ``docs/steps.md``, generated from the step docstrings, grouped by domain.

    python -m llama_bdd.tools.catalog           # write docs/steps.md
    python -m llama_bdd.tools.catalog --check   # fail if it is stale, or a step lacks a docstring or example

Every step's docstring is a summary, optional details, then an indented Gherkin example; each example line
must be matched by the step it documents, so the catalog cannot drift from the phrases.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
from dataclasses import dataclass
from pathlib import Path

from behave import step_registry

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "docs" / "steps.md"
STEPS_DIR = ROOT / "features" / "steps"
KEYWORDS = ("Given ", "When ", "Then ", "And ", "But ")
EXAMPLE_INDENT = " " * 8
DOMAIN_ORDER = ("server", "request", "completion", "chat", "concurrency", "tokenize", "embeddings", "cors",
                "security", "metrics", "cache", "api")


@dataclass
class StepDoc:
    patterns: list[str]
    domain: str
    summary: str
    example: list[str]
    location: str
    problems: list[str]


def load_step_definitions() -> list[list[object]]:
    """Import every features/steps module (as behave does); the definitions grouped by step function."""
    for path in sorted(STEPS_DIR.glob("*.py")):
        spec = importlib.util.spec_from_file_location(f"_catalog_steps_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    by_function: dict[object, list[object]] = {}
    for step_type in ("given", "when", "then", "step"):
        for definition in step_registry.registry.steps[step_type]:
            by_function.setdefault(inspect.unwrap(definition.func), []).append(definition)
    return list(by_function.values())


def document(definitions: list[object]) -> StepDoc:
    definition = definitions[0]
    function = inspect.unwrap(definition.func)
    module = function.__module__
    domain = module.rsplit(".", 1)[-1] if module.startswith("llama_bdd.steplib.") else module
    # the module only: line numbers would make the catalog stale on every unrelated edit
    location = str(Path(inspect.getsourcefile(function)).relative_to(ROOT))
    problems: list[str] = []
    doc = function.__doc__ or ""
    if not doc.strip():
        problems.append("has no docstring")
    # source convention: prose at 4 spaces, the Gherkin example at 8 (inside a function body)
    lines = doc.expandtabs().splitlines()
    first_example = next((i for i, line in enumerate(lines) if i and line.startswith(EXAMPLE_INDENT)), len(lines))
    summary = " ".join(line.strip() for line in lines[:first_example] if line.strip())
    example = [line[len(EXAMPLE_INDENT):] for line in lines[first_example:] if line.strip()]
    if doc and not example:
        problems.append("has no indented Gherkin example in its docstring")
    own_uses = 0
    for line in example:
        text = line.strip()
        if text.startswith(KEYWORDS):  # the step itself, or a context line that some other step matches
            step_text = text.split(" ", 1)[1].strip()
            if any(d.match(step_text) is not None for d in definitions):
                own_uses += 1
            elif not any(d.match(step_text) for group in step_registry.registry.steps.values() for d in group):
                problems.append(f"example line '{text}' is matched by no step")
    if example and not own_uses:
        problems.append("has no example line that its own pattern matches")
    if example and not example[0].strip().startswith(KEYWORDS):
        problems.append("example does not start with Given/When/Then/And/But")
    return StepDoc([d.pattern for d in definitions], domain, summary, example, location, problems)


def render(docs: list[StepDoc]) -> str:
    domains = sorted({d.domain for d in docs},
                     key=lambda d: (DOMAIN_ORDER.index(d) if d in DOMAIN_ORDER else len(DOMAIN_ORDER), d))
    out = ["# Step catalog", "",
           "Generated from the step docstrings by `python -m llama_bdd.tools.catalog`; do not edit by hand.",
           "`bin/test` fails when this file is stale.", "",
           "Placeholders in `{braces}` take a value; `{name:d}` takes a whole number, `{name:w}` one word.",
           "Typed placeholders keep phrases apart: `{name:UrlPath}` is a path without spaces (`/slots/0?action=save`),",
           "`{name:ServerFlag}` a flag (`--ctx-size`), `{name:ModelName}` one word other than `file`/`alias`,",
           "`{name:PromptText}` any text but `of N tokens`, `{name:ServerState}` healthy, ready, idle or busy",
           "(`llama_bdd/steplib/core/types.py`).", ""]
    out += [f"- [{domain}](#{domain}) ({sum(d.domain == domain for d in docs)} steps)" for domain in domains]
    for domain in domains:
        out += ["", f"## {domain}", ""]
        for doc in (d for d in docs if d.domain == domain):
            out += [f"### `{doc.patterns[0]}`", ""]
            out += [f"also: `{pattern}`  " for pattern in doc.patterns[1:]]
            out += [doc.summary, "", "```gherkin", *doc.example, "```", f"<sub>{doc.location}</sub>", ""]
    return "\n".join(out).rstrip() + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate or check docs/steps.md")
    parser.add_argument("--check", action="store_true", help="fail if docs/steps.md is stale or a step is undocumented")
    options = parser.parse_args(argv)
    docs = [document(definitions) for definitions in load_step_definitions()]
    problems = [f"{d.location}: step '{d.patterns[0]}' {problem}" for d in docs for problem in d.problems]
    if problems:
        print("Steps must carry a docstring with a Gherkin example that their own pattern matches:", file=sys.stderr)
        for line in problems:
            print(f"  {line}", file=sys.stderr)
        return 1
    text = render(docs)
    if options.check:
        if not CATALOG.is_file() or CATALOG.read_text() != text:
            print(f"{CATALOG.relative_to(ROOT)} is stale: run 'python -m llama_bdd.tools.catalog' and commit it.",
                  file=sys.stderr)
            return 1
        print(f"{CATALOG.relative_to(ROOT)} is up to date ({len(docs)} steps)")
        return 0
    CATALOG.parent.mkdir(parents=True, exist_ok=True)
    CATALOG.write_text(text)
    print(f"wrote {CATALOG.relative_to(ROOT)} ({len(docs)} steps)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
