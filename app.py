#!/usr/bin/env python3
"""The CDK app (``cdk.json``: ``.venv/bin/python app.py``): builds the Lambda asset if needed, then the one stack.

Deployment choices come from context, e.g. ``npx cdk deploy -c capacity=prewarm``; see docs/deploy.md.
"""

from __future__ import annotations

import sys
from pathlib import Path

# The stack imports the service's key names (fencepost.core.storage.keys) from the Lambda source tree.
sys.path.insert(0, str(Path(__file__).resolve().parent / "lambdas"))

from infra.application import create_app
from infra.context import SettingsError


def main() -> int:
    try:
        app, _ = create_app()
    except SettingsError as error:
        print(f"Cannot synthesize Fencepost: {error}", file=sys.stderr)
        return 2
    app.synth()
    return 0


if __name__ == "__main__":
    sys.exit(main())
