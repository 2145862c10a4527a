"""What a source keeps of an archive: the members its patterns name, each exactly once, each bounded; the archive
opened only as its ``unpack`` names it, and all it decompresses bounded in bytes and in time (the bombs of
``tests.bombs``, built without writing gigabytes)."""

from __future__ import annotations

import io
import tarfile
import time
import zipfile
from pathlib import Path

import pytest

from fencepost.downloads import FetchError, OutOfTime, unpack
from tests.bombs import DATA, tar_bomb

BLOCKS = b"network,geoname_id\n1.0.0.0/24,2077456\n"
LOCATIONS = b"geoname_id,country_iso_code\n2077456,AU\n"
PATTERNS = ["*-Blocks-IPv4.csv", "*-Locations-en.csv"]
EXPANSION_TEST_BYTES = 1 << 20


def zipped(tmp_path: Path, members: dict[str, bytes], name: str = "release.zip") -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, body in members.items():
            archive.writestr(member, body)
    return path


def test_the_named_members_are_kept_and_the_others_left(tmp_path: Path) -> None:
    path = zipped(
        tmp_path,
        {
            "GeoLite2-Country-CSV_20261124/LICENSE.txt": b"licence",
            "GeoLite2-Country-CSV_20261124/GeoLite2-Country-Blocks-IPv4.csv": BLOCKS,
            "GeoLite2-Country-CSV_20261124/GeoLite2-Country-Locations-en.csv": LOCATIONS,
            "GeoLite2-Country-CSV_20261124/GeoLite2-Country-Locations-de.csv": LOCATIONS,
        },
    )
    kept = unpack(path, "zip", PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")
    assert [name for name, _ in kept] == ["GeoLite2-Country-Blocks-IPv4.csv", "GeoLite2-Country-Locations-en.csv"]
    assert [member.read_bytes() for _, member in kept] == [BLOCKS, LOCATIONS]


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"a/GeoLite2-Country-Blocks-IPv4.csv": BLOCKS}, r"'\*-Locations-en.csv' matches no member"),
        (
            {
                "a/GeoLite2-Country-Blocks-IPv4.csv": BLOCKS,
                "b/GeoLite2-Country-Blocks-IPv4.csv": BLOCKS,
                "a/GeoLite2-Country-Locations-en.csv": LOCATIONS,
            },
            r"'\*-Blocks-IPv4.csv' matches 2 members",
        ),
    ],
    ids=["missing", "twice"],
)
def test_a_changed_layout_fails_and_keeps_nothing(tmp_path: Path, members: dict[str, bytes], message: str) -> None:
    path = zipped(tmp_path, members)
    with pytest.raises(FetchError, match=message):
        unpack(path, "zip", PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.zip"]


def test_a_member_past_the_bound_fails_however_small_the_archive(tmp_path: Path) -> None:
    path = zipped(tmp_path, {"x/big-Blocks-IPv4.csv": b"0" * (4 << 20), "x/a-Locations-en.csv": LOCATIONS})
    assert path.stat().st_size < 64 << 10
    with pytest.raises(FetchError, match=r"member big-Blocks-IPv4.csv is more than 1,048,576 bytes decompressed"):
        unpack(path, "zip", PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.zip"]


def tarball(tmp_path: Path, members: dict[str, bytes], name: str = "release.tar.gz") -> Path:
    path = tmp_path / name
    with tarfile.open(path, "w:gz") as archive:
        for member, body in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return path


def test_a_tarball_gives_its_database(tmp_path: Path) -> None:
    members = {"GeoLite2-ASN_20261124/LICENSE.txt": b"l", "GeoLite2-ASN_20261124/GeoLite2-ASN.mmdb": b"db"}
    path = tarball(tmp_path, members, "GeoLite2-ASN.tar.gz")
    kept = unpack(path, "tar.gz", ["*.mmdb"], max_bytes=1 << 20, directory=tmp_path, shown="asn")
    assert [(name, member.read_bytes()) for name, member in kept] == [("GeoLite2-ASN.mmdb", b"db")]


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_a_damaged_archive_is_a_failure_with_a_reason(tmp_path: Path, kind: str) -> None:
    members = {"a/x-Blocks-IPv4.csv": BLOCKS * 100, "a/x-Locations-en.csv": LOCATIONS}
    path = zipped(tmp_path, members) if kind == "zip" else tarball(tmp_path, members)
    damaged = tmp_path / "damaged"
    damaged.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(FetchError, match=rf"geo: not a readable {kind} archive"):
        unpack(damaged, kind, PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")


def test_an_encrypted_member_is_a_failure_with_a_reason(tmp_path: Path) -> None:
    plain = zipped(tmp_path, {"a/x-Blocks-IPv4.csv": BLOCKS, "a/x-Locations-en.csv": LOCATIONS}).read_bytes()
    # Mark every member encrypted (bit 0 of the flags, in the local and the central headers): zipfile then refuses
    # to read one without a password
    data = bytearray(plain)
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        while at != -1:
            data[at + offset] |= 0x1
            at = data.find(signature, at + 4)
    path = tmp_path / "locked.zip"
    path.write_bytes(bytes(data))
    with pytest.raises(FetchError, match=r"geo: not a readable zip archive \(RuntimeError\)"):
        unpack(path, "zip", PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["locked.zip", "release.zip"]


def test_a_bzip2_tarball_under_tar_gz_is_refused_before_anything_is_decompressed(tmp_path: Path) -> None:
    # The bomb: ~23 KB of bzip2 holding 8 GiB of zeros, then data.csv (tarfile's "r:*" took it as a tarball)
    bomb = tar_bomb(tmp_path / "release.tar.gz", "bz2")
    assert bomb.stat().st_size < 64 << 10
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"^geo: unpack tar.gz reads gzip only, and this file is bzip2: refused"):
        unpack(bomb, "tar.gz", ["data.csv"], max_bytes=1 << 30, directory=tmp_path, shown="geo")
    assert time.monotonic() - started < 0.5
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.tar.gz"]


def test_a_gzip_bomb_is_stopped_by_the_bound_on_all_it_decompresses(tmp_path: Path) -> None:
    # Its 8 GiB member is skipped (data.csv is the one asked for), and still counts: 4 x max_bytes at most
    bomb = tar_bomb(tmp_path / "release.tar.gz", "gz")
    started = time.monotonic()
    with pytest.raises(FetchError, match=r"expands to more than 4,194,304 bytes \(4 x max_bytes, members skipped"):
        unpack(
            bomb,
            "tar.gz",
            ["data.csv"],
            max_bytes=EXPANSION_TEST_BYTES,
            directory=tmp_path,
            shown="geo",
            deadline=started + 5,
        )
    assert time.monotonic() - started < 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.tar.gz"]


def test_a_gzip_bomb_under_a_large_bound_is_stopped_at_the_deadline(tmp_path: Path) -> None:
    bomb = tar_bomb(tmp_path / "release.tar.gz", "gz")
    started = time.monotonic()
    with pytest.raises(OutOfTime, match=r"^geo: the check ran out of time while unpacking \([\d,]+ bytes"):
        unpack(bomb, "tar.gz", ["data.csv"], max_bytes=1 << 40, directory=tmp_path, shown="geo", deadline=started + 0.5)
    assert time.monotonic() - started < 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.tar.gz"]


def test_the_bound_leaves_room_for_the_members_skipped_on_the_way(tmp_path: Path) -> None:
    bomb = tar_bomb(tmp_path / "release.tar.gz", "gz", zeros=3 * EXPANSION_TEST_BYTES)  # under 4 x max_bytes
    kept = unpack(bomb, "tar.gz", ["data.csv"], max_bytes=EXPANSION_TEST_BYTES, directory=tmp_path, shown="geo")
    assert [(name, member.read_bytes()) for name, member in kept] == [("data.csv", DATA)]


@pytest.mark.parametrize("method", [zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA], ids=["bzip2", "lzma"])
def test_a_zip_member_compressed_other_than_deflate_is_refused(tmp_path: Path, method: int) -> None:
    path = tmp_path / "release.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a/x-Blocks-IPv4.csv", BLOCKS, compress_type=method)
        archive.writestr("a/x-Locations-en.csv", LOCATIONS, compress_type=zipfile.ZIP_DEFLATED)
    with pytest.raises(FetchError, match=rf"member x-Blocks-IPv4.csv is compressed with method {method}: unpack zip"):
        unpack(path, "zip", PATTERNS, max_bytes=1 << 20, directory=tmp_path, shown="geo")


def test_member_names_quoted_in_a_reason_are_cut_short(tmp_path: Path) -> None:
    long = "x" * 190  # the longest a member kept may be named
    path = tarball(tmp_path, {f"a/{long}-{k}.csv": BLOCKS for k in range(3)})
    with pytest.raises(FetchError, match=r"matches 3 members") as failed:
        unpack(path, "tar.gz", ["*.csv"], max_bytes=1 << 20, directory=tmp_path, shown="geo")
    assert len(str(failed.value)) < 400
