"""The Lambda asset: built for CPython 3.12 on arm64, complete, reproducible, and cached."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from infra import bytecode, functions, packaging
from tests.support.assets import RUNTIME_TAG, deps_cache, no_pip

COMPILED_TAG = re.compile(r"cp312-cp312-manylinux\w*_aarch64")
PURE_TAG = re.compile(r"py[23]-none-any")


def _wheel(dist_info: Path) -> dict[str, list[str]]:
    fields: dict[str, list[str]] = {}
    for line in (dist_info / "WHEEL").read_text().splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value.strip())
    return fields


def test_compiled_packages_are_cp312_aarch64_and_the_rest_pure(real_asset: Path) -> None:
    wheels = {path.name: _wheel(path) for path in sorted(real_asset.glob("*.dist-info"))}
    compiled = {name for name, wheel in wheels.items() if wheel["Root-Is-Purelib"] == ["false"]}

    assert {name.split("-")[0] for name in compiled} >= {"pydantic_core"}
    for name, wheel in wheels.items():
        tags = wheel["Tag"]
        if name in compiled:
            assert all(COMPILED_TAG.fullmatch(tag) for tag in tags), (name, tags)
        else:
            assert "py3-none-any" in tags, (name, tags)
            assert all(PURE_TAG.fullmatch(tag) for tag in tags), (name, tags)


def test_every_extension_module_is_built_for_cpython_312_on_aarch64(real_asset: Path) -> None:
    extensions = sorted(path.relative_to(real_asset).as_posix() for path in real_asset.rglob("*.so"))

    assert "pydantic_core/_pydantic_core.cpython-312-aarch64-linux-gnu.so" in extensions
    # Python's extension modules are CPython 3.12's; the other shared objects are libraries a wheel bundles beside
    # its package (numpy.libs/: the BLAS numpy links)
    libraries = [name for name in extensions if name.split("/")[0].endswith(".libs")]
    modules = [name for name in extensions if name not in libraries]
    assert all(name.endswith(".cpython-312-aarch64-linux-gnu.so") for name in modules), modules
    for name in extensions:  # each an ELF file for aarch64 (e_machine 183)
        header = (real_asset / name).read_bytes()[:20]
        assert header[:4] == b"\x7fELF", name
        assert int.from_bytes(header[18:20], "little") == 183, name


def test_asset_holds_everything_the_handlers_import(real_asset: Path) -> None:
    for package in ("pydantic", "pydantic_core", "aws_lambda_powertools", "aws_xray_sdk", "boto3", "botocore"):
        assert (real_asset / package / "__init__.py").is_file(), package
    assert (real_asset / "fencepost" / "handlers" / "lookup.py").is_file()
    assert (real_asset / "fencepost" / "core" / "storage" / "keys.py").is_file()


def test_asset_holds_the_service_and_none_of_its_tools(real_asset: Path) -> None:
    """The capacity model, the planner, the bench and the local stack live beside the service, not in its package."""
    for tool in ("capacity", "planner", "bench", "local", "infra", "tests"):
        assert not (real_asset / tool).exists(), tool
        assert not (real_asset / "fencepost" / tool).exists(), tool
    rooms = {path.name for path in (real_asset / "fencepost").iterdir() if path.is_dir() and path.name != "__pycache__"}
    assert rooms == {
        "aws", "bootstrap", "core", "downloads", "enrichment", "handlers", "http", "loading", "reading", "sources",
        "tables",  # a version as a Parquet table: the loader will write them (pyarrow imported where they are made)
    }  # fmt: skip


class _RuntimeImports(ast.NodeVisitor):
    """Top-level names of the absolute imports that run (those under ``if TYPE_CHECKING:`` never do)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_If(self, node: ast.If) -> None:
        test = ast.unparse(node.test)
        if test in ("TYPE_CHECKING", "typing.TYPE_CHECKING"):
            for child in node.orelse:
                self.visit(child)
            return
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        self.names |= {alias.name.split(".")[0] for alias in node.names}

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level == 0 and node.module:
            self.names.add(node.module.split(".")[0])


def _imported_top_level_names(package: Path) -> set[str]:
    visitor = _RuntimeImports()
    for path in package.rglob("*.py"):
        visitor.visit(ast.parse(path.read_text(), str(path)))
    return visitor.names


def test_every_third_party_module_the_service_imports_is_in_the_asset(real_asset: Path) -> None:
    # Given every absolute import anywhere in the packaged service (lazy imports included)
    third_party = _imported_top_level_names(real_asset / "fencepost") - set(sys.stdlib_module_names) - {"fencepost"}

    # Then each is a package or module at the asset's root, where Lambda's import path starts
    missing = {
        name for name in third_party if not (real_asset / name).is_dir() and not (real_asset / f"{name}.py").exists()
    }
    # but pyarrow, imported when python -m enrich writes Parquet (enrichment/parquet_output.py): no function writes
    # Parquet (a job file asking for it is refused: tests/unit/enrichment/test_job_spec.py), so it stays out
    assert {"aws_lambda_powertools", "boto3", "pydantic", "numpy"} <= third_party
    assert missing == {"pyarrow"}


def test_asset_has_no_build_machine_scripts(real_asset: Path) -> None:
    assert not (real_asset / "bin").exists()


def test_the_asset_is_built_for_the_runtime_the_functions_run() -> None:
    assert functions.RUNTIME.name == f"python{bytecode.PYTHON_VERSION}"
    assert "cp" + bytecode.PYTHON_VERSION.replace(".", "") == packaging.ABI


def test_every_module_ships_bytecode_of_the_runtimes_python_version_and_no_other(real_asset: Path) -> None:
    # /var/task is read-only on Lambda: a module without bytecode would be compiled again at every cold start
    sources = sorted(real_asset.rglob("*.py"))
    compiled = sorted(real_asset.rglob("*.pyc"))

    assert len(sources) > 500  # the dependencies' modules, not only the service's
    missing = [
        path.relative_to(real_asset).as_posix()
        for path in sources
        if not (path.parent / "__pycache__" / f"{path.stem}.{RUNTIME_TAG}.pyc").is_file()
    ]
    assert missing == []
    assert {path.name.split(".")[-2] for path in compiled} == {RUNTIME_TAG}  # no -O levels, no other versions


def test_bytecode_is_the_runtimes_format_hash_based_and_names_the_lambda_path(real_asset: Path) -> None:
    interpreter = bytecode.find_interpreter()
    magic = subprocess.run(
        [interpreter, "-c", "import importlib.util, sys; sys.stdout.write(importlib.util.MAGIC_NUMBER.hex())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    pyc = (real_asset / "fencepost" / "handlers" / "__pycache__" / f"lookup.{RUNTIME_TAG}.pyc").read_bytes()

    assert pyc[:4].hex() == magic
    # Flags 1: hash-based and unchecked. Lambda's file times come from the zip, so a timestamp check could never
    # be trusted, and the source is not read or hashed again at each import.
    assert int.from_bytes(pyc[4:8], "little") == 1
    assert b"/var/task/fencepost/handlers/lookup.py" in pyc
    assert str(real_asset).encode() not in pyc
    for path in real_asset.rglob("*.pyc"):
        assert str(real_asset.parent).encode() not in path.read_bytes(), path


def test_asset_files_have_fixed_times_and_readable_modes(real_asset: Path) -> None:
    for path in [real_asset / "fencepost" / "handlers" / "lookup.py", *real_asset.rglob("*.so")]:
        stat = path.stat()
        assert stat.st_mtime == packaging.FIXED_MTIME
        assert stat.st_mode & 0o777 == 0o644


def test_a_second_build_with_the_same_inputs_does_nothing(real_asset: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Given an up-to-date asset
    before = real_asset.stat().st_mtime_ns
    calls = no_pip(monkeypatch)

    # When it is built again
    assert packaging.build() == real_asset

    # Then neither pip nor a copy ran
    assert calls == []
    assert real_asset.stat().st_mtime_ns == before


def test_assembly_is_reproducible_and_source_changes_skip_pip(
    real_asset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a copy of the service source and the cached dependencies (pip must not run)
    source = tmp_path / "src" / "fencepost"
    shutil.copytree(packaging.SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    deps = deps_cache(real_asset)
    no_pip(monkeypatch)

    # When the same inputs are assembled into two places
    first = packaging.build(source=source, out=tmp_path / "one" / "lambda", deps=deps)
    second = packaging.build(source=source, out=tmp_path / "two" / "lambda", deps=deps)

    # Then both hold the same bytes
    assert packaging.tree_digest(first) == packaging.tree_digest(second)

    # And when a source file changes, the next build picks it up without pip
    (source / "handlers" / "lookup.py").write_text("# changed\n")
    changed = packaging.build(source=source, out=first, deps=deps)
    assert (changed / "fencepost" / "handlers" / "lookup.py").read_text() == "# changed\n"
    assert packaging.tree_digest(changed) != packaging.tree_digest(second)


def test_inputs_digest_follows_requirements_and_source(tmp_path: Path) -> None:
    source = tmp_path / "fencepost"
    source.mkdir()
    (source / "__init__.py").write_text("")
    requirements = tmp_path / "lambda.txt"
    requirements.write_text("boto3==1.0\n")
    digest = packaging.inputs_digest(requirements, source)

    (source / "__pycache__").mkdir()
    (source / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    assert packaging.inputs_digest(requirements, source) == digest  # bytecode is not an input

    (source / "extra.py").write_text("x = 1\n")
    with_source = packaging.inputs_digest(requirements, source)
    assert with_source != digest

    requirements.write_text("boto3==2.0\n")
    assert packaging.inputs_digest(requirements, source) != with_source


@pytest.mark.timeout(300)
def test_a_fresh_pip_install_gives_the_same_asset_as_the_cache(real_asset: Path, tmp_path: Path) -> None:
    # Given a fixed copy of the source (the real tree may be edited while the tests run)
    source = tmp_path / "src" / "fencepost"
    shutil.copytree(packaging.SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    cached = packaging.build(source=source, out=tmp_path / "cached" / "lambda", deps=deps_cache(real_asset))

    # When everything is built from scratch, pip included
    fresh = packaging.build(source=source, out=tmp_path / "fresh" / "lambda", force=True)

    # Then the bytes are the same
    assert packaging.tree_digest(fresh) == packaging.tree_digest(cached)


def test_wheels_for_lambdas_newer_glibc_are_accepted_too() -> None:
    # Lambda's python3.12 (Amazon Linux 2023, glibc 2.34) runs manylinux2014 and manylinux_2_28 wheels alike: a
    # dependency that publishes only the newer tag must still install.
    from infra.packaging import PIP_ARGS

    platforms = [PIP_ARGS[i + 1] for i, arg in enumerate(PIP_ARGS) if arg == "--platform"]
    assert platforms == ["manylinux2014_aarch64", "manylinux_2_28_aarch64"]
