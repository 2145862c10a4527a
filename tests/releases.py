"""Releases in the publishers' real layouts, small, for every preset (``fencepost.core.sources.presets``): the files at
the paths the preset fetches, and an address each release answers with what it should say.

Layouts as the publishers document them (cited in the presets): MaxMind's CSV zips hold one dated folder with the
Blocks files, the Locations files per language and licence files, its databases a dated folder with the ``.mmdb``;
each download has a SHA-256 file beside it (``<hex>  <dated file name>``) and redirects to a storage host. iptoasn is
gzipped TSV without a header; the registries' files open with a version line and summaries; Spamhaus publishes JSON
lines closed by a metadata line; FireHOL a ``#`` header and one network a line. The cloud and CDN documents, and
Cloudflare's, Tor's and X4BNet's lists, are the publishers' samples of ``tests.support.published``; the AS-names lists
(the CIDR Report's ``autnums.html``, RIPE's ``asn.txt``) are keyed, and their ``expected`` names a key, not an address.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from tests.mmdb_files import mmdb, tar_gz
from tests.support import published

DATE = "20261124"
BLOCKS = {
    "Country": "network,geoname_id,registered_country_geoname_id,represented_country_geoname_id,is_anonymous_proxy,"
    "is_satellite_provider,is_anycast",
    "City": "network,geoname_id,registered_country_geoname_id,represented_country_geoname_id,is_anonymous_proxy,"
    "is_satellite_provider,postal_code,latitude,longitude,accuracy_radius,is_anycast",
    "ASN": "network,autonomous_system_number,autonomous_system_organization",
}
LOCATIONS = {
    "Country": "geoname_id,locale_code,continent_code,continent_name,country_iso_code,country_name,"
    "is_in_european_union",
    "City": "geoname_id,locale_code,continent_code,continent_name,country_iso_code,country_name,subdivision_1_iso_code,"
    "subdivision_1_name,subdivision_2_iso_code,subdivision_2_name,city_name,metro_code,time_zone,is_in_european_union",
}
ROWS = {
    "Country": ("1.0.0.0/24,2077456,2077456,,0,0,", "2003::/19,2921044,2921044,,0,0,"),
    "City": ("1.0.0.0/24,2062367,2077456,,0,0,6157,-34.9,138.6,100,", "2003::/19,2950159,2921044,,0,0,,,,,"),
    "ASN": ("1.0.0.0/24,13335,CLOUDFLARENET", "2003::/19,3320,Deutsche Telekom AG"),
}
PLACES = {
    "Country": ("2077456,en,OC,Oceania,AU,Australia,0", "2921044,en,EU,Europe,DE,Germany,1"),
    "City": (
        '2062367,en,OC,Oceania,AU,Australia,SA,"South Australia",,,Adelaide,,Australia/Adelaide,0',
        '2950159,en,EU,Europe,DE,Germany,BE,"Land Berlin",,,Berlin,,Europe/Berlin,1',
    ),
}


@dataclass
class Release:
    files: dict[str, bytes]  # path (with query) -> body
    redirects: dict[str, str] = field(default_factory=dict)  # path -> path it redirects to (MaxMind's storage)
    auth: tuple[str, str] | None = None  # what the download paths require
    expected: tuple[str, str, str] = ("", "", "")  # an address, a column, its value


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


def _maxmind(edition: str, suffix: str, body: bytes, dated: str) -> Release:
    path = f"/geoip/databases/{edition}/download?suffix={suffix}"
    stored = f"/r2/{dated}"
    checksum = f"{hashlib.sha256(body).hexdigest()}  {dated}\n".encode()
    return Release(
        files={stored: body, f"{path}.sha256": checksum},
        redirects={path: stored},
        auth=("123456", "test-licence-key"),
    )


def maxmind_csv(kind: str, places: str = "Locations") -> Release:
    """``places``: what the locations files are called (another name: the layout changed)."""
    edition, folder = f"GeoLite2-{kind}", f"GeoLite2-{kind}-CSV_{DATE}"
    members = {f"{folder}/COPYRIGHT.txt": b"(c) MaxMind", f"{folder}/LICENSE.txt": b"GeoLite2 EULA"}
    v4, v6 = ROWS[kind]
    members[f"{folder}/{edition}-Blocks-IPv4.csv"] = f"{BLOCKS[kind]}\n{v4}\n".encode()
    members[f"{folder}/{edition}-Blocks-IPv6.csv"] = f"{BLOCKS[kind]}\n{v6}\n".encode()
    if kind in LOCATIONS:
        for language in ("de", "en", "es", "fr", "ja", "pt-BR", "ru", "zh-CN"):
            rows = "\n".join(PLACES[kind])
            members[f"{folder}/{edition}-{places}-{language}.csv"] = f"{LOCATIONS[kind]}\n{rows}\n".encode()
    release = _maxmind(f"{edition}-CSV", "zip", _zip(members), f"{folder}.zip")
    release.expected = {
        "Country": ("1.0.0.1", "country_iso_code", "AU"),
        "City": ("1.0.0.1", "city_name", "Adelaide"),
        "ASN": ("2003::1", "autonomous_system_organization", "Deutsche Telekom AG"),
    }[kind]
    return release


def maxmind_mmdb(kind: str) -> Release:
    edition, folder = f"GeoLite2-{kind}", f"GeoLite2-{kind}_{DATE}"
    record = {"country": {"iso_code": "AU"}} if kind != "ASN" else {"autonomous_system_number": 13335}
    database = mmdb([("1.0.0.0/24", record)])
    body = tar_gz(
        {f"{folder}/COPYRIGHT.txt": b"(c)", f"{folder}/{edition}.mmdb": database, f"{folder}/LICENSE.txt": b"l"}
    )
    release = _maxmind(edition, "tar.gz", body, f"{folder}.tar.gz")
    release.expected = (
        ("1.0.0.1", "country.iso_code", "AU") if kind != "ASN" else ("1.0.0.1", "autonomous_system_number", "13335")
    )
    return release


def iptoasn() -> Release:
    rows = "1.0.0.0\t1.0.0.255\t13335\tUS\tCLOUDFLARENET\n1.0.1.0\t1.0.3.255\t0\tNone\tNot routed\n"
    rows += "2001:200::\t2001:200:ffff:ffff:ffff:ffff:ffff:ffff\t2500\tJP\tWIDE-BB WIDE Project\n"
    return Release(
        {"/data/ip2asn-combined.tsv.gz": gzip.compress(rows.encode())}, expected=("1.0.0.9", "col3", "13335")
    )


def registries() -> Release:
    files = {}
    # Each registry its own AS numbers, as in the published files (a keyed folder reads them: docs/keyed.md)
    for registry, start, country, asn in (
        ("arin", "3.0.0.0", "US", 7),
        ("ripencc", "2.0.0.0", "FR", 3215),
        ("apnic", "1.0.0.0", "AU", 1221),
        ("lacnic", "177.0.0.0", "BR", 28573),
        ("afrinic", "41.0.0.0", "ZA", 36874),
    ):
        banner = "# APNIC statistics\n#\n" if registry == "apnic" else ""
        text = (
            f"{banner}2.3|{registry}|{DATE}|2|19830705|{DATE}|+0000\n{registry}|*|ipv4|*|1|summary\n"
            f"{registry}|*|asn|*|1|summary\n{registry}|{country}|asn|{asn}|1|20000101|allocated|x1\n"
            f"{registry}|{country}|ipv4|{start}|65536|20000101|allocated|x2\n"
        )
        path = {"arin": "/pub/stats/arin/", "ripencc": "/pub/stats/ripencc/", "apnic": "/stats/apnic/"}.get(
            registry, f"/pub/stats/{registry}/"
        )
        files[f"{path}delegated-{registry}-extended-latest"] = text.encode()
    return Release(files, expected=("177.0.0.9", "cc", "BR"))


def spamhaus() -> Release:
    meta = '{"type":"metadata","timestamp":1764000000,"size":100,"records":%d,"copyright":"(c) 2026 Spamhaus"}\n'
    v4 = '{"cidr":"1.10.16.0/20","sblid":"SBL256894","rir":"apnic"}\n'
    v4 += '{"cidr":"1.19.0.0/16","sblid":"SBL434604","rir":"apnic"}\n'
    v6 = '{"cidr":"2001:678:738::/48","sblid":"SBL635837","rir":"ripencc"}\n'
    files = {"/drop/drop_v4.json": (v4 + meta % 2).encode(), "/drop/drop_v6.json": (v6 + meta % 1).encode()}
    return Release(files, expected=("1.19.4.4", "sblid", "SBL434604"))


def firehol() -> Release:
    header = "#\n# firehol_level1\n#\n# ipv4 hash:net ipset\n#\n# Version         : 31105\n#\n"
    return Release(
        {"/files/firehol_level1.netset": (header + "0.0.0.0/8\n1.10.16.0/20\n").encode()},
        expected=("1.10.17.1", "comment", ""),
    )


def _one(path: str, text: str, expected: tuple[str, str, str]) -> Release:
    return Release({path: text.encode()}, expected=expected)


def cloudflare() -> Release:
    files = {"/ips-v4": published.CLOUDFLARE_V4.encode(), "/ips-v6": published.CLOUDFLARE_V6.encode()}
    return Release(files, expected=("2606:4700::1111", "provider", "cloudflare"))


NETWORK_RELEASES: dict[str, Callable[[], Release]] = {
    "aws-ip-ranges": lambda: _one("/ip-ranges.json", published.AWS, ("3.5.140.9", "service", "AMAZON S3")),
    "google-cloud": lambda: _one("/ipranges/cloud.json", published.GOOGLE, ("34.1.208.1", "scope", "africa-south1")),
    "google-goog": lambda: _one("/ipranges/goog.json", published.GOOG, ("8.8.4.4", "service", "")),
    "oracle-cloud": lambda: _one(
        "/iaas/tools/public_ip_ranges.json", published.ORACLE, ("134.70.8.1", "tags", "OSN OBJECT_STORAGE")
    ),
    "fastly": lambda: _one("/public-ip-list", published.FASTLY, ("23.235.32.1", "provider", "fastly")),
    "cloudflare": cloudflare,
    "tor-exits": lambda: _one(
        "/torbulkexitlist", published.TOR_BULK_EXIT_LIST, ("185.220.101.1", "network_type", "tor")
    ),
    "x4bnet-vpn": lambda: _one(
        "/X4BNet/lists_vpn/main/output/vpn/ipv4.txt", published.X4BNET_VPN, ("1.14.3.3", "network_type", "vpn")
    ),
    "x4bnet-datacenter": lambda: _one(
        "/X4BNet/lists_vpn/main/output/datacenter/ipv4.txt",
        published.X4BNET_DATACENTER,
        ("23.19.1.1", "network_type", "hosting"),
    ),
}

# AS-names lists in the publishers' layouts: ``expected`` is a key (an AS number), a column and its value
AUTNUMS = """<html>
<head>
<title>AS Names</title>
</head>
<body>
<pre>
<a href="/cgi-bin/as-report?as=AS1&view=2.0">AS1     </a> LVLT-1 - Level 3 Parent, LLC, US
<a href="/cgi-bin/as-report?as=AS3320&view=2.0">AS3320  </a> DTAG Internet service provider operations, DE
<a href="/cgi-bin/as-report?as=AS13335&view=2.0">AS13335 </a> CLOUDFLARENET - Cloudflare, Inc., US
</pre>
</body>
</html>
"""
ASN_TXT = "1 LVLT-1 - Level 3 Parent, LLC, US\n3320 DTAG Internet service provider operations, DE\n"
ASN_TXT += "13335 CLOUDFLARENET - Cloudflare, Inc., US\n"
KEYED_RELEASES: dict[str, Callable[[], Release]] = {
    "as-names": lambda: _one("/as2.0/autnums.html", AUTNUMS, ("AS13335", "name", "CLOUDFLARENET - Cloudflare, Inc.")),
    "ripe-as-names": lambda: _one("/ripe/asnames/asn.txt", ASN_TXT, ("3320", "country", "DE")),
}

RELEASES: dict[str, Callable[[], Release]] = {
    "geolite2-country-csv": lambda: maxmind_csv("Country"),
    "geolite2-city-csv": lambda: maxmind_csv("City"),
    "geolite2-asn-csv": lambda: maxmind_csv("ASN"),
    "geolite2-country-mmdb": lambda: maxmind_mmdb("Country"),
    "geolite2-city-mmdb": lambda: maxmind_mmdb("City"),
    "geolite2-asn-mmdb": lambda: maxmind_mmdb("ASN"),
    "iptoasn-combined": iptoasn,
    "rir-delegated": registries,
    "spamhaus-drop": spamhaus,
    "firehol-level1": firehol,
    **NETWORK_RELEASES,
    **KEYED_RELEASES,
}


def local_path(url: str) -> str:
    """The path (and query) a preset's address asks for, served by the local publisher."""
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")
