"""What the data layer raises: its own "store unavailable" error, and one named conflict per rule it enforces."""

from __future__ import annotations

from fencepost.errors import DependencyUnavailable


class StoreUnavailable(DependencyUnavailable):
    """DynamoDB throttled, timed out or failed: the same call may succeed if retried shortly."""


class StoreRefused(Exception):
    """DynamoDB refused a request as invalid (``ValidationException``, an item over 400 KB): the same request would
    be refused again, so it is never retried; a load that meets it fails with this as its reason."""


class Conflict(Exception):
    """A transition was refused because the record no longer allows it; the message states the rule."""


class NotLatestRequest(Conflict):
    """A newer change to the folder exists, or this request was already planned."""


class SupersededLoad(Conflict):
    """A newer load has taken over the dataset's record."""


class NothingToRollBack(Conflict):
    """The dataset has no live or no previous version."""
