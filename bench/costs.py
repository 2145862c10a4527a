"""What a million lookups cost, per front and per request shape, with CloudWatch Logs counted.

Measured here (``make bench``): read units per Query (DynamoDB Local's ConsumedCapacity), the range cache's hit
ratio (Zipf, default size), the warm handler's time on a hit and on a miss (in-memory client) for one address and
for a batch of 100, and the bytes of every log line a lookup writes. Taken from elsewhere, and named in the table:
prices, Lambda's CPU share at 512 MB, and a Query's wait on AWS.

Each column is per million single lookups, or per million addresses looked up in batches of 100.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Final

from capacity import prices
from fencepost.declared import LOOKUP
from fencepost.observability import LOOKUP_SERVICE

MILLION: Final = 1_000_000
BATCH: Final = 100
BATCH_CONCURRENCY: Final[int] = LOOKUP["batch_concurrency"].default  # the batch path's Queries in flight
# Lambda gives a function one full vCPU at 1,769 MB and CPU in proportion to memory below that: at 512 MB, CPU-bound
# work takes 1769/512 times as long as on one core here.
CPU_SCALE: Final = 1769 / 512
QUERY_WAIT_MS: Final = 5.0  # budgeted wait for one Query on AWS (DynamoDB answers in a few ms in-region)
EVENT_OVERHEAD_BYTES: Final = 26  # CloudWatch Logs counts each event's bytes plus 26 bytes
METRIC_LOOKUPS_PER_LINE: Final = 60  # one metric line a minute per container serving at least 1 lookup/s

# Lambda's own lines for one invocation in its text log format (the format before JSON and a system log level).
REQUEST_ID: Final = "6f1c2f3e-9b1d-4c2e-8a7f-0d3b5e9c1a24"
PLATFORM_LINES: Final = (
    f"START RequestId: {REQUEST_ID} Version: $LATEST\n",
    f"END RequestId: {REQUEST_ID}\n",
    f"REPORT RequestId: {REQUEST_ID}\tDuration: 2.37 ms\tBilled Duration: 3 ms\tMemory Size: 512 MB\t"
    "Max Memory Used: 98 MB\t\n",
)


@dataclass(frozen=True)
class Measured:
    read_units_per_query: float
    hit_ratio: float  # range-cache hits per lookup (Zipf, default size)
    hit_us: float  # warm handler call answered from the range cache
    miss_us: float  # warm handler call that makes its Query (in-memory client: the handler's own time)
    batch_hit_us: float  # POST of 100 addresses: one Query, 99 range-cache hits
    batch_miss_us: float  # POST of 100 addresses, range cache off: 100 Queries
    metric_line_bytes: int  # one lookup's EMF line
    access_log_bytes: int  # one HTTP API access log line

    @property
    def platform_bytes(self) -> int:
        return sum(len(line.encode()) + EVENT_OVERHEAD_BYTES for line in PLATFORM_LINES)


@dataclass(frozen=True)
class Column:
    name: str
    requests: float  # per million addresses
    api: float  # $ for the front
    billed_ms: float  # per request
    queries: float  # per address
    log_bytes: float  # per request
    target: float | None = None

    def dollars(self, measured: Measured, memory_mb: int) -> dict[str, float]:
        return {
            "front": self.requests * self.api / MILLION,
            "Lambda requests": self.requests * prices.LAMBDA_PER_MILLION_REQUESTS / MILLION,
            "Lambda duration": self.requests
            * self.billed_ms
            / 1e3
            * memory_mb
            / 1024
            * prices.LAMBDA_ARM_PER_GB_SECOND,
            "DynamoDB reads": MILLION
            * self.queries
            * measured.read_units_per_query
            * prices.DYNAMODB_READ_PER_MILLION_RRU
            / MILLION,
            "CloudWatch Logs": self.requests * self.log_bytes / 1e9 * prices.CLOUDWATCH_LOGS_PER_GB,
        }


def _billed(ms: float) -> int:
    return max(1, math.ceil(ms))  # Lambda bills whole milliseconds


def columns(m: Measured) -> list[Column]:
    h = m.hit_ratio
    hit_ms = _billed(m.hit_us * CPU_SCALE / 1e3)
    miss_ms = _billed(m.miss_us * CPU_SCALE / 1e3 + QUERY_WAIT_MS)
    single_ms = h * hit_ms + (1 - h) * miss_ms
    misses = (1 - h) * BATCH
    batch_cpu_ms = (h * m.batch_hit_us + (1 - h) * m.batch_miss_us) * CPU_SCALE / 1e3
    batch_ms = _billed(batch_cpu_ms + math.ceil(misses / BATCH_CONCURRENCY) * QUERY_WAIT_MS)
    old_logs = m.platform_bytes + m.metric_line_bytes + EVENT_OVERHEAD_BYTES + m.access_log_bytes
    metric_share = (m.metric_line_bytes + EVENT_OVERHEAD_BYTES) / METRIC_LOOKUPS_PER_LINE
    access = m.access_log_bytes + EVENT_OVERHEAD_BYTES
    api, url = prices.HTTP_API_PER_MILLION_REQUESTS, 0.0
    batches = MILLION / BATCH
    return [
        Column("HTTP API, no range cache, text logs (until now)", MILLION, api, miss_ms, 1.0, old_logs),
        Column("HTTP API, now", MILLION, api, single_ms, 1 - h, access + metric_share),
        Column("function URL, now", MILLION, url, single_ms, 1 - h, metric_share, target=0.30),
        Column("HTTP API, batches of 100", batches, api, batch_ms, 1 - h, access + metric_share),
        Column("function URL, batches of 100", batches, url, batch_ms, 1 - h, metric_share, target=0.02),
    ]


def markdown(m: Measured, memory_mb: int) -> str:
    cols = columns(m)
    table = {col.name: col.dollars(m, memory_mb) for col in cols}
    parts = list(next(iter(table.values())))
    lines = [
        "### 7. Cost per million lookups, logs included, from these measurements and us-east-1 prices of "
        + prices.PRICES_DATE,
        "",
        "| $ | " + " | ".join(col.name for col in cols) + " |",
        "|---|" + "---:|" * len(cols),
        *(f"| {part} | " + " | ".join(f"{table[col.name][part]:.4f}" for col in cols) + " |" for part in parts),
        "| **total** | " + " | ".join(f"**{sum(table[col.name].values()):.3f}**" for col in cols) + " |",
        "| target | "
        + " | ".join(
            "" if col.target is None else f"at most {col.target:.2f}: {_mark(sum(table[col.name].values()), col)}"
            for col in cols
        )
        + " |",
        "",
        "Per million single lookups, or per million addresses in batches of 100 (10,000 requests). The arithmetic:",
        "",
        *(_arithmetic(col, m, memory_mb) for col in cols),
        "",
        f"- measured here: {m.read_units_per_query:.2f} read units per Query; range-cache hits {m.hit_ratio:.1%} "
        f"(Zipf, default size); warm handler {m.hit_us:.0f} us on a hit and {m.miss_us:.0f} us around a Query; "
        f"a batch of 100 {m.batch_hit_us / 1e3:.1f} ms with the cache (1 Query) and {m.batch_miss_us / 1e3:.1f} ms "
        f"without; log lines: Lambda's START+END+REPORT {m.platform_bytes} B, one lookup's metric line "
        f"{m.metric_line_bytes} B, an access log line {m.access_log_bytes} B (each + {EVENT_OVERHEAD_BYTES} B)",
        f"- assumed: at {memory_mb} MB Lambda gives {memory_mb / 1769:.0%} of a vCPU, so handler time x "
        f"{CPU_SCALE:.2f}; a Query waits {QUERY_WAIT_MS:g} ms on AWS; a batch's Queries run "
        f"{BATCH_CONCURRENCY} at a time; now, one metric line per container a minute, counted as if each "
        f"container served only 1 lookup/s (1 line per {METRIC_LOOKUPS_PER_LINE} lookups, an upper bound)",
        "- not counted: an INFO line per refused or NOT_FOUND lookup until now (about 600 B each); each container "
        "keeps its own range cache, so the hit ratio holds per container once it is warm",
        f"- prices: {prices.PRICES_SOURCE}; CloudWatch Logs ${prices.CLOUDWATCH_LOGS_PER_GB:.2f} per GB ingested",
    ]
    return "\n".join(lines)


def _mark(total: float, col: Column) -> str:
    assert col.target is not None
    return "met" if total <= col.target else "**missed**"


def _arithmetic(col: Column, m: Measured, memory_mb: int) -> str:
    dollars = col.dollars(m, memory_mb)
    return (
        f"- {col.name}: {col.requests:,.0f} requests x (${col.api:.2f} front + $0.20 Lambda)/M "
        f"+ {col.requests:,.0f} x {col.billed_ms:.2f} ms x {memory_mb / 1024:g} GB x "
        f"${prices.LAMBDA_ARM_PER_GB_SECOND}/GB-s + {col.queries:.3f} Queries/address x "
        f"{m.read_units_per_query:.2f} RRU x ${prices.DYNAMODB_READ_PER_MILLION_RRU}/M + {col.requests:,.0f} x "
        f"{col.log_bytes:.0f} B of logs x ${prices.CLOUDWATCH_LOGS_PER_GB}/GB = ${sum(dollars.values()):.4f}"
    )


def metric_line_bytes() -> int:
    """One lookup's EMF line as the lookup function writes it (three counts, tagged for Lambda's WARN filter)."""
    from aws_lambda_powertools.metrics import MetricUnit

    from fencepost.observability import HandlerMetrics

    metrics = HandlerMetrics(namespace="Fencepost", service=LOOKUP_SERVICE, level="WARN")
    for name in ("Lookups", "Found", "NotFound"):
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=1)
    return len(metrics.line())


# What an access log field holds for a GET lookup answered 200 ("-" where API Gateway has nothing to say).
ACCESS_LOG_SAMPLE: Final = {
    "requestId": "JH3kAhxeIAMEbQw=",
    "requestTime": "23/Nov/2026:10:00:00 +0000",
    "httpMethod": "GET",
    "path": "/lookup",
    "status": "200",
    "protocol": "HTTP/1.1",
    "responseLength": "187",
    "responseLatency": "9",
    "integrationLatency": "8",
    "userAgent": "python-requests/2.32.3",
    "sourceIp": "203.0.113.7",
}


def access_log_bytes() -> int:
    """One HTTP API access log line in the stack's format (``infra.http_api``), addresses logged as by default."""
    from infra.http_api import ACCESS_LOG_FIELDS, SOURCE_IP_FIELD

    line = {name: ACCESS_LOG_SAMPLE.get(name, "-") for name in {**ACCESS_LOG_FIELDS, **SOURCE_IP_FIELD}}
    return len(json.dumps(line, separators=(",", ":")))
