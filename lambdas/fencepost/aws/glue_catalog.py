"""The Glue Data Catalog: the database the datasets' tables are registered in (``tables.catalog`` makes them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.errors import DependencyUnavailable

if TYPE_CHECKING:
    from mypy_boto3_glue import GlueClient


class CatalogUnavailable(DependencyUnavailable):
    """Glue refused or did not answer."""


def make_glue_client() -> GlueClient:
    config = Config(
        connect_timeout=2, read_timeout=20, retries={"max_attempts": 6, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("glue", config=config)


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


class GlueCatalog:
    """One database's tables: read one's parameters, create or replace one, drop one (``get_table``,
    ``create_table``, ``update_table``, ``delete_table``)."""

    def __init__(self, client: GlueClient, database: str) -> None:
        self.client, self.database = client, database

    def parameters(self, name: str) -> dict[str, str] | None:
        try:
            table = self.client.get_table(DatabaseName=self.database, Name=name)["Table"]
        except ClientError as error:
            if _code(error) == "EntityNotFoundException":
                return None
            raise CatalogUnavailable(f"Glue could not read table {self.database}.{name}: {error}") from error
        except BotoCoreError as error:
            raise CatalogUnavailable(f"Glue did not answer for table {self.database}.{name}: {error}") from error
        return dict(table.get("Parameters", {}))

    def put(self, table: dict[str, Any]) -> None:
        name = table["Name"]
        try:
            try:
                self.client.update_table(DatabaseName=self.database, TableInput=table)  # type: ignore[arg-type]
            except ClientError as error:
                if _code(error) != "EntityNotFoundException":
                    raise
                try:
                    self.client.create_table(DatabaseName=self.database, TableInput=table)  # type: ignore[arg-type]
                except ClientError as created:
                    if _code(created) != "AlreadyExistsException":
                        raise
                    self.client.update_table(DatabaseName=self.database, TableInput=table)  # type: ignore[arg-type]
        except (ClientError, BotoCoreError) as error:
            raise CatalogUnavailable(f"Glue refused table {self.database}.{name}: {error}") from error

    def delete(self, name: str) -> None:
        try:
            self.client.delete_table(DatabaseName=self.database, Name=name)
        except ClientError as error:
            if _code(error) != "EntityNotFoundException":
                raise CatalogUnavailable(f"Glue could not drop table {self.database}.{name}: {error}") from error
        except BotoCoreError as error:
            raise CatalogUnavailable(f"Glue did not answer for table {self.database}.{name}: {error}") from error
