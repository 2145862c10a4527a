"""Which values of which value index a ``GET /ranges?where=<column>:<value>`` page reads.

An indexed column: the value, in that column's index. A column a keyed join adds to the answers
(``core.keyed.join_spec``, such as ``as_name`` of a join to ``as-names`` with prefix ``as_``): the keyed version live
at the request (or at ``as_of``; a cursor's pinned one on later pages) gives the keys whose column holds the value
(``KeyedTable.keys_where``), and the index of the join's ``on`` column gives their pieces: every value of that index
which is one of the keys in the table's key form (``13335`` and ``AS13335`` alike for AS numbers). The values are
read in the index's (value) order, each value's pieces in address order: exactly the pieces whose lookups answer the
joined value from that keyed version.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.keyed.keyed_table import KeyedTable, normalize
from fencepost.core.versions.value_index import Directory, ValueStats
from fencepost.core.versions.where_clause import Where
from fencepost.errors import InvalidRequest, NotIndexed
from fencepost.model import VersionInfo
from fencepost.reading.caches import LruCache
from fencepost.reading.indexes import ValueIndexes
from fencepost.reading.joining import Joins
from fencepost.reading.past import History, Past

# The indexes whose values are kept by key: a few, within KEYS_BYTES (measured with tracemalloc: about 200 bytes a
# value, 7 MB for the 35,973 AS numbers of the shared IPv6 file's index)
KEYS_KEPT: Final = 4
KEYS_BYTES: Final = 16_000_000
VALUE_BYTES: Final = 200
# The values one page reads from (one ranged GET each): a name held by thousands of keys pages on, some pages
# possibly empty, rather than one request reading them all
MAX_VALUES_READ: Final = 32


@dataclass(frozen=True, slots=True)
class Selection:
    """The index a page reads (``column``'s, through ``directory``), the values it lists, in index order, and, for a
    joined column, the keyed version they came from (what its cursor pins besides the range version)."""

    column: str
    directory: Directory
    values: list[ValueStats]
    pins: tuple[int, ...] = ()
    head: dict[str, object] = field(default_factory=dict)


def joined_by(info: VersionInfo, column: str) -> tuple[KeyedJoin, str] | None:
    """The join of ``info`` that adds ``column`` to its answers, and the keyed table's column it is; None: no join
    adds it."""
    for join in info.keyed_joins:
        if column in join.names:
            return join, join.columns[join.names.index(column)]
    return None


class Selections:
    """Selects a page's values: through ``indexes`` for an indexed column, and through ``joins`` (the lookup's keyed
    tables) and ``history`` for a joined one."""

    def __init__(self, history: History, indexes: ValueIndexes, joins: Joins) -> None:
        self.history, self.indexes, self.joins = history, indexes, joins
        # The directory's values by key, for the few indexes last searched by a joined column
        self._keys: LruCache[tuple[str, int, str, str], dict[str, list[int]]] = LruCache(KEYS_KEPT, KEYS_BYTES)

    def select(self, info: VersionInfo, where: Where, pins: tuple[int, ...] | None, past: Past | None) -> Selection:
        """``pins``: the keyed version a cursor pinned (none for an indexed column); None: a first page."""
        joined = None if where.column in info.indexed else joined_by(info, where.column)
        if joined is None:
            if pins:
                raise _cursor_refused()
            directory = self.indexes.directory(info, where.column)  # NotIndexed, naming the indexed columns
            stats = directory.find(where.value)
            return Selection(where.column, directory, [] if stats is None else [stats])
        join, keyed_column = joined
        if join.on not in info.indexed:
            raise NotIndexed(
                f"column {where.column[:80]!r} of dataset {info.dataset!r} (version {info.version}) is joined from "
                f"{join.dataset!r} on {join.on!r}, which is not indexed: a joined column is searched through its "
                f'key\'s index (a folder names it in _settings.json: "index": ["{join.on}"])'
            )
        version, table = self._keyed(join.dataset, pins, past)
        directory = self.indexes.directory(info, join.on)
        cached = (info.dataset, info.version, join.on, table.form)
        by_key = self._keys.get(cached)
        if by_key is None:
            by_key = keys_of(directory, table.form)
            self._keys.put(cached, by_key, VALUE_BYTES * len(directory.values))  # (one larger: made each time)
        values = matching(by_key, directory, table, keyed_column, where.value)
        head = {"dataset": join.dataset, "version": version, "on": join.on}
        return Selection(join.on, directory, values, (version,), head)

    def _keyed(self, dataset: str, pins: tuple[int, ...] | None, past: Past | None) -> tuple[int, KeyedTable]:
        """The keyed version a page reads and its table: the pinned one while it is kept (``CursorExpired`` after),
        else, on a first page, the one live (at ``as_of``), as lookups join it; its error when it cannot be read. A
        cursor that pins no keyed version (or several) is refused: its pages would not all read one."""
        if pins is not None and len(pins) != 1:
            raise _cursor_refused()
        if pins:
            info = self.history.listed(dataset, pins[0])
            return info.version, self.joins.table(info)
        read = self.joins.read(dataset, None if past is None else past.instant)
        if read.error is not None:
            raise read.error
        assert read.pointer is not None
        assert read.table is not None
        return read.pointer.version, read.table


def matching(
    by_key: Mapping[str, list[int]], directory: Directory, table: KeyedTable, column: str, value: str
) -> list[ValueStats]:
    """The values of ``directory`` that are keys (in ``table``'s form) of rows whose ``column`` is ``value``, in
    directory order; none when the table has no such column (lookups join it as null). ``by_key``: the positions
    of the directory's values by key (``keys_of``)."""
    if column not in table.columns:
        return []
    found = sorted(at for key in table.keys_where(column, value) for at in by_key.get(key, ()))
    return [directory.values[at] for at in found]


def keys_of(directory: Directory, form: str) -> dict[str, list[int]]:
    """The positions of the directory's values by the key each is in ``form`` (values that are no key left out)."""
    positions: dict[str, list[int]] = {}
    for at, stats in enumerate(directory.values):
        key = normalize(form, stats.value)
        if key is not None:
            positions.setdefault(key, []).append(at)
    return positions


def _cursor_refused() -> InvalidRequest:
    return InvalidRequest("invalid cursor: pass the 'next' of the previous page unchanged, with the same query")
