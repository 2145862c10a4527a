"""Published us-east-1 prices, with the date they were read: the planner's load costs and the bench's cost sections."""

from __future__ import annotations

PRICES_DATE = "2026-11-21"
PRICES_SOURCE = (
    "AWS pricing pages for DynamoDB, Lambda, API Gateway and CloudWatch Logs (us-east-1), "
    "as quoted in ../shared/REFERENCE.md"
)

DYNAMODB_READ_PER_MILLION_RRU = 0.125  # on-demand, after the November 2024 price cut
DYNAMODB_WRITE_PER_MILLION_WRU = 0.625
# Provisioned capacity, billed by the hour (AWS's provisioned pricing page, us-east-1; not in ../shared/REFERENCE.md)
DYNAMODB_WCU_HOUR = 0.00065
DYNAMODB_RCU_HOUR = 0.00013
DYNAMODB_STORAGE_PER_GB_MONTH = 0.25
LAMBDA_ARM_PER_GB_SECOND = 0.0000133334
LAMBDA_PER_MILLION_REQUESTS = 0.20
HTTP_API_PER_MILLION_REQUESTS = 1.00  # first 300 million requests a month
SQS_PER_MILLION_REQUESTS = 0.40  # standard queue, after the free tier
CLOUDWATCH_LOGS_PER_GB = 0.50  # ingestion (standard and Lambda's vended logs, first tier)
