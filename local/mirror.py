"""The local S3 keeps nothing across restarts: ``make run`` mirrors the bucket's objects to disk and puts them back.

The mirror follows the S3 notifications the loader receives (an object written is copied, one removed is deleted;
the loader's own reports are not mirrored, what versions are read from later is). ``restore`` puts every mirrored
object back into a fresh bucket, which notifies the loader as any upload would; ``reconcile`` asks for a build of
every dataset a kept table knows, so each matches the restored objects.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import unquote_plus

from fencepost.core.storage.objects import REPORTS_PREFIX
from local.stack import LocalStack


def _mirror_path(root: Path, key: str) -> Path | None:
    path = (root / key).resolve()
    return path if path.is_relative_to(root.resolve()) else None


class Mirror:
    """Keeps a copy of the bucket's objects on disk, from the notifications the loader receives."""

    def __init__(self, stack: LocalStack, root: Path) -> None:
        self.stack = stack
        self.root = root
        self.s3 = stack.direct_client("s3")  # the mirror is the stack's own work: past the faults, if any

    @classmethod
    def attach(cls, stack: LocalStack, root: Path) -> Mirror:
        """A mirror of ``stack``'s bucket in ``root``, fed by every notification the control queue delivers."""
        mirror = cls(stack, root)
        control = stack.workers["control"]  # S3's notifications arrive there
        deliver = control.handler

        def observed(event: dict[str, Any], context: Any) -> Any:
            mirror.observe(event)
            return deliver(event, context)

        control.handler = observed
        return mirror

    def observe(self, event: dict[str, Any]) -> None:
        for record in event.get("Records", []):
            try:
                body = json.loads(record.get("body", ""))
            except ValueError:
                continue
            for notification in body.get("Records", []) if isinstance(body, dict) else []:
                key = unquote_plus(notification["s3"]["object"]["key"])
                path = _mirror_path(self.root, key)
                if path is None or key.startswith(REPORTS_PREFIX):
                    continue
                if notification.get("eventName", "").startswith("ObjectRemoved"):
                    path.unlink(missing_ok=True)
                    continue
                try:
                    data = self.s3.get_object(Bucket=self.stack.config.bucket, Key=key)["Body"].read()
                except Exception:  # removed again meanwhile
                    continue
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)

    def restore(self) -> int:
        count = 0
        for path in sorted(p for p in self.root.rglob("*") if p.is_file()):
            key = path.relative_to(self.root).as_posix()
            self.s3.put_object(Bucket=self.stack.config.bucket, Key=key, Body=path.read_bytes())
            count += 1
        return count


def reconcile(stack: LocalStack) -> list[str]:
    """Schedule a build of every dataset the table knows: each then matches the bucket's objects."""
    loader = stack.loader
    assert loader is not None
    names = [record.name for record in loader.tables.datasets.all() if not record.retired]
    for name in names:
        loader.service.request_build(name)
    return names
