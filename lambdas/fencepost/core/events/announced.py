"""Announcements made once: a dataset that turns stale is announced once for its live version, not at every round;
a source that turns failing once for its streak. What was announced is kept as a map of keys (``stale/<dataset>``)
to tokens (the version announced stale); ``to_announce`` says what is new and what to keep."""

from __future__ import annotations

from collections.abc import Collection, Mapping


def to_announce(
    kept: Mapping[str, str], found: Mapping[str, str], seen: Collection[str]
) -> tuple[list[str], dict[str, str]]:
    """The keys of ``found`` not announced yet with their token (in ``found``'s order), and what to keep after: every
    key found now, and the keys kept before that this look did not cover (``seen``: the keys it could have found),
    so that a key seen and not found (the dataset fresh again, the source well again) may be announced again later."""
    new = [key for key, token in found.items() if kept.get(key) != token]
    keep = {key: token for key, token in kept.items() if key not in seen and key not in found}
    return new, keep | dict(found)
