"""The adapters: everything that talks to AWS. ``dynamo`` (the table, one module per concern), ``s3`` (the
bucket), ``sqs`` (the loader's queues). Nothing above this package imports boto3."""
