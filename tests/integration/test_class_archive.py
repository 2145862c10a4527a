"""DynamoDB Local's class-data archive (``local.class_archive``) on this machine's JVM: made once, then mapped by
every start (the JVM told to refuse to start without it), DynamoDB Local's own classes and the launcher's among what
it maps; one the JVM no longer maps is recorded again; and a machine without Java gets a reason, not a failed
install."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from local import class_archive
from local.dynamodb import DynamoDBLocal, find_jar, local_client
from local.loopback import launcher

MAPPED = "source: shared objects file (top)"  # -Xlog:class+load of a class the dynamic archive held


def test_the_archive_is_made_once_and_every_start_maps_dynamodb_local_s_classes(tmp_path: Path) -> None:
    cache = tmp_path / "cache"

    made, again = class_archive.make(cache), class_archive.make(cache)

    assert made.startswith("made: ")
    assert again == f"ready: {made.removeprefix('made: ')}"
    log = tmp_path / "dynamodb-local.log"
    options = ["-Xshare:on", "-Xlog:class+load=info"]  # on: no start at all unless the archive maps
    with DynamoDBLocal(cache=cache, log=log, java_options=options) as database:
        assert database.launcher is not None
        assert database.launcher.arguments[0] == f"-XX:SharedArchiveFile={made.removeprefix('made: ')}"
        assert local_client(database.endpoint).list_tables()["TableNames"] == []
    loaded = log.read_text(errors="replace")
    assert f"LoopbackDynamoDBLocal {MAPPED}" in loaded
    assert len(re.findall(rf"software\.amazon\.dynamodb\.\S+ {re.escape(MAPPED)}", loaded)) > 100


def test_an_archive_the_jvm_no_longer_maps_is_recorded_again(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    java = shutil.which("java")
    assert java is not None
    archive = launcher(find_jar(), java, cache).archive  # where this JVM's archive goes (the launcher packed)
    assert archive is not None
    archive.write_bytes(b"not an archive")  # as after a JDK upgraded in place, or the libraries installed again

    again = class_archive.make(cache)

    assert again == f"made: {archive}"
    assert archive.read_bytes()[:4] != b"not "
    assert class_archive.make(cache) == f"ready: {archive}"


def test_without_java_nothing_is_made_and_the_reason_is_said(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("local.class_archive.shutil.which", lambda _name: None)

    assert class_archive.make(tmp_path) == "not made: no Java here"
    assert list(tmp_path.iterdir()) == []
