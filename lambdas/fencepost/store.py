"""The one module that talks to DynamoDB: lookups, dataset records, versions, builds, and bulk writes.

Every failure of DynamoDB surfaces as ``Unavailable`` (a conditional check that fails is an answer, not a failure).
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from enum import Enum
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
    builds_pk,
    dataset_id,
    range_pk,
    version_pk,
)
from fencepost.errors import Unavailable
from fencepost.model import (
    FAILED,
    LOADING,
    PLANNING,
    READY,
    WRITING,
    BuildRecord,
    DatasetRecord,
    LoadState,
    VersionInfo,
)
from fencepost.settings import TableSettings

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

# Directory pages are items; 300,000 characters keeps one far below the 400 KB item limit.
DIRECTORY_PAGE_CHARS = 300_000
BATCH_SIZE = 25  # BatchWriteItem's limit

_RETRYABLE = {
    "ProvisionedThroughputExceededException",
    "ThrottlingException",
    "RequestLimitExceeded",
    "InternalServerError",
    "ServiceUnavailable",
}

_serializer = TypeSerializer()
_deserializer = TypeDeserializer()


def make_client(
    settings: TableSettings,
    *,
    pool: int = 32,
    retries: int = 2,
    read_timeout: float = 2,
    validate: bool = True,
) -> DynamoDBClient:
    """A client with short timeouts and few retries (the lookup's: a slow table is a fast 503).

    ``validate=False`` skips botocore's client-side parameter validation, about a quarter of the client's CPU
    per BatchWriteItem: for the loader, whose requests are all built here (DynamoDB still validates them).
    """
    del settings  # the endpoint comes from the environment (AWS_ENDPOINT_URL_DYNAMODB) when local
    config = Config(
        connect_timeout=1,
        read_timeout=read_timeout,
        retries={"max_attempts": retries, "mode": "standard"},
        max_pool_connections=pool,
        tcp_keepalive=True,
        parameter_validation=validate,
    )
    return boto3.client("dynamodb", config=config)


def _plain(value: Any) -> Any:
    """Numbers from DynamoDB come back as Decimal; every number this service stores is a whole number."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, set):
        return {_plain(v) for v in value}
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _av(value: Any) -> Any:
    return _serializer.serialize(_decimals(value))


def _decimals(value: Any) -> Any:
    """Floats (timestamps) go to DynamoDB as Decimal."""
    if isinstance(value, float):
        return Decimal(str(value))
    if isinstance(value, list):
        return [_decimals(v) for v in value]
    if isinstance(value, dict):
        return {k: _decimals(v) for k, v in value.items()}
    return value


def _to_item(values: dict[str, Any]) -> Item:
    return {k: _av(v) for k, v in values.items() if v is not None}


def _from_item(item: Item) -> dict[str, Any]:
    return {k: _plain(_deserializer.deserialize(v)) for k, v in item.items()}


def _load_map(load: LoadState) -> dict[str, Any]:
    return {
        "version": load.version,
        "phase": load.phase,
        "rows_read": load.rows_read,
        "items_written": load.items_written,
        "problems": load.problems,
        "report": load.report,
    }


def _record_from_item(item: Item) -> DatasetRecord:
    raw = _from_item(item)
    load = raw.get("load", {})
    return DatasetRecord(
        name=raw["name"],
        live=raw.get("live"),
        status=raw.get("status", LOADING),
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
        live_since=raw.get("live_since"),
        heartbeat=raw.get("heartbeat"),
        requests=raw.get("requests", 0),
        planned=raw.get("planned", 0),
        builds=raw.get("builds", 0),
        floor=raw.get("floor", 0),
    )


def _record_to_item(record: DatasetRecord) -> Item:
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
            "load": _load_map(record.load),
            "previous": record.previous,
            "retired": record.retired,
            "live_since": record.live_since,
            "heartbeat": record.heartbeat,
            "requests": record.requests,
            "planned": record.planned,
            "builds": record.builds,
            "floor": record.floor,
        }
    )


def _build_from_item(dataset: str, item: Item) -> BuildRecord:
    raw = _from_item(item)
    return BuildRecord(
        dataset=dataset,
        build=raw["SK"],
        state=raw["state"],
        chunks=raw["chunks"],
        done=set(raw.get("done", set())),
        written=raw.get("written", 0),
        ranges=raw.get("ranges", 0),
        items=raw.get("items", 0),
        objects=raw.get("objects", []),
        report=raw.get("report"),
        started=raw.get("started"),
    )


class Switch(Enum):
    """What became of an attempt to make a build live."""

    SWITCHED = "switched"
    ALREADY_LIVE = "already live"
    STALE = "stale"  # a newer version is live, or the dataset retired after this build began


@dataclass(frozen=True, slots=True)
class Switched:
    result: Switch
    before: DatasetRecord | None = None  # the record as it was before the switch


@dataclass(slots=True)
class WriteOutcome:
    written: int = 0
    throttled: int = 0  # calls refused or answered with unprocessed items
    retries: int = 0  # items sent again after such an answer
    unfinished: list[dict[str, Any]] = field(default_factory=list)  # requests not written by the deadline


class RateLimiter:
    """A token bucket shared by writer threads: at most ``rate`` items per second (0: unlimited)."""

    def __init__(self, rate: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.clock = clock
        self.tokens = rate
        self.stamp = clock()
        self.lock = threading.Lock()

    def acquire(self, count: int) -> None:
        if self.rate <= 0:
            return
        while True:
            with self.lock:
                now = self.clock()
                self.tokens = min(self.rate, self.tokens + (now - self.stamp) * self.rate)
                self.stamp = now
                if self.tokens >= count or self.tokens >= self.rate:
                    self.tokens -= count
                    return
                wait = (count - self.tokens) / self.rate
            time.sleep(wait)


class Store:
    """Reads and writes of the ranges table."""

    def __init__(self, client: DynamoDBClient, table: str) -> None:
        self.client = client
        self.table = table

    # -- lookups -----------------------------------------------------------------------------------------------

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        """The lookup's one Query: the last piece at or below the probe, eventually consistent."""
        pk = range_pk(dataset, version, probe.family, probe.partition)
        response = self._call(
            "query",
            TableName=self.table,
            KeyConditionExpression="PK = :p AND SK <= :s",
            ExpressionAttributeValues={":p": {"S": pk}, ":s": {"N": str(probe.bound)}},
            ScanIndexForward=False,
            Limit=1,
        )
        items = response.get("Items")
        return read_hit(probe.family, probe.partition, items[0]) if items else None

    # -- dataset records ---------------------------------------------------------------------------------------

    def _dataset_key(self, name: str) -> Item:
        return {"PK": {"S": DATASETS_PK}, "SK": {"N": str(dataset_id(name))}}

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        response = self._call("get_item", TableName=self.table, Key=self._dataset_key(name), ConsistentRead=consistent)
        item = response.get("Item")
        if item is None or item.get("name", {}).get("S") != name:
            return None
        return _record_from_item(item)

    def list_datasets(self) -> list[DatasetRecord]:
        records = [_record_from_item(item) for item in self._query_all(DATASETS_PK, consistent=True)]
        return sorted(records, key=lambda record: record.name)

    def put_dataset(self, record: DatasetRecord) -> None:
        self._call("put_item", TableName=self.table, Item=_record_to_item(record))

    def _update_dataset(
        self,
        name: str,
        expression: str,
        values: dict[str, Any],
        *,
        condition: str | None = None,
        returns: str = "NONE",
    ) -> DatasetRecord | bool | None:
        """One UpdateItem on a dataset record. Attribute names are written ``#x`` and mapped to ``x``.

        Returns the record (``returns`` ALL_NEW/ALL_OLD), True when done, False when the condition failed.
        """
        names = {f"#{word}": word for word in _names_in(expression + " " + (condition or ""))}
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "Key": self._dataset_key(name),
            "UpdateExpression": expression,
            "ExpressionAttributeNames": names,
            "ReturnValues": returns,
        }
        if values:
            kwargs["ExpressionAttributeValues"] = {k: _av(v) for k, v in values.items()}
        if condition:
            kwargs["ConditionExpression"] = condition
        try:
            response = self._call("update_item", **kwargs)
        except _ConditionFailed:
            return False
        if returns == "NONE":
            return True
        attributes = response.get("Attributes")
        return _record_from_item(attributes) if attributes and "name" in attributes else None

    def note_request(self, name: str, now: float) -> int:
        """Record a change in the dataset's folder; returns its request number (a burst keeps only the last)."""
        record = self._update_dataset(
            name,
            "SET #name = :name, #status = :loading, #load = :load, #heartbeat = :now ADD #requests :one",
            {":name": name, ":loading": LOADING, ":load": _load_map(LoadState()), ":now": now, ":one": 1},
            returns="ALL_NEW",
        )
        assert isinstance(record, DatasetRecord)
        return record.requests

    def start_build(self, name: str, request: int, now: float) -> DatasetRecord | None:
        """Take the next build number for request ``request``; None when a newer request or a duplicate exists."""
        record = self._update_dataset(
            name,
            "SET #planned = :request, #heartbeat = :now ADD #builds :one",
            {":request": request, ":now": now, ":one": 1},
            condition="#requests = :request AND (attribute_not_exists(#planned) OR #planned < :request)",
            returns="ALL_NEW",
        )
        if not isinstance(record, DatasetRecord):
            return None
        self._update_dataset(
            name,
            "SET #status = :loading, #load = :load, #heartbeat = :now",
            {":loading": LOADING, ":load": _load_map(LoadState(version=record.builds, phase="reading")), ":now": now},
        )
        return record

    def update_load(self, name: str, build: int, now: float, **fields: Any) -> bool:
        """Progress of the latest load; ignored (False) when a newer load has taken over the record."""
        sets = ", ".join(f"#load.#{key} = :{key}" for key in fields)
        values = {f":{key}": value for key, value in fields.items()}
        result = self._update_dataset(
            name,
            f"SET {sets}, #heartbeat = :now" if fields else "SET #heartbeat = :now",
            {**values, ":now": now, ":build": build},
            condition="#load.#version = :build",
        )
        return result is True

    def end_load(self, name: str, build: int | None, status: str, now: float, **fields: Any) -> bool:
        """Set the latest load's final status (READY or FAILED) and fields, if it is still the latest.

        ``build`` None ends a load that never got a build number (its build message was lost).
        """
        assert status in (READY, FAILED)
        sets = "".join(f", #load.#{key} = :{key}" for key in fields)
        values: dict[str, Any] = {f":{key}": value for key, value in fields.items()}
        if build is None:
            condition, values[":null"] = "attribute_type(#load.#version, :null)", "NULL"
        else:
            condition, values[":build"] = "#load.#version = :build", build
        result = self._update_dataset(
            name,
            f"SET #status = :status, #heartbeat = :now{sets}",
            {**values, ":status": status, ":now": now},
            condition=condition,
        )
        return result is True

    def release_request(self, name: str, request: int) -> None:
        """Let request ``request`` be planned again (its attempt failed on a passing fault)."""
        self._update_dataset(
            name,
            "SET #planned = :before",
            {":before": request - 1, ":request": request},
            condition="#planned = :request",
        )

    def switch_live(
        self, name: str, build: int, *, ranges: int, objects: list[dict[str, Any]], loaded_at: str, now: float
    ) -> Switched:
        """Make ``build`` the live version, in one conditional write that succeeds only if it is newer."""
        for _ in range(10):
            before = self.get_dataset(name, consistent=True)
            if before is None:
                return Switched(Switch.STALE)
            if before.live == build:
                return Switched(Switch.ALREADY_LIVE, before)
            if (before.live is not None and before.live > build) or before.floor >= build:
                return Switched(Switch.STALE, before)
            values: dict[str, Any] = {
                ":build": build,
                ":ranges": ranges,
                ":objects": objects,
                ":loaded_at": loaded_at,
                ":now": now,
                ":false": False,
            }
            if before.live is None:
                condition = "attribute_not_exists(#live) AND (attribute_not_exists(#floor) OR #floor < :build)"
                expression = "SET #live = :build, #ranges = :ranges, #objects = :objects, #loaded_at = :loaded_at, "
                expression += "#live_since = :now, #retired = :false REMOVE #previous"
            else:
                condition = "#live = :old AND (attribute_not_exists(#floor) OR #floor < :build)"
                values[":old"] = before.live
                expression = "SET #live = :build, #previous = :old, #ranges = :ranges, #objects = :objects, "
                expression += "#loaded_at = :loaded_at, #live_since = :now, #retired = :false"
            if self._update_dataset(name, expression, values, condition=condition) is True:
                return Switched(Switch.SWITCHED, before)
        raise Unavailable(f"the live version of {name!r} kept changing; retry")

    def retire(self, name: str, build: int, now: float) -> DatasetRecord | None:
        """The folder is empty: no version is served any more, and no build up to ``build`` may go live."""
        record = self._update_dataset(
            name,
            "SET #retired = :true, #floor = :build, #status = :ready, #load.#phase = :retired, #heartbeat = :now "
            "REMOVE #live, #previous",
            {":true": True, ":build": build, ":ready": READY, ":retired": "retired", ":now": now},
            condition="#load.#version = :build",
            returns="ALL_OLD",
        )
        return record if isinstance(record, DatasetRecord) else None

    def rollback(self, name: str) -> DatasetRecord:
        """Swap the live and the previous version (running it again rolls forward)."""
        record = self.get_dataset(name, consistent=True)
        if record is None or record.retired or record.live is None:
            raise LookupError(f"dataset {name!r} has no live version")
        if record.previous is None:
            raise LookupError(f"dataset {name!r} has no previous version to roll back to")
        result = self._update_dataset(
            name,
            "SET #live = :previous, #previous = :live",
            {":previous": record.previous, ":live": record.live},
            condition="#live = :live AND #previous = :previous",
            returns="ALL_NEW",
        )
        if not isinstance(result, DatasetRecord):
            raise Unavailable(f"dataset {name!r} changed during the rollback; run it again")
        return result

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

    def version_keys(self, dataset: str, version: int) -> list[Item]:
        return [{"PK": item["PK"], "SK": item["SK"]} for item in self._query_all(version_pk(dataset, version))]

    def partition_keys(self, pk: str) -> Iterator[list[Item]]:
        """The keys of a partition, page by page (for deleting a version)."""
        for page in self._query_pages(pk, projection="PK, SK"):
            yield [{"PK": item["PK"], "SK": item["SK"]} for item in page]

    # -- builds ------------------------------------------------------------------------------------------------

    def put_build(self, build: BuildRecord) -> None:
        item = _to_item(
            {
                "PK": builds_pk(build.dataset),
                "SK": build.build,
                "state": build.state,
                "chunks": build.chunks,
                "written": build.written,
                "ranges": build.ranges,
                "items": build.items,
                "objects": build.objects,
                "report": build.report,
                "started": build.started,
            }
        )
        self._call("put_item", TableName=self.table, Item=item)

    def _build_key(self, dataset: str, build: int) -> Item:
        return {"PK": {"S": builds_pk(dataset)}, "SK": {"N": str(build)}}

    def get_build(self, dataset: str, build: int) -> BuildRecord | None:
        key = self._build_key(dataset, build)
        response = self._call("get_item", TableName=self.table, Key=key, ConsistentRead=True)
        item = response.get("Item")
        return _build_from_item(dataset, item) if item else None

    def _update_build(self, dataset: str, build: int, **update: Any) -> BuildRecord | None:
        """A conditional update of a build record: the record after it, or None when the condition failed."""
        try:
            response = self._call(
                "update_item",
                TableName=self.table,
                Key=self._build_key(dataset, build),
                ReturnValues="ALL_NEW",
                **update,
            )
        except _ConditionFailed:
            return None
        return _build_from_item(dataset, response["Attributes"])

    def complete_chunk(self, dataset: str, build: int, chunk: int, items: int) -> BuildRecord | None:
        """Count a chunk as written, once: None when it was already counted (a repeated delivery)."""
        return self._update_build(
            dataset,
            build,
            UpdateExpression="ADD done :chunk, written :items",
            ConditionExpression="attribute_exists(PK) AND NOT contains(done, :number)",
            ExpressionAttributeValues={
                ":chunk": {"NS": [str(chunk)]},
                ":items": {"N": str(items)},
                ":number": {"N": str(chunk)},
            },
        )

    def start_writing(self, dataset: str, build: int, chunks: int) -> BuildRecord | None:
        """All ``chunks`` are sent: the build turns WRITING (None if it was abandoned meanwhile)."""
        return self._update_build(
            dataset,
            build,
            UpdateExpression="SET #state = :writing, chunks = :chunks",
            ConditionExpression="#state = :planning",
            ExpressionAttributeNames={"#state": "state"},
            ExpressionAttributeValues={
                ":writing": {"S": WRITING},
                ":planning": {"S": PLANNING},
                ":chunks": {"N": str(chunks)},
            },
        )

    def set_build_state(self, dataset: str, build: int, state: str, *, expect: Sequence[str] = ()) -> bool:
        kwargs: dict[str, Any] = {
            "UpdateExpression": "SET #state = :state",
            "ExpressionAttributeNames": {"#state": "state"},
            "ExpressionAttributeValues": {":state": {"S": state}},
            "ConditionExpression": "attribute_exists(PK)",  # never create a record for a build that has none
        }
        if expect:
            placeholders = [f":expect{index}" for index in range(len(expect))]
            kwargs["ConditionExpression"] = f"#state IN ({', '.join(placeholders)})"
            for placeholder, value in zip(placeholders, expect, strict=True):
                kwargs["ExpressionAttributeValues"][placeholder] = {"S": value}
        return self._update_build(dataset, build, **kwargs) is not None

    def delete_build(self, dataset: str, build: int) -> None:
        self._call("delete_item", TableName=self.table, Key=self._build_key(dataset, build))

    def builds(self, dataset: str) -> list[BuildRecord]:
        return [_build_from_item(dataset, item) for item in self._query_all(builds_pk(dataset), consistent=True)]

    def billing_mode(self) -> str:
        table = self._call("describe_table", TableName=self.table)["Table"]
        return str(table.get("BillingModeSummary", {}).get("BillingMode", "PROVISIONED"))

    # -- bulk writes -------------------------------------------------------------------------------------------

    def write_items(self, items: Sequence[Item]) -> None:
        """Write items in batches of 25, one call at a time, until all are written (tests and small jobs)."""
        outcome = self.write_batches([{"PutRequest": {"Item": item}} for item in items], deadline=float("inf"))
        assert not outcome.unfinished

    def write_batches(
        self,
        requests: Sequence[dict[str, Any]],
        *,
        deadline: float,
        threads: int = 1,
        limiter: RateLimiter | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> WriteOutcome:
        """BatchWriteItem with 25 requests a call and ``threads`` calls in flight.

        Unprocessed items and throttling are retried with exponential backoff and full jitter until ``deadline``
        (a ``clock()`` value); what is not written by then comes back in ``unfinished``.
        """
        batches = deque(list(requests[offset : offset + BATCH_SIZE]) for offset in range(0, len(requests), BATCH_SIZE))
        outcome = WriteOutcome()
        lock = threading.Lock()

        def writer() -> None:
            while True:
                with lock:
                    if not batches:
                        return
                    batch: list[Any] = batches.popleft()
                attempt = 0
                while batch:
                    if clock() >= deadline:
                        with lock:
                            outcome.unfinished.extend(batch)
                            while batches:
                                outcome.unfinished.extend(batches.popleft())
                        return
                    if limiter is not None:
                        limiter.acquire(len(batch))
                    sent = len(batch)
                    try:
                        response = self.client.batch_write_item(RequestItems={self.table: batch})
                        batch = list(response.get("UnprocessedItems", {}).get(self.table, []))
                        refused = bool(batch)
                    except ClientError as error:
                        if error.response.get("Error", {}).get("Code") not in _RETRYABLE:
                            raise Unavailable(f"DynamoDB refused a batch write: {error}") from error
                        refused = True
                    except BotoCoreError:
                        refused = True
                    with lock:
                        outcome.written += sent - len(batch)
                        if refused:
                            outcome.throttled += 1
                            outcome.retries += len(batch)
                    if refused:
                        pause = random.uniform(0, min(5.0, 0.05 * 2**attempt))
                        sleep(max(0.0, min(pause, deadline - clock())))
                        attempt += 1
                    else:
                        attempt = 0

        with ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="writer") as pool:
            for future in [pool.submit(writer) for _ in range(max(1, threads))]:
                future.result()
        return outcome

    # -- plumbing ----------------------------------------------------------------------------------------------

    def _query_pages(self, pk: str, *, projection: str | None = None, consistent: bool = False) -> Iterator[list[Item]]:
        kwargs: dict[str, Any] = {
            "TableName": self.table,
            "KeyConditionExpression": "PK = :p",
            "ExpressionAttributeValues": {":p": {"S": pk}},
            "ConsistentRead": consistent,
        }
        if projection:
            kwargs["ProjectionExpression"] = projection
        while True:
            response = self._call("query", **kwargs)
            yield response.get("Items", [])
            if "LastEvaluatedKey" not in response:
                return
            kwargs["ExclusiveStartKey"] = response["LastEvaluatedKey"]

    def _query_all(self, pk: str, *, consistent: bool = False) -> Iterator[Item]:
        for page in self._query_pages(pk, consistent=consistent):
            yield from page

    def _call(self, operation: str, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, operation)(**kwargs)
        except ClientError as error:
            if error.response.get("Error", {}).get("Code") == "ConditionalCheckFailedException":
                raise _ConditionFailed from error
            raise Unavailable(f"DynamoDB {operation} failed ({_code(error)}); retry shortly") from error
        except BotoCoreError as error:
            raise Unavailable(f"DynamoDB {operation} failed ({type(error).__name__}); retry shortly") from error


class _ConditionFailed(Exception):
    pass


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", "error"))


def _names_in(expression: str) -> set[str]:
    words: set[str] = set()
    for token in expression.replace(",", " ").replace("(", " ").replace(")", " ").split():
        for part in token.split("."):
            if part.startswith("#"):
                words.add(part[1:])
    return words
