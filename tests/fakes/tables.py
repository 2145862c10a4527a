"""Build records, versions and range items on one in-memory item store, as ``fencepost.aws.dynamo.builds``,
``versions`` and ``writer`` keep them in the one table (so items can be counted per version, whoever wrote them)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from fencepost.aws.dynamo.versions import DIRECTORY_PAGE_CHARS
from fencepost.core.keyed.join_spec import keyed_joins
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.space.aliases import parse_alias
from fencepost.core.storage.chunks import WriteOutcome
from fencepost.core.storage.items import Hit, Item, read_hit
from fencepost.core.storage.keys import VERSION_HEADER_SK, Directory, builds_pk, range_pk, version_pk
from fencepost.core.storage.piece_files import stored_lines
from fencepost.core.versions.mmdb_profiles import loaded_map
from fencepost.model import BuildRecord, BuildState, VersionHeader, VersionInfo
from tests.fakes.kernel import Clock, Faults, Store, detached, port

QUERY_PAGE = 100  # items per page of a query (DynamoDB pages by size; any page size will do)


@dataclass(frozen=True, slots=True)
class DirectoryPage:
    family: int
    page: str


class FakeBuilds:
    """The ``#b#<dataset>`` partition: one ``BuildRecord`` per build."""

    def __init__(self, store: Store, faults: Faults) -> None:
        self.store, self.faults = store, faults

    def _read(self, dataset: str, build: int) -> BuildRecord | None:
        record = self.store.get(builds_pk(dataset), build)
        return detached(record) if record is not None else None

    def _write(self, record: BuildRecord) -> BuildRecord:
        self.store.put(builds_pk(record.dataset), record.build, detached(record))
        return record

    @port
    def put(self, build: BuildRecord) -> None:
        self._write(build)

    @port
    def get(self, dataset: str, build: int) -> BuildRecord | None:
        return self._read(dataset, build)

    @port
    def all(self, dataset: str) -> list[BuildRecord]:
        pk = builds_pk(dataset)
        return [detached(self.store.get(pk, build)) for build in self.store.sort_keys(pk)]

    @port
    def delete(self, dataset: str, build: int) -> None:
        self.store.delete(builds_pk(dataset), build)

    @port
    def count_chunk(self, dataset: str, build: int, chunk: int, items: int) -> BuildRecord | None:
        record = self._read(dataset, build)
        # COUNT_ONCE: attribute_exists(PK) AND NOT contains(#done, :number)
        if record is None or chunk in record.done:
            return None
        record.done.add(chunk)
        record.written += items
        return self._write(record)

    @port
    def start_writing(self, dataset: str, build: int, chunks: int) -> BuildRecord | None:
        record = self._read(dataset, build)
        # ALL_CHUNKS_SENT: #state = :planning (a missing item has no state)
        if record is None or record.state != BuildState.PLANNING:
            return None
        record.state, record.chunks = BuildState.WRITING, chunks
        return self._write(record)

    @port
    def set_state(self, dataset: str, build: int, state: BuildState, *, expect: Sequence[BuildState] = ()) -> bool:
        record = self._read(dataset, build)
        # EXISTS: attribute_exists(PK); with ``expect``: #state IN (:expect0, ...)
        if record is None or (expect and record.state not in expect):
            return False
        # NEVER_ABANDON_SWITCHED: attribute_not_exists(#switched)
        if state == BuildState.ABANDONED and record.switched is not None:
            return False
        record.state = state
        self._write(record)
        return True

    @port
    def mark_deleting(self, dataset: str, build: int, not_before: float) -> bool:
        record = self._read(dataset, build)
        # DELETABLE: #state IN (:live, :abandoned, :deleting) OR attribute_exists(#switched)
        deletable = (BuildState.LIVE, BuildState.ABANDONED, BuildState.DELETING)
        if record is None or not (record.state in deletable or record.switched is not None):
            return False
        record.state, record.delete_after = BuildState.DELETING, not_before
        self._write(record)
        return True


class FakeVersions:
    """The ``#v#<dataset>#<version>`` partitions (header and directory pages), and the keys of range partitions."""

    def __init__(self, store: Store, faults: Faults) -> None:
        self.store, self.faults = store, faults

    @port
    def get(self, dataset: str, version: int) -> VersionInfo | None:
        pk = version_pk(dataset, version)
        header = self.store.get(pk, VERSION_HEADER_SK)
        if not isinstance(header, VersionHeader):
            return None
        pages: dict[int, list[str]] = {family: [] for family in FAMILIES}
        for sk in self.store.sort_keys(pk):
            value = self.store.get(pk, sk)
            if isinstance(value, DirectoryPage):
                pages[value.family].append(value.page)
        directories = {family: Directory.from_pages(family, pages[family]) for family in FAMILIES}
        aliases = tuple(parse_alias(text) for text in header.aliases or ())
        indexed = header.indexed or ()
        gaps = bool(header.gaps)
        numeric = header.numeric or ()
        return VersionInfo(
            dataset,
            version,
            header.columns,
            directories,
            gaps,
            aliases,
            indexed,
            header.created_at,
            numeric,
            header.data_date,
            header.keyed,
            keyed_joins(header.keyed_joins),
            loaded_map(header.profile_columns),
        )

    def _hits(self, info: VersionInfo) -> Iterator[tuple[int, Hit]]:
        for family in sorted(info.directories):
            for partition in info.directories[family].partitions:
                pk = range_pk(info.dataset, info.version, family, partition)
                for sk in self.store.sort_keys(pk):
                    yield family, read_hit(family, partition, self.store.get(pk, sk))

    @port
    def pieces(self, info: VersionInfo) -> Iterator[tuple[int, int, int, list[str]]]:
        for family, hit in self._hits(info):
            yield family, hit.start, hit.end, hit.values

    @port
    def piece_lines(self, info: VersionInfo) -> Iterator[str]:
        return stored_lines(self._hits(info))

    @port
    def put(self, info: VersionInfo, header: VersionHeader) -> None:
        pk = version_pk(info.dataset, info.version)
        self.store.put(pk, VERSION_HEADER_SK, header)
        sk = VERSION_HEADER_SK
        for family in FAMILIES:
            for page in info.directories[family].pages(DIRECTORY_PAGE_CHARS):
                sk += 1
                self.store.put(pk, sk, DirectoryPage(family, page))

    @port
    def keys(self, dataset: str, version: int) -> list[Item]:
        pk = version_pk(dataset, version)
        return [{"PK": {"S": pk}, "SK": {"N": str(sk)}} for sk in self.store.sort_keys(pk)]

    @port
    def partition_keys(self, pk: str) -> Iterator[list[Item]]:
        keys = [{"PK": {"S": pk}, "SK": {"N": str(sk)}} for sk in self.store.sort_keys(pk)]  # read as it is now
        for offset in range(0, len(keys), QUERY_PAGE):
            yield keys[offset : offset + QUERY_PAGE]


class FakeWriter:
    """Bulk puts and deletes of range items (and version keys); told to, it leaves part of each put unfinished."""

    def __init__(self, store: Store, faults: Faults, clock: Clock) -> None:
        self.store, self.faults, self.clock = store, faults, clock
        self.unfinished_share = 0.0  # of each put, left unfinished (as a throttled call or a passed deadline would)
        self.unfinished_puts: int | None = None  # how many puts leave items unfinished (None: every one)
        self.puts = 0

    def leave_unfinished(self, share: float = 0.5, *, puts: int | None = None) -> None:
        self.unfinished_share, self.unfinished_puts = share, puts

    @port
    def put(self, items: Sequence[Item], *, deadline: float) -> WriteOutcome:
        self.puts += 1
        failing = self.unfinished_share > 0 and (self.unfinished_puts is None or self.unfinished_puts > 0)
        if self.clock.monotonic() >= deadline:
            written = 0
        elif failing:
            written = len(items) - max(1, round(len(items) * self.unfinished_share))
            if self.unfinished_puts is not None:
                self.unfinished_puts -= 1
        else:
            written = len(items)
        for item in items[:written]:
            self.store.put(item["PK"]["S"], int(item["SK"]["N"]), dict(item))
        unfinished = [{"PutRequest": {"Item": item}} for item in items[written:]]
        return WriteOutcome(written=written, calls=1, throttled=1 if unfinished else 0, unfinished=unfinished)

    @port
    def delete(self, keys: Sequence[Item], *, deadline: float) -> WriteOutcome:
        if self.clock.monotonic() >= deadline:
            return WriteOutcome(unfinished=[{"DeleteRequest": {"Key": key}} for key in keys])
        for key in keys:
            self.store.delete(key["PK"]["S"], int(key["SK"]["N"]))
        return WriteOutcome(written=len(keys))
