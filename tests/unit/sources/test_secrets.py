"""A source's secrets and the publisher's words: a secret goes only to the hosts its tag names (and nothing is sent
otherwise), a refused source never shows a key written into it, and a publisher's long reason is stored short."""

from __future__ import annotations

import json

from fencepost.core.sources.schedule import Outcome
from tests.unit.sources.world import RELEASE, World


def test_a_source_naming_a_secret_for_a_host_of_its_own_fails_and_sends_nothing(world: World) -> None:
    # The _source.json: anyone who may write the bucket, asking for the MaxMind key at their own address
    world.secrets.values["fencepost/maxmind"] = "MAXMIND-LICENCE"
    url = world.site.url("/x?k={k}", host="attacker.example")
    world.source({"url": url, "name": "x.txt", "params": {"k": {"secret": "fencepost/maxmind"}}})
    refused = world.checker.check("drop")
    assert refused.outcome is Outcome.FAILED
    assert refused.reason == (
        f"http://attacker.example:{world.site.server.server_address[1]}/x?...: secret 'fencepost/maxmind' may be "
        "sent only to download.maxmind.com (it has no fencepost:hosts tag: the presets' hosts), not to "
        "attacker.example: refused, nothing was sent"
    )
    assert world.site.seen == []
    # Tagged by the operator for that host, it is sent there
    world.site.publish("/x", RELEASE)
    world.secrets.hosts["fencepost/maxmind"] = "attacker.example"
    assert world.checker.check("drop", force=True).outcome is Outcome.CHANGED
    assert world.site.seen[0].target == "/x?k=MAXMIND-LICENCE"


def test_a_refused_source_never_shows_a_key_written_into_it(world: World) -> None:
    for document in (
        {"url": "https://e.org/db.tsv?license_key=L1TERAL&edition={edition}"},  # a param it does not give
        {"url": "https://e.org/db.tsv?license_key=L1TERAL&x={a-b}"},  # a placeholder that is not a name
        {"url": "https://e.org/db.tsv?license_key=L1TERAL&x={"},  # an unmatched brace
        {"url": "https://e.org/db.tsv?license_key=L1TERAL"},  # the key itself, as text
        {"url": "https://e.org/db.tsv", "sha256_url": "https://e.org/db.sha256?token=L1TERAL"},
    ):
        world.source(document)
        checked = world.checker.check("drop")
        assert checked.outcome is Outcome.INVALID
        shown = json.dumps(world.states.states["drop"].to_api())
        assert "L1TERAL" not in checked.reason + shown
        assert "https://e.org/db." in checked.reason


def test_a_publishers_long_reason_is_stored_short(world: World) -> None:
    world.site.publish("/drop.txt", b"", refuse=(451, "Unavailable " + "x" * 60_000))
    world.source({"url": world.site.url("/drop.txt")})
    assert world.checker.check("drop").outcome is Outcome.FAILED
    reason = world.states.states["drop"].to_api()["reason"]
    assert reason.startswith(world.site.url("/drop.txt") + ": the server answered 451 Unavailable xxx")
    assert len(reason) < 300


def test_any_reason_is_stored_at_most_a_thousand_characters(world: World) -> None:
    world.source({"url": "https://e.org/x", **{f"setting_{k}": k for k in range(10_000)}})
    assert world.checker.check("drop").outcome is Outcome.INVALID
    reason = world.states.states["drop"].to_api()["reason"]
    assert reason.startswith("drop/_source.json has unknown settings ['setting_0', 'setting_1'")
    assert len(reason) == 1000
