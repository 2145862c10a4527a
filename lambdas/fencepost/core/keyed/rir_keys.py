"""The ``asn`` records of a registry's delegated statistics (``delegated-<rir>-extended-latest``, the NRO's combined
``delegated-extended``) read into a keyed table: one row an AS number, keyed by ``asn`` in the ``asn`` key form.

A record ``apnic|JP|asn|173|3|20020801|allocated|A91A7381`` holds the AS numbers 173, 174 and 175, each a row of
``registry`` (apnic), ``country`` (JP), ``date`` (20020801), ``status`` (allocated) and, in the extended layout,
``opaque_id`` (A91A7381). Whether an object is extended is what its first ``asn`` record shows: an eighth field.
Lines are split as range folders split them (``core.formats.rir_stats.record_fields``): the version line, the
summaries, comments and the ``ipv4``/``ipv6`` records hold no key.

Records of the statuses ``available`` and ``reserved`` are skipped: they name no holder (their country is empty,
``*`` or ``ZZ``) and come in blocks of up to thousands of AS numbers that would fill a table held whole by every
lookup that joins it; an AS number no registry has delegated is a miss, as any key a table lacks. A record whose
start or count is no number, whose count is 0, or whose numbers run past AS 4294967295 is an invalid row. A count
larger than the keys a version may hold fails the object at that record, without reading its numbers one by one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from fencepost.core.formats.base import ProblemSink
from fencepost.core.formats.cells import RowError, is_integer
from fencepost.core.formats.problems import Problem
from fencepost.core.formats.rir_stats import record_fields
from fencepost.core.keyed.key_rows import KeyFileError, KeyRows
from fencepost.core.keyed.keyed_table import MAX_ASN

COLUMNS: Final = ("registry", "country", "date", "status")
EXTENDED_COLUMNS: Final = (*COLUMNS, "opaque_id")
SKIPPED_STATUSES: Final = frozenset({"available", "reserved"})
NO_COUNTRY: Final = frozenset({"", "*"})  # written as an empty country
_DIGITS: Final = len(str(MAX_ASN))


def read_rir_keys(name: str, lines: Iterable[str], rows: KeyRows, problems: ProblemSink) -> int:
    """Read one delegated statistics file's ``asn`` records into ``rows``: the keys read, invalid records counted
    among them. Raises ``KeyFileError``."""
    extended: bool | None = None  # unknown until the first asn record
    count = 0
    for number, line in enumerate(lines, 1):
        try:
            block = _asn_block(line)
        except RowError as error:
            count += 1
            problems.add(Problem(name, number, str(error)))
            continue
        if block is None:
            continue
        first, many, fields = block
        if extended is None:
            extended = len(fields) > 7
            rows.start(name, EXTENDED_COLUMNS if extended else COLUMNS, "asn")
        if fields[6].lower() in SKIPPED_STATUSES:
            continue
        if many > rows.max_rows:
            raise KeyFileError(rows.too_many, name, number)
        registry, cc, date, status = fields[0], fields[1], fields[5], fields[6]
        values: tuple[str, ...] = (registry, "" if cc in NO_COUNTRY else cc, date, status)
        values = (*values, fields[7] if len(fields) > 7 else "") if extended else values
        for asn in range(first, first + many):
            rows.add(str(asn), values, name, number, problems)
        count += many
    return count


def _asn_block(line: str) -> tuple[int, int, list[str]] | None:
    """An ``asn`` record's first AS number, how many it holds and its fields; None for any other line. Raises
    ``RowError`` for a record that cannot be used."""
    fields = record_fields(line)
    if fields is None or fields[2] != "asn":
        return None
    start, value = fields[3], fields[4]
    if not is_integer(start) or len(start.lstrip("0")) > _DIGITS or int(start) > MAX_ASN:
        raise RowError(f"start {start[:40]!r} of an asn record is not an AS number (at most {MAX_ASN})")
    if not is_integer(value) or len(value.lstrip("0")) > _DIGITS:
        raise RowError(f"count {value[:40]!r} of an asn record is not a number of AS numbers")
    first, many = int(start), int(value)
    if many == 0:
        raise RowError("count 0 of an asn record: it holds no AS numbers")
    if first + many - 1 > MAX_ASN:
        raise RowError(f"{many} AS numbers from {first} run past AS {MAX_ASN}")
    return first, many, fields
