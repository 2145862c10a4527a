"""DynamoDB Local's class-data archive: ``python -m local.class_archive`` (``make install`` and ``make run`` run it
once) starts DynamoDB Local through ``local.loopback``'s launcher with the JVM told to archive, at exit, every class
it loaded; runs the requests the service makes; stops it; checks that the JVM maps the archive; and moves it beside
the launcher, where every later start maps the classes instead of loading them (0.5 of 1.0 CPU-s to first answer;
1.0 of 1.5 over a start and its first 60 requests). An archive the JVM no longer maps (a JDK upgraded in place,
DynamoDB Local's libraries installed again) is recorded again the next time; a JVM that cannot archive them is not
asked again (a ``.refused`` note beside where its archive would be) until it or the jar changes.

Nothing depends on the archive: without one (no JDK, a JVM that cannot map it, a failed run) DynamoDB Local starts
as before, and so does a JVM that finds it unusable: it loads its classes as usual.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from fencepost.core.storage.keys import PK, SK
from local.dynamodb import DynamoDBLocal, LocalStackError, create_table, find_jar, local_client
from local.loopback import CACHE, launcher

TABLE = "class-archive"


def make(cache: Path = CACHE) -> str:
    """Make the archive for this machine's ``java`` unless one exists that the JVM maps; what was done, or why not.
    One process at a time records (two installs at once: the second finds the first's archive)."""
    java = shutil.which("java")
    if java is None:
        return "not made: no Java here"
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / ".class-archive.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        launched = launcher(find_jar(), java, cache)
        if launched.archive is None:
            return f"not made: {launched.note}"
        if launched.archive.is_file():
            if not _check(java, launched.archive, launched.classpath):
                return f"ready: {launched.archive}"
            launched.archive.unlink()  # the JVM or a library changed since: recorded again
        refused = launched.archive.with_suffix(".refused")  # this JVM cannot archive these classes: not tried again
        if refused.is_file():
            return f"not made: {refused.read_text().strip()} (an earlier try; remove {refused} to try again)"
        scratch = launched.archive.with_name(f".recording-{os.getpid()}.jsa")
        try:
            _record(scratch, cache)
            failure = _check(java, scratch, launched.classpath)
            if failure:
                raise NotArchived(f"the JVM does not map it ({failure})")
            scratch.rename(launched.archive)
        except NotArchived as error:
            refused.write_text(f"{error}\n")
            return f"not made: {error}"
        finally:
            scratch.unlink(missing_ok=True)
    return f"made: {launched.archive}"


class NotArchived(LocalStackError):
    """This JVM ran but wrote no archive, or one it does not map: trying again would do the same, until the JVM or
    DynamoDB Local's jar changes (each has its own archive's place)."""


def _record(scratch: Path, cache: Path) -> None:
    database = DynamoDBLocal(java_options=[f"-XX:ArchiveClassesAtExit={scratch}"], cache=cache).start()
    process = database.process
    assert process is not None
    database.process = None  # stopped here: the JVM writes the archive as it exits, after SIGTERM
    try:
        _requests(local_client(database.endpoint))
    finally:
        process.terminate()
        try:
            code = process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            raise LocalStackError("DynamoDB Local did not exit in 120 s to write its class archive") from None
    if not scratch.is_file():
        raise NotArchived(f"DynamoDB Local exited ({code}) without writing its class archive")


def _requests(client: Any) -> None:
    """The kinds of request the service makes, errors included, so that their classes are archived too."""
    create_table(client, TABLE)
    key = {PK: {"S": "p"}, SK: {"N": "1"}}
    client.batch_write_item(
        RequestItems={TABLE: [{"PutRequest": {"Item": {PK: {"S": "p"}, SK: {"N": str(n)}}}} for n in range(25)]}
    )
    names, values = {"#p": PK, "#s": SK}, {":p": {"S": "p"}, ":s": {"N": "7"}}
    condition = "#p = :p AND #s <= :s"
    client.query(
        TableName=TABLE,
        KeyConditionExpression=condition,
        ExpressionAttributeNames=names,
        ExpressionAttributeValues=values,
        ScanIndexForward=False,
        Limit=1,
    )
    client.get_item(TableName=TABLE, Key=key, ConsistentRead=True)
    client.update_item(
        TableName=TABLE,
        Key=key,
        UpdateExpression="SET v = :v ADD n :one",
        ExpressionAttributeValues={":v": {"S": "x"}, ":one": {"N": "1"}},
    )
    with contextlib.suppress(client.exceptions.ConditionalCheckFailedException):  # refused: its error archived too
        client.put_item(
            TableName=TABLE,
            Item=key,
            ConditionExpression="attribute_not_exists(#p)",
            ExpressionAttributeNames={"#p": PK},
        )
    client.transact_write_items(TransactItems=[{"Put": {"TableName": TABLE, "Item": {PK: {"S": "q"}, SK: {"N": "1"}}}}])
    client.scan(TableName=TABLE, Limit=10)
    client.delete_item(TableName=TABLE, Key=key)
    client.describe_table(TableName=TABLE)
    client.delete_table(TableName=TABLE)


def _check(java: str, archive: Path, classpath: str) -> str:
    """Why a JVM made to map ``archive`` (``-Xshare:on``) with the launcher's ``classpath`` refuses, else ""."""
    command = [java, "-Xshare:on", f"-XX:SharedArchiveFile={archive}", "-cp", classpath, "-version"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    lines = (run.stdout + run.stderr).strip().splitlines()
    return "" if run.returncode == 0 else (lines[-1] if lines else f"java exited with {run.returncode}")


def main() -> int:
    try:
        done = make()
        if not done.startswith("ready"):
            print(f"DynamoDB Local's class archive: {done}")
    except Exception as error:  # an archive is a gain, never a reason for an install to fail
        print(f"DynamoDB Local's class archive: not made ({error}); it starts without one", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
