"""Folder rules through the real loader (S3, the queues, DynamoDB Local): rows that mean "no data" answer
NOT_FOUND with the gap they leave, constants reach every answer, a GeoLite2 CSV folder is one joined dataset, and a
rule that cannot apply fails the load while the live version keeps answering."""

from __future__ import annotations

import json
from typing import Any

from tests.support.lookups import batch_lookup
from tests.support.stacks import Stack

# iptoasn's layout: AS 0 marks unrouted space, here inside a routed /16 and around a nested routed /24
IPTOASN = (
    "1.0.0.0\t1.0.255.255\t13335\tUS\tCLOUDFLARENET\n"
    "1.0.16.0\t1.0.31.255\t0\tNone\tNot routed\n"
    "1.0.20.0\t1.0.20.255\t4608\tAU\tAPNIC\n"
)


def _lookup(stack: Stack, dataset: str, *ips: str) -> list[dict[str, Any]]:
    return batch_lookup(stack, dataset, list(ips))


def test_gap_when_rows_are_holes_and_constants_reach_every_answer(stack: Stack) -> None:
    settings = {"columns": ["asn", "cc", "name"], "gap_when": {"asn": 0}, "constants": {"source": "iptoasn"}}
    stack.put("asn/_settings.json", json.dumps(settings))
    stack.put("asn/ip2asn-v4.tsv", IPTOASN)
    stack.drain()
    assert stack.dataset("asn")["status"] == "READY"
    outer, hole, nested, after_nested, after = _lookup(
        stack, "asn", "1.0.0.1", "1.0.16.1", "1.0.20.9", "1.0.21.0", "1.0.32.0"
    )
    assert outer["data"] == {"asn": "13335", "cc": "US", "name": "CLOUDFLARENET", "source": "iptoasn"}
    assert hole["error"]["code"] == "NOT_FOUND"
    assert hole["gap"] == {"start": "1.0.16.0", "end": "1.0.19.255", "network": "1.0.16.0/22"}
    assert nested["data"]["asn"] == "4608"
    assert after_nested["gap"] == {"start": "1.0.21.0", "end": "1.0.31.255", "network": "1.0.21.0/24"}
    assert after["data"]["asn"] == "13335"


def test_a_rule_that_cannot_apply_fails_the_load_and_the_live_version_keeps_answering(stack: Stack) -> None:
    stack.put("asn/_settings.json", json.dumps({"columns": ["asn", "cc", "name"]}))
    stack.put("asn/ip2asn-v4.tsv", IPTOASN)
    stack.drain()
    before = _lookup(stack, "asn", "1.0.0.1", "1.0.16.1")
    stack.put("asn/_settings.json", json.dumps({"columns": ["asn", "cc", "name"], "gap_when": {"as_number": "0"}}))
    stack.drain()
    record = stack.dataset("asn")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    problem = record["load"]["problems"][0]
    assert problem["object"] == "asn/_settings.json"
    assert "gap_when names columns the data does not have: ['as_number']" in problem["reason"]
    assert _lookup(stack, "asn", "1.0.0.1", "1.0.16.1") == before


BLOCKS_V4 = (
    "network,geoname_id,registered_country_geoname_id,represented_country_geoname_id,is_anonymous_proxy,"
    "is_satellite_provider,postal_code,latitude,longitude,accuracy_radius,is_anycast\n"
    "1.0.0.0/24,2077456,2077456,,0,0,,-33.4940,143.2104,1000,\n"
    "1.0.1.0/24,,1814991,,0,0,,,,,\n"  # no geoname_id: the registered country's location
    "1.0.2.0/23,9999999,1814991,,0,0,,,,,\n"  # a geoname_id the locations file lacks
)
BLOCKS_V6 = BLOCKS_V4.splitlines(keepends=True)[0] + "2001:db8::/32,2077456,2077456,,0,0,,,,100,\n"
LOCATIONS_HEADER = (
    "geoname_id,locale_code,continent_code,continent_name,country_iso_code,country_name,subdivision_1_iso_code,"
    "subdivision_1_name,subdivision_2_iso_code,subdivision_2_name,city_name,metro_code,time_zone,"
    "is_in_european_union\n"
)
LOCATIONS_EN = LOCATIONS_HEADER + (
    "2077456,en,OC,Oceania,AU,Australia,,,,,,,Australia/Sydney,0\n1814991,en,AS,Asia,CN,China,,,,,,,Asia/Shanghai,0\n"
)
LOCATIONS_DE = LOCATIONS_EN.replace(",en,", ",de,").replace("Australia,", "Australien,")


def test_a_geolite2_csv_folder_loads_as_one_dataset_joined_with_its_locations(stack: Stack) -> None:
    stack.put("city/GeoLite2-City-Blocks-IPv4.csv", BLOCKS_V4)
    stack.put("city/GeoLite2-City-Blocks-IPv6.csv", BLOCKS_V6)
    stack.put("city/GeoLite2-City-Locations-en.csv", LOCATIONS_EN)
    stack.put("city/GeoLite2-City-Locations-de.csv", LOCATIONS_DE)
    stack.drain()
    record = stack.dataset("city")
    assert (record["status"], record["ranges"]) == ("READY", 4)  # the locations files are not range files
    au, cn, unknown, six = _lookup(stack, "city", "1.0.0.1", "1.0.1.1", "1.0.2.1", "2001:db8::1")
    assert au["data"]["country_name"] == "Australia"
    assert au["data"]["latitude"] == "-33.4940"
    assert (cn["data"]["geoname_id"], cn["data"]["country_iso_code"], cn["data"]["continent_name"]) == (
        "",
        "CN",
        "Asia",
    )
    assert unknown["data"]["country_name"] == ""
    assert six["data"]["time_zone"] == "Australia/Sydney"
    # Another locale is a settings change: a new version, joined with the German names
    stack.put("city/_settings.json", json.dumps({"locale": "de"}))
    stack.drain()
    assert stack.dataset("city")["version"] == 2
    assert _lookup(stack, "city", "1.0.0.1")[0]["data"]["country_name"] == "Australien"
    # A changed locations table is a changed version
    stack.put("city/GeoLite2-City-Locations-de.csv", LOCATIONS_DE.replace("Australien", "Australien (AU)"))
    stack.drain()
    assert stack.dataset("city")["version"] == 3
    assert _lookup(stack, "city", "1.0.0.1")[0]["data"]["country_name"] == "Australien (AU)"
    # The block whose geoname_id the locations file lacks loaded with empty location columns, and says so
    problems = stack.dataset("city")["load"]["problems"]
    assert problems[0] == {
        "object": "city/GeoLite2-City-Locations-de.csv",
        "line": None,
        "reason": "1 of 4 rows have a geoname_id that city/GeoLite2-City-Locations-de.csv lacks, e.g. '9999999' "
        "(at 1.0.2.0): their joined columns are empty",
    }


def test_a_join_that_misses_too_many_rows_or_a_table_with_a_key_twice_fails_and_the_live_version_answers(
    stack: Stack,
) -> None:
    stack.put("city/GeoLite2-City-Blocks-IPv4.csv", BLOCKS_V4)
    stack.put("city/GeoLite2-City-Locations-en.csv", LOCATIONS_EN)
    stack.drain()
    assert (stack.dataset("city")["status"], stack.dataset("city")["version"]) == ("READY", 1)
    # max_unjoined_rows turns the warning into a failure
    stack.put("city/_settings.json", json.dumps({"max_unjoined_rows": 0}))
    stack.drain()
    record = stack.dataset("city")
    assert (record["status"], record["version"], record["load"]["version"]) == ("FAILED", 1, 2)
    assert record["load"]["problems"][0]["reason"].endswith(
        "their joined columns are empty; max_unjoined_rows allows 0"
    )
    # A locations file that holds a geoname_id twice with different values fails, naming both lines
    stack.put("city/_settings.json", json.dumps({"max_unjoined_rows": 1}))
    stack.put("city/GeoLite2-City-Locations-en.csv", LOCATIONS_EN + "2077456,en,OC,Oceania,AU,Oz,,,,,,,,0\n")
    stack.drain()
    record = stack.dataset("city")
    assert (record["status"], record["version"]) == ("FAILED", 1)
    assert record["load"]["problems"][0] == {
        "object": "city/GeoLite2-City-Locations-en.csv",
        "line": None,
        "reason": "city/GeoLite2-City-Locations-en.csv has geoname_id '2077456' twice with different values, at "
        "lines 2 and 4: a row could join either; remove one",
    }
    assert _lookup(stack, "city", "1.0.0.1")[0]["data"]["country_name"] == "Australia"  # version 1 answers
