"""``python -m enrich FILE --dataset geo [--dataset asn] [--out OUT]``: each row of FILE with the answers of
``GET /lookup`` for its address appended, joined here with each version's table file, no lookup per row.

Where the datasets come from: ``--ranges [NAME=]FILE`` builds them from files of ranges with the loader's own recipe
(no service at all; the keyed datasets their ``keyed_joins`` name from ``--keyed NAME=FILE``, read the same way, or
none: their columns null); otherwise the stack that ``TABLE_NAME`` and ``BUCKET_NAME`` name (on AWS: the stack's
outputs, with the usual AWS credentials); otherwise the local stack ``make run`` started (its state file,
``local.state``).

Progress goes to stderr every few seconds, and a summary at the end (``--summary FILE`` writes it as JSON too).
Exit status: 0 done (bad rows are counted, not fatal), 1 the input or the job's settings cannot be used, 2 usage.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any

from fencepost.enrichment.csv_records import RECORD_LINES
from fencepost.enrichment.input_lines import JobError
from fencepost.enrichment.inputs import FORMATS, InputError
from fencepost.enrichment.job import Summary
from fencepost.enrichment.job_spec import OUT_FORMS, assemble, cli_spec
from fencepost.enrichment.outputs import OutputError
from fencepost.enrichment.parquet_output import FORM as PARQUET
from fencepost.enrichment.parquet_output import ParquetOutput
from fencepost.enrichment.resolving import UNRESOLVED, VersionSource
from fencepost.enrichment.sources import FileSource, keyed_file_tables
from fencepost.errors import ServiceError
from fencepost.reading.answers import Mode

PROGRESS_SECONDS = 5.0


def parser() -> argparse.ArgumentParser:
    parse = argparse.ArgumentParser(prog="python -m enrich", description=__doc__.split("\n\n")[0])
    parse.add_argument("file", help="the input: a path, or - for stdin (gzip is read when the bytes say so)")
    parse.add_argument("--dataset", action="append", default=[], help="a dataset to answer from (repeat for more)")
    parse.add_argument("--ranges", action="append", default=[], metavar="[NAME=]FILE", help="build NAME from FILE")
    parse.add_argument(
        "--keyed", action="append", default=[], metavar="NAME=FILE", help="with --ranges: keyed dataset NAME from FILE"
    )
    parse.add_argument("--format", choices=FORMATS, help="the input's format (default: by its name, else lines)")
    parse.add_argument("--column", help="the address's column (name or 1-based number), JSON field path, log field")
    parse.add_argument("--no-header", action="store_true", help="the CSV or TSV input has no header line")
    parse.add_argument("--fields", help="what to append, as GET /lookup's fields= (default: data)")
    parse.add_argument("--mode", choices=[mode.value for mode in Mode], default=Mode.ALL.value)
    parse.add_argument("--as-of", help="answer every row as of this RFC 3339 instant (default: now)")
    parse.add_argument("--time", help="answer each row as of its own time: log (a log's own), or a column/field")
    parse.add_argument("--out", default="-", help="the output path (.gz: gzip), or - for stdout")
    parse.add_argument(
        "--out-format",
        choices=OUT_FORMS,
        help="csv, tsv, jsonl or parquet (default: as the input; logs: csv; .parquet)",
    )
    parse.add_argument(
        "--gzip-level",
        type=int,
        choices=range(1, 10),
        metavar="1-9",
        help="zlib level of a .gz output (default: 1 for --out-format log, the fastest; else 4)",
    )
    parse.add_argument(
        "--record-lines",
        type=int,
        default=RECORD_LINES,
        metavar="N",
        help=f"the lines a CSV or TSV record may span (quoted line breaks; default {RECORD_LINES})",
    )
    parse.add_argument("--raw-cells", action="store_true", help="write answer cells a spreadsheet would run as is")
    parse.add_argument("--summary", type=Path, help="also write the summary here, as JSON")
    parse.add_argument("--quiet", action="store_true", help="no progress on stderr")
    return parse


def _files(ranges: Sequence[str], datasets: Sequence[str]) -> dict[str, list[Path]]:
    grouped: dict[str, list[Path]] = {}
    for given in ranges:
        name, equals, path = given.partition("=")
        if not equals:
            name, path = (datasets[0] if len(datasets) == 1 else Path(given).name.split(".")[0]), given
        grouped.setdefault(name, []).append(Path(path))
    return grouped


def _sources(args: argparse.Namespace) -> tuple[list[str], Callable[[str], VersionSource]]:
    if args.keyed and not args.ranges:
        raise InputError("--keyed goes with --ranges: a stack's datasets join the stack's keyed datasets")
    if any("=" not in given for given in args.keyed):
        raise InputError("--keyed names its dataset: --keyed NAME=FILE")
    if args.ranges:
        keyed = keyed_file_tables(_files(args.keyed, ()))
        built = {name: FileSource(name, files, keyed) for name, files in _files(args.ranges, args.dataset).items()}
        names = args.dataset or list(built)
        missing = [name for name in names if name not in built]
        if missing:
            raise InputError(f"no --ranges for {', '.join(missing)}")
        return names, built.__getitem__
    if not args.dataset:
        raise InputError("name the datasets to answer from with --dataset (or give --ranges FILE)")
    if "TABLE_NAME" not in os.environ:  # not named: the local stack make run started
        from local.state import NoStack, running

        try:
            os.environ.update(running().environment)
        except NoStack as error:
            raise InputError(f"{error}; or name a stack on AWS with TABLE_NAME and BUCKET_NAME") from None
    from fencepost.bootstrap.enrich_wiring import service_source

    source = service_source()
    return list(args.dataset), lambda _name: source


def _progress(quiet: bool) -> Callable[[Summary], None]:
    last = [time.monotonic()]

    def show(summary: Summary) -> None:
        now = time.monotonic()
        if quiet or now - last[0] < PROGRESS_SECONDS:
            return
        last[0] = now
        rate = summary.rows / summary.seconds if summary.seconds else 0
        print(f"enrich: {summary.rows:,} rows ({rate:,.0f} a second), {summary.bad:,} bad", file=sys.stderr)

    return show


def _open_out(path: str, level: int) -> IO[bytes]:
    if path == "-":
        return sys.stdout.buffer
    if path.endswith(".gz"):
        return gzip.open(path, "wb", compresslevel=level)  # type: ignore[return-value]
    return open(path, "wb")


def run(args: argparse.Namespace) -> dict[str, Any]:
    names, source_of = _sources(args)
    if args.out_format is None and args.out.endswith(".parquet"):
        args.out_format = PARQUET
    parquet = args.out_format == PARQUET
    if parquet and (args.out == "-" or args.out.endswith(".gz")):
        raise OutputError("parquet is written to a file named with --out (compressed inside: no .gz)")
    spec = cli_spec(args, names)
    job = assemble(spec, args.file, source_of, progress=_progress(args.quiet), parquet=args.out if parquet else None)
    raw = sys.stdin.buffer if args.file == "-" else open(args.file, "rb")  # noqa: SIM115 - closed below
    level = args.gzip_level or (1 if args.out_format == "log" else 4)
    out = None if parquet else _open_out(args.out, level)
    try:
        summary = job.run(raw, args.file, out.write if out is not None else lambda _text: None)
        if isinstance(job.writer, ParquetOutput):
            job.writer.close()
    finally:
        raw.close()
        if out is not None and out is not sys.stdout.buffer:
            out.close()
    return summary.as_dict()


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        summary = run(args)
    except (InputError, OutputError, JobError, OSError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except UNRESOLVED as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 1
    except ServiceError as error:
        print(f"error: {error.message}", file=sys.stderr)
        return 1
    text = json.dumps(summary, indent=2)
    if args.summary:
        args.summary.write_text(text + "\n")
    print(text, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
