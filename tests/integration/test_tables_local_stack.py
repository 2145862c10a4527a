"""``make run``'s stack runs the tables function: a load there writes the version's Parquet file and registers its
live table in the Glue database on moto's server."""

from __future__ import annotations

import time

from local.config import StackConfig
from local.ports import free_port
from local.stack import LocalStack


def test_the_local_stack_registers_each_live_version_in_its_glue_database() -> None:
    config = StackConfig(
        dynamodb_port=free_port(), aws_port=free_port(), http_port=None, data_dir=None, sources_every=0
    )
    config.loader_env = {**config.loader_env, "SETTLE_SECONDS": "0"}  # build at once: the load is not under test
    with LocalStack(config) as stack:
        stack.client("s3").put_object(
            Bucket=config.bucket, Key="geo/r.csv", Body=b"start,end,cc\n1.0.0.0,1.0.0.255,AU\n"
        )
        stack.wait_for("geo", version=1, timeout=60)
        glue, table = stack.client("glue"), None
        deadline = time.monotonic() + 60
        while table is None and time.monotonic() < deadline:
            try:
                table = glue.get_table(DatabaseName="fencepost", Name="geo")["Table"]
            except glue.exceptions.EntityNotFoundException:
                time.sleep(0.2)
        assert table is not None, "the live table was not registered within 60 s"
        assert table["StorageDescriptor"]["Location"] == f"s3://{config.bucket}/_tables/geo/version=1/"
        worker = stack.tables_worker
        assert worker is not None
        # The table is registered inside the invocation, which the worker counts once it has returned
        while worker.invocations < 1 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert worker.invocations >= 1
