"""The publishers people use, each a source of one line: ``{"preset": "firehol-level1"}``.

Each preset is written as a ``_source.json`` would be, with the publisher's documented addresses and layout (cited
beside it), and is tested against fixture files in that layout (``tests/releases.py``, loaded through each preset by
``tests/integration/test_presets.py``): a publisher that changes its format fails a fixture test here, and an unpacked
archive whose members are not the ones named fails its release (``fencepost.downloads.unpacking``), rather than load
something else. ``every`` is a default a folder's ``_source.json`` may change: a new release rebuilds the whole dataset,
so checking far more often than the publisher publishes costs requests, not freshness.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final


@dataclass(frozen=True, slots=True)
class Preset:
    source: dict[str, Any]
    params: tuple[str, ...] = ()  # what the folder's _source.json must give, at its top level
    doc: str = ""
    cited: tuple[str, ...] = field(default=(), compare=False)


# MaxMind's download permalinks take the account id and the licence key as HTTP basic authentication and redirect
# to a signed storage address; each has a SHA-256 beside it (`suffix=zip.sha256`: "<hex>  <dated file name>").
# https://dev.maxmind.com/geoip/updating-databases (maxmind/dev-site content/geoip/updating-databases.md). The CSV
# zip holds one dated folder with the Blocks files, the Locations files per language, and licence files
# (content/geoip/docs/databases/city-and-country.md, layouts/shortcodes/zip-file-content.md); GeoLite2 is
# updated twice a week.
_MAXMIND: Final = "https://download.maxmind.com/geoip/databases/{edition}/download?suffix={suffix}"
_MAXMIND_AUTH: Final = ("account_id", "license_key")
_MAXMIND_DOC: Final = 'account_id: your MaxMind account id; license_key: {"secret": "<secret holding the key>"}'
_MAXMIND_CITED: Final = ("https://dev.maxmind.com/geoip/updating-databases",)


def _maxmind_csv(edition: str, locations: bool) -> Preset:
    members = [f"{edition}-Blocks-IPv4.csv", f"{edition}-Blocks-IPv6.csv"]
    if locations:
        members.append(f"{edition}-Locations-en.csv")  # the folder setting "locale" reads this one
    edition_csv = f"{edition}-CSV"
    source = {
        "files": [
            {
                "url": _MAXMIND.format(edition=edition_csv, suffix="zip"),
                "name": f"{edition_csv}.zip",
                "unpack": "zip",
                "members": members,
                "sha256_url": _MAXMIND.format(edition=edition_csv, suffix="zip.sha256"),
            }
        ],
        "basic_auth": list(_MAXMIND_AUTH),
        "every": "1d",
    }
    return Preset(source, _MAXMIND_AUTH, _MAXMIND_DOC, _MAXMIND_CITED)


def _maxmind_mmdb(edition: str) -> Preset:
    """The database as downloaded (``.tar.gz``): the loader reads the archive's ``.mmdb`` member itself."""
    source = {
        "files": [
            {
                "url": _MAXMIND.format(edition=edition, suffix="tar.gz"),
                "name": f"{edition}.tar.gz",
                "sha256_url": _MAXMIND.format(edition=edition, suffix="tar.gz.sha256"),
            }
        ],
        "basic_auth": list(_MAXMIND_AUTH),
        "every": "1d",
    }
    return Preset(source, _MAXMIND_AUTH, _MAXMIND_DOC, _MAXMIND_CITED)


# The five registries' extended delegation files, each "registry|cc|type|start|value|date|status|opaque-id" after a
# version line and summaries (RIR statistics exchange format: https://ftp.lacnic.net/pub/stats/lacnic/
# RIR-Statistics-Exchange-Format.txt), published daily.
_RIRS: Final = {
    "arin": "https://ftp.arin.net/pub/stats/arin/delegated-arin-extended-latest",
    "ripencc": "https://ftp.ripe.net/pub/stats/ripencc/delegated-ripencc-extended-latest",
    "apnic": "https://ftp.apnic.net/stats/apnic/delegated-apnic-extended-latest",
    "lacnic": "https://ftp.lacnic.net/pub/stats/lacnic/delegated-lacnic-extended-latest",
    "afrinic": "https://ftp.afrinic.net/pub/stats/afrinic/delegated-afrinic-extended-latest",
}

# X4BNet's lists_vpn outputs, rebuilt from its sources (mostly ASNs) by the repository's CI: vpn/ known VPN networks,
# datacenter/ VPNs and hosting ("not an eyeball network"), each ipv4.txt and ipv6.txt, one network a line.
# https://github.com/X4BNet/lists_vpn (README.md, "Lists"). Only ipv4.txt: the ipv6.txt files have been published
# holding their two comment lines and no network, a file a build refuses, which would fail every release.
_X4BNET: Final = "https://raw.githubusercontent.com/X4BNet/lists_vpn/main/output/{list}/ipv4.txt"


def _x4bnet(kind: str) -> Preset:
    source = {"url": _X4BNET.format(list=kind), "name": f"{kind}-ipv4.txt", "every": "1d"}
    return Preset(source, cited=("https://github.com/X4BNet/lists_vpn",))


# Cloud and CDN networks, each as its publisher serves it (the JSON documents and lists of fencepost.core.formats).
# CAIDA's prefix-to-AS files have no such address: each is named for its day and the time of its snapshot
# (routeviews-rv2-<date>-<hhmm>.pfx2as.gz), found through pfx2as-creation.log, so a folder takes one by upload.
# None answers for reserved space; every one is fed unattended, so the stricter gates of a sourced folder apply.
_NETWORKS: Final[dict[str, Preset]] = {
    # AWS: one JSON document, its publication time inside (AWS offers an SNS notification of each change).
    # https://docs.aws.amazon.com/vpc/latest/userguide/aws-ip-ranges.html
    "aws-ip-ranges": Preset(
        {"url": "https://ip-ranges.amazonaws.com/ip-ranges.json", "name": "ip-ranges.json", "every": "6h"},
        cited=("https://docs.aws.amazon.com/vpc/latest/userguide/aws-ip-ranges.html",),
    ),
    # Google: cloud.json, the ranges of customers' Google Cloud resources; goog.json, every range Google makes
    # available to users on the internet (same layout, no service or scope). Both "updated frequently".
    "google-cloud": Preset(
        {"url": "https://www.gstatic.com/ipranges/cloud.json", "name": "cloud.json", "every": "6h"},
        cited=("https://cloud.google.com/appengine/docs/standard/php/outbound-ip-addresses",),
    ),
    "google-goog": Preset(
        {"url": "https://www.gstatic.com/ipranges/goog.json", "name": "goog.json", "every": "6h"},
        cited=("https://cloud.google.com/appengine/docs/standard/php/outbound-ip-addresses",),
    ),
    # Oracle: public_ip_ranges.json; "poll ... as frequently as every 24 hours ... at least weekly".
    "oracle-cloud": Preset(
        {
            "url": "https://docs.oracle.com/iaas/tools/public_ip_ranges.json",
            "name": "public_ip_ranges.json",
            "every": "1d",
        },
        cited=("https://docs.oracle.com/iaas/Content/General/Concepts/addressranges.htm",),
    ),
    # Fastly: GET /public-ip-list, {"addresses": [...], "ipv6_addresses": [...]} (the API's PublicIpList); changed
    # two or three times a year, the list updated before the new space is used
    # (https://community.fastly.com/t/how-often-do-fastlys-ip-ranges-change/704).
    "fastly": Preset(
        {"url": "https://api.fastly.com/public-ip-list", "name": "public-ip-list.json", "every": "1d"},
        cited=("https://github.com/fastly/fastly-php/blob/HEAD/docs/Api/PublicIpListApi.md",),
    ),
    # Cloudflare: ips-v4 and ips-v6, one network a line, listed at https://www.cloudflare.com/ips/; rarely changed.
    "cloudflare": Preset(
        {
            "files": [
                {"url": "https://www.cloudflare.com/ips-v4", "name": "ips-v4"},
                {"url": "https://www.cloudflare.com/ips-v6", "name": "ips-v6"},
            ],
            "every": "1d",
        },
        cited=("https://www.cloudflare.com/ips/",),
    ),
    # The Tor Project's bulk exit list: one exit address a line, from active measurements run every 40 minutes, an
    # address kept 48 hours after it was last seen (the exit list service's operations page and its announcement,
    # lists.torproject.org tor-project 2020-03-09; the full format: https://metrics.torproject.org/collector.html).
    "tor-exits": Preset(
        {"url": "https://check.torproject.org/torbulkexitlist", "name": "torbulkexitlist", "every": "1h"},
        cited=("https://lists.torproject.org/pipermail/tor-project/2020-March/002759.html",),
    ),
    "x4bnet-vpn": _x4bnet("vpn"),
    "x4bnet-datacenter": _x4bnet("datacenter"),
}

# AS names, for a keyed folder (its _settings.json: {"key": "asn"}; docs/keyed.md): one AS a line, read by content
# (core.keyed.key_files). The CIDR Report's autnums.html, regenerated with its daily report: an HTML head, then
# `<a href="/cgi-bin/as-report?as=AS13335&view=2.0">AS13335 </a> CLOUDFLARENET - Cloudflare, Inc., US`
# (https://www.cidr-report.org/as2.0/; read so by pyasn's and wilhelmr/asnames' scripts). RIPE NCC's asn.txt, the same
# names without the markup: `13335 CLOUDFLARENET - Cloudflare, Inc., US`, the country after the last ", "
# (https://ftp.ripe.net/ripe/asnames/; furriest/radb-tools asn-country.py and the Internet Yellow Pages' RIPE
# crawler read it so). Both change a few names a day: checked daily.
_AS_NAMES: Final[dict[str, Preset]] = {
    "as-names": Preset(
        {"url": "https://www.cidr-report.org/as2.0/autnums.html", "name": "autnums.html", "every": "1d"},
        cited=("https://www.cidr-report.org/as2.0/",),
    ),
    "ripe-as-names": Preset(
        {"url": "https://ftp.ripe.net/ripe/asnames/asn.txt", "name": "asn.txt", "every": "1d"},
        cited=("https://ftp.ripe.net/ripe/asnames/",),
    ),
}

PRESETS: Final[dict[str, Preset]] = {
    "geolite2-country-csv": _maxmind_csv("GeoLite2-Country", locations=True),
    "geolite2-city-csv": _maxmind_csv("GeoLite2-City", locations=True),
    "geolite2-asn-csv": _maxmind_csv("GeoLite2-ASN", locations=False),
    "geolite2-country-mmdb": _maxmind_mmdb("GeoLite2-Country"),
    "geolite2-city-mmdb": _maxmind_mmdb("GeoLite2-City"),
    "geolite2-asn-mmdb": _maxmind_mmdb("GeoLite2-ASN"),
    # iptoasn: tab-separated, no header: range_start, range_end, AS_number, country_code, AS_description; rebuilt
    # hourly by the publisher (https://iptoasn.com/; jedisct1/iptoasn-webservice src/asns.rs reads it so).
    "iptoasn-combined": Preset(
        {"url": "https://iptoasn.com/data/ip2asn-combined.tsv.gz", "name": "ip2asn-combined.tsv.gz", "every": "1d"},
        cited=("https://iptoasn.com/",),
    ),
    "rir-delegated": Preset(
        {
            "files": [{"url": url, "name": f"delegated-{rir}-extended-latest"} for rir, url in _RIRS.items()],
            "every": "1d",
        },
        cited=("https://ftp.lacnic.net/pub/stats/lacnic/RIR-Statistics-Exchange-Format.txt",),
    ),
    # Spamhaus DROP (EDROP merged into it on 2024-04-10) as JSON lines, one {"cidr", "sblid", "rir"} a line and a
    # closing {"type": "metadata", ...} line; the text files are to be retired. At most one fetch an hour.
    # https://www.spamhaus.com/faqs/drop (and https://www.spamhaus.org/drop/terms/).
    "spamhaus-drop": Preset(
        {
            "files": [
                {"url": "https://www.spamhaus.org/drop/drop_v4.json", "name": "drop_v4.json"},
                {"url": "https://www.spamhaus.org/drop/drop_v6.json", "name": "drop_v6.json"},
            ],
            "every": "12h",
        },
        cited=("https://www.spamhaus.com/faqs/drop",),
    ),
    # FireHOL level 1: a netset, "#" comment header then one network a line; regenerated as its sources change.
    # https://iplists.firehol.org/?ipset=firehol_level1 (firehol/blocklist-ipsets firehol_level1.netset).
    "firehol-level1": Preset(
        {
            "url": "https://iplists.firehol.org/files/firehol_level1.netset",
            "name": "firehol_level1.netset",
            "every": "1h",
        },
        cited=("https://iplists.firehol.org/?ipset=firehol_level1",),
    ),
    **_NETWORKS,
    **_AS_NAMES,
}
