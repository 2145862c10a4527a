"""The stack synthesized as ``cdk synth`` does, for the tests that read its template: the infra tests, and the
tests that hold the functions' code to the template's IAM policies (``tests/iam``)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aws_cdk as cdk

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
        "tables_function": lid(stack.tables.function),
        "tables_role": lid(stack.tables.role),
        "tables_logs": lid(stack.tables.function.log_group),
        "tables_queue": lid(stack.tables.queue),
        "tables_dead_letters": lid(stack.tables.dead_letters),
        "glue_database": stack.get_logical_id(stack.tables.database),
        "workgroup": stack.get_logical_id(stack.athena.workgroup),
        "spark_job": stack.get_logical_id(stack.spark_job.job),
        "spark_role": lid(stack.spark_job.role),
    }


def stub_asset(root: Path) -> Path:
    """A stand-in Lambda asset in ``root``: enough for a template, nothing to run."""
    (root / "fencepost" / "handlers").mkdir(parents=True)
    (root / "fencepost" / "__init__.py").write_text("")
    (root / "fencepost" / "handlers" / "__init__.py").write_text("")
    (root / "fencepost" / "handlers" / "lookup.py").write_text("def handler(event, context):\n    return {}\n")
    return root


def synth(context: Mapping[str, Any], *, asset: Path, outdir: Path) -> Synth:
    app, stack = create_app(context, lambda_asset=asset, outdir=str(outdir))
    app.synth()  # raises if cdk-nag reports an unacknowledged finding
    report_file = outdir / "validation-report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else None
    template = json.loads((outdir / f"{STACK}.template.json").read_text())
    return Synth(template=template, report=report, outdir=outdir, ids=_logical_ids(stack))
