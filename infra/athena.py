"""Athena over the datasets' tables: a workgroup whose queries write their results under the bucket's ``_athena/``
(expired by a lifecycle rule) and may scan at most a set number of bytes each, and its saved queries that enrich the
logs AWS documents Athena tables for with a dataset, live and as of each line's own time (``infra.athena_queries``).

The workgroup enforces its own configuration (a client cannot send results elsewhere or lift the limit) and
publishes its metrics; its results are encrypted as the bucket's objects are (SSE-S3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_athena as athena
from aws_cdk import aws_glue as glue
from aws_cdk import aws_s3 as s3
from constructs import Construct

from fencepost.tables.catalog import glue_name
from infra.athena_queries import saved_queries
from infra.context import ContextGetter, matching, whole

RESULTS_PREFIX: Final = "_athena/"  # under the bucket: "_" keeps it out of the dataset folders the loader reads
ENGINE: Final = "Athena engine version 3"
MB: Final = 1 << 20
# Athena's own floor for a workgroup's per-query data usage control: 10 MB.
SCAN_LIMIT_FLOOR_MB: Final = 10
GLUE_NAME: Final = r"[a-z0-9_]{1,255}"
COLUMNS: Final = r"[a-z_][a-z0-9_]{0,254}( *, *[a-z_][a-z0-9_]{0,254})*"  # as the tables declare them in Glue


@dataclass(frozen=True, slots=True)
class AthenaSettings:
    """``-c athenaScanLimitMb=...`` (bytes a query may scan, in MiB: 10 GiB by default, a table of every version of
    a large dataset is tens of MB and a day of a busy site's logs a few GB), ``-c athenaResultsDays=...`` (how long
    query results are kept), ``-c athenaDataset=...`` and ``-c athenaColumns=a,b`` (the dataset and columns the
    saved queries name: edit a saved query for another), ``-c athenaLogsDatabase=...`` (where the log tables are)."""

    scan_limit_mb: int = 10 * 1024
    results_days: int = 7
    dataset: str = "geo"
    columns: tuple[str, ...] = ("country",)
    logs_database: str = "default"

    @classmethod
    def from_context(cls, get: ContextGetter) -> AthenaSettings:
        defaults = cls()
        return cls(
            scan_limit_mb=whole(get, "athenaScanLimitMb", defaults.scan_limit_mb, low=SCAN_LIMIT_FLOOR_MB),
            results_days=whole(get, "athenaResultsDays", defaults.results_days, low=1, high=3650),
            dataset=matching(get, "athenaDataset", defaults.dataset, r"[a-z0-9][a-z0-9_-]{0,99}", "a dataset name"),
            columns=tuple(
                matching(get, "athenaColumns", ",".join(defaults.columns), COLUMNS, "column names, comma-separated")
                .replace(" ", "")
                .split(",")
            ),
            logs_database=matching(get, "athenaLogsDatabase", defaults.logs_database, GLUE_NAME, "a Glue database"),
        )


def results_rule(settings: AthenaSettings) -> s3.LifecycleRule:
    """The bucket's rule that expires query results (given to the bucket where it is made: ``infra.storage``)."""
    return s3.LifecycleRule(
        id="expire-athena-results", prefix=RESULTS_PREFIX, expiration=cdk.Duration.days(settings.results_days)
    )


class Athena(Construct):
    def __init__(
        self,
        scope: Construct,
        construct_id: str,
        *,
        bucket: s3.IBucket,
        database: glue.CfnDatabase,
        settings: AthenaSettings,
    ) -> None:
        super().__init__(scope, construct_id)
        stack = cdk.Stack.of(self)
        self.workgroup = athena.CfnWorkGroup(
            self,
            "WorkGroup",
            name=f"{stack.stack_name}-tables",
            description="Fencepost's datasets as tables: queries here scan a bounded number of bytes",
            recursive_delete_option=True,  # a deleted stack takes its saved queries and query history with it
            state="ENABLED",
            work_group_configuration=athena.CfnWorkGroup.WorkGroupConfigurationProperty(
                bytes_scanned_cutoff_per_query=settings.scan_limit_mb * MB,
                enforce_work_group_configuration=True,
                publish_cloud_watch_metrics_enabled=True,
                engine_version=athena.CfnWorkGroup.EngineVersionProperty(selected_engine_version=ENGINE),
                result_configuration=athena.CfnWorkGroup.ResultConfigurationProperty(
                    output_location=bucket.s3_url_for_object(RESULTS_PREFIX),
                    encryption_configuration=athena.CfnWorkGroup.EncryptionConfigurationProperty(
                        encryption_option="SSE_S3"
                    ),
                ),
            ),
        )
        name = glue_name(settings.dataset)
        assert isinstance(database.database_input, glue.CfnDatabase.DatabaseInputProperty)
        database_name = database.database_input.name
        assert database_name is not None
        self.queries = []
        for saved in saved_queries(
            database=database_name,
            logs_database=settings.logs_database,
            dataset=settings.dataset,
            table=name,
            columns=settings.columns,
        ):
            query = athena.CfnNamedQuery(
                self,
                saved.name,
                name=saved.name,
                description=saved.description,
                database=database_name,
                query_string=saved.sql,
                work_group=self.workgroup.ref,
            )
            query.add_dependency(self.workgroup)
            query.add_dependency(database)
            self.queries.append(query)
