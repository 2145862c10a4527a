"""Memory and time limits of the two functions, sized from `make bench` measurements (no CDK import here, so
the benchmark's cost section reads the same figures)."""

from __future__ import annotations

from typing import Final

# Lookup: 53 MB resident after the cold import, 55 us of handler CPU per warm lookup. Lambda gives CPU in
# proportion to memory, so the size buys cold-start speed (the import takes ~250 ms of one fast core), not room:
# 512 MB (~0.3 vCPU) keeps cold starts short for a fraction of a cent per million lookups.
LOOKUP_MEMORY_MB: Final = 512
# Room for botocore's bounded retries of a throttled Query, far below API Gateway's 30 s integration limit.
LOOKUP_TIMEOUT_SECONDS: Final = 10

# Loader: a build holds the whole folder while it is planned. Measured peak: 55 MB for the 450k-row IPv4 file,
# 79 MB for the 168k-row IPv6 file, 1,292 MB for a synthetic 5M-row file whose metadata barely repeats (about
# 250 bytes a row). 3,008 MB keeps twice that, so about 10 million such rows fit (10,240 MB is Lambda's ceiling),
# and gives ~1.7 vCPU: planning runs at ~115k rows/s on one fast core, 5M rows in under a minute.
LOADER_MEMORY_MB: Final = 3008
# Lambda's maximum: planning a large folder is one invocation; chunk invocations take seconds.
LOADER_TIMEOUT_MINUTES: Final = 15

# Tables: a version's table file read into arrays (the loader's table file), its Parquet written a batch of 65,536
# pieces at a time to /tmp, then uploaded. Measured 2026-11-29 on the development machine (x86_64, 2 cores): writing
# the shared IPv4 file's version (450,116 pieces, 1,059,741 rows) took 1.1 s and grew the process by 98 MB (pyarrow's
# pool peaked at 59 MiB), a 15.6 MB file. 1,769 MB is one full vCPU (the expansion into buckets and zstd run on one
# core) and leaves room for versions ten times larger; /tmp holds one file: 2,048 MB is over a hundred such files.
TABLES_MEMORY_MB: Final = 1769
TABLES_EPHEMERAL_MB: Final = 2048
TABLES_TIMEOUT_MINUTES: Final = 15
