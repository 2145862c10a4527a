"""``python -m bench.mmdb``: reading a MaxMind DB file of over a million networks, its time and peak memory.

The file is generated once (``mmdb-writer``'s tree, filled directly: its own ``insert_network`` takes ~130 us a
network) and kept in ``bench-results/``: IPv4 networks in the ``::/96`` subtree with 6to4, Teredo and mapped
aliases pointing to it (as MaxMind's files have), IPv6 networks, and GeoLite2-City-like records shared by many
networks. A fresh process then reads it as the loader does (``core.formats.mmdb.read_mmdb`` into a ``Collector``) and
flattens both families (``FamilyRanges.pieces``), reporting seconds and its peak resident memory (``VmHWM``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def _record(rng: random.Random, index: int) -> dict[str, Any]:
    names = {lang: f"City {index} ({lang})" for lang in ("de", "en", "es", "fr", "ja", "pt-BR", "ru", "zh-CN")}
    return {
        "city": {"geoname_id": 1_000_000 + index, "names": names},
        "continent": {"code": "EU", "geoname_id": 6255148, "names": {"en": "Europe", "de": "Europa"}},
        "country": {"iso_code": f"C{index % 250:03d}", "is_in_european_union": index % 3 == 0, "names": names},
        "location": {"accuracy_radius": 10 + index % 500, "latitude": rng.uniform(-90, 90), "longitude": 1.5},
        "postal": {"code": f"{index:05d}"},
        "subdivisions": [{"iso_code": f"S{index % 97}", "names": {"en": f"Region {index % 97}"}}],
    }


def generate(path: Path, networks: int, seed: int = 1) -> None:
    """A database of ``networks`` networks (60% IPv4, 40% IPv6) and ``networks // 20`` distinct records."""
    from mmdb_writer import MMDBWriter, SearchTreeLeaf, SearchTreeNode

    rng = random.Random(seed)
    leaves = [SearchTreeLeaf(_record(rng, index)) for index in range(max(1, networks // 20))]
    writer = MMDBWriter(ip_version=6, ipv4_compatible=True, database_type="Bench-City")

    def insert(address: int, prefix: int, leaf: Any) -> None:
        node: Any = writer.tree
        for index in range(prefix - 1):
            node = node.get_or_create(address >> (127 - index) & 1)
        node[address >> (128 - prefix) & 1] = leaf

    cursor = 1 << 24  # 1.0.0.0
    for _ in range(networks * 6 // 10):
        prefix = rng.choice((22, 23, 24, 24, 24, 25, 26, 28))
        cursor = -(-cursor // (1 << (32 - prefix))) * (1 << (32 - prefix)) + rng.choice((0, 0, 0, 256))
        insert(cursor, prefix + 96, rng.choice(leaves))
        cursor += 1 << (32 - prefix)
    cursor = 0x2A00 << 112
    for _ in range(networks - networks * 6 // 10):
        prefix = rng.choice((32, 36, 44, 48, 48, 48))
        cursor = -(-cursor // (1 << (128 - prefix))) * (1 << (128 - prefix))
        insert(cursor, prefix, rng.choice(leaves))
        cursor += 1 << (128 - prefix)
    ipv4: Any = writer.tree
    for _ in range(96):
        ipv4 = ipv4[0]
    for alias, prefix in ((0x2002 << 112, 16), (0x20010000 << 96, 32), (0xFFFF << 32, 96)):
        node = writer.tree
        for index in range(prefix - 1):
            bit = alias >> (127 - index) & 1
            child = node[bit]
            if not isinstance(child, SearchTreeNode):
                child = node[bit] = SearchTreeNode()
            node = child
        node[alias >> (128 - prefix) & 1] = ipv4
    sys.setrecursionlimit(10_000)
    writer.to_db_file(str(path))


def _peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def measure(path: Path) -> dict[str, Any]:
    """Read the file as the loader does, in this process (run it in a fresh one)."""
    from fencepost.core.folders.limits import Limits
    from fencepost.core.formats.base import ReadOptions
    from fencepost.core.formats.mmdb import Room, read_mmdb
    from fencepost.core.versions.build import Collector, ProblemLog

    data = path.read_bytes()
    before = _peak_mb()
    collector = Collector()
    started = time.perf_counter()
    room = Room(ranges=10**8, bytes=1 << 40)
    summary = read_mmdb(path.name, data, ReadOptions(), collector, ProblemLog(), limits=Limits(), room=room)
    read_seconds = time.perf_counter() - started
    read_peak = _peak_mb()
    pieces = {family: len(ranges.pieces()) for family, ranges in collector.families.items()}
    return {
        "file_mb": round(len(data) / 1e6, 1),
        "networks": summary.rows,
        "ranges": summary.ranges,
        "columns": len(summary.columns),
        "aliases": list(summary.aliases),
        "pieces": pieces,
        "read_seconds": round(read_seconds, 1),
        "total_seconds": round(time.perf_counter() - started, 1),
        "rss_before_mb": round(before),
        "peak_after_read_mb": round(read_peak),
        "peak_mb": round(_peak_mb()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.mmdb", description=__doc__)
    parser.add_argument("--networks", type=int, default=1_100_000)
    parser.add_argument("--file", type=Path, help="the database (generated when missing)")
    parser.add_argument("--measure-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    path = args.file or ROOT / "bench-results" / f"bench-{args.networks}.mmdb"
    if args.measure_only:
        print(json.dumps(measure(path)))
        return 0
    if not path.exists():
        started = time.perf_counter()
        generate(path, args.networks)
        print(f"generated {path} in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    command = [sys.executable, "-m", "bench.mmdb", "--measure-only", "--file", str(path)]
    paths = [str(ROOT / "lambdas"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, paths))}
    result = subprocess.run(command, check=True, capture_output=True, text=True, cwd=ROOT, env=environment)
    print(json.dumps(json.loads(result.stdout), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
