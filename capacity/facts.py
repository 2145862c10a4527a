"""Every number the capacity model rests on, each with where it comes from.

Sources, as named below:
- [docs-partitions]: DynamoDB Developer Guide, "Best practices for designing and using partition keys": every
  partition serves at most 3,000 read units and 1,000 write units a second; a read unit is one strongly consistent
  read (or two eventually consistent ones) of up to 4 KB a second, a write unit one write of up to 1 KB.
- [docs-on-demand]: Developer Guide, "Read/write capacity mode": a new on-demand table serves up to 4,000 write and
  12,000 read request units a second; on-demand instantly serves up to double the previous peak; a new peak is
  the previous peak 30 minutes later.
- [docs-burst]: Developer Guide, "Burst capacity": up to 300 seconds of unused provisioned capacity is kept.
- [docs-quotas]: Developer Guide, "Service quotas": 40,000 read and 40,000 write units per table, by default.
- [docs-splits] and [study-3]: partitions split when one nears 10 GB, when a provisioned table is raised above any
  earlier capacity, or for heat; they never merge, and survive a switch from provisioned to on-demand (the
  pre-warm). A split for heat can split one partition key value's items by sort key, but not for a key whose
  writes go to ever-increasing sort keys.
- [classic]: the classic sizing formula, partitions = ceil(RCU / 3,000 + WCU / 1,000), +1 per 10 GB.
- [study-1]: AWS Database blog, "Scaling DynamoDB: How partitions, hot keys, and split for heat impact
  performance", Part 1 (loading): its loader is "a simple single-loop Python script"; a new on-demand table
  behaves as four partitions; four loads measured 1,000, ~1,250, ~3,600 and ~6,000 writes a second.
- [study-2]: the same, Part 2 (querying): one partition key value on demand served 4,500 read units of eventually
  consistent Queries (9,000 a second) before splitting for heat: a partition's eventually consistent reads are
  spread over its three replicas, beyond the 3,000 units of strongly consistent ones.
- [andrestone]: andrestone/dynamodb-load-test: one key value read on demand split for heat after about 8 minutes.
- [qyjohn]: qyjohn/AWS_Tutorials (ForcePartitionSplit): an on-demand table's hot key rose 3k -> 6k -> 12k -> 20k
  write units over an hour, in steps of about a quarter of an hour.
- [gsi-study]: ../shared/REFERENCE.md, the low-cardinality GSI study: a throttled GSI partition throttles the
  table's writes (a write that cannot reach its index is refused).
"""

from __future__ import annotations

from typing import Final

PARTITION_READ_UNITS: Final = 3_000.0  # [docs-partitions], strongly consistent
PARTITION_EVENTUAL_READ_UNITS: Final = 4_500.0  # [study-2]: measured for eventually consistent reads
PARTITION_WRITE_UNITS: Final = 1_000.0  # [docs-partitions]
WRITE_UNIT_BYTES: Final = 1_024  # [docs-partitions]
READ_UNIT_BYTES: Final = 4_096  # [docs-partitions]
EVENTUAL_READ_COST: Final = 0.5  # [docs-partitions]: two eventually consistent reads per read unit

ON_DEMAND_NEW_WRITE_UNITS: Final = 4_000.0  # [docs-on-demand]
ON_DEMAND_NEW_READ_UNITS: Final = 12_000.0  # [docs-on-demand]
ON_DEMAND_PEAK_FACTOR: Final = 2.0  # [docs-on-demand]: up to double the previous peak, at once
ON_DEMAND_PEAK_SECONDS: Final = 1_800.0  # [docs-on-demand]: a peak is "previous" 30 minutes later
ON_DEMAND_GROWTH_SECONDS: Final = 900.0  # [qyjohn]: an on-demand table doubled its hot capacity every ~15 min

BURST_SECONDS: Final = 300.0  # [docs-burst]
TABLE_MAX_UNITS: Final = 40_000.0  # [docs-quotas], per table and direction
SPLIT_BYTES: Final = 10 * 1024**3  # [docs-splits], [classic]
HEAT_SPLIT_SECONDS: Final = 480.0  # [andrestone]: ~8 minutes of sustained heat; [study-2] shows minutes too
HEAT_SHARE: Final = 0.8  # a partition is "hot" in a second in which it used this share of what it can serve

# [study-1]: the study's loader is one loop sending BatchWriteItem calls of 25 items one after another. Its figure 4
# load (a table of at least 10 partitions, i.e. 10,000 write units, far above what it reached) went at ~6,000 items
# a second: the loop, not the table, set that pace, so one call took about 25 / 6,000 s. The model takes that
# round trip from the study's own figure 4; figures 1 to 3 are then predictions of the model.
STUDY_CALL_SECONDS: Final = 25 / 6_000
STUDY_BATCH: Final = 25
# The botocore retry of a call refused whole (ProvisionedThroughputExceededException), legacy mode for DynamoDB:
# 25 ms doubled at each attempt, 10 attempts.
BOTO_LEGACY_BASE_SECONDS: Final = 0.025
BOTO_LEGACY_ATTEMPTS: Final = 10
