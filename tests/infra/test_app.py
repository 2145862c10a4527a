"""app.py, the cdk.json app command: a bad context value stops the synth with a readable message."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from infra.application import REPO_ROOT


def test_app_refuses_warm_throughput_below_the_on_demand_baseline() -> None:
    # Given the context the CDK CLI would pass for `cdk synth -c capacity=warm -c warmWriteUnits=1000`
    env = os.environ | {
        "CDK_CONTEXT_JSON": json.dumps({"capacity": "warm", "warmWriteUnits": "1000"}),
        "JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION": "20",
    }

    # When the app runs
    result = subprocess.run(
        [sys.executable, "app.py"], cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=120, check=False
    )

    # Then it exits non-zero, before building anything, and says why
    assert result.returncode == 2
    assert "warmWriteUnits=1000 is below the 4,000 write units/s" in result.stderr
    assert "can never be lowered" in result.stderr
