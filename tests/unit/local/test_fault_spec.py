"""``FAULTS``: the spec's syntax, its errors, and the seeded decisions that make a failing run repeatable."""

from __future__ import annotations

import pytest

from local.faults import Faults, FaultSpec, FaultSpecError, parse_faults
from local.faults.dice import Dice


def test_every_fault_is_read_with_its_rate_delay_or_count() -> None:
    spec = parse_faults(
        "dynamodb.error=0.02,dynamodb.reset=1%,dynamodb.slow=0.05@250ms,s3.error=0.01,s3.cut=0.5%,loader.kill=2"
    )
    assert spec == FaultSpec(
        dynamodb_error=0.02,
        dynamodb_reset=0.01,
        dynamodb_slow=0.05,
        dynamodb_delay=0.25,
        s3_error=0.01,
        s3_cut=0.005,
        loader_kill=2,
    )
    assert (spec.dynamodb, spec.s3, spec.any) == (True, True, True)
    assert parse_faults(spec.describe()) == spec


def test_nothing_asked_is_no_fault_and_a_spike_lasts_half_a_second_unless_told() -> None:
    for text in ("", "off", "none", " OFF "):
        assert not parse_faults(text).any
    assert parse_faults("dynamodb.slow=0.1").dynamodb_delay == 0.5
    assert parse_faults("dynamodb.slow=0.1@2s").dynamodb_delay == 2.0
    assert not parse_faults("s3.cut=0").any
    assert parse_faults("loader.kill=1").describe() == "loader.kill=1"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("dynamodb.eror=0.1", "unknown fault 'dynamodb.eror' in FAULTS: the faults are dynamodb.error, "),
        ("dynamodb.error", "dynamodb.error has no value: write dynamodb.error=... (RATE of DynamoDB requests"),
        ("dynamodb.error=", "dynamodb.error has no value"),
        ("dynamodb.error=2", "dynamodb.error=2: a rate is a share of requests from 0 to 1 (0.02) or a percentage"),
        ("s3.cut=150%", "s3.cut=150%: a rate is a share"),
        ("s3.cut=-0.1", "s3.cut=-0.1: a rate is a share"),
        ("s3.cut=nan", "s3.cut=nan: a rate is a share"),
        ("s3.error=lots", "s3.error=lots: a rate is a share"),
        ("s3.error=0.1,s3.error=0.2", "s3.error is given twice in FAULTS"),
        ("s3.error=0.1,,s3.cut=0.1", "an empty entry in FAULTS="),
        (
            "dynamodb.slow=0.1@0ms",
            "dynamodb.slow: the delay after @ is a duration from 1ms to 30s (500ms, 2s), not '0ms'",
        ),
        ("dynamodb.slow=0.1@1h", "not '1h'"),
        ("dynamodb.slow=0.1@31s", "not '31s'"),
        ("loader.kill=0.5", "loader.kill=0.5: a number of kills from 0 to 100"),
        ("loader.kill=101", "a number of kills from 0 to 100"),
    ],
)
def test_a_bad_spec_is_refused_saying_what_is_wrong_and_what_is_allowed(text: str, says: str) -> None:
    with pytest.raises(FaultSpecError) as refused:
        parse_faults(text)
    assert says in str(refused.value)


def test_the_same_seed_draws_the_same_decisions_and_another_seed_others() -> None:
    def decisions(seed: int) -> list[bool]:
        dice = Dice(seed)
        return [dice.roll("dynamodb.error", 0.3) for _ in range(200)]

    assert decisions(7) == decisions(7)
    assert decisions(7) != decisions(8)
    assert 30 < sum(decisions(7)) < 90  # about 60 of 200
    # Each fault has a stream of its own: asking another fault's dice does not shift this one's decisions
    dice = Dice(7)
    mixed = []
    for _ in range(200):
        dice.roll("s3.cut", 0.5)
        mixed.append(dice.roll("dynamodb.error", 0.3))
    assert mixed == decisions(7)


def test_rates_of_zero_and_one_never_and_always_fire() -> None:
    dice = Dice(1)
    assert not any(dice.roll("s3.error", 0.0) for _ in range(1000))
    assert all(dice.roll("s3.error", 1.0) for _ in range(1000))


def test_kills_are_armed_one_worker_at_a_time_only_once_the_stack_is_up_and_never_beyond_the_count() -> None:
    faults = Faults(parse_faults("loader.kill=2"), seed=3)
    assert faults.next_kill(80) == 0  # the stack is still being set up
    faults.armed.set()
    first = faults.next_kill(80)
    assert 1 <= first <= 40  # in the first half of a chunk of 80 batches
    assert faults.next_kill(80) == 0  # another worker while the first is armed
    faults.worker_ended(killed=True, armed=True)
    assert faults.next_kill(80) > 0
    faults.worker_ended(killed=True, armed=True)
    assert faults.next_kill(80) == 0  # both kills done
    assert faults.counts() == {"loader.kill": 2}
    assert "loader 2 of 2 kills" in faults.summary()
    assert "FAULTS_SEED=3" in faults.summary()


def test_a_seed_is_drawn_when_none_is_given_and_said_in_the_summary() -> None:
    faults = Faults(parse_faults("s3.error=0.1"))
    assert f"FAULTS_SEED={faults.seed}" in faults.summary()
    assert "S3 0 requests: 0 SlowDown, 0 InternalError, 0 cut bodies" in faults.summary()
