"""DynamoDB Local on 127.0.0.1 only, through the launcher ``local/java/LoopbackDynamoDBLocal.java``, its classes
mapped from an archive once one is made.

DynamoDB Local has no option for its address: run as a jar, its server listens on every interface, so anyone who can
reach this machine could read and write the local table. The launcher starts the same server from the same command
line with its connector bound to 127.0.0.1. It is compiled once per launcher source and DynamoDB Local jar (its
path, size and time) into ``build/dynamodb-local/<digest>/`` (the older digests' folders removed) by the JDK's
``javac`` (the one beside ``java``, else the first on the PATH), and packed there with DynamoDB Local's classes into
one jar whose manifest names no class path: the libraries are named on the command line, jar by jar. That class path
of jars alone is what lets the JVM map the classes from a class-data archive (``local.class_archive`` makes it; the
JVM refuses one with a folder on the class path, and DynamoDB Local's manifest names its own folder): each start
then spends about half the CPU it took. A machine with a Java runtime but no JDK runs the jar as it is, and
``Launcher.note`` says why (the banner prints it).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).parent / "java" / "LoopbackDynamoDBLocal.java"
MAIN = "LoopbackDynamoDBLocal"
CACHE = ROOT / "build" / "dynamodb-local"
HOST = "127.0.0.1"
PACKED = "dynamodb-local-loopback.jar"  # the launcher and DynamoDB Local's classes, no Class-Path
LAYOUT = b"packed jar, libraries on the command line"  # part of the folder's digest: a new layout, a new folder
MANIFEST = "META-INF/MANIFEST.MF"
_DIGEST = re.compile(r"[0-9a-f]{16}")  # a folder's name: its launcher's and jar's digest


@dataclass(frozen=True, slots=True)
class Launcher:
    """How ``java`` runs DynamoDB Local: the arguments after the JVM's options, and whether it binds to ``HOST``."""

    arguments: tuple[str, ...]
    loopback: bool
    note: str = ""  # why it listens on every interface, when it does
    archive: Path | None = None  # where this JVM's class-data archive is (or would be); None for the jar as it is
    classpath: str = ""  # the launcher's class path, jars alone ("" for the jar as it is)

    @property
    def listens_on(self) -> str:
        return HOST if self.loopback else "every interface"


def javac_for(java: str) -> str | None:
    """The compiler of the JDK ``java`` belongs to, else the first ``javac`` on the PATH."""
    beside = Path(java).resolve().parent / "javac"
    return str(beside) if beside.is_file() else shutil.which("javac")


def launcher(jar: Path, java: str, cache: Path = CACHE) -> Launcher:
    """The loopback launcher for ``jar`` (built now if it is not yet), or the jar as it is with the reason. Its
    arguments map the class-data archive when there is one for this ``java``."""
    digest = hashlib.sha256(LAYOUT + SOURCE.read_bytes() + _identity(jar).encode()).hexdigest()[:16]
    folder = cache / digest
    if not (folder / PACKED).is_file():
        javac = javac_for(java)
        if javac is None:
            return _as_is(jar, "no JDK here (javac) to compile the launcher that binds it to 127.0.0.1")
        failure = _build(javac, jar, folder)
        if failure:
            return _as_is(jar, f"the launcher that binds it to 127.0.0.1 did not compile: {failure}")
    classpath = os.pathsep.join([str(folder / PACKED), *map(str, libraries(jar))])
    runtime = hashlib.sha256(str(Path(java).resolve()).encode()).hexdigest()[:12]
    archive = folder / f"classes-{runtime}.jsa"  # a dynamic archive belongs to the JVM that wrote it
    shared = (f"-XX:SharedArchiveFile={archive}",) if archive.is_file() else ()
    arguments = (*shared, "-Ddynamodb.local.host=" + HOST, "-cp", classpath, MAIN)
    return Launcher(arguments, loopback=True, archive=archive, classpath=classpath)


def _identity(jar: Path) -> str:
    """The jar's path, size and time: a jar installed again (``npm ci``) gets a launcher packed from it."""
    if not jar.is_file():
        return str(jar.resolve())
    stat = jar.stat()
    return f"{jar.resolve()}:{stat.st_size}:{stat.st_mtime_ns}"


def libraries(jar: Path) -> list[Path]:
    """The jars ``jar``'s manifest names on its class path, in its order (folders and other files left out)."""
    with zipfile.ZipFile(jar) as packed:
        attributes = _attributes(packed.read(MANIFEST).decode())
    named = attributes.get("Class-Path", "").split()
    return [jar.parent / name for name in named if name.endswith(".jar") and (jar.parent / name).is_file()]


def _attributes(manifest: str) -> dict[str, str]:
    """A manifest's main attributes, continuation lines joined."""
    joined = manifest.replace("\r\n", "\n").replace("\n ", "")
    pairs = (line.split(": ", 1) for line in joined.split("\n\n", 1)[0].splitlines() if ": " in line)
    return dict(pairs)


def _without_class_path(manifest: str) -> str:
    lines, skipping = [], False
    for line in manifest.replace("\r\n", "\n").split("\n"):
        skipping = line.startswith("Class-Path:") or (skipping and line.startswith(" "))
        if not skipping:
            lines.append(line)
    return "\r\n".join(lines)


def _as_is(jar: Path, why: str) -> Launcher:
    return Launcher(("-jar", str(jar)), loopback=False, note=why)


def _build(javac: str, jar: Path, folder: Path) -> str:
    """Compile and pack into a scratch folder, then move it into place (another process may have done it meanwhile).
    The reason it failed, else ""."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".building-", dir=folder.parent))
    try:
        classes = scratch / "classes"
        command = [javac, "--release", "17", "-nowarn", "-cp", str(jar), "-d", str(classes), str(SOURCE)]
        run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        if run.returncode != 0:
            lines = (run.stderr or run.stdout).strip().splitlines()
            return lines[0] if lines else f"javac exited with {run.returncode}"
        _pack(jar, classes / f"{MAIN}.class", scratch / PACKED)
        shutil.rmtree(classes)
        try:
            scratch.rename(folder)
        except OSError:
            if not (folder / PACKED).is_file():
                raise
        _prune(folder)
        return ""
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def _prune(kept: Path) -> None:
    """The folders built for an older launcher or jar go (about 50 MB each, their archives with them): a JVM
    still running from one keeps the files it opened at its start."""
    for folder in kept.parent.iterdir():
        if folder != kept and _DIGEST.fullmatch(folder.name) and folder.is_dir():
            shutil.rmtree(folder, ignore_errors=True)


def _pack(jar: Path, main: Path, target: Path) -> None:
    """``jar``'s entries, its manifest without a class path, and the launcher's class, stored uncompressed (a class
    read from the jar is not inflated first)."""
    with zipfile.ZipFile(jar) as source, zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as packed:
        for entry in source.infolist():
            data = source.read(entry)
            if entry.filename == MANIFEST:
                data = _without_class_path(data.decode()).encode()
            packed.writestr(entry.filename, data)
        packed.write(main, main.name)
