"""Small MaxMind DB files the tests write themselves (with ``mmdb-writer``), aliases included.

``mmdb-writer`` writes a tree of Python nodes, each written once: an alias is the IPv4 subtree's node object put
at a second place of the tree, exactly as MaxMind's own writer points 6to4 and Teredo back to ``::/96``.
"""

from __future__ import annotations

import functools
import io
import ipaddress
import json
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import maxminddb
from maxminddb.reader import Reader
from mmdb_writer import MMDBWriter, SearchTreeNode
from netaddr import IPSet

SIX_TO_FOUR = "2002::/16"
TEREDO = "2001::/32"
MAPPED = "::ffff:0:0/96"


class _Dated(MMDBWriter):
    """``MMDBWriter`` with the metadata's ``build_epoch`` given (the writer's own is the clock's)."""

    build_epoch: int | None = None

    def _build_meta(self) -> dict[str, Any]:
        meta: dict[str, Any] = super()._build_meta()
        if self.build_epoch is not None:
            meta["build_epoch"] = self.build_epoch
        return meta


def mmdb(
    networks: Sequence[tuple[str, Any]],
    *,
    ip_version: int = 6,
    aliases: Sequence[str] = (),
    build_epoch: int | None = None,
) -> bytes:
    """A database of ``networks`` (CIDR, record); IPv4 networks of an IPv6 database go to ``::/96``; ``build_epoch``
    in its metadata when given."""
    writer = _Dated(ip_version=ip_version, ipv4_compatible=ip_version == 6, database_type="Fencepost-Test")
    writer.build_epoch = build_epoch
    for cidr, record in networks:
        writer.insert_network(IPSet([cidr]), record)
    for alias in aliases:
        _alias(writer.tree, alias)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "test.mmdb"
        writer.to_db_file(str(path))
        return path.read_bytes()


def _alias(root: SearchTreeNode, cidr: str) -> None:
    """Point the tree at ``cidr`` to the IPv4 subtree (the node 96 zero bits below the root)."""
    ipv4: Any = root
    for _ in range(96):
        ipv4 = ipv4[0]
    network = ipaddress.IPv6Network(cidr)
    bits = [int(network.network_address) >> (127 - index) & 1 for index in range(network.prefixlen)]
    node: Any = root
    for bit in bits[:-1]:
        child = node[bit]
        if not isinstance(child, SearchTreeNode):
            child = SearchTreeNode()
            node[bit] = child
        node = child
    node[bits[-1]] = ipv4


def open_reader(data: bytes) -> Reader:
    return maxminddb.open_database(io.BytesIO(data), maxminddb.MODE_FD)


def tar_gz(members: dict[str, bytes]) -> bytes:
    """A ``.tar.gz`` as MaxMind ships its databases."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, body in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(body)
            archive.addfile(info, io.BytesIO(body))
    return out.getvalue()


def leaves(record: Any, path: str = "") -> dict[str, str]:
    """A record's dotted leaves as text, written independently of ``fencepost.core.formats.mmdb``."""
    if isinstance(record, dict):
        return {k: v for key, item in record.items() for k, v in leaves(item, f"{path}.{key}" if path else key).items()}
    if isinstance(record, list):
        return {
            k: v for i, item in enumerate(record) for k, v in leaves(item, f"{path}.{i}" if path else str(i)).items()
        }
    return {path or "value": record if isinstance(record, str) else json.dumps(record)}


def set_record(data: bytes, node: int, side: int, value: int) -> bytes:
    """The file with one record of its search tree (``side`` 0: left, 1: right, of ``node``) set to ``value``."""
    size = open_reader(data).metadata().record_size
    out = bytearray(data)
    at = node * size // 4
    if size == 24:
        out[at + 3 * side : at + 3 * side + 3] = value.to_bytes(3, "big")
    elif size == 32:
        out[at + 4 * side : at + 4 * side + 4] = value.to_bytes(4, "big")
    else:  # 28: the middle byte holds the high nibbles of both records
        low = value & 0xFFFFFF
        out[at + 4 * side : at + 4 * side + 3] = low.to_bytes(3, "big")
        high = (value >> 24) & 0x0F
        out[at + 3] = (out[at + 3] & 0x0F) | (high << 4) if side == 0 else (out[at + 3] & 0xF0) | high
    return bytes(out)


@functools.cache  # bytes: one build shared by the tests that ask for the same file
def wide_records(networks: int, keys: int, *, name: str = "k{network}_{key}") -> bytes:
    """An IPv4 database of ``networks`` /24s, each with a record of ``keys`` keys that no other record has: every
    record brings ``keys`` columns of its own."""
    return mmdb(
        [
            (f"10.{n // 256}.{n % 256}.0/24", {name.format(network=n, key=k): "x" for k in range(keys)})
            for n in range(networks)
        ],
        ip_version=4,
    )
