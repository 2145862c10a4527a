"""The hosts a secret may be sent to, declared where a bucket writer cannot change them: on the secret itself.

Anyone who can write a ``_source.json`` can name a secret in it, and an address to fill it into; so the address alone
cannot decide where a secret goes. Each secret says it in its tag ``fencepost:hosts``: host names separated by
spaces (tag values allow no commas), e.g. ``download.maxmind.com``; only the operator, who may tag secrets, sets it.
A secret without the tag may go only to the publishers of the presets that take a credential
(``DEFAULT_HOSTS``: MaxMind's download host), so the presets work as documented and nothing else does.
A host is matched whole (no wildcards), without a port, in lower case.
"""

from __future__ import annotations

from typing import Final
from urllib.parse import urlsplit

from fencepost.core.sources.presets import PRESETS

HOSTS_TAG: Final = "fencepost:hosts"


def _preset_hosts() -> frozenset[str]:
    hosts = set()
    for preset in PRESETS.values():
        if preset.params:  # a preset that asks for parameters asks for a credential (MaxMind's licence key)
            for entry in preset.source.get("files") or [preset.source]:
                hosts.add(urlsplit(entry["url"]).hostname or "")
    return frozenset(hosts - {""})


DEFAULT_HOSTS: Final = _preset_hosts()


def tagged_hosts(value: str | None) -> frozenset[str] | None:
    """The hosts a ``fencepost:hosts`` tag names (None: the secret has no such tag)."""
    if value is None:
        return None
    return frozenset(host.lower().rstrip(".") for host in value.split() if host.strip("."))
