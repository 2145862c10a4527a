"""What each make target installs: ``make run`` only what running needs (requirements/run.txt, DynamoDB Local from
npm), ``make test`` everything (requirements/dev.txt, the CDK CLI, checkov's environment); the two pin files agree."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import ROOT

REQUIREMENTS = ROOT / "requirements"
PIN = re.compile(r"^([A-Za-z0-9_.-]+)(\[[^\]]*\])?==(\S+)", re.M)
# Tools a test, a lint, a synth or a scan needs, and running never does
NOT_FOR_RUNNING = {
    "aws-cdk-lib", "cdk-nag", "cfn-lint", "checkov", "hypothesis", "import-linter", "mypy", "playwright", "pytest",
    "ruff", "schemathesis", "pip-tools",
}  # fmt: skip


def pins(name: str) -> dict[str, str]:
    text = (REQUIREMENTS / name).read_text()
    return {match.group(1).lower().replace("_", "-"): match.group(3) for match in PIN.finditer(text)}


def test_make_run_installs_only_what_running_needs() -> None:
    running = pins("run.txt")
    assert set(running) & NOT_FOR_RUNNING == set()
    assert len(running) < len(pins("dev.txt")) / 2


def test_dev_holds_every_pin_of_run_at_the_same_version() -> None:
    running, everything = pins("run.txt"), pins("dev.txt")
    assert {
        name: (version, everything.get(name)) for name, version in running.items() if everything.get(name) != version
    } == {}


@pytest.mark.parametrize("name", ["run.txt", "dev.txt", "lambda.txt", "tables.txt", "scan.txt"])
def test_each_pin_file_is_pip_compiles_output_without_an_index(name: str) -> None:
    text = (REQUIREMENTS / name).read_text()
    command = f"pip-compile --no-emit-find-links --no-emit-index-url --output-file=requirements/{name} requirements/"
    assert command + name.replace(".txt", ".in") in text
    assert re.search(r"^\s*-*(index-url|extra-index-url|find-links)\b", text, re.M) is None


def test_the_tables_functions_pins_are_the_functions_and_make_runs_pyarrow() -> None:
    functions, tables, running = pins("lambda.txt"), pins("tables.txt"), pins("run.txt")
    assert tables == {**functions, "pyarrow": running["pyarrow"]}


def _runtime_imports(folder: Path) -> set[str]:
    """Top-level modules imported by the code under ``folder``, leaving out imports for type checkers only."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text())
        typing_only = {
            id(child)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
            for statement in node.body
            for child in ast.walk(statement)
        }
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
    return found


def test_run_txt_provides_every_package_the_local_stack_and_the_functions_import() -> None:
    # make run runs local/ (with the capacity model) and the functions; make plan the planner; make sql sql/
    ran = (ROOT / "local", ROOT / "capacity", ROOT / "planner", ROOT / "lambdas" / "fencepost", ROOT / "sql")
    imported = set().union(*(_runtime_imports(folder) for folder in ran))
    own = {"fencepost", "capacity", "planner", "local", "infra", "bench", "sql", "tests", "__future__"}
    third_party = sorted(imported - set(sys.stdlib_module_names) - own)
    providers = importlib.metadata.packages_distributions()
    running = pins("run.txt")
    missing = [
        module
        for module in third_party
        if not any(dist.lower().replace("_", "-") in running for dist in providers.get(module, [module]))
    ]
    assert third_party  # the scan saw boto3, maxminddb, ...
    assert missing == []


def _dry_run(tmp_path: Path, target: str) -> str:
    """``make -n <target>`` in a tree holding only the build files: nothing installed yet, as in a fresh clone."""
    for name in ("Makefile", "package.json", "package-lock.json"):
        shutil.copy2(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "requirements", tmp_path / "requirements")
    shutil.copytree(ROOT / "infra", tmp_path / "infra", ignore=shutil.ignore_patterns("__pycache__"))
    run = subprocess.run(["make", "-n", target], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_make_run_installs_run_txt_and_dynamodb_local_only(tmp_path: Path) -> None:
    commands = _dry_run(tmp_path, "run")
    assert "-r requirements/run.txt" in commands
    assert "npm ci --omit=dev" in commands
    assert "dev.txt" not in commands
    assert ".venv-scan" not in commands
    assert "-m local" in commands


def test_make_test_still_installs_everything_it_needs(tmp_path: Path) -> None:
    commands = _dry_run(tmp_path, "test")
    assert "-r requirements/dev.txt" in commands
    assert re.search(r"^npm ci --no-audit", commands, re.M)  # the CDK CLI too
    assert "-r requirements/scan.txt" in commands
