"""A folder's ``max_age``: parsed as a duration like a source's ``every`` (bad values refused by name), left out of
the settings digest, defaulted from a source's ``every``, and a live version's staleness on a fake clock."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.core.folders.max_age import SOURCE_INTERVALS, effective_max_age, freshness, shown
from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.storage.objects import FolderError

BUILT = "2026-11-20T00:00:00+00:00"
BUILT_EPOCH = 1_795_132_800.0  # BUILT in epoch seconds
HOUR, DAY = 3600, 86_400


def parsed(document: str) -> FolderSettings:
    return FolderSettings.parse(document.encode(), "geo/_settings.json")


@pytest.mark.parametrize(
    ("text", "seconds"), [("8d", 8 * DAY), ("36h", 36 * HOUR), ("90m", 90 * 60), ("1s", 1), (" 2 d ", 2 * DAY)]
)
def test_max_age_is_a_number_and_a_unit(text: str, seconds: int) -> None:
    assert parsed(f'{{"max_age": "{text}"}}').max_age == seconds


def test_max_age_unset_or_null_is_none() -> None:
    assert parsed("{}").max_age == 0
    assert parsed('{"max_age": null}').max_age == 0


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"8 days"', 'max_age must be a number and a unit (s, m, h or d), e.g. "1d" or "6h"'),
        ("8", "max_age must be a number and a unit"),
        ("true", "max_age must be a number and a unit"),
        ('"0s"', "max_age is at least 1 s here ('0s' is 0 s)"),
        ('"3651d"', "max_age is at most 3,650d"),
        ('"-1d"', "max_age must be a number and a unit"),
    ],
)
def test_a_bad_max_age_is_refused_by_name(value: str, message: str) -> None:
    with pytest.raises(FolderError) as refused:
        parsed(f'{{"max_age": {value}}}')
    assert str(refused.value).startswith("geo/_settings.json: ")
    assert message in str(refused.value)


def test_max_age_is_no_part_of_what_a_version_is_built_from() -> None:
    assert settings_digest(parsed('{"max_age": "8d"}')) == settings_digest(parsed("{}"))
    assert settings_digest(parsed('{"max_age": "8d", "columns": ["a"]}')) != settings_digest(parsed("{}"))


@pytest.mark.parametrize(
    ("own", "every", "applies"),
    [
        (8 * DAY, None, 8 * DAY),
        (8 * DAY, HOUR, 8 * DAY),
        (0, HOUR, SOURCE_INTERVALS * HOUR),
        (0, None, None),
        (0, 0, None),
    ],
)
def test_the_max_age_that_applies(own: int, every: int | None, applies: int | None) -> None:
    assert effective_max_age(own, every) == applies
    assert SOURCE_INTERVALS == 3  # as documented: a source-fed folder is stale after three of its intervals


def test_a_version_is_stale_once_older_than_the_max_age() -> None:
    day_later = BUILT_EPOCH + DAY
    fresh = freshness(BUILT, DAY, day_later)
    assert fresh is not None
    assert (fresh.age, fresh.max_age, fresh.stale) == (DAY, DAY, False)  # exactly the max age: not yet stale
    stale = freshness(BUILT, DAY, day_later + 1)
    assert stale is not None
    assert (stale.age, stale.stale) == (DAY + 1, True)
    assert stale.to_api() == {"stale": True, "age_seconds": DAY + 1, "max_age_seconds": DAY}


def test_a_build_time_ahead_of_the_clock_is_age_zero() -> None:
    ahead = freshness(BUILT, HOUR, BUILT_EPOCH - 30)
    assert ahead is not None
    assert (ahead.age, ahead.stale) == (0, False)


@pytest.mark.parametrize(("loaded_at", "own", "every"), [(None, DAY, None), (BUILT, 0, None), ("not a time", DAY, 0)])
def test_without_a_max_age_or_a_build_time_nothing_is_known(loaded_at: str | None, own: int, every: int | None) -> None:
    unknown: dict[str, Any] = {"stale": None, "age_seconds": None, "max_age_seconds": None}
    assert shown(loaded_at, own, every, BUILT_EPOCH + 10 * DAY) == unknown


def test_a_source_fed_folder_is_stale_after_three_intervals() -> None:
    assert shown(BUILT, 0, HOUR, BUILT_EPOCH + 3 * HOUR)["stale"] is False
    assert shown(BUILT, 0, HOUR, BUILT_EPOCH + 3 * HOUR + 1) == {
        "stale": True,
        "age_seconds": 3 * HOUR + 1,
        "max_age_seconds": 3 * HOUR,
    }
