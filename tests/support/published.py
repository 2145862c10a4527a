"""Samples in their publishers' documented layouts, for the tests of the formats and of the loader."""

from __future__ import annotations

# The layout of RFC 8805, section 2.1.1 (its own examples), with the comments publishers put on top.
GEOFEED = """\
# prefix,alpha2code,region,city,postal_code
# Geofeed for AS64496, see RFC 8805
192.0.2.0/25,US,US-AL,,
192.0.2.5,US,US-AL,Alabaster,35007
2001:db8::/32,PL,PL-MZ,,02-784
198.51.100.0/24,,,,

203.0.113.0/24,AU,AU-NSW,Sydney
"""

# CAIDA's layout (routeviews-rv2-*.pfx2as, routeviews-rv6-*.pfx2as): tab-separated, no header.
PFX2AS = (
    "1.0.0.0\t24\t13335\n"
    "1.0.4.0\t22\t38803\n"
    "1.0.4.0\t24\t38803_56203\n"
    "1.6.0.0\t15\t4755,9583\n"
    "2001:200::\t32\t2500\n"
    "2001:db8::\t48\t64496_64497,64498\n"
)

# https://docs.aws.amazon.com/vpc/latest/userguide/aws-ip-syntax.html (pretty-printed, as published)
AWS = """\
{
  "syncToken": "1764300000",
  "createDate": "2026-11-28-03-13-04",
  "prefixes": [
    {
      "ip_prefix": "3.4.12.4/32",
      "region": "eu-west-1",
      "service": "AMAZON",
      "network_border_group": "eu-west-1"
    },
    {
      "ip_prefix": "3.5.140.0/22",
      "region": "ap-northeast-2",
      "service": "AMAZON",
      "network_border_group": "ap-northeast-2"
    },
    {
      "ip_prefix": "3.5.140.0/22",
      "region": "ap-northeast-2",
      "service": "S3",
      "network_border_group": "ap-northeast-2"
    }
  ],
  "ipv6_prefixes": [
    {
      "ipv6_prefix": "2600:1f14::/35",
      "region": "us-west-2",
      "service": "EC2",
      "network_border_group": "us-west-2"
    }
  ]
}
"""

# https://www.gstatic.com/ipranges/cloud.json
GOOGLE = """\
{
  "syncToken": "1764310000000",
  "creationTime": "2026-11-28T06:00:00.000000",
  "prefixes": [{
    "ipv4Prefix": "34.1.208.0/20",
    "service": "Google Cloud",
    "scope": "africa-south1"
  }, {
    "ipv6Prefix": "2600:1900:8000::/44",
    "service": "Google Cloud",
    "scope": "africa-south1"
  }]
}
"""

# https://docs.oracle.com/iaas/Content/General/Concepts/addressranges.htm
ORACLE = """\
{
  "last_updated_timestamp": "2026-11-28T19:55:47.204985",
  "regions": [
    {
      "region": "us-phoenix-1",
      "cidrs": [
        {"cidr": "129.146.0.0/21", "tags": ["OCI"]},
        {"cidr": "134.70.8.0/21", "tags": ["OSN", "OBJECT_STORAGE"]}
      ]
    },
    {
      "region": "us-ashburn-1",
      "cidrs": [{"cidr": "129.213.8.0/21", "tags": ["OCI"]}]
    }
  ]
}
"""

# https://api.fastly.com/public-ip-list: one line
FASTLY = '{"addresses":["23.235.32.0/20","43.249.72.0/22"],"ipv6_addresses":["2a04:4e40::/32"]}\n'

# https://www.gstatic.com/ipranges/goog.json: cloud.json's layout, its prefixes without service or scope
GOOG = """\
{
  "syncToken": "1764310000000",
  "creationTime": "2026-11-28T06:00:00.000000",
  "prefixes": [{
    "ipv4Prefix": "8.8.4.0/24"
  }, {
    "ipv6Prefix": "2001:4860::/32"
  }]
}
"""

# The Tor Project's bulk exit list (check.torproject.org/torbulkexitlist): one exit address a line, no comments.
TOR_BULK_EXIT_LIST = """\
171.25.193.77
185.220.101.1
2a0b:f4c2::1
"""

# Cloudflare's https://www.cloudflare.com/ips-v4 and ips-v6 (one network a line, no newline after the last) and
# X4BNet's lists_vpn output/vpn/ipv4.txt (one network a line).
CLOUDFLARE_V4 = "173.245.48.0/20\n103.21.244.0/22\n104.16.0.0/13"
CLOUDFLARE_V6 = "2400:cb00::/32\n2606:4700::/32"
X4BNET_VPN = "1.12.32.0/23\n1.14.0.0/15\n2.56.16.0/22\n"
X4BNET_DATACENTER = "5.39.0.0/17\n23.19.0.0/16\n"
