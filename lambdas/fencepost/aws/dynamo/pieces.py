"""Range listing's reads: the pieces of one range partition between two sort keys, in address order.

One Query ``PK = p AND SK BETWEEN low AND high``, eventually consistent (a version's items never change), paged
with ``ExclusiveStartKey`` until ``limit`` pieces are read; never a Scan.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from fencepost.aws.dynamo.client import Table
from fencepost.core.storage.items import Hit, Slice, read_hit
from fencepost.core.storage.keys import range_pk
from fencepost.model import VersionInfo


def read_pieces(
    table: Table, dataset: str, version: int, family: int, partition: int, *, bounds: tuple[int, int], limit: int
) -> Slice:
    """At most ``limit`` pieces of the partition whose sort keys lie in ``bounds`` (inclusive), first first."""
    kwargs: dict[str, Any] = {
        "KeyConditionExpression": "PK = :p AND SK BETWEEN :low AND :high",
        "ExpressionAttributeValues": {
            ":p": {"S": range_pk(dataset, version, family, partition)},
            ":low": {"N": str(bounds[0])},
            ":high": {"N": str(bounds[1])},
        },
        "ReturnConsumedCapacity": "TOTAL",
    }
    hits: list[Hit] = []
    units = 0.0
    while True:
        # One more than needed tells whether the partition holds more.
        response = table.call("query", Limit=limit + 1 - len(hits), **kwargs)
        units += float(response.get("ConsumedCapacity", {}).get("CapacityUnits", 0.0))
        hits.extend(read_hit(family, partition, item) for item in response.get("Items", []))
        if len(hits) > limit or "LastEvaluatedKey" not in response:
            return Slice(hits[:limit], len(hits) > limit, units)
        kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]


def version_hits(table: Table, info: VersionInfo) -> Iterator[tuple[int, Hit]]:
    """Every stored piece of a version with the range it was cut from, ``(family, hit)``, in address order (IPv4,
    then IPv6): its directory's partitions in order, each read whole a page at a time."""
    for family in sorted(info.directories):
        for partition in info.directories[family].partitions:
            for page in table.query_pages(range_pk(info.dataset, info.version, family, partition)):
                for item in page:
                    yield family, read_hit(family, partition, item)


def version_pieces(table: Table, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]:
    """Every stored piece of a version, ``(family, first, last, values)``, in address order (an export's read)."""
    for family, hit in version_hits(table, info):
        yield family, hit.start, hit.end, hit.values
