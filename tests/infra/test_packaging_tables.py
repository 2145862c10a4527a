"""The tables function's asset: the functions' pins plus pyarrow for CPython 3.12 on arm64, trimmed of what writing
Parquet never loads, and both assets within Lambda's unzipped limit."""

from __future__ import annotations

import glob
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow
import pytest

from infra import packaging
from tests.support import ROOT


@pytest.fixture(scope="module")
def tables_asset() -> Path:
    return packaging.build_tables()


def test_both_assets_fit_lambdas_unzipped_limit(real_asset: Path, tables_asset: Path) -> None:
    functions, tables = packaging.tree_bytes(real_asset), packaging.tree_bytes(tables_asset)

    # measured 2026-11-29: 117.8 MiB and 206.5 MiB; pyarrow untrimmed (151 MiB) would not have fitted beside the rest
    assert functions < tables < packaging.UNZIPPED_LIMIT_BYTES
    assert tables - functions > 60 * 2**20  # pyarrow is there


def test_the_tables_asset_holds_the_service_pyarrow_for_the_runtime_and_every_pin_of_the_functions(
    real_asset: Path, tables_asset: Path
) -> None:
    assert (tables_asset / "fencepost" / "handlers" / "tables.py").is_file()
    assert (tables_asset / "fencepost" / "tables" / "parquet_table.py").is_file()
    assert (tables_asset / "pyarrow" / "_parquet.cpython-312-aarch64-linux-gnu.so").is_file()
    assert (tables_asset / "pyarrow" / "libarrow_substrait.so.2600").is_file()  # pyarrow.lib links it
    functions = {path.name for path in real_asset.glob("*.dist-info")}
    tables = {path.name for path in tables_asset.glob("*.dist-info")}
    assert tables - functions == {"pyarrow-26.0.1.dist-info"}


def test_the_tables_asset_has_none_of_what_is_trimmed(tables_asset: Path) -> None:
    left = {name for pattern in packaging.TABLES_TRIM for name in _matches(tables_asset, pattern)}
    assert left == set()
    assert not (tables_asset / "pyarrow" / "libarrow_flight.so.2600").exists()
    assert not (tables_asset / "pyarrow" / "include").exists()


def _matches(root: Path, pattern: str) -> list[str]:
    return glob.glob(pattern, root_dir=root, recursive=True)


def test_pyarrow_trimmed_the_same_way_still_writes_and_reads_a_versions_table(tmp_path: Path) -> None:
    # Given this machine's pyarrow (x86_64: the asset's aarch64 binaries cannot run here), trimmed as the asset's is
    copy = tmp_path / "site"
    shutil.copytree(Path(pyarrow.__file__).parent, copy / "pyarrow", symlinks=True)
    gone = packaging.trim_tree(copy, packaging.TABLES_TRIM)
    assert {"pyarrow/include", "pyarrow/tests"} <= set(gone)
    assert any(name.startswith("pyarrow/libarrow_flight.so") for name in gone)

    # When a version's table is written and read back with it
    script = f"""
import sys, pathlib, pyarrow, pyarrow.parquet as pq
assert pyarrow.__file__.startswith({str(copy)!r}), pyarrow.__file__
from fencepost.enrichment.sources import FileSource
from fencepost.tables.parquet_table import write_table
folder = pathlib.Path({str(tmp_path)!r})
(folder / "a.tsv").write_text("1.0.0.0\\t1.0.0.255\\tAU\\n2001:db8::\\t2001:db8::ffff\\tZZ\\n")
source = FileSource("a", [folder / "a.tsv"])
written = write_table(source.table(source.info(source.live("a"))), folder / "a.parquet")
print(written.rows, pq.read_table(folder / "a.parquet").num_rows)
"""
    path = f"{copy}:{ROOT / 'lambdas'}:{ROOT}"
    run = subprocess.run(
        [sys.executable, "-c", script], env={"PYTHONPATH": path}, capture_output=True, text=True, check=False
    )

    # Then it works, with the trimmed copy
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["2", "2"]
