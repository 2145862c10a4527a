"""The service on this machine: DynamoDB Local, a local S3 and SQS, the loader worker and an HTTP front."""
