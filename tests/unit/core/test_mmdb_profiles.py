"""The GeoLite2 profiles (``core.versions.mmdb_profiles``), their records (``geolite2_records``) and the country table
(``countries``): which column answers each field, what is refused and why, what a record holds."""

from __future__ import annotations

import json

import pytest

from fencepost.core.folders.settings_file import FolderSettings, settings_digest
from fencepost.core.storage.objects import FolderError
from fencepost.core.versions.countries import CONTINENTS, countries, country
from fencepost.core.versions.exports import EXPORTABLE, kept_keys
from fencepost.core.versions.geolite2_records import NOT_A_COUNTRY, NOT_AN_ASN, Shaper, left_out
from fencepost.core.versions.mmdb_profiles import (
    PROFILES,
    ProfileError,
    check_folder,
    check_profile,
    field_columns,
    loaded_map,
    parse_column_map,
    stored_map,
)

COUNTRY, CITY, ASN = PROFILES["geolite2-country"], PROFILES["geolite2-city"], PROFILES["geolite2-asn"]


def test_the_country_table_holds_every_iso_code_with_one_of_the_seven_continents() -> None:
    table = countries()
    assert len(table) == 252  # ISO 3166-1's 249, XK, and the withdrawn CS and AN
    assert {entry.continent for entry in table.values()} == set(CONTINENTS)
    found = {code: _place(code) for code in ("us", "DE", "AU", "BR", "ZA", "AQ", "XK", "JP", "ZZ")}
    assert found == {
        "us": ("NA", "United States"),
        "DE": ("EU", "Germany"),
        "AU": ("OC", "Australia"),
        "BR": ("SA", "Brazil"),
        "ZA": ("AF", "South Africa"),
        "AQ": ("AN", "Antarctica"),
        "XK": ("EU", "Kosovo"),
        "JP": ("AS", "Japan"),
        "ZZ": None,
    }


def _place(code: str) -> tuple[str, str] | None:
    found = country(code)
    return None if found is None else (found.continent, found.name)


def test_fields_are_answered_by_the_folders_mapping_first_then_by_default_names_in_any_case() -> None:
    columns = ("Country_Code", "AS_Number", "org", "cc")
    assert field_columns(columns) == {"country": 0, "asn": 1, "organization": 2}
    assert field_columns(columns, (("country", "cc"),)) == {"country": 3, "asn": 1, "organization": 2}
    # A GeoLite2 file loaded into a folder keeps MaxMind's paths as columns: they answer the same fields again
    loaded = ("country.iso_code", "city.names.en", "location.latitude", "location.longitude", "subdivisions.0.iso_code")
    assert field_columns(loaded) == {"country": 0, "city": 1, "latitude": 2, "longitude": 3, "region_code": 4}


def test_a_profile_without_a_column_for_a_field_it_needs_is_refused_naming_profile_field_and_columns() -> None:
    with pytest.raises(ProfileError) as refused:
        check_profile(ASN, ("start", "country"))
    message = str(refused.value)
    assert message.startswith("profile geolite2-asn needs a column for asn: the data has none of the default names")
    assert message.endswith("its columns are ['start', 'country']")
    with pytest.raises(ProfileError, match="profile geolite2-city needs a column for city"):
        check_profile(CITY, ("country",))
    assert check_profile(COUNTRY, ("country", "asn")) == {"country": 0}  # only the fields it writes
    with pytest.raises(ProfileError, match=r"answers asn with 'as', which is not a column of the data"):
        check_profile(ASN, ("asn",), (("asn", "as"),))


def test_a_folders_mapping_is_an_object_of_known_fields_kept_with_each_version() -> None:
    mapping = parse_column_map({"country": " cc ", "asn": "as_number"})
    assert mapping == (("asn", "as_number"), ("country", "cc"))
    assert loaded_map(stored_map(mapping)) == mapping
    assert (stored_map(()), loaded_map(None), loaded_map("not json")) == (None, (), ())
    with pytest.raises(ProfileError, match=r"unknown fields \['nation'\]; known: \['country', "):
        parse_column_map({"nation": "cc"})
    with pytest.raises(ProfileError, match="must be an object of fields to column names"):
        parse_column_map({"country": ""})


def test_a_folders_settings_name_profiles_as_exports_and_refuse_unknown_ones_clearly() -> None:
    settings = FolderSettings.parse(
        json.dumps({"exports": ["mmdb:geolite2-asn", "csv"], "mmdb_profile_columns": {"asn": "as"}}).encode(), "f"
    )
    assert (settings.exports, settings.mmdb_profile_columns) == (("mmdb:geolite2-asn", "csv"), (("asn", "as"),))
    with pytest.raises(FolderError, match=r"exports names unknown formats \['mmdb:geolite2-isp'\]; known: .*"):
        FolderSettings.parse(b'{"exports": ["mmdb:geolite2-isp"]}', "f")
    with pytest.raises(FolderError, match="f: mmdb_profile_columns names unknown fields"):
        FolderSettings.parse(b'{"mmdb_profile_columns": {"nation": "cc"}}', "f")
    # Unset, the mapping leaves the settings digest as it was; set, it is part of what a version is built from
    plain = FolderSettings.parse(b'{"exports": ["mmdb"]}', "f")
    assert settings_digest(plain) == settings_digest(FolderSettings(exports=("mmdb",)))
    mapped = FolderSettings.parse(b'{"exports": ["mmdb"], "mmdb_profile_columns": {"asn": "as"}}', "f")
    assert settings_digest(mapped) != settings_digest(plain)
    with pytest.raises(ProfileError, match=r"exports names mmdb:geolite2-asn, and profile geolite2-asn needs"):
        check_folder(("country",), settings.exports, ())


def test_each_profile_is_kept_beside_the_plain_export_and_deleted_with_its_version() -> None:
    assert {name: EXPORTABLE[name].extension for name in EXPORTABLE if name.startswith("mmdb:")} == {
        "mmdb:geolite2-country": "geolite2-country.mmdb",
        "mmdb:geolite2-city": "geolite2-city.mmdb",
        "mmdb:geolite2-asn": "geolite2-asn.mmdb",
    }
    kept = kept_keys("geo", 3)
    assert {"_exports/geo/3.geolite2-asn.mmdb", "_exports/geo/3.geolite2-asn.mmdb.building"} <= set(kept)


def test_a_country_record_has_the_code_its_name_its_continent_and_the_registered_country() -> None:
    shaper = Shaper(COUNTRY, ("cc", "registered_country", "country_name"))
    assert shaper.record(["de", "", ""]) == {
        "country": {"iso_code": "DE", "names": {"en": "Germany"}},
        "registered_country": {"iso_code": "DE", "names": {"en": "Germany"}},
        "continent": {"code": "EU", "names": {"en": "Europe"}},
    }
    assert shaper.record(["US", "CA", "USA"]) == {
        "country": {"iso_code": "US", "names": {"en": "USA"}},  # the data's own name
        "registered_country": {"iso_code": "CA", "names": {"en": "Canada"}},
        "continent": {"code": "NA", "names": {"en": "North America"}},
    }
    # A region's code (RIR data's EU, AP): its continent alone; what is no country code at all: left out
    assert shaper.record(["EU", "", ""]) == {"continent": {"code": "EU", "names": {"en": "Europe"}}}
    assert shaper.record(["ap", "", ""]) == {"continent": {"code": "AS", "names": {"en": "Asia"}}}
    assert [shaper.record([code, "", ""]) for code in ("None", "Unknown", "ZZ", "", "D")] == [NOT_A_COUNTRY] * 5


def test_a_city_record_adds_what_the_values_hold() -> None:
    columns = ("country", "region", "city", "postal_code", "lat", "lng")
    shaper = Shaper(CITY, columns)
    full = shaper.record(["US", "US-CA", "San Francisco", "94107", "37.77", "-122.41"])
    assert isinstance(full, dict)
    assert {key: full[key] for key in ("city", "subdivisions", "postal", "location")} == {
        "city": {"names": {"en": "San Francisco"}},
        "subdivisions": [{"iso_code": "CA"}],  # an ISO 3166-2 code of the country: a code, not a name
        "postal": {"code": "94107"},
        "location": {"latitude": 37.77, "longitude": -122.41},
    }
    sparse = shaper.record(["DE", "Berlin", "Berlin", "", "91", "13.4"])
    assert isinstance(sparse, dict)
    assert sparse["subdivisions"] == [{"names": {"en": "Berlin"}}]
    assert "location" not in sparse  # a latitude out of range: no location rather than a wrong one
    assert "postal" not in sparse


def test_an_asn_record_holds_the_number_as_an_unsigned_int_and_leaves_out_what_is_no_asn() -> None:
    shaper = Shaper(ASN, ("asn", "as_name"))
    for text in ("13335", "AS13335", "as013335", " 13335 "):
        record = shaper.record([text, "CLOUDFLARENET"])
        assert isinstance(record, dict)
        assert (record["autonomous_system_number"].value, record["autonomous_system_organization"]) == (
            13335,
            "CLOUDFLARENET",
        )
    no_name = shaper.record(["4294967295", ""])
    assert isinstance(no_name, dict)
    assert list(no_name) == ["autonomous_system_number"]
    for text in ("0", "", "AS", "x13335", "4294967296", "-1", "1.5"):
        assert shaper.record([text, "x"]) == NOT_AN_ASN, text
    assert left_out({NOT_AN_ASN: 1, NOT_A_COUNTRY: 0}) == "1 range left out (no ASN from 1 to 4294967295)"
    assert left_out({NOT_A_COUNTRY: 64_702}) == "64,702 ranges left out (no ISO 3166-1 country code)"
