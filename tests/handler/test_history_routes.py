"""Lookups in the past and the versions listing through the lookup handler (``fencepost.reading.past``,
``fencepost.http.version_routes``): ``geo`` version 3 went live at 2026-11-21T00:02:00Z (``tests.support.publish``)."""

from __future__ import annotations

from fencepost.bootstrap.lookup_wiring import LookupFunction
from tests.support.handlers import call


def test_a_lookup_as_of_an_instant_answers_from_the_version_live_then(lookup_handler: LookupFunction) -> None:
    status, headers, body = call(lookup_handler, "lookup-get-as-of")
    assert status == 200
    assert (body["version"], body["as_of"], body["data"]) == (3, "2026-11-22T00:00:00Z", {"country": "CN"})
    assert list(body)[-1] == "as_of"
    assert "etag" in headers
    _, _, refused = call(lookup_handler, "lookup-get-no-version-at")
    assert "its first went live at 2026-11-21T00:02:00Z" in refused["error"]["message"]


def test_the_versions_of_a_dataset_are_listed_with_when_each_was_live(lookup_handler: LookupFunction) -> None:
    status, _, body = call(lookup_handler, "dataset-versions-get")
    assert status == 200
    assert (body["dataset"], body["live"], body["retain_days"], body["next"]) == ("geo", 3, 0, None)
    (version,) = body["versions"]
    assert version["version"] == 3
    assert version["live"] == [{"from": "2026-11-21T00:02:00Z", "until": None}]
    assert (version["ranges"], version["kept_until"]) == (4, None)


def test_a_diff_between_two_instants_resolves_each_to_its_version(lookup_handler: LookupFunction) -> None:
    # from the instant version 3 went live to the live version: the same version, so nothing differs
    status, _, body = call(lookup_handler, "dataset-diff-between-get")
    assert status == 200
    assert body == {"dataset": "geo", "from": 3, "version": 3, "changes": [], "next": None}
    # to without from, and a version that was never live, are refused plainly
    status, _, body = call(lookup_handler, "dataset-diff-between-get", queryStringParameters={"to": "3"})
    assert (status, body["error"]["code"]) == (400, "INVALID_REQUEST")
    status, _, body = call(lookup_handler, "dataset-diff-between-get", queryStringParameters={"from": "1"})
    assert (status, body["error"]["code"]) == (404, "NO_VERSION_AT")
