"""The loader's limits (what one build may read, how many partitions a version may span) reach its function from
CDK context, with defaults that the function reads back unchanged."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.core.folders.limits import Limits
from fencepost.settings import CacheLimits, LoaderSettings
from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.support.synthesis import Synthesize
from tests.synth import Synth

CONTEXT = {
    "maxLineBytes": "65536",
    "maxObjectBytes": "1048576",
    "maxBuildBytes": "2097152",
    "maxBuildRows": "5000",
    "maxDirectoryPartitions": "300",
}
BASE = {"TABLE_NAME": "t", "BUCKET_NAME": "b", "CONTROL_QUEUE_URL": "c", "DATA_QUEUE_URL": "d", "TABLES_QUEUE_URL": "q"}


def _environment(synth: Synth) -> dict[str, Any]:
    variables: dict[str, Any] = synth.props("loader_function")["Environment"]["Variables"]
    return variables


def test_the_loader_limits_reach_the_function_with_their_defaults(synthesize: Synthesize) -> None:
    environment = _environment(synthesize())

    assert {name: environment[name] for name in Limits().environment()} == {
        "MAX_LINE_BYTES": "1048576",
        "MAX_OBJECT_BYTES": "536870912",
        "MAX_BUILD_BYTES": "536870912",
        "MAX_BUILD_ROWS": "10000000",
        "MAX_DIRECTORY_PARTITIONS": "50000",
        "MAX_COLUMNS": "1000",
        "MAX_DOCUMENT_BYTES": "67108864",
        "MAX_KEYED_ROWS": "300000",
    }
    # And the function reads them as its own defaults
    assert LoaderSettings.from_env({**environment, **BASE}).limits == Limits()


def test_context_sets_the_loader_limits(synthesize: Synthesize) -> None:
    environment = _environment(synthesize(**CONTEXT))

    assert environment["MAX_LINE_BYTES"] == "65536"
    assert environment["MAX_OBJECT_BYTES"] == "1048576"
    assert environment["MAX_BUILD_BYTES"] == "2097152"
    assert environment["MAX_BUILD_ROWS"] == "5000"
    assert environment["MAX_DIRECTORY_PARTITIONS"] == "300"
    limits = LoaderSettings.from_env({**environment, **BASE}).limits
    assert (limits.max_build_rows, limits.max_directory_partitions) == (5000, 300)


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"maxLineBytes": "10"}, "maxLineBytes must be between 1024 and"),
        ({"maxBuildRows": "0"}, "maxBuildRows must be between 1 and"),
        ({"maxDirectoryPartitions": "many"}, "maxDirectoryPartitions must be a whole number"),
        ({"maxObjectBytes": str(1 << 40)}, "maxObjectBytes must be between"),
    ],
)
def test_bad_limits_are_refused_at_synth(context: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        DeploySettings.from_context(context.get)


def test_the_keyed_cache_of_lookups_reaches_the_enrichment_jobs_too(synthesize: Synthesize) -> None:
    """A keyed table larger than KEYED_CACHE_BYTES is not joined: a job joins exactly what lookups join."""
    synth = synthesize(keyedCacheBytes=str(200 << 20))
    lookup = synth.props("lookup_function")["Environment"]["Variables"]
    environment = _environment(synth)

    assert environment["KEYED_CACHE_BYTES"] == lookup["KEYED_CACHE_BYTES"] == str(200 << 20)
    assert LoaderSettings.from_env({**environment, **BASE}).caches.keyed_bytes == 200 << 20
    assert LoaderSettings.from_env(BASE).caches == CacheLimits()
