"""What a keyed join costs a lookup: warm ``GET /lookup`` of one dataset without a join and of the same ranges joined
to an AS-names keyed table of realistic size, the same random addresses, calls interleaved.

The ranges are the shared ``asn-db-ip2asn-v4-subset-2019.tsv`` (its ``asn`` column); the keyed table holds every AS
number of the file and synthetic ones up to ``--asns`` (120,000 by default, about the CIDR Report's list), a name of
about 25 characters and a country each. Two stores, as sections 2 and 3 measure lookups:

- DynamoDB Local, the range cache off: the bare low-level ``query`` of the lookup's key (the floor) against the
  handler without and with the join; the DynamoDB calls of each warm lookup counted by operation (botocore's
  ``before-call`` event) and the S3 GETs by the bucket;
- an in-memory store (``tests.fakes.ranges.MemoryStore``), the range cache off: the warm call without and with the
  join, in microseconds (the 100 us target of section 3), the store's reads counted as the DynamoDB operations they
  stand for (a live pointer a GetItem, a version or a range a Query).

The table's decode time is timed on its stored object, and its memory measured with ``tracemalloc`` against
``KeyedTable.memory_bytes()`` (what ``KEYED_CACHE_BYTES`` budgets). ``python -m bench.joins`` runs this section alone
and writes it into ``bench-results/latest.md``.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import string
import sys
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable
from typing import Any

from botocore.config import Config

from bench.joins_report import FLOOR, JOINED, PLAIN, Joins, Timing, section, write_into
from bench.lookups import quiet_stdout
from bench.processes import RESULTS
from bench.report import Report
from bench.reverse import CountingBucket
from bench.several import _NoListings
from bench.timing import median, percentile, say
from fencepost.aws.dynamo import Tables
from fencepost.aws.dynamo.serving import pointer_item
from fencepost.core.keyed.join_spec import KeyedJoin, stored_joins
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.space.addresses import FAMILIES, V4, format_address, parse_address
from fencepost.core.storage.keys import Directory, range_pk
from fencepost.core.storage.objects import keys_key
from fencepost.http.app import create_app
from fencepost.model import DatasetRecord, LivePointer, LoadStatus, VersionHeader, VersionInfo
from fencepost.observability import LOOKUP_SERVICE, Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings
from infra.settings import DeploySettings
from local.dynamodb import DynamoDBLocal, create_table, local_client
from tests.fakes.ranges import MemoryStore
from tests.support import SMALL_FILE, LambdaContext, event, family_ranges, publish, read_tsv

COLUMNS = ("asn", "country", "description")
JOIN = KeyedJoin("as-names", "asn", ("name", "country"), "as_")
# The lookup function's environment as the template deploys it (metric lines once a minute), the range cache off
SETTINGS = LookupSettings.from_env(
    {**DeploySettings().lookup_environment(), "RANGE_CACHE_BYTES": "0", "TABLE_NAME": "bench", "BUCKET_NAME": "bench"}
)


def names_table(rows: list[list[str]], asns: int, seed: int = 29) -> KeyedTable:
    """Every AS number of ``rows`` and synthetic ones up to ``asns`` keys, a name of about 25 characters each."""
    rng = random.Random(seed)
    numbers = {int(row[2]) for row in rows}
    while len(numbers) < asns:
        numbers.add(rng.randint(1, 400_000))
    words = ["".join(rng.choices(string.ascii_uppercase, k=rng.randint(4, 9))) for _ in range(2_000)]
    countries = ["US", "DE", "BR", "JP", "IN", "RU", "GB", "FR", "CN", "AU", "ZZ"]
    rows_of = {
        str(n): (f"{rng.choice(words)}-AS - {rng.choice(words)} Inc."[:28], rng.choice(countries)) for n in numbers
    }
    return KeyedTable("asn", "asn", ("name", "country"), rows_of)


def decoded(data: bytes, repeat: int = 3) -> tuple[float, int, KeyedTable]:
    """The median decode time of the stored object, and the memory the decoded table holds (tracemalloc)."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        KeyedTable.decode(data)
        times.append(time.perf_counter() - started)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    table = KeyedTable.decode(data)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    return median(times), held, table


def _app(store: Any, bucket: CountingBucket) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """The lookup function's app and handler wrapper, warm, on ``store``."""
    obs = Observability(service=LOOKUP_SERVICE, tracing=False, metrics_interval=SETTINGS.metrics_interval)
    lookup = Lookup(store, SETTINGS.cache_ttl, limits=SETTINGS.caches)
    api = create_app(SETTINGS, lookup, _NoListings(), obs, files=lambda: bucket)

    def handle(request: dict[str, Any], context: Any) -> dict[str, Any]:  # as fencepost.handlers.lookup does
        obs.logger.set_correlation_id(request["requestContext"]["requestId"])
        return api.handle(request, context)

    wrapped = obs.wrap(handle)
    context = LambdaContext()
    return lambda request: wrapped(request, context)


def _interleaved(
    calls: dict[str, Callable[[int], Any]], count: int, counters: Callable[[], Counter[str]], warmup: int = 200
) -> dict[str, Timing]:
    """Each call ``count`` times after ``warmup``, rotating who goes first; what ``counters`` counts, per call."""
    names = list(calls)
    samples: dict[str, list[float]] = {name: [] for name in names}
    counted: dict[str, Counter[str]] = {name: Counter() for name in names}
    with quiet_stdout():
        for index in range(warmup):
            for call in calls.values():
                call(index)
        for index in range(warmup, warmup + count):
            turn = index % len(names)
            for name in names[turn:] + names[:turn]:
                before = counters()
                started = time.perf_counter()
                calls[name](index)
                samples[name].append(time.perf_counter() - started)
                counted[name].update(counters() - before)
        sys.stdout.flush()
    return {
        name: Timing(
            median(values),
            percentile(values, 0.99),
            {op: n / count for op, n in counted[name].items() if op != "s3"},
            counted[name]["s3"] / count,
        )
        for name, values in samples.items()
    }


def _events(dataset: str, addresses: list[str]) -> list[dict[str, Any]]:
    return [event("lookup-get", queryStringParameters={"ip": ip, "dataset": dataset}) for ip in addresses]


def _on_dynamodb_local(
    rows: list[list[str]], table: KeyedTable, addresses: list[str], bucket: CountingBucket
) -> dict[str, Timing]:
    """Floor, plain and joined lookups on DynamoDB Local, the DynamoDB calls of each counted by operation."""
    with DynamoDBLocal() as service:
        client = local_client(service.endpoint, config=Config())  # boto3's default configuration: the floor
        create_table(client, "bench")
        # The handler's client as the lookup function makes it: botocore's check of the parameters skipped
        handler_client = local_client(service.endpoint, config=Config(parameter_validation=False))
        tables = Tables.connect(handler_client, "bench")
        publish(tables, "asn", 1, family_ranges(rows), COLUMNS)
        publish(tables, "asn-named", 1, family_ranges(rows), COLUMNS)
        info = tables.versions.get("asn-named", 1)
        assert info is not None
        header = VersionHeader(
            COLUMNS, len(rows), 0, [], "2026-11-29T00:00:00+00:00", gaps=True, keyed_joins=stored_joins((JOIN,))
        )
        tables.versions.put(dataclasses.replace(info, keyed_joins=(JOIN,)), header)  # the join, as a build records it
        _publish_keyed(tables, table)
        calls: Counter[str] = Counter()
        for counted in (client, handler_client):
            counted.meta.events.register("before-call.dynamodb.*", lambda model, **_: calls.update([model.name]))
        handler = _app(tables, bucket)
        plain, joined = _events("asn", addresses), _events("asn-named", addresses)
        keys = [_probe(info, ip) for ip in addresses]

        def floor(index: int) -> None:
            pk, bound = keys[index]
            client.query(
                TableName="bench",
                KeyConditionExpression="PK = :p AND SK <= :s",
                ExpressionAttributeValues={":p": {"S": pk}, ":s": {"N": bound}},
                ScanIndexForward=False,
                Limit=1,
            )

        return _interleaved(
            {FLOOR: floor, PLAIN: lambda i: handler(plain[i]), JOINED: lambda i: handler(joined[i])},
            len(addresses) - 200,
            lambda: calls + Counter({"s3": bucket.gets}),
        )


def _probe(info: VersionInfo, ip: str) -> tuple[str, str]:
    address = parse_address(ip)[1]
    probe = info.directories[V4].probe(address)
    assert probe is not None
    return range_pk("asn", 1, V4, probe.partition), str(probe.bound)


def _publish_keyed(tables: Tables, table: KeyedTable) -> None:
    """Version 1 of ``as-names``, live, as the loader writes a keyed version's header and pointer."""
    info = VersionInfo("as-names", 1, (table.key, *table.columns), {f: Directory(f) for f in FAMILIES}, keyed="asn")
    header = VersionHeader(info.columns, len(table.rows), 0, [], "2026-11-29T00:00:00+00:00", keyed="asn")
    tables.versions.put(info, header)
    tables.datasets.put(DatasetRecord(name="as-names", live=1, status=LoadStatus.READY, ranges=len(table.rows)))
    tables.table.put(pointer_item("as-names", LivePointer("as-names", 1)))


class _CountedStore(MemoryStore):
    """An in-memory store that counts its reads as the DynamoDB operations they stand for: a live pointer is a
    GetItem, a version header (and its directory pages) a Query, as is a range's ``find`` (``queries``)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads: Counter[str] = Counter()

    def get_live(self, name: str) -> LivePointer | None:
        self.reads["GetItem"] += 1
        return super().get_live(name)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        self.reads["Query"] += 1
        return super().get_version(dataset, version)


def _in_memory(
    rows: list[list[str]], table: KeyedTable, addresses: list[str], bucket: CountingBucket
) -> dict[str, Timing]:
    """Plain and joined lookups on an in-memory store: the handler's own cost, its reads counted by operation."""
    store = _CountedStore()
    store.publish("asn", 1, family_ranges(rows), COLUMNS)
    store.publish("asn-named", 1, family_ranges(rows), COLUMNS, keyed_joins=(JOIN,))
    store.publish_keyed("as-names", 1, table)
    handler = _app(store, bucket)
    plain, joined = _events("asn", addresses), _events("asn-named", addresses)
    return _interleaved(
        {PLAIN: lambda i: handler(plain[i]), JOINED: lambda i: handler(joined[i])},
        len(addresses) - 200,
        lambda: store.reads + Counter({"Query": store.queries, "s3": bucket.gets}),
    )


def measure(lookups: int = 2000, asns: int = 120_000, seed: int = 17) -> Joins:
    rows = read_tsv(SMALL_FILE)
    table = names_table(rows, asns)
    data = table.encode()
    seconds, held, table = decoded(data)
    rng = random.Random(seed)
    starts = [parse_address(row[0])[1] for row in rows]
    ends = [parse_address(row[1])[1] for row in rows]
    picked = [rng.randrange(len(rows)) for _ in range(lookups + 200)]  # addresses inside the file's ranges
    addresses = [format_address(V4, rng.randint(starts[i], ends[i])) for i in picked]
    bucket = CountingBucket({keys_key("as-names", 1): data})
    local = _on_dynamodb_local(rows, table, addresses, bucket)
    memory = _in_memory(rows, table, addresses, CountingBucket({keys_key("as-names", 1): data}))
    return Joins(lookups, len(rows), len(table.rows), len(data), seconds, held, table.memory_bytes(), local, memory)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--joins-lookups", type=int, default=2000, help="lookups without and with a join (0: none)")
    parser.add_argument("--keyed-asns", type=int, default=120_000, help="AS numbers in the joined keyed table")


def sections(args: argparse.Namespace) -> list[str]:
    """Section 5b of ``make bench`` (none with ``--joins-lookups 0``)."""
    if not args.joins_lookups:
        return []
    say(f"Timing {args.joins_lookups} lookups without and with a join to {args.keyed_asns:,} AS names...")
    return [section(measure(args.joins_lookups, args.keyed_asns))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.joins", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    report = Report.on_this_machine()
    [text] = sections(args)
    RESULTS.mkdir(exist_ok=True)
    write_into(RESULTS / "latest.md", text)
    print(f"Measured by `python -m bench.joins` ({report.date}; {report.machine})\n\n{text}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
