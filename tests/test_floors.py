"""The three floors of the library: each imports only the floors below it; step modules stand alone."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "llama_bdd"
STEP_MODULES = sorted(path for path in (PACKAGE / "steplib").glob("*.py") if path.name != "__init__.py")
STEP_NAMES = {path.stem for path in STEP_MODULES}


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module the file imports (relative imports resolved against its package)."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package.rsplit(".", node.level - 1)[0] if node.level else ""
            module = ".".join(part for part in (base, node.module or "") if part)
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


@pytest.mark.parametrize("path", STEP_MODULES, ids=lambda path: path.stem)
def test_a_step_module_imports_no_other_step_module(path):
    others = {f"llama_bdd.steplib.{name}" for name in STEP_NAMES - {path.stem}}
    assert not imported_modules(path) & others


@pytest.mark.parametrize("path", sorted((PACKAGE / "client").glob("*.py")), ids=lambda path: path.stem)
def test_the_client_floor_knows_nothing_of_behave_or_the_steps(path):
    imported = imported_modules(path)
    assert not {name for name in imported if name == "behave" or name.startswith(("behave.", "llama_bdd.steplib"))}


@pytest.mark.parametrize("path", sorted((PACKAGE / "harness").glob("*.py")), ids=lambda path: path.stem)
def test_the_harness_imports_no_floor_above_it(path):
    imported = imported_modules(path)
    assert not {name for name in imported
                if name == "behave" or name.startswith(("behave.", "llama_bdd.steplib", "llama_bdd.client"))}


def test_the_step_core_imports_no_step_module():
    for path in (PACKAGE / "steplib" / "core").glob("*.py"):
        steps = {name for name in imported_modules(path) if name.rsplit(".", 1)[-1] in STEP_NAMES
                 and name.startswith("llama_bdd.steplib.") and ".core." not in name}
        assert not steps, f"{path.name} imports step modules {steps}"
