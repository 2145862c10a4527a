"""A source's addresses as ``_source.json`` writes them: what makes one usable, its ``{placeholders}``, what may be
shown of it (``public_url``), and the credentials it must never hold as text.

Every message about an address shows it as ``public_url`` does (its scheme, host, port and path; the query, which may
hold a key, as ``?...``), so a refused source never shows a key written into it. A query parameter named like a
credential (``credential_like``) takes its value from a secret parameter (``?license_key={license_key}``), never as
text in the bucket.
"""

from __future__ import annotations

import re
import string
from collections.abc import Collection
from typing import Any, Final
from urllib.parse import parse_qsl, urlsplit

from fencepost.core.storage.objects import FolderError

MAX_URL: Final = 2048
PARAM: Final = re.compile(r"[a-z][a-z0-9_]{0,39}")
# What a credential's name holds, once lower-cased without "-", "_" and ".": license_key, apikey, access_token,
# client_secret, password, passwd, pwd, X-Amz-Credential, X-Amz-Signature, sig, auth, sessionid, jwt. A name that
# holds one of these by chance (keyword) must be a secret too: the refusal says how.
_CREDENTIAL: Final = re.compile(
    r"key|token|secret|passw|pass$|pwd$|credential|signature|^sig$|^auth(orization)?$|^session(id)?$|^jwt$"
)
_PLACEHOLDER: Final = re.compile(r"\{([a-z][a-z0-9_]{0,39})\}")


def public_url(url: str) -> str:
    """An address as messages, reports and the API show it: without its query (which may carry a key written into
    it) or a user; placeholders stay placeholders."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{host}{port}{parts.path}" + ("?..." if parts.query else "")


def checked_url(value: Any, where: str, https_only: bool) -> str:
    """``value`` if it is an address a source may name: http(s), a host, ASCII, no spaces, no user or password."""
    try:
        parts = urlsplit(value) if isinstance(value, str) and len(value) <= MAX_URL and value.isascii() else None
        _ = parts and parts.port  # a port that is not a number raises here, not in a check
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("https", "http") or not parts.hostname or any(c in value for c in " \t\n"):
        raise FolderError(f"{where}: url must be an https:// address (ASCII, no spaces: percent-encode the rest)")
    if https_only and parts.scheme != "https":
        raise FolderError(f"{where}: url must be https:// (plain http could be changed on the way)")
    if parts.username is not None or parts.password is not None:
        raise FolderError(f"{where}: a url never holds a user or password: use params with a secret and basic_auth")
    return str(value)


def placeholders(url: str, where: str) -> list[str]:
    """The names of ``url``'s ``{placeholders}``."""
    try:
        fields = [
            (name, spec, conversion) for _, name, spec, conversion in string.Formatter().parse(url) if name is not None
        ]
    except ValueError:
        raise FolderError(f"{where}: {public_url(url)} has an unmatched brace") from None
    names = [name for name, _, _ in fields]
    if not all(PARAM.fullmatch(name) and not spec and conversion is None for name, spec, conversion in fields):
        raise FolderError(f"{where}: placeholders in {public_url(url)} must be plain names such as {{license_key}}")
    return names


def credential_like(name: str) -> bool:
    """Whether a parameter's or a query parameter's name says its value is a credential."""
    return bool(_CREDENTIAL.search(re.sub(r"[-_.]", "", name.lower())))


def no_literal_credentials(url: str, secrets: Collection[str], where: str) -> None:
    """``FolderError`` when a query parameter named like a credential is given as text rather than as exactly one
    placeholder of a secret parameter (one of ``secrets``)."""
    for name, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if not value or not credential_like(name):
            continue
        placeholder = _PLACEHOLDER.fullmatch(value)
        if placeholder is None or placeholder[1] not in secrets:
            param = re.sub(r"[^a-z0-9_]", "_", name.lower())[:40].strip("_") or "key"
            raise FolderError(
                f"{where}: {public_url(url)} gives {name[:40]!r} in its query as text, and it is a credential: write "
                f'{name[:40]}={{{param}}} and give {param} in params as {{"secret": "<name in the secret store>"}}'
            )
