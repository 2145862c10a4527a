"""One Powertools set-up shared by the handlers: JSON logs with correlation ids, EMF metrics, optional tracing.

The Tracer is created only when tracing is switched on: creating it imports ``aws_xray_sdk``, which costs
about 100 ms of cold start even when tracing is disabled.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from aws_lambda_powertools import Logger, Metrics

NAMESPACE = "Fencepost"

# Routes that add no metric (dataset listings, the OpenAPI document) are normal, not a warning.
warnings.filterwarnings("ignore", message="No application metrics to publish")

Handler = Callable[[dict[str, Any], Any], Any]


class Observability:
    def __init__(self, *, service: str, tracing: bool) -> None:
        self.logger = Logger(service=service)
        self.metrics = Metrics(namespace=NAMESPACE, service=service)
        self.tracer: Any = None
        if tracing:
            from aws_lambda_powertools import Tracer

            self.tracer = Tracer(service=service)

    def wrap(self, handler: Handler, *, correlation_id_path: str | None = None) -> Handler:
        """Wrap a Lambda entry point with the logger context, metrics flushing and, if on, tracing."""
        wrapped: Handler = self.logger.inject_lambda_context(correlation_id_path=correlation_id_path)(handler)
        wrapped = self.metrics.log_metrics(raise_on_empty_metrics=False)(wrapped)
        if self.tracer is not None:
            wrapped = self.tracer.capture_lambda_handler(wrapped)
        return wrapped
