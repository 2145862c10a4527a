"""The adapter that fetches a source's files from their publishers over HTTP(S) (``fetcher``, on connections of its
own: ``connection``, to addresses and with secrets checked: ``destinations``; each body kept: ``bodies``), and keeps
the members an archive's source names (``unpacking``), all within the check's time (``bounds``). Nothing here knows
the bucket or the table."""

from fencepost.downloads.bodies import Fetched
from fencepost.downloads.bounds import FetchError, OutOfTime
from fencepost.downloads.destinations import Credential
from fencepost.downloads.fetcher import Fetcher, FetchPolicy, Request
from fencepost.downloads.unpacking import unpack

__all__ = ["Credential", "FetchError", "FetchPolicy", "Fetched", "Fetcher", "OutOfTime", "Request", "unpack"]
