"""The bucket's key layout: which keys are data, of which dataset, and which dated folder."""

from __future__ import annotations

import pytest

from fencepost.core.storage.objects import FolderError, dataset_of, dated_of, fetched_prefix, is_data_key, source_keys


@pytest.mark.parametrize(
    ("key", "data"),
    [
        ("geo/v4.csv", True),
        ("v4.csv", True),
        ("geo/sub/v4.csv", True),
        ("geo/_fetched/drop.txt", True),  # what a folder's source fetched
        ("default/_fetched/drop.txt", True),
        ("geo/_settings.json", False),
        ("geo/_source.json", False),
        ("geo/_reports/3.json", False),
        ("geo/_fetched/_partial", False),
        ("geo/_fetched/sub/drop.txt", False),  # fetched objects are named by the source: never nested
        ("geo/_fetched/", False),
        ("_fetched/drop.txt", False),
        ("geo/.hidden.csv", False),
        ("geo//v4.csv", False),
        ("geo/", False),
        ("", False),
    ],
)
def test_which_keys_are_data(key: str, data: bool) -> None:
    assert is_data_key(key) is data


def test_fetched_objects_feed_their_folder() -> None:
    assert dataset_of("geo/_fetched/GeoLite2-City-Blocks-IPv4.csv") == "geo"
    assert fetched_prefix("geo") == "geo/_fetched/"
    assert fetched_prefix("default") == "default/_fetched/"
    assert dataset_of(fetched_prefix("default") + "drop.txt") == "default"
    assert source_keys("geo") == ["geo/_source.json"]
    assert source_keys("default") == ["_source.json", "default/_source.json"]


@pytest.mark.parametrize(
    ("key", "found"),
    [
        ("geo/_history/2025-03-01/v4.csv", ("geo", "2025-03-01")),
        ("geo/_history/2025-03-01/sub/v4.csv", ("geo", "2025-03-01")),
        ("_history/2025-03-01/v4.csv", ("default", "2025-03-01")),
        ("geo/_history/2025-03-01/_settings.json", None),
        ("geo/v4.csv", None),
        ("geo/_history/2025-03-01/", None),
    ],
)
def test_dated_folders(key: str, found: tuple[str, str] | None) -> None:
    assert dated_of(key) == found


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("geo/_history/2025-13-01/v4.csv", r"_history/2025-13-01/ cannot hold a past version"),
        ("geo/_history/last-year/v4.csv", r"_history/last-year/ cannot hold a past version"),
        ("geo/_history/v4.csv", r"_history/v4.csv is in no dated folder: past files go in _history/YYYY-MM-DD/"),
        ("_history/v4.csv", r"is in no dated folder"),
        ("Bad Name!/_history/2025-03-01/v4.csv", r"folder 'Bad Name!' cannot be a dataset"),
    ],
)
def test_a_dated_key_that_cannot_be_used_says_why(key: str, message: str) -> None:
    with pytest.raises(FolderError, match=message):
        dated_of(key)


def test_a_folder_that_cannot_be_a_dataset_says_why() -> None:
    with pytest.raises(FolderError, match="cannot be a dataset"):
        dataset_of("Bad Name!/v4.csv")
