"""What a reverse lookup costs, counted: one S3 GET a page (the value index read from the member where the page
starts), the column's directory read once per container, and no Query beyond the lookups' cached pointer and
version."""

from __future__ import annotations

import json
from typing import Any

from bench.reverse import CountingBucket
from bench.several import _NoListings
from fencepost.core.space.addresses import FAMILIES
from fencepost.core.storage.objects import index_key, values_key
from fencepost.core.versions.value_index import build_index, directory_bytes
from fencepost.http.app import create_app
from fencepost.observability import Observability
from fencepost.reading.lookup import Lookup
from fencepost.settings import LookupSettings, TableSettings
from tests.fakes.ranges import MemoryStore
from tests.support import V4_FILE, LambdaContext, event, family_ranges, read_tsv


def test_every_page_of_every_value_is_one_get_and_the_directory_is_read_once() -> None:
    rows = read_tsv(V4_FILE, 5_000)
    families = family_ranges(rows)
    pieces = {family: families[family].pieces() for family in FAMILIES}
    members, directory = build_index(families, pieces, ("country",), "country")
    bucket = CountingBucket(
        {index_key("geo", 1, 0): b"".join(members), values_key("geo", 1, 0): directory_bytes(directory)}
    )
    store = MemoryStore()
    store.publish("geo", 1, family_ranges(rows), ["country"], indexed=("country",))
    settings = LookupSettings(table=TableSettings("t"))
    obs = Observability(service="fencepost-lookup", tracing=False)
    api = create_app(settings, Lookup(store, 3600.0), _NoListings(), obs, files=lambda: bucket)

    def get(path: str, **query: str) -> dict[str, Any]:
        request = event("lookup-get", queryStringParameters=query)
        request["rawPath"] = request["requestContext"]["http"]["path"] = path
        response = api.handle(request, LambdaContext())
        assert response["statusCode"] == 200, response["body"]
        body: dict[str, Any] = json.loads(response["body"])
        return body

    values = get("/datasets/geo/values/country", limit="1000")["values"]
    queries, pages, listed = store.queries, 0, 0
    gets = bucket.gets
    for stats in values:
        cursor: str | None = None
        while True:
            query = {"dataset": "geo", "where": f"country:{stats['value']}", "limit": "40"}
            page = get("/ranges", **query, **({"cursor": cursor} if cursor else {}))
            pages, listed = pages + 1, listed + len(page["ranges"])
            cursor = page["next"]
            if cursor is None:
                break
    assert listed == sum(stats["pieces"] for stats in values) == directory.lines
    assert pages > len(values)  # values of more than one page were paged
    assert bucket.gets - gets == pages  # one GET a page, the directory not read again
    assert gets == 1  # the listing above read the directory once
    assert store.queries == queries == 0  # no Query: the pointer and version come from the lookups' caches
