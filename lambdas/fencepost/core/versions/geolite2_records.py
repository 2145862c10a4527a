"""A piece's values as the record a GeoLite2 profile writes (``core.versions.mmdb_profiles``), in MaxMind's shapes.

- ``geolite2-country``: ``country`` ``{iso_code, names: {en}}``, ``registered_country`` (its own column's code, else
  the country's), ``continent`` ``{code, names: {en}}``. The continent and the English name come from the code
  (``core.versions.countries``); a ``country_name`` column's value names the country instead. A region's code
  (``EU``, ``AP``) is written as its ``continent`` alone, with no ``country``.
- ``geolite2-city``: the same, and where the values have them ``city`` ``{names: {en}}``, ``subdivisions``
  ``[{iso_code, names: {en}}]`` (a region written as an ISO 3166-2 code of the country, ``US-CA``, is its
  ``iso_code`` ``CA``), ``postal`` ``{code}``, ``location`` ``{latitude, longitude}`` (doubles, both or neither).
- ``geolite2-asn``: ``autonomous_system_number`` (an unsigned 32-bit integer) and, where there is one,
  ``autonomous_system_organization``.

A piece whose record cannot be stored is left out of the file, so the readers answer its addresses as not in the
database, and counted by reason (``left_out``): a country that is no ISO 3166-1 code of the table (iptoasn's
``None``, ``Unknown`` and ``ZZ``), or an ASN that is not a number from 1 to 4294967295 (``AS13335`` is 13335; 0, RFC
7607's "no AS", which iptoasn writes for space that is not routed, is left out as GeoLite2-ASN leaves such space
out). A latitude or longitude that is not a number in range leaves ``location`` out of the record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mmdb_writer import MmdbU32

from fencepost.core.versions.countries import CONTINENTS, REGIONS, Country, country
from fencepost.core.versions.mmdb_profiles import ColumnMap, Profile, check_profile

NOT_A_COUNTRY: Final = "no ISO 3166-1 country code"
NOT_AN_ASN: Final = "no ASN from 1 to 4294967295"
_ASN: Final = re.compile(r"(?:AS)?0*([0-9]{1,10})", re.IGNORECASE)
_SUBDIVISION: Final = re.compile(r"([A-Za-z]{2})-([A-Za-z0-9]{1,3})")
_LARGEST_ASN: Final = 2**32 - 1


class Shaper:
    """Records of one profile from one version's columns (``ProfileError`` when the profile cannot apply)."""

    def __init__(self, profile: Profile, columns: Sequence[str], mapping: ColumnMap = ()) -> None:
        self.profile = profile
        self.at = check_profile(profile, columns, mapping)

    def record(self, values: Sequence[str]) -> dict[str, Any] | str:
        """The record of a piece's values, or why it cannot be stored (``NOT_A_COUNTRY``, ``NOT_AN_ASN``)."""
        found = {field: values[index].strip() for field, index in self.at.items() if index < len(values)}
        return _asn(found) if self.profile.name == "geolite2-asn" else _place(found, self.profile.name)


def left_out(skipped: Mapping[str, int]) -> str:
    """What was left out, in words (pieces by reason); empty when nothing was."""
    told = [f"{n:,} range{'' if n == 1 else 's'} left out ({reason})" for reason, n in sorted(skipped.items()) if n]
    return "; ".join(told)


def _asn(found: dict[str, str]) -> dict[str, Any] | str:
    match = _ASN.fullmatch(found.get("asn", ""))
    number = int(match.group(1)) if match else 0
    if not 0 < number <= _LARGEST_ASN:
        return NOT_AN_ASN
    record: dict[str, Any] = {"autonomous_system_number": MmdbU32(number)}
    if found.get("organization"):
        record["autonomous_system_organization"] = found["organization"]
    return record


def _place(found: dict[str, str], profile: str) -> dict[str, Any] | str:
    code = found.get("country", "").upper()
    known, region = country(code), REGIONS.get(code)
    if region is not None:  # EU, AP: a whole region, answered with its continent alone
        record: dict[str, Any] = {"continent": _continent(region)}
    elif known is None:
        return NOT_A_COUNTRY
    else:
        record = {"country": _country(known, found.get("country_name"))}
        registered = country(found.get("registered_country", ""))
        record["registered_country"] = record["country"] if registered is None else _country(registered)
        record["continent"] = _continent(known.continent)
    if profile == "geolite2-city":
        _add_city(record, found, code)
    return record


def _continent(code: str) -> dict[str, Any]:
    return {"code": code, "names": {"en": CONTINENTS[code]}}


def _country(known: Country, name: str | None = None) -> dict[str, Any]:
    return {"iso_code": known.code, "names": {"en": name or known.name}}


def _add_city(record: dict[str, Any], found: dict[str, str], code: str) -> None:
    if found.get("city"):
        record["city"] = {"names": {"en": found["city"]}}
    subdivision = _subdivision(found.get("region", ""), found.get("region_code", ""), code)
    if subdivision:
        record["subdivisions"] = [subdivision]
    if found.get("postal"):
        record["postal"] = {"code": found["postal"]}
    location = _location(found.get("latitude", ""), found.get("longitude", ""))
    if location is not None:
        record["location"] = location


def _subdivision(region: str, region_code: str, code: str) -> dict[str, Any]:
    written = _SUBDIVISION.fullmatch(region)
    if written and written.group(1).upper() == code:  # "US-CA": a code, not a name
        region_code, region = region_code or written.group(2), ""
    iso = region_code.upper().removeprefix(f"{code}-")
    subdivision: dict[str, Any] = {"iso_code": iso} if iso else {}
    if region:
        subdivision["names"] = {"en": region}
    return subdivision


def _location(latitude: str, longitude: str) -> dict[str, float] | None:
    try:
        north, east = float(latitude), float(longitude)
    except ValueError:
        return None
    if not (math.isfinite(north) and math.isfinite(east) and abs(north) <= 90 and abs(east) <= 180):
        return None
    return {"latitude": north, "longitude": east}
