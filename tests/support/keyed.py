"""Keyed datasets on a ``Stack`` (``tests/support/stacks.py``): AS-names lists in the publishers' layouts (RIPE's
``asn.txt``, the CIDR Report's ``autnums.html``), made of as many ASes as a test asks, and the stored table of a keyed
version read back from the bucket."""

from __future__ import annotations

from fencepost.aws.dynamo import Tables
from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.storage.objects import keys_key
from fencepost.model import VersionInfo
from tests.support.stacks import Stack

COUNTRIES = ("US", "DE", "BR", "JP", "")


def as_name(asn: int, tag: str = "") -> tuple[str, str]:
    """The name and country AS ``asn`` has in these lists (``tag`` renames it)."""
    return f"NET-{asn}{tag} - Example Networks {asn}, Inc.", COUNTRIES[asn % len(COUNTRIES)]


def asn_txt(asns: range | list[int], tag: str = "") -> bytes:
    """RIPE's ``asn.txt``: ``<asn> <name>, <CC>`` a line (no country: the name alone)."""
    lines = []
    for asn in asns:
        name, country = as_name(asn, tag)
        lines.append(f"{asn} {name}, {country}" if country else f"{asn} {name}")
    return ("\n".join(lines) + "\n").encode()


def autnums_html(asns: range | list[int], tag: str = "") -> bytes:
    """The CIDR Report's ``autnums.html``: an HTML head, one anchor a line, the closing tags."""
    lines = ["<html>", "<head><title>AS Names</title></head>", "<body>", "<pre>"]
    for asn in asns:
        name, country = as_name(asn, tag)
        text = f"{name}, {country}" if country else name
        lines.append(f'<a href="/cgi-bin/as-report?as=AS{asn}&view=2.0">AS{asn:<6}</a> {text}')
    lines += ["</pre>", "</body>", "</html>"]
    return ("\n".join(lines) + "\n").encode()


def expected_rows(asns: range | list[int], tag: str = "") -> dict[str, tuple[str, ...]]:
    return {str(asn): as_name(asn, tag) for asn in asns}


def stored_table(stack: Stack, dataset: str, version: int) -> KeyedTable:
    body = stack.s3.get_object(Bucket=stack.bucket, Key=keys_key(dataset, version))["Body"].read()
    return KeyedTable.decode(body)


def has_table(stack: Stack, dataset: str, version: int) -> bool:
    listed = stack.s3.list_objects_v2(Bucket=stack.bucket, Prefix=keys_key(dataset, version))
    return bool(listed.get("KeyCount"))


def version_info(stack: Stack, dataset: str, version: int) -> VersionInfo | None:
    return Tables.connect(stack.ddb, stack.table).versions.get(dataset, version)
