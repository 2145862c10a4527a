"""The GeoLite2 profiles of MaxMind DB exports: the record shape and ``database_type`` each writes, the fields it
reads, and which of a version's columns answers each field.

A profile's file is read by the readers that know only MaxMind's own shapes: ``geoip2``'s ``Reader.country()``,
``.city()`` and ``.asn()`` check that ``database_type`` contains ``Country``, ``City`` or ``GeoLite2-ASN``;
Elasticsearch, Logstash and nginx's ``geoip2`` module read the record's paths. The records themselves:
``core.versions.geolite2_records``.

Each field is answered by a column: the one the folder's ``"mmdb_profile_columns"`` names for it, else the first of
``DEFAULT_COLUMNS[field]`` the version has (names compared without regard to case). A field a profile ``needs`` and
no column answers refuses the export (``ProfileError``: the profile, the field and the columns the version has);
the other fields are written where a column answers them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

ColumnMap = tuple[tuple[str, str], ...]  # (field, column), as a folder's "mmdb_profile_columns" names them
MMDB_PREFIX: Final = "mmdb:"  # a folder's "exports" names a profile as "mmdb:<profile>"


class ProfileError(ValueError):
    """A profile that cannot be written from these columns, or a mapping that is not one."""


@dataclass(frozen=True, slots=True)
class Profile:
    name: str  # as asked for: profile=<name>
    database_type: str  # the metadata's database_type, which the readers check
    needs: tuple[str, ...]  # fields without which the export is refused
    uses: tuple[str, ...]  # every field it writes where a column answers it


DEFAULT_COLUMNS: Final[Mapping[str, tuple[str, ...]]] = {
    "country": ("country_code", "country_iso_code", "country.iso_code", "iso_code", "cc", "country", "country_iso"),
    "country_name": ("country_name", "country.names.en"),
    "registered_country": ("registered_country_code", "registered_country.iso_code", "registered_country"),
    "city": ("city", "city_name", "city.names.en"),
    "region": ("region", "region_name", "subdivision", "subdivision_name", "state", "subdivisions.0.names.en"),
    "region_code": ("region_code", "subdivision_code", "subdivision_iso_code", "state_code", "subdivisions.0.iso_code"),
    "postal": ("postal_code", "postal", "postcode", "zip", "zip_code", "postal.code"),
    "latitude": ("latitude", "lat", "location.latitude"),
    "longitude": ("longitude", "lon", "lng", "long", "location.longitude"),
    "asn": ("asn", "as_number", "autonomous_system_number", "asnum", "origin_as", "as"),
    "organization": (
        *("as_name", "as_org", "as_organization", "as_description", "autonomous_system_organization"),
        *("organization", "organisation", "org", "isp", "name", "description"),
    ),
}
_COUNTRY: Final = ("country", "country_name", "registered_country")
_CITY: Final = ("city", "region", "region_code", "postal", "latitude", "longitude")
PROFILES: Final[Mapping[str, Profile]] = {
    "geolite2-country": Profile("geolite2-country", "GeoLite2-Country", ("country",), _COUNTRY),
    "geolite2-city": Profile("geolite2-city", "GeoLite2-City", ("country", "city"), _COUNTRY + _CITY),
    "geolite2-asn": Profile("geolite2-asn", "GeoLite2-ASN", ("asn",), ("asn", "organization")),
}


def profile_named(name: str) -> Profile:
    """The profile of a name, or ``ProfileError`` naming the profiles there are."""
    found = PROFILES.get(name)
    if found is None:
        raise ProfileError(f"invalid profile {name[:40]!r}: one of {', '.join(PROFILES)}")
    return found


def parse_column_map(value: Any) -> ColumnMap:
    """A folder's ``"mmdb_profile_columns"``: an object of field names to column names (sorted by field)."""
    if value is None:
        return ()
    example = '{"country": "cc", "asn": "as_number"}'
    if not isinstance(value, dict) or not all(isinstance(column, str) and column.strip() for column in value.values()):
        raise ProfileError(f"mmdb_profile_columns must be an object of fields to column names, e.g. {example}")
    unknown = sorted(set(value) - set(DEFAULT_COLUMNS))
    if unknown:
        raise ProfileError(f"mmdb_profile_columns names unknown fields {unknown}; known: {list(DEFAULT_COLUMNS)}")
    return tuple(sorted((field, column.strip()) for field, column in value.items()))


def stored_map(mapping: ColumnMap) -> str | None:
    """A mapping as a version's header keeps it (JSON); None for none."""
    return json.dumps(dict(mapping), separators=(",", ":")) if mapping else None


def loaded_map(text: str | None) -> ColumnMap:
    """A mapping a version's header kept; a header without one (or with one no longer readable) maps nothing."""
    try:
        return parse_column_map(json.loads(text)) if text else ()
    except (ValueError, ProfileError):
        return ()


def field_columns(columns: Sequence[str], mapping: ColumnMap = ()) -> dict[str, int]:
    """Each field a column answers, and that column's index; ``ProfileError`` for a mapped column the version
    lacks."""
    at = {name: index for index, name in reversed(list(enumerate(columns)))}
    folded = {name.casefold(): index for index, name in reversed(list(enumerate(columns)))}
    found: dict[str, int] = {}
    for field, column in mapping:
        if column not in at:
            raise ProfileError(
                f"mmdb_profile_columns answers {field} with {column!r}, which is not a column of the data; its "
                f"columns are {list(columns)}"
            )
        found[field] = at[column]
    for field, candidates in DEFAULT_COLUMNS.items():
        if field not in found:
            index = next((folded[c] for c in candidates if c in folded), None)
            if index is not None:
                found[field] = index
    return found


def check_profile(profile: Profile, columns: Sequence[str], mapping: ColumnMap = ()) -> dict[str, int]:
    """The fields ``profile`` writes and their columns' indexes; ``ProfileError`` when a field it needs has none."""
    found = field_columns(columns, mapping)
    for field in profile.needs:
        if field not in found:
            raise ProfileError(
                f"profile {profile.name} needs a column for {field}: the data has none of the default names "
                f"({', '.join(DEFAULT_COLUMNS[field])}) and mmdb_profile_columns names none; its columns are "
                f"{list(columns)}"
            )
    return {field: index for field, index in found.items() if field in profile.uses}


def asked_profiles(exports: Sequence[str]) -> list[Profile]:
    """The profiles a folder's ``"exports"`` names (``"mmdb:<profile>"``), in its order."""
    return [profile_named(name.removeprefix(MMDB_PREFIX)) for name in exports if name.startswith(MMDB_PREFIX)]


def check_folder(columns: Sequence[str], exports: Sequence[str], mapping: ColumnMap) -> None:
    """A folder's profiles and mapping against the columns its build has; ``ProfileError`` for the first that
    cannot apply."""
    field_columns(columns, mapping)
    for profile in asked_profiles(exports):
        try:
            check_profile(profile, columns, mapping)
        except ProfileError as error:
            raise ProfileError(f"exports names mmdb:{profile.name}, and {error}") from None
