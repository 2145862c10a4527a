"""The loader's messages: every kind round-trips, bodies sent before this version still parse, and anything else
is refused as unparsable (the dispatcher drops those instead of retrying them forever)."""

from __future__ import annotations

import json

import pytest

from fencepost.loading.messages import (
    BuildRequested,
    Command,
    DeleteVersion,
    Lane,
    ObjectsChanged,
    QueueWired,
    Unparsable,
    WriteChunk,
    dump,
    parse,
)
from tests.support import EVENTS

COMMANDS: list[Command] = [
    BuildRequested("geo", 3),
    WriteChunk("geo", 4, 17, "eJyrVkrLz1eyUkpKLFKqBQAdVwRC"),
    DeleteVersion("geo", 2, 1795000000.5, 12),
]


@pytest.mark.parametrize("message", COMMANDS, ids=lambda message: message.kind)
def test_every_command_round_trips(message: Command) -> None:
    assert parse(dump(message)) == message


def test_each_command_travels_on_its_lane() -> None:
    assert [message.lane for message in COMMANDS] == [Lane.CONTROL, Lane.DATA, Lane.DATA]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('{"kind":"build","dataset":"geo","request":3}', BuildRequested("geo", 3)),
        ('{"kind":"chunk","dataset":"geo","build":4,"chunk":1,"payload":"x"}', WriteChunk("geo", 4, 1, "x")),
        (
            '{"kind":"delete","dataset":"geo","version":2,"not_before":1795000000,"cursor":0}',
            DeleteVersion("geo", 2, 1795000000.0, 0),
        ),
        ('{"kind":"delete","dataset":"geo","version":2,"not_before":5}', DeleteVersion("geo", 2, 5.0)),
    ],
)
def test_bodies_in_the_previous_format_still_parse(body: str, expected: Command) -> None:
    # Messages in flight during a deploy were written by the version before.
    assert parse(body) == expected


def test_s3_notifications_become_the_keys_they_name() -> None:
    body = json.dumps(
        {
            "Records": [
                {"eventSource": "aws:s3", "s3": {"object": {"key": "geo/my+fil%C3%A9.csv"}}},
                {"eventSource": "aws:sns", "Sns": {}},
                {"eventSource": "aws:s3", "s3": {"object": {"key": "asn/a.tsv"}}},
            ]
        }
    )
    assert parse(body) == ObjectsChanged(("geo/my filé.csv", "asn/a.tsv"))
    assert parse('{"Service":"Amazon S3","Event":"s3:TestEvent"}') == QueueWired()


def test_the_sample_sqs_event_carries_a_parsable_notification() -> None:
    records = json.loads((EVENTS / "loader-sqs-s3-put.json").read_text())["Records"]
    assert all(isinstance(parse(record["body"]), ObjectsChanged) for record in records)


@pytest.mark.parametrize(
    "body",
    [
        "not json",
        "[1, 2]",
        '"a string"',
        "[" * 100_000,
        "{}",
        '{"kind":"compact"}',
        '{"kind":"build","dataset":"geo"}',
        '{"kind":"build","dataset":"geo","request":"3"}',
        '{"kind":"build","dataset":"geo","request":true}',
        '{"kind":"build","dataset":"../etc","request":3}',
        '{"kind":"chunk","dataset":"geo","build":1,"chunk":1,"payload":null}',
        '{"kind":"delete","dataset":"geo","version":2,"not_before":"soon"}',
        '{"Records": "x"}',
        '{"Records": [{"eventSource": "aws:s3", "s3": {}}]}',
    ],
)
def test_anything_else_is_unparsable(body: str) -> None:
    with pytest.raises(Unparsable):
        parse(body)
