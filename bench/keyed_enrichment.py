"""``python -m bench.keyed_enrichment``: what joining a keyed dataset costs enrichment.

The ranges are iptoasn.com's IPv6 ip2asn file (167,928 rows: start, end, asn, country), built with the loader's
recipe (``--ranges``, no service); the keyed dataset is the AS numbers it names with their descriptions and countries
(``asn,name,country``, read as a keyed folder is, in the ``asn`` key form). The same input is enriched end to end
through ``enrichment.job.Job`` (one address a line in, CSV out, ``data`` fields) by the same ranges without
``keyed_joins`` and with one join adding two columns, and by the join with each row at its own instant (``--time``:
a column of epoch seconds, every row's instant another). Inputs: uniform over 2000::/3 (most rows in a few large
pieces), and Zipf-distributed over 100,000 clients drawn inside the file's ranges (log-like). Each figure is the best
of ``--runs`` runs in this process, on one core, in CPU seconds (``time.process_time``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.timing import say

JOIN = {"dataset": "as-names", "on": "asn", "columns": ["name", "country"], "prefix": "as_"}


def _folders(v6_file: Path, folder: Path) -> tuple[list[Path], list[Path], list[Path], int]:
    """The ranges without a join, with one, and the keyed folder's files; and the keys the keyed dataset holds."""
    ranges, names = ["start,end,asn,country"], {}
    with gzip.open(v6_file, "rt") as handle:
        for line in handle:
            start, end, asn, country, name = line.rstrip("\n").split("\t")
            ranges.append(f"{start},{end},{asn},{country}")
            if asn != "0":
                names[asn] = (name.replace('"', "'"), country)
    (folder / "plain").mkdir()
    (folder / "joined").mkdir()
    (folder / "as-names").mkdir()
    for kind in ("plain", "joined"):
        (folder / kind / "ranges.csv").write_text("\n".join(ranges) + "\n")
    (folder / "joined" / "_settings.json").write_text(json.dumps({"keyed_joins": [JOIN]}))
    (folder / "as-names" / "_settings.json").write_text(json.dumps({"key": "asn", "key_form": "asn"}))
    rows = [f'{asn},"{name}",{country}' for asn, (name, country) in names.items()]
    (folder / "as-names" / "names.csv").write_text("asn,name,country\n" + "\n".join(rows) + "\n")
    listed = [sorted((folder / kind).iterdir()) for kind in ("plain", "joined", "as-names")]
    return listed[0], listed[1], listed[2], len(names)


def clients(starts: np.ndarray, count: int, *, zipf: bool, seed: int = 14) -> list[str]:
    """IPv6 addresses as text: uniform over 2000::/3, or Zipf over 100,000 clients at the ranges' starts plus one."""
    import ipaddress

    rng = np.random.default_rng(seed)
    if not zipf:
        highs = rng.integers(0x2000, 0x4000, count, dtype=np.uint64).tolist()
        lows = rng.integers(0, 1 << 62, count, dtype=np.uint64).tolist()
        return [str(ipaddress.IPv6Address((high << 112) | low)) for high, low in zip(highs, lows, strict=True)]
    pool = [str(ipaddress.IPv6Address(min(int(start) + 1, (1 << 128) - 1))) for start in rng.choice(starts, 100_000)]
    picks = np.minimum(rng.zipf(1.2, count) - 1, len(pool) - 1).tolist()
    return [pool[at] for at in picks]


def _job(source: Any, *, per_row: bool) -> Any:
    from fencepost.enrichment.engine import Enricher
    from fencepost.enrichment.inputs import Reader
    from fencepost.enrichment.job import Job
    from fencepost.enrichment.outputs import Writer
    from fencepost.enrichment.resolving import Resolver
    from fencepost.enrichment.shape import Shape, answer_columns, parse_fields
    from fencepost.reading.answers import Mode

    info = source.info(source.live("geo"))
    shape = Shape(("geo",), Mode.ALL, parse_fields(None), {"geo": answer_columns(info)})
    reader = Reader("csv", column="ip", time="at") if per_row else Reader("lines")
    enricher = Enricher(shape, [Resolver("geo", source)], errors_shown=False)
    return Job(reader, Writer("csv", reader, shape.columns()), enricher)


def measure(v6_file: Path, count: int, runs: int) -> dict[str, Any]:
    from fencepost.enrichment.sources import FileSource, keyed_file_tables

    with tempfile.TemporaryDirectory(prefix="fencepost-keyed-") as name:
        plain_files, joined_files, keyed_files, keys = _folders(v6_file, Path(name))
        say("building the ranges and the keyed table")
        keyed = keyed_file_tables({"as-names": keyed_files})
        plain, joined = FileSource("geo", plain_files), FileSource("geo", joined_files, keyed)
        starts = np.array([int(v) for v in _starts(plain)], dtype=object)
    out: dict[str, Any] = {"addresses": count, "ranges": plain.rows, "keys": keys, "runs": runs, "inputs": {}}
    for model in ("uniform", "zipf"):
        texts = clients(starts, count, zipf=model == "zipf")
        lines = ("\n".join(texts) + "\n").encode()
        instants = 1_700_000_000 + np.arange(count)  # every row another instant, all after the versions
        timed = "".join(f"{text},{at}\n" for text, at in zip(texts, instants.tolist(), strict=True))
        timed_csv = ("ip,at\n" + timed).encode()
        figures: dict[str, float] = {}
        for label, source, body, per_row in (
            ("without a join", plain, lines, False),
            ("one join (2 columns)", joined, lines, False),
            ("without a join, each row at its own instant", plain, timed_csv, True),
            ("one join, each row at its own instant", joined, timed_csv, True),
        ):
            best = min(_run(_job(source, per_row=per_row), body) for _ in range(runs))
            figures[label] = best
            say(f"{model}, {label}: {count / best:,.0f} rows/s")
        out["inputs"][model] = figures
        out.setdefault("named", {})[model] = _named(_job(joined, per_row=False), lines)
    return out


def _starts(source: Any) -> list[int]:
    from fencepost.core.space.addresses import V6
    from fencepost.enrichment.table import bound_int

    table = source.table(source.info(source.live("geo"))).families[V6]
    return [bound_int(V6, table.starts[index]) for index in range(len(table))]


def _named(job: Any, body: bytes) -> float:
    """The share of rows a joined name was written for (the join did its work)."""
    written: list[bytes] = []
    job.run(io.BytesIO(body), "input", written.append)
    rows = list(csv.reader(io.StringIO(b"".join(written).decode())))
    column = rows[0].index("geo.data.as_name")
    return sum(1 for row in rows[1:] if row[column]) / max(1, len(rows) - 1)


def _run(job: Any, body: bytes) -> float:
    """The process's CPU seconds for one run (what others' work on a shared machine does not inflate)."""
    started = time.process_time()
    job.run(io.BytesIO(body), "input", lambda _data: None)
    return time.process_time() - started


def markdown(result: dict[str, Any]) -> str:
    count = result["addresses"]
    lines = [
        f"`python -m bench.keyed_enrichment --addresses {count} --runs {result['runs']}` on {platform.machine()}, "
        f"Python {platform.python_version()}: {result['ranges']:,} ranges, {result['keys']:,} keys; best of "
        f"{result['runs']} runs, one core.",
        "",
        "| input | enriched by | CPU seconds | rows/s | rows/s against the same without a join |",
        "|---|---|---:|---:|---:|",
    ]
    for model, figures in result["inputs"].items():
        for label, seconds in figures.items():
            base = figures["without a join" + (", each row at its own instant" if "instant" in label else "")]
            change = base / seconds - 1
            lines.append(f"| {model} | {label} | {seconds:.2f} | {count / seconds:,.0f} | {change:+.0%} |")
    named = ", ".join(f"{model} {share:.0%}" for model, share in result["named"].items())
    return "\n".join([*lines, "", f"Rows given a joined name: {named}."])


def main(argv: list[str] | None = None) -> int:
    from tests.support import V6_FILE

    parser = argparse.ArgumentParser(prog="python -m bench.keyed_enrichment", description=__doc__.split("\n\n")[0])
    parser.add_argument("--addresses", type=int, default=1_000_000, help="rows enriched per input")
    parser.add_argument("--runs", type=int, default=3, help="runs of each figure (the best quoted)")
    args = parser.parse_args(argv)
    print(markdown(measure(V6_FILE, args.addresses, args.runs)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
