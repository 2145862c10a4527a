"""The table's capacity modes: each visible in the template, all on one logical id (an in-place switch)."""

from __future__ import annotations

from pathlib import Path

import pytest
from aws_cdk.assertions import Annotations, Match

from infra.application import create_app
from infra.context import SettingsError
from tests.support.synthesis import Synthesize

CAPACITY_PROPERTIES = ("BillingMode", "ProvisionedThroughput", "OnDemandThroughput", "WarmThroughput")


def _capacity(synth: Synthesize, **context: str) -> dict[str, object]:
    props = synth(**context).props("table")
    return {key: props[key] for key in CAPACITY_PROPERTIES if key in props}


def test_on_demand_is_the_default(synthesize: Synthesize) -> None:
    # Given no capacity context / When synthesized / Then the table is on-demand with no caps and no warm throughput
    assert _capacity(synthesize) == {"BillingMode": "PAY_PER_REQUEST"}


def test_on_demand_with_maximum_throughput_caps(synthesize: Synthesize) -> None:
    capacity = _capacity(synthesize, capacity="on-demand", maxReadUnits="5000", maxWriteUnits="2000")

    assert capacity == {
        "BillingMode": "PAY_PER_REQUEST",
        "OnDemandThroughput": {"MaxReadRequestUnits": 5000, "MaxWriteRequestUnits": 2000},
    }


def test_on_demand_with_a_read_cap_only(synthesize: Synthesize) -> None:
    capacity = _capacity(synthesize, maxReadUnits="800")

    assert capacity == {"BillingMode": "PAY_PER_REQUEST", "OnDemandThroughput": {"MaxReadRequestUnits": 800}}


def test_prewarm_defaults_to_10000_write_and_12000_read_capacity(synthesize: Synthesize) -> None:
    assert _capacity(synthesize, capacity="prewarm") == {
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 12_000, "WriteCapacityUnits": 10_000},
    }


def test_prewarm_capacity_comes_from_context(synthesize: Synthesize) -> None:
    capacity = _capacity(synthesize, capacity="prewarm", prewarmWriteUnits="20000", prewarmReadUnits="3000")

    assert capacity == {
        "BillingMode": "PROVISIONED",
        "ProvisionedThroughput": {"ReadCapacityUnits": 3000, "WriteCapacityUnits": 20_000},
    }


def test_warm_is_on_demand_with_warm_throughput(synthesize: Synthesize) -> None:
    assert _capacity(synthesize, capacity="warm") == {
        "BillingMode": "PAY_PER_REQUEST",
        "WarmThroughput": {"ReadUnitsPerSecond": 12_000, "WriteUnitsPerSecond": 10_000},
    }


def test_warm_throughput_comes_from_context(synthesize: Synthesize) -> None:
    capacity = _capacity(synthesize, capacity="warm", warmReadUnits="30000", warmWriteUnits="15000")

    assert capacity == {
        "BillingMode": "PAY_PER_REQUEST",
        "WarmThroughput": {"ReadUnitsPerSecond": 30_000, "WriteUnitsPerSecond": 15_000},
    }


def test_every_mode_keeps_the_table_logical_id_and_key_schema(synthesize: Synthesize) -> None:
    # Given the same app synthesized in every capacity mode
    synths = [
        synthesize(),
        synthesize(capacity="on-demand", maxReadUnits="5000", maxWriteUnits="2000"),
        synthesize(capacity="prewarm"),
        synthesize(capacity="warm"),
    ]

    # Then it is always the same AWS::DynamoDB::Table resource: switching mode updates it in place
    ids = {synth.ids["table"] for synth in synths}
    assert len(ids) == 1
    for synth in synths:
        tables = synth.of_type("AWS::DynamoDB::Table")
        assert list(tables) == list(ids)
        props = synth.props("table")
        assert props["KeySchema"] == [
            {"AttributeName": "PK", "KeyType": "HASH"},
            {"AttributeName": "SK", "KeyType": "RANGE"},
        ]
        assert props["AttributeDefinitions"] == [
            {"AttributeName": "PK", "AttributeType": "S"},
            {"AttributeName": "SK", "AttributeType": "N"},
        ]
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


@pytest.mark.parametrize(
    ("context", "message"),
    [
        ({"warmReadUnits": "11999"}, "below the 12,000 read units/s"),
        ({"warmWriteUnits": "3999"}, "below the 4,000 write units/s"),
        ({"warmReadUnits": "100", "warmWriteUnits": "100"}, "can never be lowered"),
    ],
)
def test_warm_throughput_below_a_new_on_demand_table_is_rejected_at_synth(
    context: dict[str, str], message: str, stub_asset: Path
) -> None:
    # Given warm throughput below what a new on-demand table already serves
    # When the app is built / Then it refuses with a message that says why
    with pytest.raises(SettingsError, match=message):
        create_app({"capacity": "warm", **context}, lambda_asset=stub_asset)


def test_warm_throughput_at_the_on_demand_baseline_is_accepted(synthesize: Synthesize) -> None:
    capacity = _capacity(synthesize, capacity="warm", warmReadUnits="12000", warmWriteUnits="4000")

    assert capacity["WarmThroughput"] == {"ReadUnitsPerSecond": 12_000, "WriteUnitsPerSecond": 4_000}


def _warnings(stub_asset: Path, **context: str) -> list[str]:
    """The synth's warnings, with an alarm email given (without one, the stack warns that alarms notify nobody)."""
    _, stack = create_app({"alarmEmail": "ops@example.com", **context}, lambda_asset=stub_asset)
    found = Annotations.from_stack(stack).find_warning("*", Match.any_value())
    return [str(message.entry.data) for message in found]


def test_a_warm_synth_warns_that_warm_throughput_only_goes_up_and_how_to_read_it(stub_asset: Path) -> None:
    # No synth can read the table's current warm throughput (no AWS calls): the deployer is told to, every time
    (warning,) = _warnings(stub_asset, capacity="warm", warmWriteUnits="15000")

    assert "WarmThroughput 12000 read / 15000 write units/s can only go up" in warning
    assert "aws dynamodb describe-table --table-name <TableName> --query Table.WarmThroughput" in warning


def test_a_prewarm_synth_warns_that_the_table_is_billed_until_switched_back_and_how_to_check(
    stub_asset: Path,
) -> None:
    (warning,) = _warnings(stub_asset, capacity="prewarm")

    assert "PROVISIONED at 10000 WCU / 12000 RCU, billed by the hour" in warning
    assert "a plain deploy that changes nothing else (make diff" in warning
    assert "--query Table.BillingModeSummary" in warning


def test_an_on_demand_synth_warns_about_nothing(stub_asset: Path) -> None:
    assert _warnings(stub_asset) == []


def test_a_synth_without_an_alarm_email_warns_that_its_alarms_notify_nobody(stub_asset: Path) -> None:
    _, stack = create_app({}, lambda_asset=stub_asset)
    (warning,) = [str(m.entry.data) for m in Annotations.from_stack(stack).find_warning("*", Match.any_value())]
    assert f"the stack's {len(stack.alarms)} alarms notify nobody: deploy with -c alarmEmail=" in warning
