"""A registry's delegated statistics loaded into a keyed folder on the in-memory fakes (``tests.fakes``), as range
folders load the same files: its ``asn`` records go live as one row an AS number, a file of ip records only is
refused by ``min_ranges`` (no keys), and a count past the folder's keys limit fails the load at its record."""

from __future__ import annotations

from fencepost.core.keyed.keyed_table import KeyedTable
from fencepost.core.storage.objects import keys_key
from fencepost.model import LoadStatus
from tests.fakes.world import DATASET, World

KEY = f"{DATASET}/_fetched/delegated-extended"
HEAD = "2.3|nro|20261128|5|19830613|20261127|+0000\nnro|*|asn|*|3|summary\nnro|*|ipv4|*|2|summary\n"
ASN = (
    "apnic|JP|asn|173|1|20020801|allocated|A91A7381\n"
    "ripencc|DE|asn|3320|2|19930901|allocated|a2c3e1f0\n"
    "arin||asn|1000|24||available|arin\n"
)
IPV4 = "apnic|AU|ipv4|1.0.0.0|256|20110811|assigned|A91872ED\narin|US|ipv4|3.0.0.0|16777216|19880223|allocated|x\n"


def test_the_asn_records_of_a_combined_file_go_live_one_row_an_as_number() -> None:
    world = World(folder={"key": "asn"})
    world.upload(KEY, HEAD + IPV4 + ASN)
    world.settle()
    record = world.record()
    assert (record.status, record.live, record.ranges) == (LoadStatus.READY, 1, 3), record.load
    table = KeyedTable.decode(world.bucket.objects[keys_key(DATASET, 1)])
    assert (table.key, table.form) == ("asn", "asn")
    assert table.columns == ("registry", "country", "date", "status", "opaque_id")
    assert table.rows == {
        "173": ("apnic", "JP", "20020801", "allocated", "A91A7381"),
        "3320": ("ripencc", "DE", "19930901", "allocated", "a2c3e1f0"),
        "3321": ("ripencc", "DE", "19930901", "allocated", "a2c3e1f0"),
    }


def test_a_file_of_ip_records_only_is_refused_for_holding_no_keys() -> None:
    world = World(folder={"key": "asn"})
    world.upload(KEY, HEAD + IPV4)
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    assert record.load.problems[0].reason == "the objects hold 0 keys; min_ranges asks for at least 1"
    assert keys_key(DATASET, 1) not in world.bucket.objects


def test_a_count_past_the_folders_keys_limit_fails_the_load_at_its_record_naming_the_limit() -> None:
    world = World(folder={"key": "asn", "limits": {"max_keyed_rows": 100}})
    world.upload(KEY, HEAD + ASN + "lacnic|BR|asn|262144|1024|20070101|allocated|L1\n")
    world.settle()
    record = world.record()
    assert (record.status, record.live) == (LoadStatus.FAILED, None)
    problem = record.load.problems[-1]
    assert (problem.object, problem.line) == (KEY, 7)
    assert problem.reason.startswith("the dataset's objects hold more than 100 keys (limits.max_keyed_rows of ")
