"""The HTTP API front: the lookup function behind an API Gateway HTTP API (payload v2) with one ``$default`` route.

``HttpApi`` has no throttle property, so the API is created without a default stage and the ``$default`` stage is
made here with throttling and access logging.

With ``-c auth=iam`` the ``$default`` route carries the IAM authorizer, and it also catches ``OPTIONS``: a browser's
CORS preflight, unsigned by definition, would be refused (403) before the API's CORS configuration could answer
it. So an ``OPTIONS /{proxy+}`` route without authorization (a more specific route wins over ``$default``) brings
preflights to the function, which answers 204 and nothing else (``fencepost.http.cors``). ``GET /console`` and
``GET /console/{asset}`` are unsigned too: the console's static files, which hold no data; the page's own requests
to the API are refused unsigned, and it says so (``fencepost.http.console``).

Its resources are made in the scope given (the ``LookupApi`` construct), under the ids they always had, so that
an existing stack keeps its API and URL.
"""

from __future__ import annotations

import json
from typing import Final

import aws_cdk as cdk
import jsii
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk.aws_apigatewayv2_authorizers import HttpIamAuthorizer
from aws_cdk.aws_apigatewayv2_integrations import HttpLambdaIntegration
from constructs import Construct

from fencepost.http import cors
from infra import nag
from infra.alarms import PERIOD, any_in_period
from infra.functions import LOG_RETENTION
from infra.settings import Auth, DeploySettings


class HttpApiFront:
    def __init__(self, scope: Construct, target: lambda_.IFunction, settings: DeploySettings) -> None:
        integration = HttpLambdaIntegration("LookupIntegration", target)
        self.api = apigwv2.HttpApi(
            scope,
            "HttpApi",
            api_name=f"{cdk.Stack.of(scope).stack_name}-lookup",
            description="Fencepost IP-range lookups",
            create_default_stage=False,
            default_integration=integration,
            default_authorizer=HttpIamAuthorizer() if settings.auth is Auth.IAM else None,
            # IPv6 callers reach the API over IPv6, so ip=me answers their IPv6 address.
            ip_address_type=apigwv2.IpAddressType.DUAL_STACK,
            cors_preflight=apigwv2.CorsPreflightOptions(
                allow_origins=list(settings.cors_origins),
                allow_methods=[
                    apigwv2.CorsHttpMethod.GET,
                    apigwv2.CorsHttpMethod.POST,
                    apigwv2.CorsHttpMethod.OPTIONS,
                ],
                allow_headers=list(cors.ALLOW_HEADERS),
                expose_headers=list(cors.EXPOSE_HEADERS),
                max_age=cdk.Duration.seconds(cors.MAX_AGE_SECONDS),
            ),
        )
        self.preflight_route: apigwv2.HttpRoute | None = None
        self.console_routes: list[apigwv2.HttpRoute] = []
        if settings.auth is Auth.IAM:
            (self.preflight_route,) = self.api.add_routes(
                path="/{proxy+}",
                methods=[apigwv2.HttpMethod.OPTIONS],
                integration=integration,
                authorizer=apigwv2.HttpNoneAuthorizer(),
            )
            nag.acknowledge(
                self.preflight_route,
                "AwsSolutions-APIG4",
                "CORS preflights are unsigned by definition (the Fetch standard sends no credentials with them); "
                "this route takes OPTIONS only, and the function answers it with 204 and the CORS policy, no data.",
            )
            self.console_routes = self.api.add_routes(
                path="/console",
                methods=[apigwv2.HttpMethod.GET],
                integration=integration,
                authorizer=apigwv2.HttpNoneAuthorizer(),
            ) + self.api.add_routes(
                path="/console/{asset}",
                methods=[apigwv2.HttpMethod.GET],
                integration=integration,
                authorizer=apigwv2.HttpNoneAuthorizer(),
            )
            for route in self.console_routes:
                nag.acknowledge(
                    route,
                    "AwsSolutions-APIG4",
                    "The web console's page and its files: static, the same for every caller, no data. A browser "
                    "cannot sign requests, so the page loads unsigned and tells the reader how to reach the API.",
                )
        removal = cdk.RemovalPolicy.DESTROY if settings.destroy_on_delete else cdk.RemovalPolicy.RETAIN
        access_logs = logs.LogGroup(scope, "AccessLogs", retention=LOG_RETENTION, removal_policy=removal)
        self.stage = apigwv2.HttpStage(
            scope,
            "DefaultStage",
            http_api=self.api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(rate_limit=settings.rate_limit, burst_limit=settings.burst_limit),
            access_log_settings=AccessLogs(access_logs, source_ip=settings.log_addresses),
        )
        if settings.auth is Auth.NONE:
            nag.acknowledge(
                self.api,
                "AwsSolutions-APIG4",
                "A public lookup service by design: anyone may ask which range holds an address. Throttling on "
                "the stage bounds abuse; deploy with -c auth=iam to require SigV4-signed callers.",
            )
        self.alarms = [
            any_in_period(
                scope,
                "Api5xxAlarm",
                description="The lookup API answered with 5xx (503 UNAVAILABLE when DynamoDB throttles).",
                metric=self.api.metric_server_error(statistic="Sum", period=PERIOD),
            )
        ]

    @property
    def url(self) -> str:
        return self.stage.url


# The access log line's fields, in order; the caller's address last, only when addresses may be logged.
ACCESS_LOG_FIELDS: Final = {
    "requestId": "$context.requestId",
    "requestTime": "$context.requestTime",
    "httpMethod": "$context.httpMethod",
    "path": "$context.path",
    "status": "$context.status",
    "protocol": "$context.protocol",
    "responseLength": "$context.responseLength",
    "responseLatency": "$context.responseLatency",
    "integrationLatency": "$context.integrationLatency",
    "integrationError": "$context.integrationErrorMessage",
    "error": "$context.error.message",
    "userAgent": "$context.identity.userAgent",
}
SOURCE_IP_FIELD: Final = {"sourceIp": "$context.identity.sourceIp"}


@jsii.implements(apigwv2.IAccessLogSettings)
class AccessLogs:
    """One JSON line per request into ``log_group``; the caller's address only when addresses may be logged."""

    def __init__(self, log_group: logs.ILogGroup, *, source_ip: bool) -> None:
        fields = {**ACCESS_LOG_FIELDS, **(SOURCE_IP_FIELD if source_ip else {})}
        self._destination = apigwv2.LogGroupLogDestination(log_group)
        self._format = apigw.AccessLogFormat.custom(json.dumps(fields, separators=(",", ":")))

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat | None:
        return self._format
