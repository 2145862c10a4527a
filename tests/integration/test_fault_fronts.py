"""The fronts of the local stack (``local.proxy``) and the faults they inject, in front of moto's server and
DynamoDB Local: hooks answer or reshape requests; everything else passes unchanged; S3 and DynamoDB faults reach
clients in the services' own formats; a cut body is never read as whole; SQS is never faulted."""

from __future__ import annotations

import socket
import struct
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import requests
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, ConnectionClosedError

from capacity.modes import parse_mode
from fencepost.aws.s3 import Bucket, BucketUnavailable
from fencepost.aws.source_folders import SourceBucket
from local.capacity import CapacityFront
from local.dynamodb import DynamoDBLocal, create_table, local_client
from local.faults import Faults, FaultSpecError, parse_faults
from local.ports import free_port
from local.proxy import Hook, Proxy, Request, Response

NO_RETRIES = Config(retries={"total_max_attempts": 1, "mode": "standard"})


def _faulted(spec: str, backend: str, kind: str) -> Iterator[Proxy]:
    faults = Faults(parse_faults(spec), seed=11)
    faults.armed.set()
    hook = faults.s3_hook() if kind == "s3" else faults.dynamodb_hook()
    proxy = Proxy(free_port(), backend, [hook]).start()
    yield proxy
    proxy.stop()


@pytest.fixture
def bucket(moto_server: str) -> str:
    name = f"b{uuid.uuid4().hex[:12]}"
    local_client(moto_server, "s3").create_bucket(Bucket=name)
    return name


class DeleteRefused(Hook):
    """A check of the kind an IAM policy makes: one request answered by the front, the others forwarded."""

    def __init__(self) -> None:
        self.statuses: list[int] = []

    def on_request(self, request: Request) -> Response | None:
        if request.method == "DELETE":
            body = b"<Error><Code>AccessDenied</Code><Message>not here</Message></Error>"
            return Response(403, {"Content-Type": "application/xml"}, body)
        return None

    def on_response(self, request: Request, response: Response) -> Response:
        self.statuses.append(response.status)
        return response


def test_a_hook_answers_what_it_refuses_and_sees_every_answer_while_the_rest_passes_unchanged(
    moto_server: str, bucket: str
) -> None:
    hook = DeleteRefused()
    proxy = Proxy(free_port(), moto_server, [hook]).start()
    try:
        s3, sqs = local_client(proxy.endpoint, "s3"), local_client(proxy.endpoint, "sqs")
        body = bytes(range(256)) * 40_000  # 10 MB: a multipart upload of two parts
        s3.upload_fileobj(__import__("io").BytesIO(body), bucket, "big.bin")
        assert s3.get_object(Bucket=bucket, Key="big.bin")["Body"].read() == body
        assert s3.head_object(Bucket=bucket, Key="big.bin")["ContentLength"] == len(body)  # HEAD keeps its length
        ranged = s3.get_object(Bucket=bucket, Key="big.bin", Range="bytes=100-199")
        assert (ranged["ResponseMetadata"]["HTTPStatusCode"], ranged["Body"].read()) == (206, body[100:200])
        url = s3.generate_presigned_url("get_object", Params={"Bucket": bucket, "Key": "big.bin"}, ExpiresIn=60)
        assert requests.get(url, timeout=30).content == body
        queue = sqs.create_queue(QueueName=f"q{uuid.uuid4().hex[:8]}")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="hello")
        assert sqs.receive_message(QueueUrl=queue, WaitTimeSeconds=1)["Messages"][0]["Body"] == "hello"
        with pytest.raises(ClientError) as refused:
            s3.delete_object(Bucket=bucket, Key="big.bin")
        assert refused.value.response["Error"]["Code"] == "AccessDenied"
        assert s3.list_objects_v2(Bucket=bucket)["KeyCount"] == 1  # the refused delete never reached moto
        assert 403 in hook.statuses
        assert 206 in hook.statuses
    finally:
        proxy.stop()


def test_s3_errors_come_in_s3_s_format_and_sqs_behind_the_same_front_is_never_faulted(
    moto_server: str, bucket: str
) -> None:
    local_client(moto_server, "s3").put_object(Bucket=bucket, Key="k", Body=b"x")
    for proxy in _faulted("s3.error=1", moto_server, "s3"):
        s3 = local_client(proxy.endpoint, "s3", NO_RETRIES)
        codes = set()
        for _ in range(20):
            with pytest.raises(ClientError) as failed:
                s3.get_object(Bucket=bucket, Key="k")
            codes.add(
                (failed.value.response["Error"]["Code"], failed.value.response["ResponseMetadata"]["HTTPStatusCode"])
            )
        assert codes == {("SlowDown", 503), ("InternalError", 500)}
        with pytest.raises(ClientError):
            s3.head_object(Bucket=bucket, Key="k")
        sqs = local_client(proxy.endpoint, "sqs", NO_RETRIES)
        queue = sqs.create_queue(QueueName=f"q{uuid.uuid4().hex[:8]}")["QueueUrl"]
        sqs.send_message(QueueUrl=queue, MessageBody="through")
        assert sqs.receive_message(QueueUrl=queue)["Messages"][0]["Body"] == "through"


def test_a_body_cut_short_is_never_read_as_whole(moto_server: str, bucket: str) -> None:
    lines = b"".join(b"1.0.%d.0\t1.0.%d.255\tAU\n" % (n // 256, n // 256) for n in range(0, 256 * 200, 256))
    local_client(moto_server, "s3").put_object(Bucket=bucket, Key="geo/data.tsv", Body=lines)
    document = b'{"a": [' + b"1," * 5000 + b"1]}"
    for key in ("doc.json", "doc/_source.json"):
        local_client(moto_server, "s3").put_object(Bucket=bucket, Key=key, Body=document)
    for proxy in _faulted("s3.cut=1", moto_server, "s3"):
        s3 = local_client(proxy.endpoint, "s3", NO_RETRIES)
        for _ in range(10):  # each cut at another point, from no byte to all but the last
            with pytest.raises(BotoCoreError):
                s3.get_object(Bucket=bucket, Key="geo/data.tsv")["Body"].read()
        files = Bucket(s3, bucket)
        with pytest.raises(BucketUnavailable, match="could not be read to the end"):
            list(files.lines("geo/data.tsv"))
        with pytest.raises(BucketUnavailable):
            files.get_json("doc.json")  # read with a bound (the object's limit), whole or not at all
        with pytest.raises(BucketUnavailable):
            files.read_bytes("doc.json", 1 << 20)  # as a MaxMind DB file is read
        read = files.read_from("doc.json", 100)
        assert read is not None
        with pytest.raises(BucketUnavailable):
            read(1 << 20)  # a page of a kept file
        with pytest.raises(BucketUnavailable):
            SourceBucket(s3, bucket).read_source("doc")  # a folder's _source.json
        # A listing cut short is an error to the SDK too (it retries it), never a shorter listing
        with pytest.raises((ClientError, BotoCoreError)):
            s3.list_objects_v2(Bucket=bucket)


def _table(dynamodb_local: DynamoDBLocal) -> tuple[Any, str]:
    direct = local_client(dynamodb_local.endpoint)
    name = f"f{uuid.uuid4().hex[:10]}"
    create_table(direct, name)
    return direct, name


def _item(n: int) -> dict[str, Any]:
    return {"PK": {"S": "p"}, "SK": {"N": str(n)}}


def test_dynamodb_errors_come_in_its_format_and_nothing_is_written(dynamodb_local: DynamoDBLocal) -> None:
    direct, table = _table(dynamodb_local)
    for proxy in _faulted("dynamodb.error=1", dynamodb_local.endpoint, "dynamodb"):
        client = local_client(proxy.endpoint, config=NO_RETRIES)
        seen = set()
        for n in range(20):
            with pytest.raises(ClientError) as failed:
                client.put_item(TableName=table, Item=_item(n))
            seen.add(
                (failed.value.response["Error"]["Code"], failed.value.response["ResponseMetadata"]["HTTPStatusCode"])
            )
        assert seen == {("InternalServerError", 500), ("ServiceUnavailable", 503)}
    assert direct.scan(TableName=table)["Count"] == 0


def test_a_reset_cuts_the_answer_of_a_request_that_was_made(dynamodb_local: DynamoDBLocal) -> None:
    direct, table = _table(dynamodb_local)
    for proxy in _faulted("dynamodb.reset=1", dynamodb_local.endpoint, "dynamodb"):
        client = local_client(proxy.endpoint, config=NO_RETRIES)
        with pytest.raises(ConnectionClosedError):
            client.put_item(TableName=table, Item=_item(1))
    assert direct.get_item(TableName=table, Key=_item(1))["Item"] == _item(1)  # made; its answer lost


def test_a_latency_spike_holds_the_request_then_answers_it(dynamodb_local: DynamoDBLocal) -> None:
    _, table = _table(dynamodb_local)
    for proxy in _faulted("dynamodb.slow=1@300ms", dynamodb_local.endpoint, "dynamodb"):
        client = local_client(proxy.endpoint, config=NO_RETRIES)
        started = time.monotonic()
        client.put_item(TableName=table, Item=_item(2))
        assert client.get_item(TableName=table, Key=_item(2))["Item"] == _item(2)
        assert time.monotonic() - started >= 0.6


def test_faults_changed_while_the_front_serves_apply_from_the_next_request_counted_afresh(
    dynamodb_local: DynamoDBLocal,
) -> None:
    direct, table = _table(dynamodb_local)
    faults = Faults(parse_faults("dynamodb.error=1"), seed=5)
    faults.armed.set()
    proxy = Proxy(free_port(), dynamodb_local.endpoint, [faults.dynamodb_hook()]).start()
    try:
        client = local_client(proxy.endpoint, config=NO_RETRIES)
        with pytest.raises(ClientError):
            client.put_item(TableName=table, Item=_item(1))
        # When the errors are turned off: the next request passes, and the counts start again
        faults.change(parse_faults("none"))
        client.put_item(TableName=table, Item=_item(1))
        assert faults.counts() == {"dynamodb.requests": 1}
        assert direct.get_item(TableName=table, Key=_item(1))["Item"] == _item(1)
        # When they are on again under another seed: refused again, counted from zero
        faults.change(parse_faults("dynamodb.error=1"), seed=6)
        with pytest.raises(ClientError):
            client.put_item(TableName=table, Item=_item(2))
        counts = faults.counts()
        assert (counts["dynamodb.requests"], faults.seed) == (1, 6)
        assert counts.get("dynamodb.error.500", 0) + counts.get("dynamodb.error.503", 0) == 1
        assert "Item" not in direct.get_item(TableName=table, Key=_item(2))
    finally:
        proxy.stop()
    # A fault whose front this stack never had, or other loader kills, cannot be set while it runs
    for refused in ("s3.error=0.1", "loader.kill=1"):
        with pytest.raises(FaultSpecError):
            faults.change(parse_faults(refused))
    assert faults.spec == parse_faults("dynamodb.error=1")


def test_the_faults_sit_before_the_capacity_emulator_on_one_front(dynamodb_local: DynamoDBLocal) -> None:
    faults = Faults(parse_faults("dynamodb.error=1"), seed=2)
    capacity = CapacityFront(
        free_port(), dynamodb_local.endpoint, parse_mode("on-demand-new"), hooks=[faults.dynamodb_hook()]
    ).start()
    try:
        client = local_client(capacity.endpoint, config=NO_RETRIES)
        table = f"c{uuid.uuid4().hex[:10]}"
        create_table(client, table)  # not armed yet: the emulator sees the table created
        faults.armed.set()
        with pytest.raises(ClientError) as failed:
            client.put_item(TableName=table, Item=_item(3))
        assert failed.value.response["Error"]["Code"] in ("InternalServerError", "ServiceUnavailable")
        assert faults.counts()["dynamodb.requests"] == 1
        faults.armed.clear()
        client.put_item(TableName=table, Item=_item(3))
        assert table in capacity.operations.tables.tables
    finally:
        capacity.stop()


def test_a_client_gone_mid_request_leaves_no_trace_and_the_front_serves_on(
    moto_server: str, bucket: str, capfd: pytest.CaptureFixture[str]
) -> None:
    proxy = Proxy(free_port(), moto_server).start()
    try:
        for _ in range(3):  # as a worker killed with SIGKILL leaves its kept connections: reset by its kernel
            with socket.create_connection(("127.0.0.1", proxy.port)) as sock:
                sock.sendall(b"GET /" + bucket.encode() + b" HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        assert local_client(proxy.endpoint, "s3").list_objects_v2(Bucket=bucket)["KeyCount"] == 0
    finally:
        proxy.stop()
    assert "Traceback" not in capfd.readouterr().err
