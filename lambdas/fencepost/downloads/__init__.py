"""The adapter that fetches a source's files from their publishers over HTTP(S) (``fetcher``), and keeps the members
an archive's source names (``unpacking``). Nothing here knows the bucket or the table."""

from fencepost.downloads.fetcher import Fetched, Fetcher, FetchError, FetchPolicy, Request
from fencepost.downloads.unpacking import unpack

__all__ = ["FetchError", "FetchPolicy", "Fetched", "Fetcher", "Request", "unpack"]
