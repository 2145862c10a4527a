"""``python -m infra.scan [TEMPLATE ...]``: the template scanners over synthesized templates, offline.

cfn-lint with the serverless rules (``cfn-lint-serverless``) and checkov, each configured by one file that lists the
checks this design fails on purpose, with the reason on each line (``infra/cfnlintrc.yaml``, ``infra/checkov.yaml``).
Any other finding fails the scan. Without arguments the app is synthesized in the contexts users deploy most
(``CONTEXTS``); ``make lint-template`` also scans the template ``make synth`` wrote with the user's own context.

checkov pins libraries this project's own (boto3, networkx) cannot share, so it lives in a virtual environment of its
own, ``.venv-scan`` (``make`` builds it from ``requirements/scan.txt``); ``CHECKOV`` names another.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import yaml  # type: ignore[import-untyped]
from cfnlint.api import ManualArgs, lint_file  # type: ignore[import-untyped]

ROOT: Final = Path(__file__).resolve().parent.parent
CFN_LINT_CONFIG: Final = ROOT / "infra" / "cfnlintrc.yaml"
CHECKOV_CONFIG: Final = ROOT / "infra" / "checkov.yaml"
CHECKOV: Final = Path(os.environ.get("CHECKOV", ROOT / ".venv-scan" / "bin" / "checkov"))
REGIONS: Final = ["us-east-1"]
_ITEM: Final = re.compile(r"-\s*([A-Z][A-Z0-9_]+)\s*(?:#\s*(.*))?")
CONTEXTS: Final[Mapping[str, Mapping[str, str]]] = {
    "default": {},
    "function-url": {"front": "function-url"},
    "prewarm": {"capacity": "prewarm"},
    "alarm-email": {"alarmEmail": "ops@example.com"},
}


def skipped(config: Path) -> dict[str, str]:
    """The checks a configuration file skips, each with the reason written on its line ("" when none is)."""
    return {
        match.group(1): (match.group(2) or "").strip()
        for line in config.read_text().splitlines()
        if (match := _ITEM.fullmatch(line.strip()))
    }


def cfn_lint(template: Path) -> list[str]:
    """cfn-lint's findings, with the serverless rules, less the ignored checks."""
    config = yaml.safe_load(CFN_LINT_CONFIG.read_text())
    args = ManualArgs(ignore_checks=config["ignore_checks"], append_rules=config["append_rules"], regions=REGIONS)
    return [str(match) for match in lint_file(template, config=args)]


def checkov(templates: Sequence[Path]) -> dict[Path, list[str]]:
    """checkov's failed checks in each template, less the skipped ones (``check id  resource  check name`` each),
    by template: one checkov process for them all (it takes about 2.5 s of CPU to start)."""
    if not CHECKOV.exists():
        raise FileNotFoundError(f"checkov is not installed at {CHECKOV}: run `make lint-template` (or `make test`)")
    files = [part for template in templates for part in ("--file", str(template))]
    options = ["--output", "json", "--quiet", "--compact", "--skip-download"]
    done = subprocess.run(
        [str(CHECKOV), "--config-file", str(CHECKOV_CONFIG), *files, *options],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1) or not done.stdout.strip():
        raise RuntimeError(f"checkov failed ({done.returncode}): {done.stderr[-2000:]}")
    found: Any = json.loads(done.stdout)
    reports = found if isinstance(found, list) else [found]
    failed: dict[Path, list[str]] = {template.resolve(): [] for template in templates}
    for report in reports:
        for check in report.get("results", {}).get("failed_checks", []):
            where = Path(check["file_abs_path"]).resolve()  # the template as given, from this folder
            failed[where].append(f"{check['check_id']}  {check['resource']}  {check['check_name']}")
    return {template: failed[template.resolve()] for template in templates}


def synthesize(context: Mapping[str, str], outdir: Path) -> Path:
    """The app's template in ``context``, synthesized in this process with a stand-in Lambda asset."""
    from infra.application import create_app

    asset = outdir / "asset"
    asset.mkdir(parents=True, exist_ok=True)
    (asset / "handler.py").write_text("# stand-in: scanners read the template, not the code\n")
    app, _ = create_app(dict(context), lambda_asset=asset, outdir=str(outdir / "cdk.out"))
    app.synth()
    return outdir / "cdk.out" / "Fencepost.template.json"


def scan(templates: Sequence[Path]) -> dict[str, list[str]]:
    """Every finding of both scanners, by template."""
    checked = checkov(templates)
    return {str(template): [*cfn_lint(template), *checked[template]] for template in templates}


def main(arguments: Sequence[str]) -> int:
    with tempfile.TemporaryDirectory() as folder:
        templates = [Path(argument) for argument in arguments]
        for name, context in CONTEXTS.items():
            templates.append(synthesize(context, Path(folder) / name))
        findings = scan(templates)
    failed = {template: found for template, found in findings.items() if found}
    for template, found in failed.items():
        print(f"{template}:", *(f"  {line}" for line in found), sep="\n")
    contexts = ", ".join(CONTEXTS)
    print(
        f"cfn-lint (serverless rules) and checkov: {len(findings)} templates ({contexts} and any given), "
        f"{sum(map(len, failed.values()))} findings"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
