"""Errors a client can branch on: each has an HTTP status and a stable code, mapped to a response in one place.

Also what the service's dependencies raise: ``DependencyUnavailable`` (it knows nothing of HTTP; the API answers
it as ``Unavailable`` (503), the loader hands the message back to be retried), and the data layer's own errors
(``StoreUnavailable``, ``StoreRefused``, one ``Conflict`` per rule), declared here so that no layer above the data
layer imports it to catch them.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fencepost.core.storage.keys import DATASET_NAME_RULE, is_dataset_name


class ServiceError(Exception):
    status: ClassVar[int] = 400
    code: ClassVar[str] = "INVALID_REQUEST"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = details

    def body(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message}


class InvalidRequest(ServiceError):
    pass


def check_dataset_name(name: str) -> None:
    """``InvalidRequest`` naming the rule, for a name no dataset can have (before anything is read for it)."""
    if not is_dataset_name(name):
        raise InvalidRequest(f"invalid dataset name {name[:80]!r}: {DATASET_NAME_RULE}")


class InvalidIp(ServiceError):
    code = "INVALID_IP"


class MissingIp(ServiceError):
    code = "MISSING_IP"


class InvalidFields(ServiceError):
    """The ``fields`` of a lookup names an unknown top-level field, or is empty or too long
    (``fencepost.reading.fields``)."""

    code = "INVALID_FIELDS"


class BatchTooLarge(ServiceError):
    code = "BATCH_TOO_LARGE"


class NotIndexed(ServiceError):
    """A reverse lookup asks by a column the version does not index; the message names those it does."""

    code = "NOT_INDEXED"


class ExportTooLarge(ServiceError):
    """An export the loader could not make within its memory (a MaxMind DB of too many ranges)."""

    code = "EXPORT_TOO_LARGE"


class UnknownDataset(ServiceError):
    status = 404
    code = "UNKNOWN_DATASET"


class UnknownJob(ServiceError):
    """No object of an enrichment job of that name is in the bucket (``GET /enrich/{job}``)."""

    status = 404
    code = "UNKNOWN_JOB"


class NoVersionAt(ServiceError):
    """No kept version of the dataset answers for that instant (or that version was never live)."""

    status = 404
    code = "NO_VERSION_AT"


class NotFound(ServiceError):
    """No range contains the address, or no such path."""

    status = 404
    code = "NOT_FOUND"


class MethodNotAllowed(ServiceError):
    status = 405
    code = "METHOD_NOT_ALLOWED"


class CursorExpired(ServiceError):
    """A listing cursor names a version that is neither live nor the previous one any more: start again."""

    status = 410
    code = "CURSOR_EXPIRED"


class VersionGone(ServiceError):
    """A version that is no longer kept (neither live nor the previous one)."""

    status = 410
    code = "VERSION_GONE"


class ResponseTooLarge(ServiceError):
    """The answer is larger than the response budget (``RESPONSE_BUDGET_BYTES``): it could not be sent."""

    status = 500
    code = "RESPONSE_TOO_LARGE"


class Unavailable(ServiceError):
    """DynamoDB throttled, timed out or failed; the client should retry after ``retry_after`` seconds."""

    status = 503
    code = "UNAVAILABLE"
    retry_after: ClassVar[int] = 1


class DependencyUnavailable(Exception):
    """DynamoDB, S3 or SQS throttled, timed out or failed: the same work may succeed if retried shortly."""


# What the data layer raises: its own "store unavailable", and one named conflict per rule it enforces. They are
# declared here, below every layer, so that the steps that catch them never import the data layer.


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


class SecretUnavailable(Exception):
    """A secret a source names could not be read; the message names the secret, never its value."""
