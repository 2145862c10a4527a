"""Synthesized templates shared across the infra tests: each context is synthesized once per session.

Most templates use a tiny stand-in for the Lambda asset (the template only needs a directory to hash); the
``real`` ones use the asset that ``infra.packaging`` builds, exactly as ``cdk synth`` does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk
import pytest

from infra import packaging
from infra.application import create_app
from infra.http_api import HttpApiFront
from infra.stack import FencepostStack


@dataclass(frozen=True)
class Synth:
    """One synthesized app: the stack's template, cdk-nag's validation report and the logical ids of interest."""

    template: dict[str, Any]
    report: dict[str, Any] | None
    outdir: Path
    ids: dict[str, str]

    @property
    def resources(self) -> dict[str, Any]:
        resources: dict[str, Any] = self.template["Resources"]
        return resources

    @property
    def template_file(self) -> Path:
        return self.outdir / f"{STACK}.template.json"

    def resource(self, name: str) -> dict[str, Any]:
        """The resource named ``name`` in ``ids`` (e.g. "table", "loader_role")."""
        resource: dict[str, Any] = self.resources[self.ids[name]]
        return resource

    def props(self, name: str) -> dict[str, Any]:
        props: dict[str, Any] = self.resource(name).get("Properties", {})
        return props

    def of_type(self, kind: str) -> dict[str, dict[str, Any]]:
        return {key: value for key, value in self.resources.items() if value["Type"] == kind}

    def only(self, kind: str) -> dict[str, Any]:
        found = self.of_type(kind)
        assert len(found) == 1, f"expected one {kind}, found {sorted(found)}"
        props: dict[str, Any] = next(iter(found.values())).get("Properties", {})
        return props

    def arn(self, name: str) -> dict[str, Any]:
        return {"Fn::GetAtt": [self.ids[name], "Arn"]}

    def ref(self, name: str) -> dict[str, str]:
        return {"Ref": self.ids[name]}


STACK = "Fencepost"
Synthesize = Callable[..., Synth]


def _logical_ids(stack: FencepostStack) -> dict[str, str]:
    def lid(construct: Any) -> str:
        child = construct.node.default_child
        assert isinstance(child, cdk.CfnElement), construct.node.path
        return stack.get_logical_id(child)

    lookup, loader = stack.lookup_api, stack.loader
    front = lookup.front
    fronts = (
        {"api": lid(front.api), "stage": lid(front.stage)}
        if isinstance(front, HttpApiFront)
        else {"function_url": lid(front.function_url)}
    )
    return {
        **fronts,
        "table": lid(stack.storage.table),
        "bucket": lid(stack.storage.bucket),
        "lookup_function": lid(lookup.function),
        "lookup_role": lid(lookup.function.role),
        "lookup_logs": lid(lookup.function.log_group),
        "loader_function": lid(loader.function),
        "loader_role": lid(loader.function.role),
        "loader_logs": lid(loader.function.log_group),
        "control_queue": lid(loader.control_queue),
        "control_dead_letters": lid(loader.control_dead_letters),
        "data_queue": lid(loader.data_queue),
        "data_dead_letters": lid(loader.data_dead_letters),
        "sweep": lid(loader.sweep),
        "fetch_function": lid(stack.sources.function),
        "fetch_role": lid(stack.sources.function.role),
        "fetch_logs": lid(stack.sources.function.log_group),
        "fetch_schedule": stack.get_logical_id(stack.sources.schedule),
    }


@pytest.fixture(scope="session")
def stub_asset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stand-in Lambda asset: enough for a template, nothing to run."""
    root = tmp_path_factory.mktemp("stub-asset")
    (root / "fencepost" / "handlers").mkdir(parents=True)
    (root / "fencepost" / "__init__.py").write_text("")
    (root / "fencepost" / "handlers" / "__init__.py").write_text("")
    (root / "fencepost" / "handlers" / "lookup.py").write_text("def handler(event, context):\n    return {}\n")
    return root


@pytest.fixture(scope="session")
def real_asset() -> Path:
    """The real asset, built by infra.packaging (a no-op when its cache is up to date)."""
    return packaging.build()


@pytest.fixture(scope="session")
def synthesize(tmp_path_factory: pytest.TempPathFactory, stub_asset: Path, real_asset: Path) -> Synthesize:
    """``synthesize(real=False, **context)``: the app synthesized with that context, cached for the session."""
    cache: dict[tuple[bool, tuple[tuple[str, str], ...]], Synth] = {}

    def synth(*, real: bool = False, **context: Any) -> Synth:
        key = (real, tuple(sorted((k, str(v)) for k, v in context.items())))
        if key not in cache:
            cache[key] = _synth(
                context,
                asset=real_asset if real else stub_asset,
                outdir=tmp_path_factory.mktemp("cdk.out"),
            )
        return cache[key]

    return synth


def _synth(context: Mapping[str, Any], *, asset: Path, outdir: Path) -> Synth:
    app, stack = create_app(context, lambda_asset=asset, outdir=str(outdir))
    app.synth()  # raises if cdk-nag reports an unacknowledged finding
    report_file = outdir / "validation-report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else None
    template = json.loads((outdir / f"{STACK}.template.json").read_text())
    return Synth(template=template, report=report, outdir=outdir, ids=_logical_ids(stack))


# Every context option the stack reads, set at once: the stack's tests read the default template and this one.
ALL_OPTIONS = {
    "auth": "iam",
    "tracing": "on",
    "removal": "destroy",
    "alarmEmail": "ops@example.com",
    "corsOrigins": "https://app.example.com, https://admin.example.com",
    "rateLimit": "50",
    "burstLimit": "100",
    "loaderConcurrency": "4",
    "controlConcurrency": "3",
    "writeRate": "2500",
    "logAddresses": "false",
    "logLevel": "debug",
}


@pytest.fixture(scope="module")
def default(synthesize: Synthesize) -> Synth:
    return synthesize()


@pytest.fixture(scope="module")
def options(synthesize: Synthesize) -> Synth:
    return synthesize(**ALL_OPTIONS)
