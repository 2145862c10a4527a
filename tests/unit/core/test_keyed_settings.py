"""A folder's keyed settings (``core.folders.keyed_settings``): ``key`` and ``key_form`` make a keyed folder,
settings of ranges are refused on it, ``keyed_joins`` is checked, and none of them moves the digest of a folder that
does not use them."""

from __future__ import annotations

import json

import pytest

from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.storage.objects import FolderError

WHERE = "as-names/_settings.json"
JOIN = {"dataset": "as-names", "on": "asn", "columns": ["name"], "prefix": "as_"}


def parse(document: object) -> FolderSettings:
    return FolderSettings.parse(json.dumps(document).encode(), WHERE)


def test_key_and_key_form_make_a_keyed_folder() -> None:
    settings = parse({"key": " asn ", "key_form": "asn", "max_invalid_rows": 3})
    assert (settings.key, settings.key_form, settings.max_invalid_rows) == ("asn", "asn", 3)
    assert (parse({"key": "id"}).key, parse({"key": "id"}).key_form) == ("id", None)


def test_unset_keyed_settings_keep_the_digest_and_set_ones_change_it() -> None:
    plain = settings_digest(FolderSettings())
    assert settings_digest(parse({})) == plain
    digests = {settings_digest(parse(d)) for d in ({"key": "asn"}, {"key": "asn", "key_form": "asn"})}
    digests.add(settings_digest(parse({"keyed_joins": [JOIN]})))
    assert len(digests) == 3
    assert plain not in digests


@pytest.mark.parametrize(
    "setting",
    [
        {"index": ["name"]},
        {"exports": ["csv"]},
        {"join": {"object": "t.csv", "on": "id"}},
        {"gap_when": {"name": "-"}},
        {"merge_neighbours": True},
        {"keyed_joins": [JOIN]},
        {"numeric": ["asn"]},
        {"sinks": {"waf": {"scope": "REGIONAL"}}},
        # How range files are read: a keyed table is read by its header, and keeps its columns as they are
        {"constants": {"source": "cidr-report"}},
        {"columns": ["asn", "name"]},
        {"header": False},
    ],
)
def test_settings_of_ranges_are_refused_on_a_keyed_folder_naming_them(setting: dict[str, object]) -> None:
    with pytest.raises(FolderError) as raised:
        parse({"key": "asn", **setting})
    message = str(raised.value)
    assert message.startswith(f"{WHERE}: a keyed folder (key 'asn') holds a table of keys, not ranges")
    assert f"[{next(iter(setting))!r}]" in message


@pytest.mark.parametrize(
    ("document", "says"),
    [
        ({"key": ""}, 'key must name the key column, e.g. "asn"'),
        ({"key": 13335}, 'key must name the key column, e.g. "asn"'),
        ({"key_form": "asn"}, "key_form applies to a keyed folder only"),
        ({"key": "asn", "key_form": "number"}, "key_form must be one of text, asn, not 'number'"),
        ({"keyed_joins": {"dataset": "as-names"}}, "keyed_joins must be a list of at most 4 joins"),
        ({"keyed_joins": [{"dataset": "as-names", "on": "asn"}]}, "each keyed_joins element is"),
        ({"keyed_joins": [JOIN, JOIN]}, "keyed_joins add ['as_name'] more than once"),
        ({"keyed_joins": [{**JOIN, "dataset": "Bad Name"}]}, "keyed_joins.dataset 'Bad Name' is no dataset name"),
        # Recorded with each version, in its header item: 16 long names in each of 4 joins would overflow it
        ({"keyed_joins": [{**JOIN, "columns": ["n" * 129]}]}, "of at most 128 characters"),
        ({"keyed_joins": [{**JOIN, "on": "a" * 129}]}, "on must name a column of this dataset (at most 128"),
    ],
)
def test_bad_keyed_settings_fail_with_one_line_naming_the_settings_object(document: object, says: str) -> None:
    with pytest.raises(FolderError) as raised:
        parse(document)
    assert str(raised.value).startswith(f"{WHERE}: ")
    assert says in str(raised.value)
    assert "\n" not in str(raised.value)


def test_keyed_joins_are_parsed_into_joins() -> None:
    assert parse({"keyed_joins": [JOIN]}).keyed_joins == (KeyedJoin("as-names", "asn", ("name",), "as_"),)
