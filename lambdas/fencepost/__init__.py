"""Fencepost: IP-range lookups served from one DynamoDB Query."""
