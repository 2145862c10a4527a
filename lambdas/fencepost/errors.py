"""Errors a client can branch on: each has an HTTP status and a stable code, mapped to a response in one place.

Also the one error the service's dependencies raise (``DependencyUnavailable``): it knows nothing of HTTP; the API
answers it as ``Unavailable`` (503), the loader hands the message back to be retried.
"""

from __future__ import annotations

from typing import Any, ClassVar

from fencepost.core.keys import DATASET_NAME_RULE, is_dataset_name


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
    (``fencepost.http.fields``)."""

    code = "INVALID_FIELDS"


class BatchTooLarge(ServiceError):
    code = "BATCH_TOO_LARGE"


class UnknownDataset(ServiceError):
    status = 404
    code = "UNKNOWN_DATASET"


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
