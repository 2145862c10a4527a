"""Infrastructure tests: template assertions, cdk-nag, cfn-lint, the Lambda asset and an offline `cdk synth`."""

import os

# jsii starts Node when aws_cdk is first imported; Node 20 would print an end-of-life banner on every run.
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")
