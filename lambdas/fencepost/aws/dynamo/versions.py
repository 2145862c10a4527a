"""Versions: a header (columns, counts, the objects it was built from) and the directory of its partitions."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

from fencepost.aws.dynamo.client import Table
from fencepost.aws.dynamo.codec import Item, decode, encode
from fencepost.aws.dynamo.pieces import version_hits, version_pieces
from fencepost.core.keyed.join_spec import KeyedJoin, keyed_joins
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.space.aliases import parse_alias
from fencepost.core.storage.keys import VERSION_HEADER_SK, Directory, version_pk
from fencepost.core.storage.piece_files import stored_lines
from fencepost.core.versions.data_dates import DataDate
from fencepost.core.versions.mmdb_profiles import ColumnMap, loaded_map
from fencepost.model import VersionHeader, VersionInfo

# Directory pages are items; 300,000 characters keeps one far below the 400 KB item limit.
DIRECTORY_PAGE_CHARS = 300_000


class VersionTable:
    """The ``<dataset>#<version>#v`` partition of each version, and the keys of its range partitions."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def get(self, dataset: str, version: int) -> VersionInfo | None:
        columns: tuple[str, ...] | None = None
        gaps = False
        aliases: tuple[tuple[int, int], ...] = ()
        indexed: tuple[str, ...] = ()
        created, numeric = "", ()
        data_date: DataDate | None = None
        keyed: str | None = None
        joins: tuple[KeyedJoin, ...] = ()
        mapped: ColumnMap = ()
        pages: dict[int, list[str]] = {family: [] for family in FAMILIES}
        for item in self.table.query_all(version_pk(dataset, version)):
            if int(item["SK"]["N"]) == VERSION_HEADER_SK:
                columns = tuple(value["S"] for value in item["columns"]["L"])
                gaps = item.get("gaps", {}).get("BOOL", False)
                aliases = tuple(parse_alias(value["S"]) for value in item.get("aliases", {}).get("L", []))
                indexed = tuple(value["S"] for value in item.get("indexed", {}).get("L", []))
                created = item.get("created_at", {}).get("S", "")
                numeric = tuple(value["S"] for value in item.get("numeric", {}).get("L", []))
                if "M" in item.get("data_date", {}):
                    data_date = decode(DataDate, item["data_date"]["M"])
                keyed = item.get("keyed", {}).get("S")
                joins = keyed_joins(item.get("keyed_joins", {}).get("S"))
                mapped = loaded_map(item.get("profile_columns", {}).get("S"))
            else:
                pages[int(item["f"]["N"])].append(item["p"]["S"])
        if columns is None:
            return None
        directories = {family: Directory.from_pages(family, pages[family]) for family in FAMILIES}
        info = VersionInfo(
            dataset, version, columns, directories, gaps, aliases, indexed, created, numeric, data_date, keyed, joins
        )
        return replace(info, profile_columns=mapped) if mapped else info

    def put(self, info: VersionInfo, header: VersionHeader) -> None:
        """Write the version's header and directory pages (its range items are written separately)."""
        pk = version_pk(info.dataset, info.version)
        items = [encode(header, PK=pk, SK=VERSION_HEADER_SK)]
        for family in FAMILIES:
            for page in info.directories[family].pages(DIRECTORY_PAGE_CHARS):
                items.append({"PK": {"S": pk}, "SK": {"N": str(len(items))}, "f": {"N": str(family)}, "p": {"S": page}})
        for item in items:
            self.table.put(item)

    def pieces(self, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]:
        """Every stored piece of the version, in address order (``pieces.version_pieces``)."""
        return version_pieces(self.table, info)

    def piece_lines(self, info: VersionInfo) -> Iterator[str]:
        """The version's pieces file made again from its items (``core.storage.piece_files.stored_lines``)."""
        return stored_lines(version_hits(self.table, info))

    def keys(self, dataset: str, version: int) -> list[Item]:
        """The keys of the version's own items (header and directory pages)."""
        return [{"PK": item["PK"], "SK": item["SK"]} for item in self.table.query_all(version_pk(dataset, version))]

    def partition_keys(self, pk: str) -> Iterator[list[Item]]:
        """The keys of a range partition, page by page (for deleting a version)."""
        for page in self.table.query_pages(pk, projection="PK, SK"):
            yield [{"PK": item["PK"], "SK": item["SK"]} for item in page]
