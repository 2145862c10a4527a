"""DynamoDB Local on 127.0.0.1 only, through the launcher ``local/java/LoopbackDynamoDBLocal.java``.

DynamoDB Local has no option for its address: run as a jar, its server listens on every interface, so anyone who can
reach this machine could read and write the local table. The launcher starts the same server from the same command
line with its connector bound to 127.0.0.1. It is compiled once per launcher source and DynamoDB Local jar into
``build/dynamodb-local/<digest>/`` by the JDK's ``javac`` (the one beside ``java``, else the first on the PATH); a
machine with a Java runtime but no JDK runs the jar as it is, and ``Launcher.note`` says why (the banner prints it).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOURCE = Path(__file__).parent / "java" / "LoopbackDynamoDBLocal.java"
MAIN = "LoopbackDynamoDBLocal"
CACHE = ROOT / "build" / "dynamodb-local"
HOST = "127.0.0.1"


@dataclass(frozen=True, slots=True)
class Launcher:
    """How ``java`` runs DynamoDB Local: the arguments after the JVM's options, and whether it binds to ``HOST``."""

    arguments: tuple[str, ...]
    loopback: bool
    note: str = ""  # why it listens on every interface, when it does

    @property
    def listens_on(self) -> str:
        return HOST if self.loopback else "every interface"


def javac_for(java: str) -> str | None:
    """The compiler of the JDK ``java`` belongs to, else the first ``javac`` on the PATH."""
    beside = Path(java).resolve().parent / "javac"
    return str(beside) if beside.is_file() else shutil.which("javac")


def launcher(jar: Path, java: str, cache: Path = CACHE) -> Launcher:
    """The loopback launcher for ``jar`` (compiled now if it is not yet), or the jar as it is with the reason."""
    folder = cache / hashlib.sha256(SOURCE.read_bytes() + str(jar.resolve()).encode()).hexdigest()[:16]
    if not (folder / f"{MAIN}.class").is_file():
        javac = javac_for(java)
        if javac is None:
            return _as_is(jar, "no JDK here (javac) to compile the launcher that binds it to 127.0.0.1")
        failure = _compile(javac, jar, folder)
        if failure:
            return _as_is(jar, f"the launcher that binds it to 127.0.0.1 did not compile: {failure}")
    classpath = f"{folder}{os.pathsep}{jar}"
    return Launcher(("-Ddynamodb.local.host=" + HOST, "-cp", classpath, MAIN), loopback=True)


def _as_is(jar: Path, why: str) -> Launcher:
    return Launcher(("-jar", str(jar)), loopback=False, note=why)


def _compile(javac: str, jar: Path, folder: Path) -> str:
    """Compile into a scratch folder, then move it into place (another process may have done it meanwhile)."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix=".compiling-", dir=folder.parent))
    try:
        command = [javac, "--release", "17", "-nowarn", "-cp", str(jar), "-d", str(scratch), str(SOURCE)]
        run = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
        if run.returncode != 0:
            lines = (run.stderr or run.stdout).strip().splitlines()
            return lines[0] if lines else f"javac exited with {run.returncode}"
        try:
            scratch.rename(folder)
        except OSError:
            if not (folder / f"{MAIN}.class").is_file():
                raise
        return ""
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
