"""The objects of a keyed dataset's folder, read into its rows (``core.keyed.key_rows``), each in the layout its
content shows:

- a CSV table whose header holds the key column: every other column kept, in order (as a ``join`` table is read,
  ``core.folders.joins.read_table``); a row with the wrong number of cells is an invalid row;
- an AS-names list, keyed by ``asn`` in the ``asn`` key form, its columns ``asn``, ``name`` and ``country``: the
  CIDR Report's ``autnums.html`` (one ``<a href="/cgi-bin/as-report?as=AS13335&view=2.0">AS13335 </a> CLOUDFLARENET -
  Cloudflare, Inc., US`` a line, after an HTML head) or the RIPE NCC's ``asn.txt`` (``13335 CLOUDFLARENET -
  Cloudflare, Inc., US``). ``name`` is the text before the last ``, CC``, ``country`` those two letters (empty when a
  line has none); other lines (the HTML around the list, blank lines) are skipped. Names are read as UTF-8, a byte
  that is not replaced (one name's stray byte fails no list);
- a registry's delegated statistics (``delegated-<rir>-extended-latest``, the NRO's ``delegated-extended``), detected
  as a range folder detects one (``core.formats.choice.line_format``): its ``asn`` records, one row an AS number
  (``core.keyed.rir_keys``), keyed by ``asn`` in the ``asn`` key form.

Lines arrive as bytes, gzip already unpacked (the bucket's ``lines``), within the loader's limits.
"""

from __future__ import annotations

import csv
import html
import itertools
import re
from collections.abc import Iterable, Iterator
from typing import Any, Final

from fencepost.core.formats import linefiles
from fencepost.core.formats.base import ProblemSink, text_lines
from fencepost.core.formats.choice import line_format
from fencepost.core.formats.problems import Problem
from fencepost.core.keyed.key_rows import KeyFileError, KeyRows
from fencepost.core.keyed.rir_keys import read_rir_keys

AS_NAMES_KEY: Final = "asn"
AS_NAMES_COLUMNS: Final = ("name", "country")
DETECT_LINES: Final = 1000  # lines an AS-names list's head may take before its first AS
# The text after the AS, its trailing blanks stripped after the match: a lazy group before a run of blanks would be
# tried from every position of a long run, quadratic in a line as long as MAX_LINE_BYTES
_AUTNUMS: Final = re.compile(r'\s*<a href="[^"]*">\s*AS(\d+)\s*</a>\s?(.*)')
_ASN_TXT: Final = re.compile(r"(\d+) (.*)")
_BOM: Final = b"\xef\xbb\xbf"  # a byte-order mark opening an object (a spreadsheet's "CSV UTF-8")
_COUNTRY: Final = re.compile(r"(.*), ([A-Z]{2})")


def read_key_object(name: str, lines: Iterable[bytes], rows: KeyRows, problems: ProblemSink) -> int:
    """Read one object into ``rows``; the rows it held (invalid ones included). Raises ``KeyFileError``, or
    ``core.formats.base.FileError`` for a CSV object that is not UTF-8 text."""
    stream = iter(lines)
    head = list(itertools.islice(stream, DETECT_LINES))
    if head:
        head[0] = head[0].removeprefix(_BOM)
    if len(head) < DETECT_LINES and not any(raw.strip() for raw in head):
        return 0  # an empty object holds no rows (the gates' min_ranges judges a table left empty)
    layout = _layout(head, rows.key)
    if layout is None:
        raise KeyFileError(
            f"{name} is neither a CSV table whose header names the key column {rows.key!r} nor an AS-names list "
            "(autnums.html, asn.txt) nor a registry's delegated statistics (delegated-<rir>-extended-latest)",
            name,
        )
    if layout == "csv":
        return _read_csv(name, itertools.chain(head, stream), rows, problems)
    if rows.key != AS_NAMES_KEY:
        what = "a registry's delegated statistics" if layout == "rir" else "an AS-names list"
        raise KeyFileError(f'{name} is {what}, keyed by "asn": set "key": "asn"', name)
    if layout == "rir":
        return read_rir_keys(name, text_lines(itertools.chain(head, stream)), rows, problems)
    rows.start(name, AS_NAMES_COLUMNS, "asn")
    count = 0
    for number, raw in enumerate(itertools.chain(head, stream), 1):
        entry = as_names_entry(raw.decode("utf-8", "replace"), layout)
        if entry is not None:
            count += 1
            rows.add(entry[0], entry[1:], name, number, problems)
    return count


def _layout(head: list[bytes], key: str) -> str | None:
    """``rir``, ``csv``, ``autnums`` or ``asn.txt``: what the first lines show; None for none of them."""
    texts = [raw.decode("utf-8", "replace").strip() for raw in head]
    if line_format(iter(texts), []) is linefiles.RIR:  # no CSV header or AS-names line has its |-separated fields
        return "rir"
    first = next((text for text in texts if text), "")
    if key in (cell.strip() for cell in next(csv.reader([first]), [])):
        return "csv"
    if any(_AUTNUMS.fullmatch(text) for text in texts):
        return "autnums"
    return "asn.txt" if _ASN_TXT.fullmatch(first) else None


def as_names_entry(line: str, layout: str) -> tuple[str, str, str] | None:
    """An AS-names line as ``(asn, name, country)``; None for a line that holds no AS (``layout``: ``autnums``
    or ``asn.txt``)."""
    match = (_AUTNUMS if layout == "autnums" else _ASN_TXT).fullmatch(line.rstrip("\r\n"))
    if match is None:
        return None
    text = match.group(2).rstrip()
    text = html.unescape(text) if layout == "autnums" else text
    named = _COUNTRY.fullmatch(text)
    return (match.group(1), *((named.group(1), named.group(2)) if named else (text, "")))


def _read_csv(name: str, lines: Iterable[bytes], rows: KeyRows, problems: ProblemSink) -> int:
    reader = csv.reader(text_lines(lines))
    # An empty header cell is named by its position, as a range file's is (``core.formats.base.metadata_names``)
    header = [cell.strip() or f"col{at}" for at, cell in enumerate(next(_rows(reader, name), []), 1)]
    twice = sorted({column for column in header if header.count(column) > 1})
    if twice:
        raise KeyFileError(f"{name} names the columns {twice} twice in its header", name, 1)
    at = header.index(rows.key)
    others = [index for index in range(len(header)) if index != at]
    rows.start(name, [header[index] for index in others], "text")
    count = 0
    for cells in _rows(reader, name):
        count += 1
        if len(cells) != len(header):
            reason = f"the row has {len(cells)} cells; the header has {len(header)}"
            problems.add(Problem(name, reader.line_num, reason))
            continue
        values = tuple(cells[index].strip() for index in others)
        rows.add(cells[at], values, name, reader.line_num, problems)
    return count


def _rows(reader: Any, name: str) -> Iterator[list[str]]:
    """The rows that hold something (blank lines skipped); a line CSV cannot read fails the object."""
    try:
        for cells in reader:
            if any(cell.strip() for cell in cells):
                yield cells
    except csv.Error as error:
        raise KeyFileError(f"line {reader.line_num + 1} is not readable as CSV: {error}", name) from None
