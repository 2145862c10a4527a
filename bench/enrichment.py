"""``python -m bench.enrichment``: enrichment at log scale (section 14 of ``make bench``).

Each figure comes from a fresh process (``--child``), one core, the datasets built from the shared files with the
loader's recipe (``--ranges``, no service):

- the join alone: addresses already parsed, each family's arrays searched (``FamilyTable.below`` and the end check);
- end to end through ``enrichment.job.Job``: one address a line (uniform over IPv4: every address its own piece, the
  worst case; and log-like: Zipf-distributed clients), and gzip ALB access logs (lines made from AWS's documented
  example, clients Zipf-distributed) written as a gzip log (``--out-format log``, zlib level 1: read as bytes, and
  read as text, ``Job(lean=False)``, in the same run) and as gzip CSV (zlib level 4), each form's median of
  ``--enrich-alb-runs`` (wall time, and the process's CPU time, which others' work on a shared machine does not
  inflate);
- beside them, the same addresses through ``POST /lookup`` (the lookup app in process, 100 a call, over the
  loader's items held in memory: no HTTP and no DynamoDB, so faster than any deployment), ``maxminddb``'s C reader
  over the version's MaxMind DB export, and DuckDB's join ``ip BETWEEN start AND end`` over its CSV export;
- memory: the peak resident set of an end-to-end run over a larger input, above what the process held once its
  version's arrays were read.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from bench.timing import timed

ROOT = Path(__file__).resolve().parent.parent
ALB_LINE = (
    "http 2018-07-02T22:23:00.186641Z app/my-loadbalancer/50dc6c495c0c9188 {client}:2817 10.0.0.1:80 0.000 0.001 "
    '0.000 200 200 34 366 "GET http://www.example.com:80/ HTTP/1.1" "curl/7.46.0" - - '
    "arn:aws:elasticloadbalancing:us-east-2:123456789012:targetgroup/my-targets/73e2d6bc24d8a067 "
    '"Root=1-58337262-36d228ad5d99923122bbe354" "-" "-" 0 2018-07-02T22:22:48.364000Z "forward" "-" "-" '
    '10.0.0.1:80 200 "-" "-"'
)


def _best(seconds: Callable[[], float], runs: int = 3) -> float:
    return min(seconds() for _ in range(runs))


def clients(count: int, *, zipf: bool, seed: int = 14) -> list[str]:
    """IPv4 addresses as text: uniform over the whole space, or Zipf-distributed over 100,000 distinct clients."""
    rng = np.random.default_rng(seed)
    if not zipf:
        values = rng.integers(0, 1 << 32, count, dtype=np.uint64)
    else:
        pool = rng.integers(1 << 24, 224 << 24, 100_000, dtype=np.uint64)
        values = pool[np.minimum(rng.zipf(1.2, count) - 1, len(pool) - 1)]
    return [f"{v >> 24}.{(v >> 16) & 255}.{(v >> 8) & 255}.{v & 255}" for v in values.tolist()]


def _source(name: str, path: Path) -> Any:
    from fencepost.enrichment.sources import FileSource

    return FileSource(name, [path])


def child_join(v4_file: Path, v6_file: Path, count: int) -> dict[str, Any]:
    from fencepost.core.space.addresses import V4, V6
    from fencepost.enrichment.address_column import parse_addresses

    out: dict[str, Any] = {"addresses": count}
    rng = np.random.default_rng(39)
    for family, path in ((V4, v4_file), (V6, v6_file)):
        source = _source("d", path)
        table = source.table(source.info(source.live("d"))).families[family]
        if family == V4:
            queries = rng.integers(0, 1 << 32, count, dtype=np.uint64).astype(np.uint32)
        else:  # global unicast, 2000::/3, where the file's ranges are
            raw = bytearray(rng.bytes(16 * count))
            raw[0::16] = bytes((0x20 | (b & 0x1F)) for b in raw[0::16])
            queries = np.frombuffer(bytes(raw), dtype="S16")

        def join(table: Any = table, queries: Any = queries) -> float:
            started = time.perf_counter()
            below = table.below(queries)
            inside = below >= 0
            inside[inside] = queries[inside] <= table.ends[below[inside]]
            return time.perf_counter() - started

        out[f"v{family}_pieces"] = len(table)
        out[f"v{family}_seconds"] = _best(join)
    texts = clients(count, zipf=False)
    out["parse_seconds"] = _best(lambda: timed(lambda: parse_addresses(texts)))
    return out


def _job(ranges: Path | Any, form: str, out: str = "csv", *, lean: bool = True) -> Any:
    """A job answering from the ranges file (or a source already built from it), ``data`` fields."""
    from fencepost.enrichment.engine import Enricher
    from fencepost.enrichment.inputs import Reader
    from fencepost.enrichment.job import Job
    from fencepost.enrichment.outputs import Writer
    from fencepost.enrichment.resolving import Resolver
    from fencepost.enrichment.shape import Shape, parse_fields
    from fencepost.reading.answers import Mode

    source = _source("geo", ranges) if isinstance(ranges, Path) else ranges
    resolver = Resolver("geo", source)
    info = source.info(source.live("geo"))
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": info.columns})
    reader = Reader(form)
    enricher = Enricher(shape, [resolver], errors_shown=False)
    return Job(reader, Writer(out, reader, shape.columns()), enricher, lean=lean)


def child_lines(ranges: Path, count: int) -> dict[str, Any]:
    out: dict[str, Any] = {"lines": count}
    for model in ("uniform", "zipf"):
        body = ("\n".join(clients(count, zipf=model == "zipf")) + "\n").encode()
        summary = _job(ranges, "lines").run(io.BytesIO(body), "addresses.txt", lambda _data: None)
        out[model] = {"seconds": summary.seconds, "megabytes": len(body) / 1e6}
    return out


ALB_FORMS = {  # the figure's name: the output form, the bytes path or not, the zlib level of the output
    "log": ("log", True, 1),
    "log_text": ("log", False, 1),
    "csv": ("csv", True, 4),
}


def child_alb(ranges: Path, count: int, runs: int) -> dict[str, Any]:
    """A gzip ALB log enriched into each form of ``ALB_FORMS``, ``runs`` times, the forms taking turns (the CSV
    form over a fifth of the lines): each form's median seconds."""
    lines = [ALB_LINE.format(client=c) for c in clients(count, zipf=True)]
    bodies = {"all": gzip.compress(("\n".join(lines) + "\n").encode(), 6)}
    bodies["fifth"] = gzip.compress(("\n".join(lines[: count // 5]) + "\n").encode(), 6)
    source = _source("geo", ranges)
    seconds: dict[str, list[float]] = {name: [] for name in ALB_FORMS}
    cpu: dict[str, list[float]] = {name: [] for name in ALB_FORMS}  # this process's CPU time (a shared machine)
    for _ in range(runs):
        for name, (out, lean, level) in ALB_FORMS.items():
            body = bodies["fifth" if out == "csv" else "all"]
            started = time.process_time()
            with gzip.GzipFile(fileobj=io.BytesIO(), mode="wb", compresslevel=level) as sink:
                summary = _job(source, "alb", out, lean=lean).run(io.BytesIO(body), "alb.log.gz", sink.write)
            cpu[name].append(time.process_time() - started)
            seconds[name].append(summary.seconds)
    raw = len(gzip.decompress(bodies["all"]))
    return {
        "lines": count,
        "csv_lines": count // 5,
        "runs": runs,
        "forms": {
            name: {"seconds": float(np.median(found)), "all": found, "cpu_seconds": float(np.median(cpu[name]))}
            for name, found in seconds.items()
        },
        "gzip_megabytes": len(bodies["all"]) / 1e6,
        "megabytes": raw / 1e6,
    }


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def child_memory(ranges: Path, megabytes: int) -> dict[str, Any]:
    """The resident set sampled every 20 ms while a job runs, above what it was once the version's arrays were read
    (the peak of building them from the file is not the job's)."""
    import gc
    import threading

    job = _job(ranges, "lines")
    job.enricher.enrich(["1.1.1.1"])  # the version's arrays read
    gc.collect()
    before, peak, done = _rss_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    line = ("\n".join(clients(200_000, zipf=True)) + "\n").encode()

    class Repeated(io.RawIOBase):
        """The same lines again and again, ``megabytes`` in all."""

        def __init__(self) -> None:
            self.left, self.at = megabytes * 1_000_000, 0

        def readable(self) -> bool:
            return True

        def readinto(self, buffer: Any) -> int:
            size = min(len(buffer), self.left, len(line) - self.at)
            buffer[:size] = line[self.at : self.at + size]
            self.left, self.at = self.left - size, (self.at + size) % len(line)
            return size

    summary = job.run(io.BufferedReader(Repeated(), 1 << 20), "big.txt", lambda _data: None)
    done.set()
    sampler.join()
    return {"megabytes": megabytes, "rows": summary.rows, "rise_mb": max(0.0, peak[0] - before), "held_mb": before}


def child_compare(ranges: Path, count: int, folder: Path) -> dict[str, Any]:
    from bench.enrichment_compare import other_ways

    return other_ways(ranges, clients(count, zipf=False), folder)


CHILDREN = {
    "join": child_join,
    "lines": child_lines,
    "alb": child_alb,
    "compare": child_compare,
    "memory": child_memory,
}


def _run(kind: str, *args: str) -> dict[str, Any]:
    command = [sys.executable, "-m", "bench.enrichment", "--child", kind, *args]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "lambdas"), str(ROOT)])}
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if done.returncode:
        raise RuntimeError(f"bench.enrichment {kind} failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(args: argparse.Namespace) -> dict[str, Any]:
    from tests.support import V4_FILE, V6_FILE

    with tempfile.TemporaryDirectory(prefix="fencepost-enrich-") as folder:
        return {
            "join": _run("join", str(V4_FILE), str(V6_FILE), str(args.enrich_addresses)),
            "lines": _run("lines", str(V4_FILE), str(args.enrich_addresses)),
            "alb": _run("alb", str(V4_FILE), str(args.enrich_alb_lines), str(args.enrich_alb_runs)),
            "compare": _run("compare", str(V4_FILE), str(args.enrich_compare), folder),
            "memory": _run("memory", str(V4_FILE), str(args.enrich_memory_mb)),
        }


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--enrich-addresses", type=int, default=2_000_000, help="addresses joined, and lines enriched")
    parser.add_argument("--enrich-alb-lines", type=int, default=500_000, help="gzip ALB log lines enriched")
    parser.add_argument("--enrich-alb-runs", type=int, default=3, help="runs of each ALB form (medians quoted)")
    parser.add_argument("--enrich-compare", type=int, default=100_000, help="addresses through the other ways")
    parser.add_argument("--enrich-memory-mb", type=int, default=2000, help="MB of input for the memory figure")


def section(args: argparse.Namespace) -> str:
    from bench.enrichment_report import markdown

    return markdown(measure(args), args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.enrichment", description=__doc__.split("\n\n")[0])
    parser.add_argument("--child", nargs="+", metavar="ARG", help="one measurement, in this process (JSON out)")
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        converted = [Path(a) if "/" in a else int(a) for a in rest]
        print(json.dumps(CHILDREN[kind](*converted)))  # type: ignore[operator]
        return 0
    print(section(args))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
