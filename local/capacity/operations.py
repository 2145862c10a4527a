"""Each DynamoDB operation through the capacity emulator: accounted, then forwarded (or refused as DynamoDB would)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final

from capacity.modes import Mode
from capacity.placement import Position
from capacity.table import Second
from local.capacity.accounting import Emulated, Tables, query_position, returned_bytes

CONTENT_TYPE: Final = "application/x-amz-json-1.0"
_EXCEPTIONS: Final = {  # a throttling reason's limit, and the exception DynamoDB raises for it
    "KeyRangeThroughputExceeded": "ProvisionedThroughputExceededException",
    "ProvisionedThroughputExceeded": "ProvisionedThroughputExceededException",
    "AccountLimitExceeded": "RequestLimitExceeded",
    "MaxOnDemandThroughputExceeded": "ThrottlingException",
}
_MESSAGES: Final = {
    "ProvisionedThroughputExceededException": "The level of configured provisioned throughput for the table was "
    "exceeded. Consider increasing your provisioning level with the UpdateTable API.",
    "RequestLimitExceeded": "Throughput exceeds the current throughput limit for your account.",
    "ThrottlingException": "Throughput exceeds the maximum throughput configured for the table.",
}


@dataclass(slots=True)
class Reply:
    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""


def _json(status: int, document: Any) -> Reply:
    body = json.dumps(document, separators=(",", ":")).encode()
    return Reply(status, {"Content-Type": CONTENT_TYPE, "x-amz-crc32": str(zlib.crc32(body))}, body)


def throttled(reason: str, table: str) -> Reply:
    kind = _EXCEPTIONS[next(limit for limit in _EXCEPTIONS if reason.endswith(limit))]
    arn = f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}"
    return _json(
        400,
        {
            "__type": f"com.amazonaws.dynamodb.v20120810#{kind}",
            "message": _MESSAGES[kind],
            "ThrottlingReasons": [{"reason": reason, "resource": arn}],
        },
    )


Forward = Callable[[dict[str, str], bytes], Reply]


class Operations:
    def __init__(self, mode: Mode, scale: float, on_second: Callable[[str, Second], None], forward: Forward) -> None:
        self.tables = Tables(mode, scale, on_second)
        self.forward = forward

    def handle(self, target: str, headers: dict[str, str], body: bytes) -> Reply:
        operation = target.rpartition(".")[2]
        handler = getattr(self, f"_{operation}", None)
        if handler is None or not body:
            return self.forward(headers, body)
        request = json.loads(body)
        reply: Reply = handler(request, headers, body)
        return reply

    # -- helpers -----------------------------------------------------------------------------------------------

    def _call(self, operation: str, request: dict[str, Any], headers: dict[str, str]) -> tuple[Reply, Any]:
        sent = {**headers, "x-amz-target": f"DynamoDB_20120810.{operation}"}
        reply = self.forward(sent, json.dumps(request).encode())
        return reply, (json.loads(reply.body) if reply.body else {})

    def _table(self, name: str, headers: dict[str, str]) -> Emulated:
        def describe() -> dict[str, Any]:
            _, answer = self._call("DescribeTable", {"TableName": name}, headers)
            table: dict[str, Any] = answer["Table"]
            return table

        return self.tables.known(name, describe)

    @staticmethod
    def _with_capacity(answer: dict[str, Any], request: dict[str, Any], units: dict[str, float]) -> Reply:
        if request.get("ReturnConsumedCapacity", "NONE") != "NONE":
            consumed = [{"TableName": name, "CapacityUnits": total} for name, total in units.items()]
            answer["ConsumedCapacity"] = consumed if len(consumed) != 1 or "RequestItems" in request else consumed[0]
        return _json(200, answer)

    # -- tables --------------------------------------------------------------------------------------------------

    def _CreateTable(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        reply = self.forward(headers, body)
        if reply.status == 200:
            self.tables.create(request["TableName"], request)
        return reply

    def _DeleteTable(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        reply = self.forward(headers, body)
        if reply.status == 200:
            self.tables.drop(request["TableName"])
        return reply

    def _UpdateTable(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        reply = self.forward(headers, body)
        if reply.status == 200 and request.get("BillingMode") == "PAY_PER_REQUEST":
            self.tables.to_on_demand(request["TableName"])
        return reply

    # -- writes --------------------------------------------------------------------------------------------------

    def _write_one(self, request: dict[str, Any], headers: dict[str, str], body: bytes, *, whole: bool) -> Reply:
        name = request["TableName"]
        table = self._table(name, headers)
        units, reason = self.tables.write(table, request["Item" if whole else "Key"], whole=whole)
        if reason is not None:
            return throttled(reason, name)
        reply = self.forward(headers, body)
        if reply.status != 200 or request.get("ReturnConsumedCapacity", "NONE") == "NONE":
            return reply
        return self._with_capacity(json.loads(reply.body), request, {name: units})

    def _PutItem(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._write_one(request, headers, body, whole=True)

    def _DeleteItem(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._write_one(request, headers, body, whole=False)

    def _UpdateItem(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._write_one(request, headers, body, whole=False)

    def _BatchWriteItem(self, request: dict[str, Any], headers: dict[str, str], _: bytes) -> Reply:  # noqa: N802
        accepted: dict[str, list[Any]] = {}
        left: dict[str, list[Any]] = {}
        units: dict[str, float] = {}
        reasons: list[tuple[str, str]] = []
        for name, writes in request["RequestItems"].items():
            table = self._table(name, headers)
            for write in writes:
                whole = "PutRequest" in write
                item = write["PutRequest"]["Item"] if whole else write["DeleteRequest"]["Key"]
                cost, reason = self.tables.write(table, item, whole=whole)
                if reason is None:
                    accepted.setdefault(name, []).append(write)
                    units[name] = units.get(name, 0.0) + cost
                else:
                    left.setdefault(name, []).append(write)
                    reasons.append((reason, name))
        if not accepted:
            return throttled(*reasons[0])
        reply, answer = self._call("BatchWriteItem", {**request, "RequestItems": accepted}, headers)
        if reply.status != 200:
            return reply
        for name, writes in answer.get("UnprocessedItems", {}).items():
            left.setdefault(name, []).extend(writes)
        answer["UnprocessedItems"] = left
        return self._with_capacity(answer, request, units)

    def _TransactWriteItems(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        for entry in request["TransactItems"]:
            (kind, write), *_ = entry.items()
            table = self._table(write["TableName"], headers)
            whole = kind == "Put"
            for _ in range(2):  # a transactional write costs twice ([docs-partitions])
                _, reason = self.tables.write(table, write["Item" if whole else "Key"], whole=whole)
                if reason is not None:
                    return throttled(reason, write["TableName"])
        return self.forward(headers, body)

    # -- reads ---------------------------------------------------------------------------------------------------

    def _read(
        self,
        request: dict[str, Any],
        headers: dict[str, str],
        body: bytes,
        where: Callable[[Emulated], Position],
        returned: Callable[[dict[str, Any]], int],
    ) -> Reply:
        name, index = request["TableName"], request.get("IndexName")
        table = self._table(name, headers)
        eventual = not request.get("ConsistentRead", False)
        at = where(table)
        reason = self.tables.may_read(table, at, eventual=eventual, index=index)
        if reason is not None:
            return throttled(reason.replace("Table", "Index") if index else reason, name)
        reply = self.forward(headers, body)
        if reply.status != 200:
            return reply
        answer = json.loads(reply.body)
        units = self.tables.charge_read(table, at, returned(answer), eventual=eventual, index=index)
        if request.get("ReturnConsumedCapacity", "NONE") == "NONE":
            return reply
        return self._with_capacity(answer, request, {name: units})

    def _GetItem(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._read(
            request,
            headers,
            body,
            lambda table: table.schema.where(request["Key"]),
            lambda answer: returned_bytes([answer["Item"]] if "Item" in answer else []),
        )

    def _Query(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._read(
            request,
            headers,
            body,
            lambda table: query_position(table.schema, request, request.get("IndexName")),
            lambda answer: returned_bytes(answer.get("Items", [])),
        )

    def _Scan(self, request: dict[str, Any], headers: dict[str, str], body: bytes) -> Reply:  # noqa: N802
        return self._read(
            request, headers, body, lambda _: (0, b""), lambda answer: returned_bytes(answer.get("Items", []))
        )

    def _BatchGetItem(self, request: dict[str, Any], headers: dict[str, str], _: bytes) -> Reply:  # noqa: N802
        asked: dict[str, Any] = {}
        left: dict[str, Any] = {}
        reasons: list[tuple[str, str]] = []
        for name, wanted in request["RequestItems"].items():
            table = self._table(name, headers)
            eventual = not wanted.get("ConsistentRead", False)
            for key in wanted["Keys"]:
                reason = self.tables.may_read(table, table.schema.where(key), eventual=eventual)
                target = asked if reason is None else left
                target.setdefault(name, {**wanted, "Keys": []})["Keys"].append(key)
                if reason is not None:
                    reasons.append((reason, name))
        if not asked:
            return throttled(*reasons[0])
        reply, answer = self._call("BatchGetItem", {**request, "RequestItems": asked}, headers)
        if reply.status != 200:
            return reply
        for name, items in answer.get("Responses", {}).items():
            table = self._table(name, headers)
            eventual = not asked[name].get("ConsistentRead", False)
            for item in items:
                self.tables.charge_read(table, table.schema.where(item), returned_bytes([item]), eventual=eventual)
        for name, wanted in answer.get("UnprocessedKeys", {}).items():
            left.setdefault(name, {**wanted, "Keys": []})["Keys"].extend(wanted["Keys"])
        answer["UnprocessedKeys"] = left
        return _json(200, answer)
