"""A folder's settings (``_settings.json``): parsed and checked, and the digest that makes them part of what a
version is built from. Which keys are a folder's data and settings: ``core.storage.objects``."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from fencepost.core.folders.gate_settings import NAMES as GATES
from fencepost.core.folders.gates import Gates
from fencepost.core.folders.joins import JoinSpec
from fencepost.core.folders.keyed_settings import NAMES as KEYED
from fencepost.core.folders.keyed_settings import parse_keyed
from fencepost.core.folders.limits import ENVIRONMENT, FolderLimits
from fencepost.core.folders.max_age import parse_max_age
from fencepost.core.folders.rules import MAX_RULE_ENTRIES, Pairs, parse_pairs
from fencepost.core.formats.base import ReadOptions
from fencepost.core.keyed.join_spec import KeyedJoin
from fencepost.core.sinks.sink_settings import Sinks, parse_sinks
from fencepost.core.storage.objects import FolderError
from fencepost.core.versions.exports import EXPORTABLE as EXPORTS
from fencepost.core.versions.history import MAX_RETAIN_DAYS
from fencepost.core.versions.mmdb_profiles import ColumnMap, parse_column_map

MAX_INDEXED = 8  # indexed columns a folder may name: each costs a pass over the pieces and two objects per build


@dataclass(frozen=True, slots=True)
class FolderSettings:
    """The optional ``_settings.json`` of a folder.

    ``columns``: names of the metadata columns (for files without a header, or to rename);
    ``header``: true/false forces whether the first row is a header (detected when absent);
    ``max_invalid_rows``: how many invalid rows a load may skip (0: any invalid row fails the load);
    ``merge_neighbours``: join touching ranges whose metadata is identical;
    ``limits``: the loader's limits lowered for this folder (``{"max_build_rows": 1000}``; never raised);
    ``constants``: fixed columns added to every row; ``gap_when``: rows that mean "no data" (``core.folders.rules``);
    ``join``: a lookup table to complete the rows with; ``locale``: the GeoLite2 locations file
    (``core.folders.joins``); ``max_unjoined_rows``: how many rows may miss the join before the load fails (None: any
    number, a warning); ``gates``: what stops a build that shrinks or changes too much (``core.folders.gates``);
    ``index``: the columns reverse lookups may ask by value (``core.versions.value_index``), at most ``MAX_INDEXED``;
    ``exports``: the formats each new version is exported to once live (``core.versions.exports``; ``"mmdb:<profile>"``
    a GeoLite2 profile); ``numeric``: columns a MaxMind DB export stores as numbers; ``mmdb_profile_columns``: the
    column that answers each field of the GeoLite2 profiles (``core.versions.mmdb_profiles``; recorded with each
    version); ``retain_days``: how long versions stay answerable after they stop being
    live (``core.versions.history``; it governs keeping, not building, so it is no part of the settings digest);
    ``export_raw_cells``: CSV and CIDR exports write every cell as it is, even one a spreadsheet would run as a
    formula (``core.versions.exports.safe_cell``; it governs exports, not building, so it is no part of the digest
    either); ``max_age``: seconds the live version may age before the dataset is stale (0: unset, a source's default
    applies; ``core.folders.max_age``; no part of the digest); ``sinks``: where the live version is pushed (WAF IP sets,
    a managed prefix list; ``core.sinks.sink_settings``; no part of the digest); ``key``, ``key_form``: the folder is a
    keyed dataset, a table of keys with its key column and how keys compare; ``keyed_joins``: keyed datasets joined
    into this range dataset's answers at lookup time (``core.folders.keyed_settings``).
    """

    columns: tuple[str, ...] | None = None
    header: bool | None = None
    max_invalid_rows: int = 0
    merge_neighbours: bool = False
    limits: FolderLimits = field(default_factory=FolderLimits)
    # Settings added later: left out of the settings digest while unset (``core.folders.fingerprint``), so that folders
    # which do not use them keep the digest their versions were built with.
    constants: Pairs = ()
    gap_when: Pairs = ()
    join: JoinSpec | None = None
    locale: str = "en"
    gates: Gates = field(default_factory=Gates)  # digested as its fields, each a setting added later
    max_unjoined_rows: int | None = None
    index: tuple[str, ...] = ()
    exports: tuple[str, ...] = ()
    numeric: tuple[str, ...] = ()
    retain_days: int = 0
    export_raw_cells: bool = False
    max_age: int = 0
    sinks: Sinks = field(default_factory=Sinks)
    key: str | None = None
    key_form: str | None = None  # None: "text" (an AS-names list: "asn")
    keyed_joins: tuple[KeyedJoin, ...] = ()
    mmdb_profile_columns: ColumnMap = ()

    @property
    def read_options(self) -> ReadOptions:
        return ReadOptions(header=self.header, columns=self.columns, limits=self.limits)

    @classmethod
    def parse(cls, raw: bytes, where: str) -> FolderSettings:
        try:
            document = json.loads(raw.decode("utf-8-sig"))
        except (UnicodeDecodeError, ValueError, RecursionError) as error:  # (a 5,000-digit number is a ValueError)
            raise FolderError(f"{where} is not valid JSON: {str(error)[:200]}") from None
        if not isinstance(document, dict):
            raise FolderError(f"{where} must hold a JSON object")
        known = {"columns", "header", "max_invalid_rows", "merge_neighbours", "limits", "constants", "gap_when"}
        known |= {"join", "locale", "max_unjoined_rows", "index", "exports", "numeric", "retain_days", *GATES}
        known |= {"export_raw_cells", "max_age", "sinks", "mmdb_profile_columns", *KEYED}
        unknown = sorted(set(document) - known)
        if unknown:
            raise FolderError(f"{where} has unknown settings {unknown}; known: {sorted(known)}")
        return cls(
            columns=_columns(document.get("columns"), where),
            header=_optional_bool(document.get("header"), "header", where),
            max_invalid_rows=_count(document.get("max_invalid_rows", 0), where),
            merge_neighbours=bool(_optional_bool(document.get("merge_neighbours"), "merge_neighbours", where)),
            limits=_limits(document.get("limits"), where),
            **parse_keyed(document, where),  # first: a keyed folder's settings of ranges are refused as such
            **_later(document, where),
        )


def _later(document: dict[str, Any], where: str) -> dict[str, Any]:
    """The settings added later, checked."""
    try:
        found: dict[str, Any] = {
            "constants": parse_pairs(document.get("constants"), "constants"),
            "gap_when": parse_pairs(document.get("gap_when"), "gap_when"),
        }
        if document.get("join") is not None:
            found["join"] = JoinSpec.parse(document["join"])
        found["sinks"] = parse_sinks(document.get("sinks"))
        found["mmdb_profile_columns"] = parse_column_map(document.get("mmdb_profile_columns"))
    except ValueError as error:  # a ProfileError too
        raise FolderError(f"{where}: {error}") from None
    locale = document.get("locale", "en")
    if not isinstance(locale, str) or not re.fullmatch(r"[A-Za-z]{2,3}(?:-[A-Za-z]{2,4})?", locale):
        raise FolderError(f'{where}: locale must be a language code such as "en", "de" or "pt-BR"')
    found["locale"] = locale
    unjoined = document.get("max_unjoined_rows")
    if unjoined is not None:
        found["max_unjoined_rows"] = _count(unjoined, where, "max_unjoined_rows")
    found["index"] = _names(document.get("index"), where, "index", MAX_INDEXED)
    for dots in {".", ".."} & set(found["index"]):  # browsers and clients resolve such a segment of an address away
        raise FolderError(
            f"{where}: index cannot name a column {dots!r}: GET /datasets/<name>/values/{dots} would not reach it "
            '(rename the column with "columns")'
        )
    found["numeric"] = _names(document.get("numeric"), where, "numeric", MAX_RULE_ENTRIES)
    found["exports"] = _names(document.get("exports"), where, "exports", len(EXPORTS))
    found["retain_days"] = _count(document.get("retain_days", 0), where, "retain_days")
    found["max_age"] = parse_max_age(document.get("max_age"), where)
    found["export_raw_cells"] = bool(_optional_bool(document.get("export_raw_cells"), "export_raw_cells", where))
    if found["retain_days"] > MAX_RETAIN_DAYS:
        raise FolderError(f"{where}: retain_days is at most {MAX_RETAIN_DAYS:,} (ten years)")
    unknown = sorted(set(found["exports"]) - set(EXPORTS))
    if unknown:
        raise FolderError(f"{where}: exports names unknown formats {unknown}; known: {list(EXPORTS)}")
    try:
        gates = Gates.parse(document)
        found["gates"] = Gates(**gates, explicit=frozenset(gates))
    except ValueError as error:
        raise FolderError(f"{where}: {error}") from None
    return found


def _columns(value: Any, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(name, str) and name.strip() for name in value):
        raise FolderError(f"{where}: columns must be a list of non-empty names")
    names = tuple(name.strip() for name in value)
    if len(set(names)) != len(names):
        raise FolderError(f"{where}: column names must be unique")
    return names


def _names(value: Any, where: str, setting: str, most: int) -> tuple[str, ...]:
    """A list of distinct names (columns, or formats), at most ``most``."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(name, str) and name.strip() for name in value):
        raise FolderError(f'{where}: {setting} must be a list of names, e.g. ["asn", "country"]')
    names = tuple(name.strip() for name in value)
    if len(set(names)) != len(names):
        raise FolderError(f"{where}: {setting} names one twice")
    if len(names) > most:
        raise FolderError(f"{where}: {setting} names {len(names)}; at most {most}")
    return names


def _optional_bool(value: Any, name: str, where: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    raise FolderError(f"{where}: {name} must be true or false")


def _count(value: Any, where: str, name: str = "max_invalid_rows") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FolderError(f"{where}: {name} must be a whole number, 0 or more")
    return value


def _limits(value: Any, where: str) -> FolderLimits:
    if value is None:
        return FolderLimits()
    if not isinstance(value, dict):
        raise FolderError(f'{where}: limits must be an object, e.g. {{"max_build_rows": 1000}}')
    unknown = sorted(set(value) - set(ENVIRONMENT))
    if unknown:
        raise FolderError(f"{where}: unknown limits {unknown}; known: {sorted(ENVIRONMENT)}")
    for name, limit in value.items():
        if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
            raise FolderError(f"{where}: limits.{name} must be a whole number, 1 or more")
    return FolderLimits(where, tuple(sorted(value.items())))


ADDED_LATER = (
    *("constants", "gap_when", "join", "locale", "max_unjoined_rows", "index", "exports", "numeric"),
    *(*GATES, *KEYED, "mmdb_profile_columns"),
)


def settings_digest(settings: FolderSettings) -> str:
    """A short digest of the folder's settings as parsed: a change of meaning changes it, reformatting does not."""
    fields = dataclasses.asdict(settings)
    unset = dataclasses.asdict(FolderSettings())
    for name in ("retain_days", "export_raw_cells", "max_age", "sinks"):  # kept, exported, aged, pushed: not built
        fields.pop(name)
        unset.pop(name)
    fields.update(fields.pop("gates"))  # each gate a setting of its own, as in the document
    unset.update(unset.pop("gates"))
    fields.pop("explicit")  # which gates were written is in their values already
    unset.pop("explicit")
    for name in ADDED_LATER:  # unset (or at their defaults), they leave the digest as it was before they existed
        if fields[name] == unset[name]:
            fields.pop(name)
    canonical = json.dumps(fields, sort_keys=True, default=_canonical, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _canonical(value: object) -> object:
    """A value JSON cannot write, written the same way in every process (sets in order, not in hash order)."""
    if isinstance(value, set | frozenset):
        return sorted(str(element) for element in value)
    return str(value)
