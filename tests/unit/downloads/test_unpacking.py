"""What a source keeps of an archive: the members its patterns name, each exactly once, each bounded."""

from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from fencepost.downloads import FetchError, unpack

BLOCKS = b"network,geoname_id\n1.0.0.0/24,2077456\n"
LOCATIONS = b"geoname_id,country_iso_code\n2077456,AU\n"
PATTERNS = ["*-Blocks-IPv4.csv", "*-Locations-en.csv"]


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
