"""The data layer: everything that talks to DynamoDB, one module per concern, all on one table.

- ``client``: the client, its error mapping (``StoreUnavailable``) and paging;
- ``codec``: records to items and back, derived from the dataclasses in ``fencepost.model``;
- ``datasets``: dataset records through a load's life, each rule beside its condition;
- ``serving``: what is served: the live pointers lookups read, and going live, rollback and retirement, each
  one transaction (``transactions``) of the record and the pointer;
- ``builds``: build records (chunks counted once); ``versions``: headers and directories; ``history``: which
  version was served when; ``source_states``: what each source's last check found;
- ``probe``: the lookup's one Query; ``pieces``: range listing's reads; ``writer``: bulk writes, paced (not
  imported here: the lookup function never loads it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from fencepost.aws.dynamo.builds import BuildTable
from fencepost.aws.dynamo.client import Table, control_client, make_client
from fencepost.aws.dynamo.datasets import DatasetTable
from fencepost.aws.dynamo.lookup_query import RangeTable
from fencepost.aws.dynamo.pieces import read_pieces
from fencepost.aws.dynamo.source_states import SourceStateTable
from fencepost.aws.dynamo.versions import VersionTable
from fencepost.core.folders.backfill import Dated
from fencepost.core.sources.schedule import SourceState
from fencepost.core.storage.items import Hit, Slice
from fencepost.core.storage.keys import Probe
from fencepost.core.versions.history import Timeline
from fencepost.model import BuildRecord, DatasetRecord, LivePointer, VersionInfo

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

__all__ = ["Tables", "control_client", "make_client"]


@dataclass
class Tables:
    """Every adapter of the data layer, on one table and one client (plain attributes: tests may patch them)."""

    table: Table
    datasets: DatasetTable
    builds: BuildTable
    versions: VersionTable
    ranges: RangeTable
    sources: SourceStateTable

    @classmethod
    def connect(cls, client: DynamoDBClient, name: str) -> Tables:
        table = Table(client, name)
        return cls(
            table,
            DatasetTable(table),
            BuildTable(table),
            VersionTable(table),
            RangeTable(table),
            SourceStateTable(table),
        )

    # What the lookup reads (``fencepost.reading.lookup.LookupStore``):

    def find(self, dataset: str, version: int, probe: Probe) -> Hit | None:
        return self.ranges.find(dataset, version, probe)

    def list_pieces(
        self, dataset: str, version: int, family: int, partition: int, *, bounds: tuple[int, int], limit: int
    ) -> Slice:
        """Range listing's read: pieces of one partition between two sort keys (``fencepost.aws.dynamo.pieces``)."""
        return read_pieces(self.table, dataset, version, family, partition, bounds=bounds, limit=limit)

    def get_dataset(self, name: str, *, consistent: bool = False) -> DatasetRecord | None:
        return self.datasets.get(name, consistent=consistent)

    def get_live(self, name: str) -> LivePointer | None:
        """The live version of a dataset, as lookups read it (its small live pointer; the record, on a table
        written before pointers existed); None when nothing is served."""
        return self.datasets.get_live(name)

    def get_version(self, dataset: str, version: int) -> VersionInfo | None:
        return self.versions.get(dataset, version)

    def list_datasets(self) -> list[DatasetRecord]:
        return self.datasets.all()

    def list_source_states(self) -> dict[str, SourceState]:
        return self.sources.source_states()

    def get_timeline(self, dataset: str) -> Timeline:
        return self.datasets.timeline(dataset)

    def list_builds(self, dataset: str) -> list[BuildRecord]:
        return self.builds.all(dataset)

    def list_dated(self, dataset: str) -> list[Dated]:
        """What became of each of the dataset's dated folders, by date (``fencepost.core.folders.backfill``)."""
        return [state for _, state in sorted(self.datasets.history.dated(dataset).items())]
