"""The adapters: everything that talks to AWS. ``dynamo`` (the table, one module per concern), ``s3`` (the
bucket), ``sqs`` (the loader's queues). Nothing above this package imports boto3."""

import boto3
import botocore

# Every client's User-Agent, built once: botocore otherwise builds the header twice for every request from a dozen
# parts (35 us each on a 2-core machine: more than a warm lookup's own work).
USER_AGENT = f"fencepost Boto3/{boto3.__version__} md/Botocore#{botocore.__version__}"
