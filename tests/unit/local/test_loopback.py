"""How DynamoDB Local is launched (``local.loopback``), and what the banner says of every listener: 127.0.0.1 only
when the launcher runs, and the truth, with the reason, when a machine without a JDK runs the jar as it is."""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import local.__main__ as make_run
from local import loopback


def test_without_a_jdk_the_jar_runs_as_it_is_and_the_reason_is_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(loopback, "javac_for", lambda _java: None)

    launched = loopback.launcher(tmp_path / "DynamoDBLocal.jar", "java", cache=tmp_path / "cache")

    assert launched.arguments == ("-jar", str(tmp_path / "DynamoDBLocal.jar"))
    assert (launched.loopback, launched.listens_on) == (False, "every interface")
    assert "no JDK" in launched.note


def test_a_launcher_that_does_not_compile_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    javac = tmp_path / "javac"
    javac.write_text("#!/bin/sh\necho 'error: release version 17 not supported' >&2\nexit 2\n")
    javac.chmod(0o755)
    monkeypatch.setattr(loopback, "javac_for", lambda _java: str(javac))

    launched = loopback.launcher(tmp_path / "DynamoDBLocal.jar", "java", cache=tmp_path / "cache")

    assert not launched.loopback
    assert launched.note.endswith("did not compile: error: release version 17 not supported")
    assert list((tmp_path / "cache").iterdir()) == []  # no half-compiled folder left behind


def test_a_compiled_launcher_is_used_again_without_compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = _jar(tmp_path)
    first = _compiling(tmp_path, monkeypatch, jar)
    monkeypatch.setattr(loopback, "javac_for", lambda _java: pytest.fail("compiled twice"))

    again = loopback.launcher(jar, "java", cache=tmp_path / "cache")

    assert again == first
    assert again.arguments[0] == "-Ddynamodb.local.host=127.0.0.1"
    assert again.arguments[-1] == loopback.MAIN


def test_a_launcher_built_for_a_new_jar_removes_the_folders_built_for_older_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = _jar(tmp_path)
    old = _compiling(tmp_path, monkeypatch, jar).archive
    assert old is not None
    old.write_bytes(b"archived classes")
    os.utime(jar, ns=(1, 1))  # the jar installed again: a new digest
    (tmp_path / "cache" / "not-a-digest-abc").mkdir()  # sixteen characters, not a digest: kept

    new = loopback.launcher(jar, "java", cache=tmp_path / "cache").archive

    assert new is not None
    assert new.parent != old.parent
    assert sorted(path.name for path in (tmp_path / "cache").iterdir()) == sorted([new.parent.name, "not-a-digest-abc"])
    assert (new.parent / loopback.PACKED).is_file()


def test_the_class_path_is_jars_alone_the_manifest_s_named_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = _jar(tmp_path)

    launched = _compiling(tmp_path, monkeypatch, jar)

    assert launched.archive is not None
    packed = launched.archive.parent / loopback.PACKED
    classpath = launched.arguments[launched.arguments.index("-cp") + 1]
    assert launched.classpath == classpath
    assert classpath.split(os.pathsep) == [
        str(packed),
        str(tmp_path / "lib" / "b.jar"),
        str(tmp_path / "lib" / "a.jar"),
    ]
    with zipfile.ZipFile(packed) as inside:
        manifest = inside.read(loopback.MANIFEST).decode()
        assert inside.namelist() == [loopback.MANIFEST, "server/Main.class", "LoopbackDynamoDBLocal.class"]
    assert "Class-Path" not in manifest
    assert "lib/a.jar" not in manifest  # nor its continuation line
    assert "Main-Class: server.Main\r\n" in manifest


def test_the_class_archive_is_mapped_once_it_exists(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    jar = _jar(tmp_path)
    before = _compiling(tmp_path, monkeypatch, jar)
    assert before.archive is not None
    assert not any(argument.startswith("-XX:SharedArchiveFile") for argument in before.arguments)

    before.archive.write_bytes(b"archived classes")
    after = loopback.launcher(jar, "java", cache=tmp_path / "cache")

    assert after.arguments[0] == f"-XX:SharedArchiveFile={before.archive}"
    assert after.arguments[1:] == before.arguments
    other = loopback.launcher(jar, str(tmp_path / "another-java"), cache=tmp_path / "cache")
    assert other.archive != before.archive  # an archive belongs to the JVM that wrote it
    assert other.arguments == before.arguments


def _jar(tmp_path: Path) -> Path:
    """A jar as DynamoDB Local ships: a manifest whose class path names its folder, a file, jars present and not."""
    (tmp_path / "lib").mkdir()
    for name in ("a.jar", "b.jar"):
        (tmp_path / "lib" / name).write_bytes(b"")
    jar = tmp_path / "DynamoDBLocal.jar"
    with zipfile.ZipFile(jar, "w") as packed:
        packed.writestr(
            loopback.MANIFEST,
            "Manifest-Version: 1.0\r\nMain-Class: server.Main\r\nClass-Path: . log4j2.xml lib/b.jar missin\r\n"
            " g.jar lib/a.jar\r\nCreated-By: 17\r\n\r\n",
        )
        packed.writestr("server/Main.class", b"\xca\xfe")
    return jar


def _compiling(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, jar: Path) -> loopback.Launcher:
    """A launcher compiled by a stand-in for javac that writes the class file where ``-d`` says."""
    javac = tmp_path / "javac"
    stand_in = (
        '#!/bin/sh\nwhile [ "$1" != "-d" ]; do shift; done\nmkdir -p "$2"; touch "$2/LoopbackDynamoDBLocal.class"\n'
    )
    javac.write_text(stand_in)
    javac.chmod(0o755)
    monkeypatch.setattr(loopback, "javac_for", lambda _java: str(javac))
    launched = loopback.launcher(jar, "java", cache=tmp_path / "cache")
    assert launched.loopback
    return launched


def _stack(launcher: loopback.Launcher | None, front: Any = None, moto: Any = None) -> Any:
    config = SimpleNamespace(http_port=3000, aws_port=4566, dynamodb_port=8000)
    database = SimpleNamespace(port=8000, launcher=launcher)
    return SimpleNamespace(config=config, dynamodb=database, dynamodb_front=front, s3_front=moto, moto=moto)


def test_the_banner_says_every_listener_is_on_loopback_when_it_is() -> None:
    launched = loopback.Launcher(("-cp", "x", loopback.MAIN), loopback=True)

    shown = make_run._listening(_stack(launched))

    assert shown == "127.0.0.1 only: 3000 (HTTP API), 4566 (S3, SQS), 8000 (DynamoDB Local)"


def test_the_banner_lists_the_fronts_of_faults_and_what_listens_behind_them() -> None:
    launched = loopback.Launcher(("-cp", "x", loopback.MAIN), loopback=True)

    shown = make_run._listening(_stack(launched, front=object(), moto=SimpleNamespace(port=4567)))

    assert shown == (
        "127.0.0.1 only: 3000 (HTTP API), 4566 (S3, SQS), 4567 (moto's S3, SQS behind the faults), "
        "8000 (the DynamoDB front: capacity emulator, faults), 8000 (DynamoDB Local)"
    )


def test_the_banner_says_which_port_listens_on_every_interface_and_why() -> None:
    launched = loopback.Launcher(("-jar", "x"), loopback=False, note="no JDK here (javac) to compile the launcher")

    shown = make_run._listening(_stack(launched))

    assert shown == (
        "127.0.0.1: 3000 (HTTP API), 4566 (S3, SQS); every interface: 8000 (DynamoDB Local), "
        "as no JDK here (javac) to compile the launcher"
    )
