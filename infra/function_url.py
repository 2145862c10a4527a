"""The function URL front (``-c front=function-url``): the lookup function's own HTTPS endpoint, payload v2.

No charge beyond Lambda's, and none of API Gateway's stage throttle or access log: the function's reserved
concurrency is the throttle (``infra.front``). ``-c auth=iam`` makes the URL's auth type ``AWS_IAM``: callers
sign with SigV4 and need ``lambda:InvokeFunctionUrl`` and ``lambda:InvokeFunction`` on the function. Lambda
answers CORS preflights itself from the URL's CORS configuration (the same policy as the HTTP API's,
``fencepost.http.cors``), signed or not, so no route is needed for them.
"""

from __future__ import annotations

from typing import Final

import aws_cdk as cdk
from aws_cdk import aws_cloudwatch as cloudwatch
from aws_cdk import aws_lambda as lambda_
from constructs import Construct

from fencepost.http import cors
from infra.alarms import PERIOD, any_in_period, sustained
from infra.settings import Auth, DeploySettings

# Lambda's function URL metrics, published per function (the FunctionName dimension sums every URL of it).
URL_5XX: Final = "Url5xxCount"


class FunctionUrlFront:
    def __init__(
        self, scope: Construct, target: lambda_.IFunction, function: lambda_.Function, settings: DeploySettings
    ) -> None:
        self.function_url = lambda_.FunctionUrl(
            scope,
            "FunctionUrl",
            function=target,
            auth_type=lambda_.FunctionUrlAuthType.AWS_IAM
            if settings.auth is Auth.IAM
            else lambda_.FunctionUrlAuthType.NONE,
            invoke_mode=lambda_.InvokeMode.BUFFERED,
            cors=lambda_.FunctionUrlCorsOptions(
                allowed_origins=list(settings.cors_origins),
                allowed_methods=[lambda_.HttpMethod.GET, lambda_.HttpMethod.POST],
                allowed_headers=list(cors.ALLOW_HEADERS),
                exposed_headers=list(cors.EXPOSE_HEADERS),
                max_age=cdk.Duration.seconds(cors.MAX_AGE_SECONDS),
            ),
        )
        dimensions = {"FunctionName": function.function_name}
        self.alarms = [
            any_in_period(
                scope,
                "Url5xxAlarm",
                description="The lookup function URL answered with 5xx (503 UNAVAILABLE when DynamoDB throttles, "
                "or the function failed).",
                metric=cloudwatch.Metric(
                    namespace="AWS/Lambda",
                    metric_name=URL_5XX,
                    dimensions_map=dimensions,
                    statistic="Sum",
                    period=PERIOD,
                ),
            ),
            sustained(
                scope,
                "LookupThrottlesAlarm",
                description="Lookups were refused (429) in two of the last three five-minute periods: the lookup "
                "function is at its reserved concurrency (-c lookupConcurrency), or the account at its concurrency "
                "limit. Raise the one that binds if the traffic is wanted.",
                metric=function.metric_throttles(statistic="Sum", period=PERIOD),
                periods=2,
                of=3,
            ),
        ]

    @property
    def url(self) -> str:
        return self.function_url.url
