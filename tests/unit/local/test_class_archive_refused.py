"""A JVM that runs but cannot archive DynamoDB Local's classes is not asked again at every ``make install`` and
``make run`` (about 5 s each): the refusal is noted beside where its archive would be; a failure that may pass (a JVM
that did not exit in time) is not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from local import class_archive
from local.dynamodb import LocalStackError
from local.loopback import Launcher

REFUSAL = "DynamoDB Local exited (0) without writing its class archive"


@pytest.fixture
def archive(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where this JVM's archive would be: a launcher of the test's own (nothing compiled or started)."""
    place = tmp_path / "launcher" / "classes-jvm.jsa"
    place.parent.mkdir()
    launched = Launcher(("-cp", "packed.jar", "Main"), loopback=True, archive=place, classpath="packed.jar")
    monkeypatch.setattr("local.class_archive.shutil.which", lambda _name: "/usr/bin/java")
    monkeypatch.setattr(class_archive, "find_jar", lambda: tmp_path / "DynamoDBLocal.jar")
    monkeypatch.setattr(class_archive, "launcher", lambda *_: launched)
    return place


def _records(failure: Exception | None) -> Any:
    def record(_scratch: Path, _cache: Path) -> None:
        if failure is None:
            pytest.fail("the JVM was asked again")
        raise failure

    return record


def test_a_jvm_that_wrote_no_archive_is_not_asked_again(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(class_archive, "_record", _records(class_archive.NotArchived(REFUSAL)))
    assert class_archive.make(tmp_path) == f"not made: {REFUSAL}"

    monkeypatch.setattr(class_archive, "_record", _records(None))
    refused = archive.with_suffix(".refused")
    assert class_archive.make(tmp_path) == f"not made: {REFUSAL} (an earlier try; remove {refused} to try again)"
    assert not archive.exists()


def test_a_jvm_that_did_not_exit_in_time_is_asked_again(
    archive: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    slow = LocalStackError("DynamoDB Local did not exit in 120 s to write its class archive")
    monkeypatch.setattr(class_archive, "_record", _records(slow))
    with pytest.raises(LocalStackError, match="did not exit"):
        class_archive.make(tmp_path)
    assert not archive.with_suffix(".refused").exists()
