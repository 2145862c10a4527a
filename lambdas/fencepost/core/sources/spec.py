"""A folder's source (``_source.json``): where its data is published, how often to check, and what to keep.

    {"url": "https://example.org/list.netset", "every": "1d"}
    {"files": [{"url": "https://…/a.csv"}, {"url": "https://…/b.csv", "name": "b.csv"}], "every": "6h"}
    {"preset": "geolite2-country-csv", "account_id": "123456", "license_key": {"secret": "maxmind"}}

A file's ``url`` may name parameters in braces (``{license_key}``), each given in ``params`` (or, for a preset, at the
top level) as text or as a reference to a secret (``{"secret": "<Secrets Manager name>", "key": "<field>"}``); a
parameter or a query parameter whose name says it is a credential (key, token, password, secret: see
``fencepost.core.sources.urls``) must be a reference, and a URL never carries a user and password of its own, so
no credential is ever stored in the bucket, and no message shows more of an address than ``public_url``.
``basic_auth`` sends two parameters as HTTP basic authentication. ``unpack`` (``zip``, ``tar.gz``) keeps the members
its ``members`` patterns name (each pattern must match exactly one member: a publisher's changed layout fails, it
never loads half a release); ``sha256_url`` is the publisher's checksum of the download, checked before anything is
written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from fencepost.core.sources.presets import PRESETS, Preset
from fencepost.core.sources.urls import (
    PARAM,
    checked_url,
    credential_like,
    no_literal_credentials,
    placeholders,
    public_url,
)
from fencepost.core.storage.objects import FolderError

UNITS: Final = {"s": 1, "m": 60, "h": 3600, "d": 86400}
MAX_EVERY: Final = 30 * 86400
MAX_FILES: Final = 16
MAX_MEMBERS: Final = 16
ARCHIVES: Final = ("zip", "tar.gz")
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
_TOP = {"url", "name", "unpack", "members", "sha256_url", "files", "every", "params", "basic_auth"}
_TOP |= {"max_bytes", "paused", "preset"}
_FILE = {"url", "name", "unpack", "members", "sha256_url"}


@dataclass(frozen=True, slots=True)
class Secret:
    """A reference to a secret: its name in the secret store, and the field of a JSON secret (None: all of it)."""

    name: str
    key: str | None = None


Param = str | Secret


@dataclass(frozen=True, slots=True)
class FeedFile:
    """One download: its URL (with ``{param}`` placeholders), the object it becomes (or, unpacked, the members kept)."""

    url: str
    name: str
    unpack: str | None = None
    members: tuple[str, ...] = ()
    sha256_url: str | None = None


@dataclass(frozen=True, slots=True)
class Source:
    files: tuple[FeedFile, ...]
    every: int  # seconds between checks
    params: Mapping[str, Param]
    basic_auth: tuple[str, str] | None = None  # parameter names: user, password
    max_bytes: int | None = None
    paused: bool = False
    preset: str | None = None
    digest: str = ""  # of the document as parsed: a changed source is checked at once, its validators forgotten

    def shown_url(self) -> str:
        """The first file's address as anyone may see it (``public_url``), and how many more files there are."""
        more = len(self.files) - 1
        return public_url(self.files[0].url) + (f" (and {more} more)" if more else "")


def parse_every(value: Any, where: str, least: int) -> int:
    """``"5m"``, ``"1h"``, ``"1d"``: seconds, at least ``least`` and at most 30 days."""
    return parse_duration(value, where, "every", least=least, most=MAX_EVERY)


def parse_duration(value: Any, where: str, name: str, *, least: int, most: int) -> int:
    """A duration written as a number and a unit (``"5m"``, ``"36h"``, ``"8d"``): seconds, from ``least`` to ``most``
    (``most`` a whole number of days); every mistake a ``FolderError`` naming the setting ``name``."""
    found = re.fullmatch(r"\s*(\d{1,7})\s*([smhd])\s*", value) if isinstance(value, str) else None
    if found is None:
        raise FolderError(f'{where}: {name} must be a number and a unit (s, m, h or d), e.g. "1d" or "6h"')
    seconds = int(found[1]) * UNITS[found[2]]
    if seconds < least:
        raise FolderError(f"{where}: {name} is at least {least:,} s here ({value!r} is {seconds:,} s)")
    if seconds > most:
        raise FolderError(f"{where}: {name} is at most {most // UNITS['d']:,}d")
    return seconds


def parse_source(raw: bytes, where: str, *, least_every: int, https_only: bool) -> Source:
    """``_source.json`` checked: every mistake is a ``FolderError`` naming the setting and what it accepts."""
    try:
        document = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise FolderError(f"{where} is not valid JSON: {str(error)[:200]}") from None
    if not isinstance(document, dict):
        raise FolderError(f"{where} must hold a JSON object")
    digest = hashlib.sha256(json.dumps(document, sort_keys=True).encode()).hexdigest()[:16]
    preset_name = document.get("preset")
    if preset_name is not None:
        document = _expanded(document, preset_name, where)
    unknown = sorted(set(document) - _TOP)
    if unknown:
        raise FolderError(f"{where} has unknown settings {unknown}; known: {sorted(_TOP)}")
    params = _params(document.get("params"), where)
    files = _files(document, where, https_only)
    for feed in files:
        for url in filter(None, (feed.url, feed.sha256_url)):
            missing = sorted(set(placeholders(url, where)) - set(params))
            if missing:
                raise FolderError(f"{where}: {public_url(url)} names {missing}, which params does not give")
            no_literal_credentials(url, [name for name, value in params.items() if isinstance(value, Secret)], where)
    return Source(
        files=files,
        every=parse_every(document.get("every", "1d"), where, least_every),
        params=params,
        basic_auth=_basic_auth(document.get("basic_auth"), params, where),
        max_bytes=_max_bytes(document.get("max_bytes"), where),
        paused=_paused(document.get("paused", False), where),
        preset=preset_name,
        digest=digest,
    )


def _expanded(document: dict[str, Any], name: Any, where: str) -> dict[str, Any]:
    """A preset's source, with the document's own settings over it and its parameters gathered into ``params``."""
    preset: Preset | None = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise FolderError(f"{where}: preset {str(name)[:60]!r} is unknown; known: {sorted(PRESETS)}")
    given = {key: value for key, value in document.items() if key in preset.params}
    missing = sorted(set(preset.params) - set(given))
    if missing:
        raise FolderError(f"{where}: preset {name!r} needs {missing} ({preset.doc})")
    own = {key: value for key, value in document.items() if key not in preset.params and key != "preset"}
    if "files" in own or "url" in own:
        raise FolderError(f"{where}: a preset names its own files; leave out url and files")
    return {**preset.source, **own, "params": {**preset.source.get("params", {}), **given, **own.get("params", {})}}


def _files(document: dict[str, Any], where: str, https_only: bool) -> tuple[FeedFile, ...]:
    listed = document.get("files")
    if listed is not None and "url" in document:
        raise FolderError(f"{where}: give url (one file) or files (several), not both")
    if listed is None:
        if "url" not in document:
            raise FolderError(f'{where}: url is missing, e.g. {{"url": "https://example.org/list.txt", "every": "1d"}}')
        listed = [{key: document[key] for key in _FILE if key in document}]
    elif any(key in document for key in _FILE - {"url"}):
        raise FolderError(f"{where}: with files, name, unpack, members and sha256_url go in each file")
    if not isinstance(listed, list) or not listed or len(listed) > MAX_FILES:
        raise FolderError(f"{where}: files must be a list of 1 to {MAX_FILES} objects, each with a url")
    files = tuple(_file(entry, f"{where} files[{index}]", https_only) for index, entry in enumerate(listed))
    names = [feed.name for feed in files if feed.unpack is None]
    if len(set(names)) != len(names):
        raise FolderError(f"{where}: two files are saved under one name; give each a name of its own")
    return files


def _file(entry: Any, where: str, https_only: bool) -> FeedFile:
    if not isinstance(entry, dict) or not isinstance(entry.get("url"), str):
        raise FolderError(f"{where}: must be an object with a url")
    unknown = sorted(set(entry) - _FILE)
    if unknown:
        raise FolderError(f"{where} has unknown settings {unknown}; known: {sorted(_FILE)}")
    url = checked_url(entry["url"], where, https_only)
    sha256_url = entry.get("sha256_url")
    if sha256_url is not None:
        sha256_url = checked_url(sha256_url, f"{where} sha256_url", https_only)
    unpack = entry.get("unpack")
    if unpack is not None and unpack not in ARCHIVES:
        raise FolderError(f"{where}: unpack is one of {list(ARCHIVES)}")
    members = entry.get("members", [])
    if unpack is not None and (
        not isinstance(members, list)
        or not 0 < len(members) <= MAX_MEMBERS
        or not all(isinstance(pattern, str) and pattern.strip() for pattern in members)
    ):
        raise FolderError(f'{where}: unpack needs members, 1 to {MAX_MEMBERS} patterns, e.g. ["*-Blocks-IPv4.csv"]')
    if unpack is None and "members" in entry:
        raise FolderError(f"{where}: members names what to keep of an archive: give unpack too")
    name = entry.get("name", urlsplit(url).path.rsplit("/", 1)[-1])
    if not isinstance(name, str) or not _NAME.fullmatch(name) or "{" in name:
        raise FolderError(f"{where}: name (the object's name) must be letters, digits, '.', '_' or '-', e.g. drop.txt")
    return FeedFile(url=url, name=name, unpack=unpack, members=tuple(members), sha256_url=sha256_url)


def _params(value: Any, where: str) -> dict[str, Param]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise FolderError(f'{where}: params must be an object, e.g. {{"license_key": {{"secret": "maxmind"}}}}')
    params: dict[str, Param] = {}
    for name, given in value.items():
        if not PARAM.fullmatch(name):
            raise FolderError(f"{where}: param {name[:40]!r} must be a lower-case name")
        if isinstance(given, dict) and set(given) <= {"secret", "key"} and isinstance(given.get("secret"), str):
            key = given.get("key")
            if key is not None and not isinstance(key, str):
                raise FolderError(f"{where}: params.{name}.key must be text")
            params[name] = Secret(given["secret"], key)
        elif isinstance(given, str | int) and not isinstance(given, bool):
            if credential_like(name):
                raise FolderError(
                    f'{where}: {name} is a credential: give it as {{"secret": "<name in the secret store>"}}, '
                    "never as text in the bucket"
                )
            params[name] = str(given)
        else:
            raise FolderError(f'{where}: params.{name} must be text or {{"secret": "<name>"}}')
    return params


def _basic_auth(value: Any, params: Mapping[str, Param], where: str) -> tuple[str, str] | None:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or not all(name in params for name in value):
        raise FolderError(f'{where}: basic_auth names two params, user then password, e.g. ["account_id", "key"]')
    return value[0], value[1]


def _max_bytes(value: Any, where: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise FolderError(f"{where}: max_bytes must be a whole number of bytes, 1 or more")
    return value


def _paused(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise FolderError(f"{where}: paused must be true or false")
    return value
