"""The search tree of a MaxMind DB file, walked in address order, and the count of work that keeps the deadline.

The file format is a binary tree: every node is reached by one path, but for the IPv4 subtree, which aliases
(6to4, Teredo, ``::ffff:0:0/96``) point back to and which is walked once. A walk that reaches more nodes than the
file has went round a loop or into a shared subtree, and fails at once, as does a path deeper than an address.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Final

from fencepost.core.formats.base import FileError

TICK_EVERY: Final = 1 << 16  # units of work (tree nodes, decoded values, cells) between two calls of ``tick``
_BATCH_MASK: Final = (1 << 12) - 1  # tree nodes are added to the work 4,096 at a time


class Work:
    """Counts work as it is done and calls ``tick`` (progress, and the deadline, which raises) every
    ``TICK_EVERY`` units, wherever the work is: in the tree, in the records' values or in the rows."""

    def __init__(self, tick: Callable[[int], None]) -> None:
        self.tick, self.done, self._next = tick, 0, TICK_EVERY

    def add(self, units: int) -> None:
        self.done += units
        if self.done >= self._next:
            self._next = self.done + TICK_EVERY
            self.tick(self.done)


class Tree:
    """The search tree of one database."""

    def __init__(self, data: bytes, nodes: int, record_size: int, bits: int) -> None:
        self.data, self.nodes, self.record_size, self.bits = data, nodes, record_size, bits
        self.ipv4 = self._ipv4_start() if bits == 128 else -1
        self.aliases: list[tuple[int, int]] = []  # (address bits, depth) of each alias found by the last walk

    def children(self, node: int) -> tuple[int, int]:
        data = self.data
        if self.record_size == 24:
            at = node * 6
            return int.from_bytes(data[at : at + 3], "big"), int.from_bytes(data[at + 3 : at + 6], "big")
        if self.record_size == 28:
            at = node * 7
            middle = data[at + 3]
            left = ((middle & 0xF0) << 20) | int.from_bytes(data[at : at + 3], "big")
            return left, ((middle & 0x0F) << 24) | int.from_bytes(data[at + 4 : at + 7], "big")
        at = node * 8
        return int.from_bytes(data[at : at + 4], "big"), int.from_bytes(data[at + 4 : at + 8], "big")

    def _ipv4_start(self) -> int:
        """The node 96 zero bits below the root, as the reader finds it (a record when the tree stops earlier)."""
        node = 0
        for _ in range(96):
            if node >= self.nodes:
                break
            node = self.children(node)[0]
        return node

    def walk(self, work: Work) -> Iterator[tuple[int, int, int]]:
        """(first address, prefix length, data pointer) of every network with a record, in address order."""
        nodes, bits, ipv4 = self.nodes, self.bits, self.ipv4
        aliasing = 0 < ipv4 < nodes
        self.aliases = []
        stack = [(0, 0, 0)] if nodes else []  # (record, depth, address bits so far)
        visits = 0
        while stack:
            record, depth, address = stack.pop()
            if record > nodes:
                yield address << (bits - depth), depth, record
                continue
            if record == nodes:
                continue  # no data
            if aliasing and record == ipv4 and address and depth <= 96:
                self.aliases.append((address, depth))
                continue
            visits += 1
            if not visits & _BATCH_MASK:
                work.add(_BATCH_MASK + 1)  # counted in batches: a call per node would cost a sixth of the walk
            if depth >= bits or visits > nodes:
                raise FileError(
                    None,
                    "the MaxMind DB search tree is corrupt: it reaches a node twice (a loop) or goes deeper than an "
                    "address",
                )
            left, right = self.children(record)
            stack.append((right, depth + 1, address << 1 | 1))
            stack.append((left, depth + 1, address << 1))
