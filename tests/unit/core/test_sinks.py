"""Sinks in the pure core: the ``"sinks"`` setting parsed (bad values refused by name, no part of the settings
digest), a version's pieces as the fewest CIDR networks per family (touching pieces merged, ``where`` applied),
split into sets of at most N, and the difference a push applies, in batches of at most 100 changes."""

from __future__ import annotations

import ipaddress

import pytest

from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.sinks.plan import SinkError, difference, matching, networks, split
from fencepost.core.sinks.sink_settings import PrefixListSink, RuleGroup, WafSink
from fencepost.core.storage.objects import FolderError
from fencepost.core.versions.where_clause import Where


def parsed(document: str) -> FolderSettings:
    return FolderSettings.parse(document.encode(), "drop/_settings.json")


def v4(text: str) -> int:
    return int(ipaddress.IPv4Address(text))


def test_sinks_unset_name_none_and_true_takes_the_defaults() -> None:
    assert parsed("{}").sinks.named == {}
    sinks = parsed('{"sinks": {"waf": true, "prefix_list": {"id": "pl-0123456789abcdef0"}}}').sinks
    assert sinks.waf == WafSink(scope="REGIONAL", set_size=10_000, max_sets=10, where=None, lock_retries=5)
    assert sinks.prefix_list == PrefixListSink("pl-0123456789abcdef0", resize=False)
    assert list(sinks.named) == ["waf", "prefix_list"]


def test_a_sink_reads_its_scope_size_and_where() -> None:
    waf = parsed('{"sinks": {"waf": {"scope": "CLOUDFRONT", "set_size": 500, "where": "country:AU:x"}}}').sinks.waf
    assert waf == WafSink(scope="CLOUDFRONT", set_size=500, where=Where("country", "AU:x"))


@pytest.mark.parametrize(
    ("sinks", "message"),
    [
        ('"waf"', "sinks must be an object"),
        ('{"shield": {}}', "sinks has unknown sinks ['shield']"),
        ('{"waf": {"scope": "GLOBAL"}}', "sinks.waf.scope must be one of ['REGIONAL', 'CLOUDFRONT']"),
        ('{"waf": {"set_size": 10001}}', "sinks.waf.set_size must be a whole number from 1 to 10,000"),
        ('{"waf": {"set_size": true}}', "sinks.waf.set_size must be a whole number"),
        ('{"waf": {"sets": 2}}', "sinks.waf has unknown settings ['sets']"),
        ('{"waf": {"where": "country"}}', 'sinks.waf.where must be "<column>:<value>"'),
        ('{"prefix_list": {}}', "sinks.prefix_list.id must name a managed prefix list"),
        ('{"prefix_list": {"id": "pl-1", "resize": "yes"}}', "sinks.prefix_list.id must name"),
        ('{"prefix_list": {"id": "pl-0123456789abcdef0", "resize": 1}}', "sinks.prefix_list.resize must be true"),
    ],
)
def test_a_bad_sink_setting_is_refused_by_name(sinks: str, message: str) -> None:
    with pytest.raises(FolderError, match="drop/_settings.json: " + message.replace("[", r"\[").replace("(", r"\(")):
        parsed(f'{{"sinks": {sinks}}}')


def test_sinks_are_no_part_of_the_settings_digest() -> None:
    assert settings_digest(parsed('{"sinks": {"waf": true}}')) == settings_digest(parsed("{}"))


def test_touching_pieces_merge_into_the_fewest_networks_per_family() -> None:
    pieces = [
        (4, v4("10.0.0.0"), v4("10.0.0.255"), ["a"]),
        (4, v4("10.0.1.0"), v4("10.0.1.255"), ["b"]),  # touches the first: one /23
        (4, v4("10.0.3.0"), v4("10.0.3.4"), ["a"]),  # 10.0.3.0/30 and 10.0.3.4/32
        (6, 1 << 120, (2 << 120) - 1, ["a"]),
    ]
    assert networks(pieces) == {4: ["10.0.0.0/23", "10.0.3.0/30", "10.0.3.4/32"], 6: ["100::/8"]}


def test_a_whole_address_space_is_its_two_halves() -> None:
    assert networks([(4, 0, (1 << 32) - 1, ["x"])])[4] == ["0.0.0.0/1", "128.0.0.0/1"]


def test_where_keeps_the_pieces_whose_column_holds_the_value() -> None:
    pieces = [(4, 1, 1, ["AU", "1"]), (4, 2, 2, ["NZ", "2"]), (4, 3, 3, ["AU", "3"])]
    kept = list(matching(pieces, ("country", "asn"), Where("country", "AU")))
    assert [piece[1] for piece in kept] == [1, 3]
    with pytest.raises(SinkError, match="where names a column the version does not have: 'city'"):
        list(matching(pieces, ("country", "asn"), Where("city", "x")))


def test_25000_networks_split_into_three_sets_of_at_most_10000() -> None:
    entries = [f"10.{n // 256}.{n % 256}.0/24" for n in range(25_000 // 2)] * 2
    sets = split(entries, 10_000)
    assert [len(chunk) for chunk in sets] == [10_000, 10_000, 5_000]
    assert split([], 10_000) == []


def test_the_difference_adds_and_removes_and_batches_at_most_100_each() -> None:
    change = difference(
        ["10.0.0.0/8", "11.0.0.0/8", "2001:DB8:0:0::/32"], ["10.0.0.0/8", "2001:db8::/32", "12.0.0.0/8"]
    )
    assert (change.added, change.removed) == (["12.0.0.0/8"], ["11.0.0.0/8"])
    assert difference(["10.0.0.0/8"], ["10.0.0.0/8"]).empty
    big = difference([f"11.0.{n}.0/24" for n in range(150)], [f"10.0.{n}.0/24" for n in range(250)])
    batches = list(big.batches())
    assert [(len(added), len(removed)) for added, removed in batches] == [
        (0, 100),
        (0, 50),
        (100, 0),
        (100, 0),
        (50, 0),
    ]


def test_a_rule_group_takes_an_action_and_a_capacity_of_twice_max_sets_by_default() -> None:
    waf = parsed('{"sinks": {"waf": {"max_sets": 4, "rule_group": true}}}').sinks.waf
    assert waf is not None
    assert waf.rule_group == RuleGroup("BLOCK", 8)
    chosen = parsed('{"sinks": {"waf": {"rule_group": {"action": "COUNT", "capacity": 3}}}}').sinks.waf
    assert chosen is not None
    assert chosen.rule_group == RuleGroup("COUNT", 3)
    with pytest.raises(FolderError, match=r"sinks.waf.rule_group.action must be one of \['BLOCK', 'ALLOW', 'COUNT'\]"):
        parsed('{"sinks": {"waf": {"rule_group": {"action": "DROP"}}}}')
