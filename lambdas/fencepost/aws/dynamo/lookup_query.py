"""The lookup's one Query: the last piece at or below an address, in the partition the directory names."""

from __future__ import annotations

from fencepost.aws.dynamo.client import Table
from fencepost.core.storage.items import Hit, read_hit
from fencepost.core.storage.keys import Probe, range_pk


class RangeTable:
    def __init__(self, table: Table) -> None:
        self.table = table

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        """The last piece at or below the probe, eventually consistent; None when the partition has none."""
        response = self.table.call(
            "query",
            KeyConditionExpression="PK = :p AND SK <= :s",
            ExpressionAttributeValues={
                ":p": {"S": range_pk(dataset, version, probe.family, probe.partition)},
                ":s": {"N": str(probe.bound)},
            },
            ScanIndexForward=False,
            Limit=1,
        )
        items = response.get("Items")
        return read_hit(probe.family, probe.partition, items[0]) if items else None
