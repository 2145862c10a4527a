"""Build the CDK app: settings from context, the Lambda asset, the one stack, cdk-nag. No AWS calls.

``app.py`` (the ``cdk.json`` app command) and the infra tests both build the app here, so the tests check exactly
what ``cdk synth`` deploys.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

import aws_cdk as cdk

from infra import nag, packaging
from infra.settings import DeploySettings
from infra.stack import FencepostStack

REPO_ROOT: Final = Path(__file__).resolve().parent.parent
CDK_JSON: Final = REPO_ROOT / "cdk.json"
STACK_NAME: Final = "Fencepost"


def cdk_json_context() -> dict[str, Any]:
    """The context in cdk.json (feature flags). The CLI passes it in itself; ``python app.py`` and tests need it."""
    context = json.loads(CDK_JSON.read_text()).get("context", {})
    return dict(context)


def create_app(
    context: Mapping[str, Any] | None = None,
    *,
    lambda_asset: Path | None = None,
    outdir: str | None = None,
) -> tuple[cdk.App, FencepostStack]:
    """The app and its stack. ``context`` adds to cdk.json's (the CLI's ``-c`` values still win).

    ``lambda_asset`` defaults to the real asset, built (or taken from its cache) by ``infra.packaging``, and the
    tables function's to its own (``packaging.build_tables``); a given ``lambda_asset`` stands for both.
    """
    app = cdk.App(context={**cdk_json_context(), **(context or {})}, outdir=outdir)
    settings = DeploySettings.from_context(app.node.try_get_context)
    asset = lambda_asset if lambda_asset is not None else packaging.build()
    tables_asset = lambda_asset if lambda_asset is not None else packaging.build_tables()
    stack = FencepostStack(
        app,
        STACK_NAME,
        settings=settings,
        lambda_asset=asset,
        tables_asset=tables_asset,
        description="Fencepost: serverless IP-range lookups (one DynamoDB Query per address)",
    )
    nag.add_checks(app)
    return app, stack
