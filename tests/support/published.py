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
