"""The Lambda asset's bytecode is compiled by a CPython of the runtime's version (``infra.bytecode``): found on this
machine newest first, named explicitly or refused with what to do."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from infra import bytecode, packaging
from tests.support.assets import RUNTIME_TAG, deps_cache, no_interpreter, no_pip


def test_without_an_interpreter_of_the_runtimes_version_the_build_fails_and_says_what_to_do(
    real_asset: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Given a source change to assemble (cached dependencies, no pip) and no CPython 3.12 to be found
    source = tmp_path / "src" / "fencepost"
    shutil.copytree(packaging.SOURCE, source, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    (source / "extra.py").write_text("x = 1\n")
    no_pip(monkeypatch)
    no_interpreter(monkeypatch, tmp_path)
    out = tmp_path / "out" / "lambda"

    # When the asset is built / Then the build stops with a message naming what it looked for and the fix
    with pytest.raises(bytecode.PackagingError) as raised:
        packaging.build(source=source, out=out, deps=deps_cache(real_asset))
    message = str(raised.value)
    assert f"No CPython {bytecode.PYTHON_VERSION} interpreter" in message
    assert f"python{bytecode.PYTHON_VERSION} on PATH" in message
    assert str(tmp_path / "pyenv" / "versions") in message
    assert f"pyenv install {bytecode.PYTHON_VERSION}" in message
    assert bytecode.INTERPRETER_ENV in message
    # And no asset without bytecode is left behind for a synth to pick up
    assert not out.exists()


def test_an_interpreter_named_explicitly_must_be_of_the_runtimes_version(tmp_path: Path) -> None:
    environ = {"PATH": "", "PYENV_ROOT": str(tmp_path), bytecode.INTERPRETER_ENV: sys.executable}
    if sys.implementation.cache_tag == RUNTIME_TAG:
        pytest.skip("the tests run on the runtime's own Python version")

    with pytest.raises(bytecode.PackagingError, match=f"is not a CPython {bytecode.PYTHON_VERSION} interpreter"):
        bytecode.find_interpreter(environ=environ, running="")


def test_pyenv_versions_are_tried_newest_first_and_one_that_does_not_run_is_passed_over(tmp_path: Path) -> None:
    # Given a pyenv root with a broken newest 3.12 and a working older one (a link to a real CPython 3.12)
    real = bytecode.find_interpreter()
    broken = tmp_path / "versions" / f"{bytecode.PYTHON_VERSION}.99" / "bin" / f"python{bytecode.PYTHON_VERSION}"
    working = tmp_path / "versions" / f"{bytecode.PYTHON_VERSION}.0" / "bin" / f"python{bytecode.PYTHON_VERSION}"
    for path in (broken, working):
        path.parent.mkdir(parents=True)
    broken.write_text("#!/bin/sh\nexit 1\n")
    broken.chmod(0o755)
    working.symlink_to(Path(real).resolve())

    # When the interpreter is looked for with nothing else on offer
    found = bytecode.find_interpreter(environ={"PATH": "", "PYENV_ROOT": str(tmp_path)}, running="")

    # Then the working one is chosen
    assert found == str(working)
