"""The one module that talks to DynamoDB. Every failure of the service surfaces as ``Unavailable``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any

import boto3
from boto3.dynamodb.types import TypeDeserializer, TypeSerializer
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.core.addresses import FAMILIES
from fencepost.core.items import Hit, Item, read_hit
from fencepost.core.keys import (
    DATASETS_PK,
    VERSION_HEADER_SK,
    Directory,
    Probe,
    dataset_id,
    range_pk,
    version_pk,
)
from fencepost.errors import Unavailable
from fencepost.model import DatasetRecord, LoadState, VersionInfo
from fencepost.settings import TableSettings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# Directory pages are items; 300,000 characters keeps one far below the 400 KB item limit.
DIRECTORY_PAGE_CHARS = 300_000

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def make_client(settings: TableSettings, *, pool: int = 32) -> DynamoDBClient:
    """A client for the lookup path: short timeouts and few retries, so a slow table is a fast 503."""
    config = Config(
        connect_timeout=1,
        read_timeout=2,
        retries={"max_attempts": 2, "mode": "standard"},
        max_pool_connections=pool,
        tcp_keepalive=True,
    )
    return boto3.client("dynamodb", endpoint_url=settings.endpoint_url, config=config)


def _plain(value: Any) -> Any:
    """Numbers from DynamoDB come back as Decimal; every number this service stores is a whole number."""
    if isinstance(value, Decimal):
        return int(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _to_item(values: dict[str, Any]) -> Item:
    return {k: _serializer.serialize(v) for k, v in values.items() if v is not None}


def _from_item(item: Item) -> dict[str, Any]:
    return {k: _plain(_deserializer.deserialize(v)) for k, v in item.items()}


def _record_from_item(item: Item) -> DatasetRecord:
    raw = _from_item(item)
    load = raw.get("load", {})
    return DatasetRecord(
        name=raw["name"],
        live=raw.get("live"),
        status=raw.get("status", "LOADING"),
        ranges=raw.get("ranges", 0),
        loaded_at=raw.get("loaded_at"),
        objects=raw.get("objects", []),
        load=LoadState(
            version=load.get("version"),
            phase=load.get("phase", "queued"),
            rows_read=load.get("rows_read", 0),
            items_written=load.get("items_written", 0),
            problems=load.get("problems", []),
            report=load.get("report"),
        ),
        previous=raw.get("previous"),
        retired=raw.get("retired", False),
    )


def _record_to_item(record: DatasetRecord) -> Item:
    load = record.load
    return _to_item(
        {
            "PK": DATASETS_PK,
            "SK": dataset_id(record.name),
            "name": record.name,
            "live": record.live,
            "status": record.status,
            "ranges": record.ranges,
            "loaded_at": record.loaded_at,
            "objects": record.objects,
            "load": {
                "version": load.version,
                "phase": load.phase,
                "rows_read": load.rows_read,
                "items_written": load.items_written,
                "problems": load.problems,
                "report": load.report,
            },
            "previous": record.previous,
            "retired": record.retired,
        }
    )


class Store:
    """Reads and writes of the ranges table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self.client = client
        self.table = table

    # -- lookups -----------------------------------------------------------------------------------------------

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        """The lookup's one Query: the last piece at or below the probe, eventually consistent."""
        pk = range_pk(dataset, version, probe.family, probe.partition)
        try:
            response = self.client.query(
                TableName=self.table,
                KeyConditionExpression="PK = :p AND SK <= :s",
                ExpressionAttributeValues={":p": {"S": pk}, ":s": {"N": str(probe.bound)}},
                ScanIndexForward=False,
                Limit=1,
            )
        except (ClientError, BotoCoreError) as error:
            raise Unavailable("the ranges table could not be read; retry shortly") from error
        items = response.get("Items")
        return read_hit(probe.family, probe.partition, items[0]) if items else None

    # -- datasets ----------------------------------------------------------------------------------------------

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        try:
            response = self.client.get_item(
                TableName=self.table,
                Key={"PK": {"S": DATASETS_PK}, "SK": {"N": str(dataset_id(name))}},
                ConsistentRead=consistent,
            )
        except (ClientError, BotoCoreError) as error:
            raise Unavailable("the dataset record could not be read; retry shortly") from error
        item = response.get("Item")
        if item is None or item.get("name", {}).get("S") != name:
            return None
        return _record_from_item(item)

    def list_datasets(self) -> list[DatasetRecord]:
        records = [_record_from_item(item) for item in self._query_all(DATASETS_PK)]
        return sorted(records, key=lambda record: record.name)

    def put_dataset(self, record: DatasetRecord) -> None:
        self._call("put_item", TableName=self.table, Item=_record_to_item(record))

    # -- versions ----------------------------------------------------------------------------------------------

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        columns: tuple[str, ...] | None = None
        pages: dict[int, list[str]] = {family: [] for family in FAMILIES}
        for item in self._query_all(version_pk(dataset, version)):
            if int(item["SK"]["N"]) == VERSION_HEADER_SK:
                columns = tuple(value["S"] for value in item["columns"]["L"])
            else:
                pages[int(item["f"]["N"])].append(item["p"]["S"])
        if columns is None:
            return None
        directories = {family: Directory.from_pages(family, pages[family]) for family in FAMILIES}
        return VersionInfo(dataset, version, columns, directories)

    def put_version(
        self, info: VersionInfo, *, ranges: int, items: int, objects: Sequence[dict[str, Any]], created_at: str
    ) -> None:
        """Write the version header and its directory pages (the range items are written separately)."""
        pk = version_pk(info.dataset, info.version)
        header = _to_item(
            {
                "PK": pk,
                "SK": VERSION_HEADER_SK,
                "columns": list(info.columns),
                "ranges": ranges,
                "items": items,
                "objects": list(objects),
                "created_at": created_at,
            }
        )
        page_items = [header]
        for family in FAMILIES:
            for page in info.directories[family].pages(DIRECTORY_PAGE_CHARS):
                page_items.append(_to_item({"PK": pk, "SK": len(page_items), "f": family, "p": page}))
        for item in page_items:
            self._call("put_item", TableName=self.table, Item=item)

    # -- plumbing ----------------------------------------------------------------------------------------------

    def write_items(self, items: Sequence[Item]) -> None:
        """Write items in batches of 25, retrying what DynamoDB leaves unprocessed."""
        for offset in range(0, len(items), 25):
            requests: list[Any] = [{"PutRequest": {"Item": item}} for item in items[offset : offset + 25]]
            while requests:
                response = self._call("batch_write_item", RequestItems={self.table: requests})
                requests = response.get("UnprocessedItems", {}).get(self.table, [])

    def _query_all(self, pk: str) -> Iterator[Item]:
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": pk}},
        }
        while True:
            response = self._call("query", **kwargs)
            yield from response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _call(self, operation: str, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, operation)(**kwargs)
        except (ClientError, BotoCoreError) as error:
            raise Unavailable(f"DynamoDB {operation} failed; retry shortly") from error
