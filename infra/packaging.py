"""The Lambda asset, built without Docker: arm64 wheels for CPython 3.12 plus the ``fencepost`` package.

``pip install --platform manylinux2014_aarch64 --platform manylinux_2_28_aarch64 --only-binary=:all:
--implementation cp --python-version 3.12 --abi cp312`` fetches the wheels the Lambda runtime (python3.12, arm64)
can import, whatever Python and CPU run the build (without those flags pip picks this machine's cp311/x86_64
builds of pydantic-core, which fail on Lambda).

The result is ``build/lambda/``: the pinned dependencies of ``requirements/lambda.txt`` and ``lambdas/fencepost``,
with fixed file times and modes so the same inputs always give the same bytes (and the same CDK asset hash). Two
caches keep repeated synths fast: the dependencies are keyed by the requirements file, the whole asset by the
requirements and every source file; a synth with nothing changed does no work at all.

Every module ships with its bytecode (``__pycache__/*.cpython-312.pyc``). ``/var/task`` is read-only on Lambda, so
without it each cold start compiles every module it imports, again; bytecode is only used by an interpreter of the
same minor version, so it is compiled by a CPython 3.12 found on this machine (``find_interpreter``), and the build
fails, saying what it looked for, when there is none. The bytecode is ``unchecked-hash``: Python uses it without
comparing the source's modification time (which on Lambda comes from the zip, and is the same fixed 1980 date for
every file) or re-hashing the source; the asset is rebuilt whenever a source file changes, so the two never
disagree. Tracebacks name the files where Lambda puts them (``/var/task/...``).

The tables function (``handlers/tables.py``: each version written as Parquet) has an asset of its own,
``build/lambda-tables/``: the same package and pins plus pyarrow (``requirements/tables.txt``), which alone would take
the functions' asset past Lambda's 250 MiB unzipped. pyarrow is trimmed of what writing Parquet never loads
(``TABLES_TRIM``: its C++ headers and sources, Cython files, tests, Arrow Flight, the S3, GCS, Azure and HDFS file
systems, ORC, and the duplicate names of its Python bindings' libraries; what ``pyarrow.parquet`` links is kept:
``libarrow_substrait`` too, which ``pyarrow.lib`` needs).

Run ``python -m infra.packaging`` (``make build-lambda``) to build both by hand; ``app.py`` builds them before each
synth.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from infra.bytecode import PYTHON_VERSION, PackagingError, compile_bytecode

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
REQUIREMENTS: Final = REPO_ROOT / "requirements" / "lambda.txt"
SOURCE: Final = REPO_ROOT / "lambdas" / "fencepost"
ASSET_DIR: Final = REPO_ROOT / "build" / "lambda"
TABLES_REQUIREMENTS: Final = REPO_ROOT / "requirements" / "tables.txt"
TABLES_ASSET_DIR: Final = REPO_ROOT / "build" / "lambda-tables"
# What the tables function's pyarrow never loads (globs under the asset's root): with ``pyarrow.parquet`` importing
# and writing with the rest (checked on this machine's wheel by tests/infra/test_packaging_tables.py).
TABLES_TRIM: Final = (
    "pyarrow/include",
    "pyarrow/src",
    "pyarrow/tests",
    "pyarrow/**/*.pxd",
    "pyarrow/**/*.pyx",
    "pyarrow/**/*.pxi",
    "pyarrow/**/*.h",
    "pyarrow/libarrow_flight.so*",
    "pyarrow/libarrow_python_flight.so*",
    "pyarrow/_flight.*.so",
    "pyarrow/libarrow_s3.so*",
    "pyarrow/_s3fs.*.so",
    "pyarrow/_gcsfs.*.so",
    "pyarrow/_azurefs.*.so",
    "pyarrow/_hdfs.*.so",
    "pyarrow/_orc.*.so",
    "pyarrow/_dataset_orc.*.so",
    "pyarrow/_pyarrow_cpp_tests.*.so",
    "pyarrow/libarrow_python.so",
    "pyarrow/libarrow_python.so.*.*",
    "pyarrow/libarrow_python_parquet_encryption.so",
    "pyarrow/libarrow_python_parquet_encryption.so.*.*",
    "pyarrow/*gandiva*",
)
# Lambda's limit on a function's code, unzipped (https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html)
UNZIPPED_LIMIT_BYTES: Final = 250 * 1024 * 1024

# The Lambda runtime both functions use; infra.functions pins the same runtime and architecture.
# Lambda's python3.12 runs on Amazon Linux 2023 (glibc 2.34): wheels for glibc 2.17 (manylinux2014) and for glibc
# 2.28 both run there, so a dependency that drops the old tag still installs.
PLATFORMS: Final = ("manylinux2014_aarch64", "manylinux_2_28_aarch64")
ABI: Final = "cp312"
PIP_ARGS: Final = (
    "install",
    *(argument for platform in PLATFORMS for argument in ("--platform", platform)),
    "--only-binary=:all:",
    "--implementation",
    "cp",
    "--python-version",
    PYTHON_VERSION,
    "--abi",
    ABI,
    "--no-deps",  # requirements/lambda.txt pins every transitive dependency
    # pip would compile with the Python running it (maybe not 3.12), with timestamps: compile_bytecode does it.
    "--no-compile",
    "--disable-pip-version-check",
    "--no-input",
)
# Bump when the way the asset is assembled changes, so old caches are rebuilt.
LAYOUT_VERSION: Final = "3"
# 1980-01-01T00:00:00Z, the earliest time a zip entry can carry.
FIXED_MTIME: Final = 315_532_800
# Source files only: bytecode in the source tree is this machine's, the asset's is compiled for the runtime.
_SKIP_DIRS: Final = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})
_SKIP_SUFFIXES: Final = (".pyc", ".pyo")


def build(
    *,
    requirements: Path = REQUIREMENTS,
    source: Path = SOURCE,
    out: Path = ASSET_DIR,
    deps: Path | None = None,
    force: bool = False,
    trim: tuple[str, ...] = (),
) -> Path:
    """Build the asset into ``out`` unless it is already up to date; return ``out``.

    ``deps`` is where the pip-installed dependencies are cached (default: ``.<out name>-deps`` beside ``out``);
    ``trim``: globs of the dependencies' files left out.
    """
    out = out.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    digest = inputs_digest(requirements, source, trim)
    stamp = out.parent / f".{out.name}.inputs"
    with _locked(out.parent / f".{out.name}.lock"):
        if not force and out.is_dir() and stamp.is_file() and stamp.read_text() == digest:
            return out
        installed = _dependencies(requirements, deps or out.parent / f".{out.name}-deps", force=force, trim=trim)
        staging = out.parent / f".{out.name}.staging"
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(installed, staging, ignore=shutil.ignore_patterns(".inputs"))
        target = staging / source.name
        shutil.rmtree(target, ignore_errors=True)  # a dependency must never shadow the service package
        for path in _source_files(source):
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)
        compile_bytecode(target, root=staging)  # the dependencies' bytecode comes compiled from their cache
        _normalise(staging)
        stamp.unlink(missing_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        staging.rename(out)
        stamp.write_text(digest)
    return out


def build_tables(*, force: bool = False) -> Path:
    """The tables function's asset (``TABLES_ASSET_DIR``), built unless up to date."""
    return build(requirements=TABLES_REQUIREMENTS, out=TABLES_ASSET_DIR, force=force, trim=TABLES_TRIM)


def tree_bytes(root: Path) -> int:
    """The bytes of every file under ``root``: what Lambda counts against its unzipped limit."""
    return sum(path.stat().st_size for path in root.rglob("*") if path.is_file())


def inputs_digest(requirements: Path = REQUIREMENTS, source: Path = SOURCE, trim: tuple[str, ...] = ()) -> str:
    """What the asset is made of: the pip flags, the requirements, what is trimmed and every source file."""
    sha = hashlib.sha256(_requirements_digest(requirements, trim).encode())
    for path in _source_files(source):
        sha.update(path.relative_to(source).as_posix().encode() + b"\0")
        sha.update(hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()


def tree_digest(root: Path) -> str:
    """A digest of a directory's relative paths, file modes and contents (to compare two builds)."""
    sha = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        sha.update(path.relative_to(root).as_posix().encode() + b"\0")
        sha.update(oct(path.stat().st_mode & 0o777).encode())
        sha.update(hashlib.sha256(path.read_bytes()).digest())
    return sha.hexdigest()


def _requirements_digest(requirements: Path, trim: tuple[str, ...] = ()) -> str:
    sha = hashlib.sha256(LAYOUT_VERSION.encode())
    sha.update("\0".join(PIP_ARGS).encode())
    sha.update(requirements.read_bytes())
    if trim:  # the functions' asset keeps the digest it always had
        sha.update("\0".join(("trim", *trim)).encode())
    return sha.hexdigest()


def trim_tree(root: Path, patterns: tuple[str, ...]) -> list[str]:
    """Delete the files and folders under ``root`` that ``patterns`` match; return their paths, sorted."""
    gone: set[str] = set()
    for pattern in patterns:
        for name in glob.glob(pattern, root_dir=root, recursive=True):
            path = root / name
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.exists() or path.is_symlink():
                path.unlink()
            else:
                continue  # inside a folder already deleted
            gone.add(name)
    return sorted(gone)


def _dependencies(requirements: Path, cache: Path, *, force: bool, trim: tuple[str, ...] = ()) -> Path:
    """The pip-installed dependencies, reused while the requirements file, pip flags and trim stay the same."""
    digest = _requirements_digest(requirements, trim)
    stamp = cache / ".inputs"
    if not force and stamp.is_file() and stamp.read_text() == digest:
        return cache
    shutil.rmtree(cache, ignore_errors=True)
    command = [sys.executable, "-m", "pip", *PIP_ARGS, "--target", str(cache), "-r", str(requirements)]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        shutil.rmtree(cache, ignore_errors=True)
        raise PackagingError(
            f"pip could not fetch the Lambda dependencies (exit {result.returncode}):\n"
            f"{' '.join(command)}\n{result.stdout[-4000:]}{result.stderr[-4000:]}"
        )
    # Console scripts carry this machine's interpreter path and are never run on Lambda. The lines of the wheels'
    # RECORD files that name them go too: they hold the scripts' hashes, so that path as well.
    shutil.rmtree(cache / "bin", ignore_errors=True)
    trim_tree(cache, trim)
    for record in cache.glob("*.dist-info/RECORD"):
        lines = record.read_text().splitlines(keepends=True)
        record.write_text("".join(line for line in lines if not line.startswith("../")))
    try:
        compile_bytecode(cache, root=cache)
    except PackagingError:
        shutil.rmtree(cache, ignore_errors=True)
        raise
    stamp.write_text(digest)
    return cache


def _source_files(source: Path) -> list[Path]:
    if not (source / "__init__.py").is_file():
        raise PackagingError(f"{source} is not a Python package (no __init__.py)")
    files: list[Path] = []
    for directory, subdirs, names in os.walk(source):
        subdirs[:] = sorted(d for d in subdirs if d not in _SKIP_DIRS)
        files.extend(Path(directory) / name for name in names if not name.endswith(_SKIP_SUFFIXES))
    return sorted(files)


def _normalise(root: Path) -> None:
    """Fixed modes and times: the asset's bytes depend only on its inputs, and Lambda can read every file."""
    for directory, subdirs, names in os.walk(root):
        for name in subdirs:
            os.chmod(Path(directory) / name, 0o755)
        for name in names:
            path = Path(directory) / name
            os.chmod(path, 0o644)
            os.utime(path, (FIXED_MTIME, FIXED_MTIME))
    for directory, subdirs, _ in os.walk(root):
        for name in subdirs:
            os.utime(Path(directory) / name, (FIXED_MTIME, FIXED_MTIME))
    os.utime(root, (FIXED_MTIME, FIXED_MTIME))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One build at a time per output directory (parallel synths or test workers share build/)."""
    with path.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m infra.packaging",
        description="Build the Lambda assets (arm64, CPython 3.12) into build/lambda/ and build/lambda-tables/.",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even when the cached asset is up to date")
    parser.add_argument("--out", type=Path, default=ASSET_DIR, help=f"output directory (default: {ASSET_DIR})")
    args = parser.parse_args(argv)
    try:
        built = [("Lambda asset", build(out=args.out, force=args.force))]
        built.append(("Tables function's asset", build_tables(force=args.force)))
    except PackagingError as error:
        print(error, file=sys.stderr)
        return 1
    for what, out in built:
        print(f"{what} ready: {out} ({tree_digest(out)[:12]}, {tree_bytes(out) / 2**20:.1f} MiB unzipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
