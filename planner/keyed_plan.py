"""``make plan`` of a keyed folder (its ``_settings.json`` names a ``key``): the table the loader would build, read
by the same recipe (``loading.keyed_building.read_keyed``) and held to the gates a first version meets, then what it
costs: one object in the bucket and the memory each joining lookup container holds. No DynamoDB write to plan."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fencepost.core.keyed.key_gates import key_refusal
from fencepost.core.storage.objects import settings_keys
from fencepost.loading.local_files import keyed_files
from fencepost.loading.progress import LoadFailure


@dataclass(frozen=True, slots=True)
class KeyedPlanned:
    dataset: str
    rows: int  # rows read (invalid ones included)
    keys: int
    columns: tuple[str, ...]  # the key column first
    invalid: int
    object_bytes: int  # the stored table, gzip'd JSON
    memory_bytes: int  # the table decoded, as a lookup container budgets it (``KeyedTable.memory_bytes``)

    def as_json(self) -> dict[str, Any]:
        return {
            "dataset": self.dataset,
            "keyed": True,
            "rows": self.rows,
            "keys": self.keys,
            "columns": list(self.columns),
            "invalid_rows": self.invalid,
            "object_bytes": self.object_bytes,
            "memory_bytes": self.memory_bytes,
        }

    def text(self) -> str:
        return "\n".join(
            [
                f"{self.dataset}: a keyed dataset: {self.rows:,} rows -> {self.keys:,} keys "
                f"({', '.join(self.columns)}), {self.invalid:,} invalid rows.",
                f"Stored as one object of {self.object_bytes:,} bytes (gzip'd); no DynamoDB writes, so no table mode "
                "to choose.",
                f"Each lookup container that joins it holds about {self.memory_bytes / 1e6:,.1f} MB once it is read.",
            ]
        )


def keyed_plan(files: Sequence[Path], dataset: str) -> KeyedPlanned | None:
    """The plan of ``files`` when they are a keyed folder; None for ranges. Raises ``LoadFailure`` as the loader
    would refuse the build (the gates of a first version: ``min_ranges``)."""
    found = keyed_files(files, dataset, 1)
    if found is None:
        return None
    keyed, settings = found
    table, read = keyed.table, keyed.read
    refusal = key_refusal(settings.gates, len(table.rows), None, None)
    if refusal is not None:
        raise LoadFailure(refusal.reason, object_key=settings_keys(dataset)[-1])
    encoded = table.encode()
    return KeyedPlanned(
        dataset, read.rows, len(table.rows), read.columns, read.problems.count, len(encoded), table.memory_bytes()
    )
