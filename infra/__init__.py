"""Fencepost's AWS CDK app: one stack of three constructs (storage, lookup API, loader) and the Lambda packaging."""
