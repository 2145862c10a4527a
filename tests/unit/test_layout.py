"""The house's rules, checked: layers point one way (the import-linter contracts in ``pyproject.toml``), no import cycle
anywhere (imports inside functions included), no module over 300 lines (the tests' included), no class over 200 and no
function over 60 outside ``infra/`` (whose constructors only declare resources), no two modules of ``lambdas/`` with
one name, and no test module imports another or a ``conftest`` (what tests share lives in ``tests/support/``)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("fencepost", "bench", "local", "infra", "spark", "sql")
CODE = (ROOT / "lambdas", ROOT / "bench", ROOT / "local", ROOT / "infra", ROOT / "spark", ROOT / "sql", ROOT / "app.py")
MAX_MODULE_LINES, MAX_CLASS_LINES, MAX_FUNCTION_LINES = 300, 200, 60
# File names several packages may each have: a package's own, its errors, and the entry points named by role.
SHARED_NAMES = {"__init__.py", "__main__.py", "errors.py"}


def _python_files(*roots: Path) -> Iterator[Path]:
    for root in roots:
        yield from [root] if root.is_file() else sorted(root.rglob("*.py"))


def test_the_layer_contracts_hold() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])}
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "0 broken" in result.stdout


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    groups.append(sorted(group))
    return groups


def test_the_cycle_finder_finds_a_cycle_through_a_deferred_import() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert strongly_connected(edges) == [["a", "b", "c"]]
    assert strongly_connected({"a": {"b"}, "b": set()}) == []


def test_no_module_imports_itself_through_others() -> None:
    graph = grimp.build_graph(*PACKAGES)
    modules = set(graph.modules)
    edges = {module: graph.find_modules_directly_imported_by(module) & modules for module in modules}
    assert strongly_connected(edges) == []


def sizes(paths: list[Path], root: Path) -> Iterator[tuple[str, str, int, int]]:
    """(kind, where, lines, limit) of every module, and of every class and function outside ``infra/``."""
    for path in paths:
        source = path.read_text()
        where = str(path.relative_to(root))
        yield "module", where, source.count("\n"), MAX_MODULE_LINES
        if where.startswith("infra/"):
            continue
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                yield "class", f"{where}:{node.name}", _lines(node), MAX_CLASS_LINES
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield "function", f"{where}:{node.name}", _lines(node), MAX_FUNCTION_LINES


def _lines(node: ast.stmt) -> int:
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


def over(paths: list[Path], root: Path) -> list[str]:
    return [
        f"{kind} {where}: {lines} lines (at most {limit})"
        for kind, where, lines, limit in sizes(paths, root)
        if lines > limit
    ]


def test_no_module_class_or_function_is_over_its_size() -> None:
    assert over(list(_python_files(*CODE)), ROOT) == []


def test_no_test_module_is_over_300_lines() -> None:
    found = [(where, n) for kind, where, n, _ in sizes(list(_python_files(ROOT / "tests")), ROOT) if kind == "module"]
    assert [(where, lines) for where, lines in found if lines > MAX_MODULE_LINES] == []


def test_the_size_check_sees_a_long_function_a_long_class_and_a_long_module(tmp_path: Path) -> None:
    body = "\n".join(f"        x{n} = {n}" for n in range(MAX_FUNCTION_LINES))
    methods = "\n".join(f"    def m{n}(self) -> None:\n        pass\n" for n in range(MAX_MODULE_LINES // 2))
    module = tmp_path / "long.py"
    module.write_text(f"class Long:\n    def long(self) -> None:\n{body}\n\n{methods}")
    assert [line.split(":")[0] for line in over([module], tmp_path)] == [
        "module long.py",
        "class long.py",
        "function long.py",
    ]


def test_no_two_modules_of_the_service_share_a_name() -> None:
    package = ROOT / "lambdas" / "fencepost"
    names = Counter(
        path.name
        for path in package.rglob("*.py")
        if path.name not in SHARED_NAMES and path.parent != package / "handlers"
    )
    assert [name for name, count in names.items() if count > 1] == []


def test_the_unit_tests_mirror_the_packages() -> None:
    """A unit test sits in the folder of the package it tests: ``tests/unit/reading/`` tests ``fencepost.reading``,
    ``tests/unit/bench/`` the ``bench`` tools; tests of top-level modules and of the repository sit at the top."""
    unit = ROOT / "tests" / "unit"
    folders = {path.parent.relative_to(unit) for path in unit.rglob("test_*.py")} - {Path()}
    assert folders, "no unit test folders found"
    missing = [
        str(folder)
        for folder in sorted(folders)
        if not (ROOT / "lambdas" / "fencepost" / folder).is_dir() and not (ROOT / folder).is_dir()
    ]
    assert missing == [], f"tests/unit folders that name no package: {missing}"
    assert all((unit / folder / "__init__.py").is_file() for folder in folders)


def _a_test_or_conftest(module: str) -> bool:
    last = module.rsplit(".", 1)[-1]
    return last.startswith("test_") or last == "conftest"


def imports_of_tests(paths: list[Path], root: Path) -> list[str]:
    """``file:line module`` for every import, anywhere in a file, of a test module (``test_*``) or of a ``conftest``:
    what tests share lives in ``tests/support/`` (or another module that is neither)."""
    found = []
    for path in paths:
        lines = []
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                module = "." * node.level + (node.module or "")
                modules = [module, *(f"{module.rstrip('.')}.{alias.name}".lstrip(".") for alias in node.names)]
            else:
                continue
            named = [module for module in modules if _a_test_or_conftest(module)]
            if named:
                lines.append((node.lineno, named[0]))
        found += [f"{path.relative_to(root)}:{line} {module}" for line, module in sorted(lines)]
    return found


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    found = imports_of_tests(list(_python_files(ROOT / "tests")), ROOT)
    assert found == [], f"{len(found)} imports of test modules or conftest files:\n" + "\n".join(found)


def test_the_import_check_sees_every_form_of_import(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text(
        "from tests.integration.test_loader import _tsv\n"
        "import tests.e2e.test_local_stack\n"
        "from tests.integration import test_sources, other\n"
        "from tests.infra.conftest import Synthesize\n"
        "from . import conftest\n"
        "def f() -> None:\n"
        "    import tests.handler.test_lookup_api as api\n"
        "from tests.support.stacks import Stack\n"
        "import tests.testing, tests.contest\n"
    )
    assert imports_of_tests([tmp_path / "a.py"], tmp_path) == [
        "a.py:1 tests.integration.test_loader",
        "a.py:2 tests.e2e.test_local_stack",
        "a.py:3 tests.integration.test_sources",
        "a.py:4 tests.infra.conftest",
        "a.py:5 conftest",
        "a.py:7 tests.handler.test_lookup_api",
    ]
