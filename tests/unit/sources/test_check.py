"""One check of a source, against a real publisher on this machine: what is written, what is not, and what is kept."""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
import zipfile
from pathlib import Path

import pytest

from fencepost.core.sources.schedule import Outcome
from fencepost.sources.outcomes import clear_work, counts
from tests.unit.sources.world import NEXT, RELEASE, World


def test_a_release_lands_then_an_unchanged_one_writes_nothing(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt"), "every": "1h"})
    first = world.checker.check("drop")
    assert first.outcome is Outcome.CHANGED
    assert first.written == ("drop/_fetched/drop.txt",)
    assert world.folders.objects["drop/_fetched/drop.txt"] == RELEASE
    assert world.checker.check("drop").outcome is None  # not due
    world.now += 3600 * 1000
    again = [checked for checked in world.checker.check_due() if checked.outcome is not None]
    assert [checked.outcome for checked in again] == [Outcome.UNCHANGED]
    assert world.site.requests("/drop.txt")[-1].status == 304
    assert world.folders.puts == ["drop/_fetched/drop.txt"]  # nothing written the second time
    # The release's manifest was written as it started and once it was written, and not since
    assert world.folders.releases == [None, {"drop/_fetched/drop.txt": world.folders.etag("drop/_fetched/drop.txt")}]
    state = world.states.states["drop"]
    assert (state.checks, state.unchanged, state.last_changed, state.last_checked) == (2, 1, 1_000_000, world.now)


def test_a_new_release_replaces_the_object(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt")})
    world.checker.check("drop")
    world.site.publish("/drop.txt", NEXT)
    assert world.checker.check("drop", force=True).outcome is Outcome.CHANGED
    assert world.folders.objects["drop/_fetched/drop.txt"] == NEXT


def test_the_same_bytes_under_a_new_etag_are_unchanged(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE, etag=False, modified=None)  # no validators: a full GET each time
    world.source({"url": world.site.url("/drop.txt")})
    world.checker.check("drop")
    assert world.checker.check("drop", force=True).outcome is Outcome.UNCHANGED
    assert world.site.requests("/drop.txt")[-1].status == 200
    assert len(world.folders.puts) == 1


def test_an_object_removed_by_hand_is_fetched_again(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt")})
    world.checker.check("drop")
    del world.folders.objects["drop/_fetched/drop.txt"]
    assert world.checker.check("drop", force=True).outcome is Outcome.CHANGED
    assert "If-None-Match" not in world.site.requests("/drop.txt")[-1].headers
    assert world.folders.objects["drop/_fetched/drop.txt"] == RELEASE


def test_a_failed_fetch_never_touches_the_folder(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.site.publish("/drop-v6.txt", b"2001:db8::/32\n")
    world.source({"files": [{"url": world.site.url("/drop.txt")}, {"url": world.site.url("/drop-v6.txt")}]})
    world.checker.check("drop")
    before = dict(world.folders.objects)
    world.site.publish("/drop.txt", NEXT)
    world.site.publish("/drop-v6.txt", b"", failures=[(503, None)] * 4)
    failed = world.checker.check("drop", force=True)
    assert failed.outcome is Outcome.FAILED
    assert "answered 503 (2 attempts)" in failed.reason
    assert world.folders.objects == before  # the first file's new release was not written either
    state = world.states.states["drop"]
    assert state.failures == 1
    assert state.outcome == "FAILED"
    assert state.last_changed == 1_000_000


def test_a_checksum_that_does_not_match_refuses_the_release(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.site.publish("/drop.txt.sha256", f"{hashlib.sha256(RELEASE).hexdigest()}  drop-2026.txt\n".encode())
    world.source({"url": world.site.url("/drop.txt"), "sha256_url": world.site.url("/drop.txt.sha256")})
    assert world.checker.check("drop").outcome is Outcome.CHANGED
    world.site.publish("/drop.txt", RELEASE[: len(RELEASE) // 2])  # cut short, the checksum still the full file's
    refused = world.checker.check("drop", force=True)
    assert refused.outcome is Outcome.FAILED
    assert "tampered" in refused.reason
    assert world.folders.objects["drop/_fetched/drop.txt"] == RELEASE


def zip_of(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def test_an_archive_gives_its_named_members_and_a_changed_layout_keeps_the_last(world: World) -> None:
    blocks, places = b"network,geoname_id\n1.0.0.0/24,1\n", b"geoname_id,country_iso_code\n1,AU\n"
    release = {"G_1/G-Blocks-IPv4.csv": blocks, "G_1/G-Locations-en.csv": places, "G_1/LICENSE.txt": b"licence"}
    world.site.publish("/geo.zip", zip_of(release))
    members = ["*-Blocks-IPv4.csv", "*-Locations-en.csv"]
    world.source({"url": world.site.url("/geo.zip"), "unpack": "zip", "members": members}, dataset="geo")
    assert world.checker.check("geo").written == ("geo/_fetched/G-Blocks-IPv4.csv", "geo/_fetched/G-Locations-en.csv")
    world.site.publish("/geo.zip", zip_of({"G_2/G-Blocks-IPv4.csv": blocks + b"1.0.1.0/24,1\n"}))
    failed = world.checker.check("geo", force=True)
    assert failed.outcome is Outcome.FAILED
    assert "'*-Locations-en.csv' matches no member" in failed.reason
    assert world.folders.objects["geo/_fetched/G-Blocks-IPv4.csv"] == blocks


def test_a_file_the_source_no_longer_names_is_deleted(world: World) -> None:
    world.site.publish("/a.txt", RELEASE)
    world.site.publish("/b.txt", NEXT)
    world.source({"files": [{"url": world.site.url("/a.txt")}, {"url": world.site.url("/b.txt")}]})
    world.checker.check("drop")
    world.source({"url": world.site.url("/a.txt")})  # a changed source is checked at once
    checked = world.checker.check("drop")
    assert checked.outcome is Outcome.CHANGED
    assert checked.deleted == ("drop/_fetched/b.txt",)
    assert sorted(world.folders.objects) == ["drop/_fetched/_release.json", "drop/_fetched/a.txt", "drop/_source.json"]


def test_credentials_come_from_the_secret_store_and_never_reach_a_reason(world: World) -> None:
    world.site.publish("/db.tar.gz", RELEASE, auth=("42", "k3y-value"))
    world.source(
        {
            "url": world.site.url("/db.tar.gz"),
            "params": {"user": "42", "license_key": {"secret": "mm"}},
            "basic_auth": ["user", "license_key"],
        }
    )
    missing = world.checker.check("drop")
    assert missing.outcome is Outcome.FAILED
    assert missing.reason.startswith("secret 'mm' could not be read")
    world.secrets.hosts["mm"] = "127.0.0.1"  # the publisher's host, by the secret's tag
    world.secrets.values["mm"] = "wrong"
    refused = world.checker.check("drop", force=True)
    assert "answered 401" in refused.reason
    assert "wrong" not in refused.reason
    world.secrets.values["mm"] = "k3y-value"
    assert world.checker.check("drop", force=True).outcome is Outcome.CHANGED
    assert "k3y-value" not in json.dumps(world.states.states["drop"].to_json())


def test_an_unusable_source_is_said_once_per_version_of_the_file(world: World) -> None:
    world.folders.objects["drop/_source.json"] = b'{"url": "ftp://example.org/x"}'
    assert world.checker.check("drop").outcome is Outcome.INVALID
    assert world.checker.check("drop").outcome is Outcome.INVALID
    state = world.states.states["drop"]
    assert world.states.writes == 1
    assert state.failures == 1
    assert "url must be an https:// address" in state.reason
    assert (state.to_api()["url"], state.to_api()["next_check"]) == (None, None)  # checked again once it changes


def test_a_paused_source_is_said_once_and_never_fetched_until_resumed(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt"), "every": "1h"})
    world.checker.check("drop")
    world.source({"url": world.site.url("/drop.txt"), "every": "1h", "paused": True})
    for _ in range(3):
        paused = world.checker.check("drop", force=True)
        assert (paused.outcome, paused.reason) == (None, "paused: set paused to false to check it")
    assert world.states.writes == 2  # the first check, then the pause, said once
    assert world.states.states["drop"].to_api()["paused"] is True
    assert len(world.site.requests("/drop.txt")) == 1
    world.source({"url": world.site.url("/drop.txt"), "every": "1h"})  # resumed: checked at once
    assert world.checker.check("drop").outcome is Outcome.UNCHANGED


def test_three_failures_in_a_row_make_a_source_failing(world: World) -> None:
    world.source({"url": world.site.url("/gone.txt"), "every": "1h"})
    results = [world.checker.check("drop", force=True) for _ in range(3)]
    assert [checked.failing for checked in results] == [False, False, True]
    assert counts(results)["SourcesFailing"] == 1
    assert counts(results)["SourceChecksFailed"] == 3
    assert world.states.states["drop"].to_api()["failures_in_a_row"] == 3


def test_a_secret_filled_into_the_address_is_sent_and_never_shown(world: World) -> None:
    world.site.publish("/db.tsv", RELEASE)
    world.secrets.values["fencepost/key"] = "s3cr3t&v=1"
    world.secrets.hosts["fencepost/key"] = "example.org 127.0.0.1"
    url = world.site.url("/db.tsv") + "?edition=asn&key={license_key}"
    world.source({"url": url, "name": "db.tsv", "params": {"license_key": {"secret": "fencepost/key"}}})
    assert world.checker.check("drop").outcome is Outcome.CHANGED
    (seen,) = world.site.seen
    assert seen.target == "/db.tsv?edition=asn&key=s3cr3t%26v%3D1"  # filled in, quoted as one value
    state = world.states.states["drop"]
    shown = json.dumps(state.to_json()) + json.dumps(state.to_api())
    assert "s3cr3t" not in shown
    assert state.to_api()["url"].endswith("/db.tsv?...")
    world.site.publish("/db.tsv", b"", failures=[(500, None)] * 3)
    failed = world.checker.check("drop", force=True)
    assert "s3cr3t" not in failed.reason


def test_a_source_removed_from_its_folder_is_forgotten_and_its_data_kept(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt")})
    world.checker.check_due()
    del world.folders.objects["drop/_source.json"]
    assert {checked.outcome for checked in world.checker.check_due()} == {None}  # no folder names a source
    assert world.states.states == {}
    assert world.folders.objects["drop/_fetched/drop.txt"] == RELEASE  # the folder's data stays


def test_a_failure_of_one_source_is_its_own_and_the_round_goes_on(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    world.site.publish("/drop.txt", RELEASE)
    for dataset in ("aaa", "zzz"):
        world.source({"url": world.site.url("/drop.txt")}, dataset=dataset)
    put = world.folders.put_fetched

    def failing(key: str, path: Path) -> str:
        if key.startswith("aaa/"):
            raise OSError("the bucket went away")
        return put(key, path)

    monkeypatch.setattr(world.folders, "put_fetched", failing)
    outcomes = {c.dataset: c for c in world.checker.check_due() if c.outcome is not None}
    assert outcomes["aaa"].outcome is Outcome.FAILED
    assert outcomes["aaa"].reason.startswith("the check failed (OSError)")
    assert outcomes["zzz"].outcome is Outcome.CHANGED
    assert world.states.states["aaa"].failures == 1  # recorded: the next check comes sooner, not at every round


def test_a_round_past_its_time_checks_no_more_and_forgets_nothing(world: World) -> None:
    world.site.publish("/drop.txt", RELEASE)
    world.source({"url": world.site.url("/drop.txt")})
    world.checker.check_due()
    del world.folders.objects["drop/_source.json"]
    world.checker.deadline = time.monotonic() - 1
    assert world.checker.check_due() == []
    assert "drop" in world.states.states  # not every folder was looked at: nothing is forgotten


def test_a_changed_parameter_is_another_file_fetched_afresh(world: World) -> None:
    world.site.publish("/level1.txt", RELEASE)
    world.site.publish("/level2.txt", NEXT)  # the same Last-Modified: a request reusing level1's would get a 304
    url = world.site.url("/{list}.txt")
    world.source({"url": url, "name": "list.txt", "params": {"list": "level1"}})
    world.checker.check("drop")
    world.source({"url": url, "name": "list.txt", "params": {"list": "level2"}})
    assert world.checker.check("drop").outcome is Outcome.CHANGED
    assert "If-Modified-Since" not in world.site.requests("/level2.txt")[0].headers
    assert world.folders.objects["drop/_fetched/list.txt"] == NEXT


def test_what_a_killed_check_left_is_cleared_and_a_check_under_way_kept(tmp_path: Path) -> None:
    old, new = tmp_path / "fetch-old", tmp_path / "fetch-new"
    for folder in (old, new):
        folder.mkdir()
        (folder / "download").write_bytes(b"x")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    clear_work(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fetch-new"]
