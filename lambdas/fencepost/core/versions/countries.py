"""Each country code's continent and English name, for the GeoLite2 record shapes of MaxMind DB exports
(``core.versions.geolite2_records``).

The table is ``countries.tsv`` beside this module: the ``ISO``, ``Continent`` and ``Country`` columns of GeoNames'
``countryInfo.txt`` (https://download.geonames.org/export/dump/countryInfo.txt, CC BY 4.0), the gazetteer whose
identifiers MaxMind's databases carry as ``geoname_id``. It holds 252 codes: the 249 of ISO 3166-1 alpha-2, ``XK``
(Kosovo, as GeoNames and MaxMind write it) and two codes GeoNames still lists after ISO withdrew them (``CS``
Serbia and Montenegro, ``AN`` the Netherlands Antilles). Continents are GeoNames' seven codes, which are MaxMind's
``continent.code`` values; their English names are MaxMind's (``CONTINENTS``).

Two codes that are no country name a region (``REGIONS``): ``EU`` (Europe) and ``AP`` (Asia/Pacific), which RIR data
and iptoasn give ranges registered to a whole region: a record of such a range holds its continent alone.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Final

TABLE: Final = Path(__file__).with_name("countries.tsv")
CONTINENTS: Final = {
    "AF": "Africa",
    "AN": "Antarctica",
    "AS": "Asia",
    "EU": "Europe",
    "NA": "North America",
    "OC": "Oceania",
    "SA": "South America",
}

REGIONS: Final = {"EU": "EU", "AP": "AS"}  # a region's code, and its continent


@dataclass(frozen=True, slots=True)
class Country:
    code: str  # ISO 3166-1 alpha-2, upper case
    continent: str  # a key of CONTINENTS
    name: str  # English, as GeoNames writes it


@functools.cache
def countries() -> dict[str, Country]:
    """The table, by code (read once)."""
    found: dict[str, Country] = {}
    for line in TABLE.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            code, continent, name = line.split("\t")
            found[code] = Country(code, continent, name)
    return found


def country(code: str) -> Country | None:
    """The country of an ISO 3166-1 alpha-2 code (any case); None for a code the table does not hold."""
    return countries().get(code.upper())
