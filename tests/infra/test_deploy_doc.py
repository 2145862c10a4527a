"""docs/deploy.md names the commands a deployer needs around capacity changes, and the Makefile has them.

What no test here can check (it needs AWS): that DynamoDB refuses a lower warm throughput, that a failed update
rolls a switched table back to PROVISIONED, and what CloudFormation does to a table's warm throughput when the
property leaves the template. The document says how to look, before and after.
"""

from __future__ import annotations

import re

from infra.application import REPO_ROOT

DEPLOY = (REPO_ROOT / "docs" / "deploy.md").read_text()
MAKEFILE = (REPO_ROOT / "infra" / "infra.mk").read_text()


def _section(title: str) -> str:
    """From the heading that starts with ``title`` to the next heading of its level or above (code blocks skipped)."""
    lines, fenced, start, level = DEPLOY.splitlines(), False, None, 0
    for number, line in enumerate(lines):
        fenced = not fenced if line.startswith("```") else fenced
        heading = None if fenced else re.match(r"(#+) (.*)", line)
        if heading is None:
            continue
        if start is None and heading.group(2).startswith(title):
            start, level = number, len(heading.group(1))
        elif start is not None and len(heading.group(1)) <= level:
            return "\n".join(lines[start:number])
    assert start is not None, title
    return "\n".join(lines[start:])


def test_the_warm_throughput_steps_read_the_current_value_first() -> None:
    warm = _section("Warm throughput")

    assert warm.index("--query Table.WarmThroughput") < warm.index('make deploy CDK_ARGS="-c capacity=warm')
    assert "can never be lowered" in warm


def test_the_switch_back_from_a_prewarm_is_a_diff_then_a_plain_deploy_then_a_billing_check() -> None:
    prewarm = _section("Prewarm")
    steps = [prewarm.index(command) for command in ("make diff", "make deploy\n", "--query Table.BillingModeSummary")]

    assert steps == sorted(steps)
    assert "no other change" in prewarm
    assert "UPDATE_ROLLBACK_COMPLETE" in prewarm


def test_make_diff_runs_cdk_diff_with_the_deploys_options() -> None:
    assert re.search(r"^diff: install\n\t\$\(CDK\) diff \$\(CDK_FLAGS\) \$\(CDK_ARGS\)$", MAKEFILE, re.MULTILINE)
