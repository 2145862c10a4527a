"""The template scanners (``infra.scan``): cfn-lint with the serverless rules and checkov find nothing in the templates
users deploy but the checks skipped, each with its reason in one file per scanner, and a new finding fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from infra import scan
from tests.support.synthesis import Synthesize
from tests.synth import Synth


@pytest.fixture(scope="module")
def checked(synthesize: Synthesize) -> dict[str, list[str]]:
    """checkov's findings in each context's template, by context: one checkov run for them all."""
    templates = {name: synthesize(**context).template_file for name, context in scan.CONTEXTS.items()}
    found = scan.checkov(list(templates.values()))
    return {name: found[template] for name, template in templates.items()}


@pytest.mark.parametrize("name", sorted(scan.CONTEXTS))
def test_checkov_finds_nothing_but_the_checks_skipped_with_a_reason(name: str, checked: dict[str, list[str]]) -> None:
    assert checked[name] == []


@pytest.mark.parametrize("config", [scan.CHECKOV_CONFIG, scan.CFN_LINT_CONFIG], ids=["checkov", "cfn-lint"])
def test_every_skipped_check_says_why_on_its_line(config: Path) -> None:
    skipped = scan.skipped(config)
    assert len(skipped) >= 7
    assert {check: reason for check, reason in skipped.items() if len(reason) < 40} == {}


def _with(synth: Synth, tmp_path: Path, change: str) -> Path:
    """The template with one resource made worse, written beside the test."""
    template = json.loads(synth.template_file.read_text())
    resources = template["Resources"]
    if change == "public bucket":
        del resources[synth.ids["bucket"]]["Properties"]["PublicAccessBlockConfiguration"]
    else:  # a function without its timeout
        del resources[synth.ids["lookup_function"]]["Properties"]["Timeout"]
    path = tmp_path / change.replace(" ", "-") / "Fencepost.template.json"
    path.parent.mkdir()
    path.write_text(json.dumps(template))
    return path


def test_a_new_finding_of_either_scanner_fails_the_scan(synthesize: Synthesize, tmp_path: Path) -> None:
    synth = synthesize()
    public, untimed = _with(synth, tmp_path, "public bucket"), _with(synth, tmp_path, "no timeout")
    found = scan.scan([public, untimed, synth.template_file])
    assert any(line.startswith("CKV_AWS_") and "public" in line.lower() for line in found[str(public)]), found
    assert not any(line.startswith("CKV_AWS_") for line in found[str(untimed)]), found  # each template its own
    assert any(line.startswith("[ES1006: Lambda Default Timeout]") for line in found[str(untimed)]), found
    assert found[str(synth.template_file)] == []
