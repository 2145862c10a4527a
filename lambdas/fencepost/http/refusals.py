"""Where errors become answers: a refused request (a ``ServiceError``, or a dependency that failed) is logged at
its level and answered with its status and code; anything else is a logged 500 that says nothing of its cause."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeAlias

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.errors import DependencyUnavailable, ServiceError, Unavailable
from fencepost.http.responses import NO_STORE, HttpResponse, error_response, json_response
from fencepost.observability import HandlerMetrics

# What a route can raise that becomes a 4xx or 5xx answer rather than a 500.
Refusal: TypeAlias = ServiceError | DependencyUnavailable


@dataclass(frozen=True, slots=True)
class Refusals:
    logger: Any
    metrics: HandlerMetrics
    log_addresses: bool  # messages and details name the looked-up address: personal data that may stay out of logs

    def refuse(self, error: Refusal) -> HttpResponse:
        if isinstance(error, DependencyUnavailable):  # a dependency failed: answered exactly as Unavailable
            error = Unavailable(str(error))
        details = {"details": error.details, "reason": error.message} if self.log_addresses else {}
        level = self.logger.warning if error.status >= 500 else self.logger.info
        level("request refused", extra={"code": error.code, "status": error.status, **details})
        if error.status >= 500:
            self.metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        return error_response(error)

    def unexpected(self, _: Exception) -> HttpResponse:
        self.logger.exception("unexpected error")
        self.metrics.add_metric(name="Errors", unit=MetricUnit.Count, value=1)
        body = {"error": {"code": "INTERNAL", "message": "an unexpected error occurred; it has been logged"}}
        return json_response(500, body, NO_STORE)
