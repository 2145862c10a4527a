"""``make bench``'s soak, small (``python -m bench.soak --rows``): two loads under 2% DynamoDB errors, 1% S3 errors
and a killed worker, looked up throughout, report every item in place, no wrong answer and no undocumented 5xx."""

from __future__ import annotations

from bench import soak
from tests.judged_lookups import NOT_LIVE, RIGHT, UNAVAILABLE, UNDOCUMENTED, WRONG


def test_a_small_soak_loses_nothing_answers_nothing_wrong_and_says_so() -> None:
    result = soak.measure(3000, addresses=200)
    assert [load.status for load in result.loads] == ["READY", "READY"]
    assert result.loads[1].version > result.loads[0].version
    for load in result.loads:
        assert (load.lost, load.extra, load.different) == (0, 0, 0)
        assert load.counted == load.expected == 3000
    judged = result.judged
    assert judged.count > 100
    assert judged.verdicts[RIGHT] > 0
    assert (judged.verdicts[WRONG], judged.verdicts[UNDOCUMENTED]) == (0, 0)
    assert set(judged.verdicts) <= {RIGHT, UNAVAILABLE, NOT_LIVE, WRONG, UNDOCUMENTED}
    assert "loader 1 of 1 kills" in result.faults
    assert result.counts["loader.kill"] == 1
    assert result.counts.get("dynamodb.error.500", 0) + result.counts.get("dynamodb.error.503", 0) > 10
    assert result.counts.get("s3.error.500", 0) + result.counts.get("s3.error.503", 0) >= 1  # the seed meets one at 1%
    text = soak.section(result)
    assert text.startswith("### 13. Soak: 3,000 rows of the IPv4 file loaded twice")
    assert "**0 wrong** answers, **0 undocumented 5xx**" in text
    assert "p99" in text
    assert "paced at 100/s" in text


def test_the_soak_can_be_left_out_of_make_bench() -> None:
    class Arguments:
        soak_rows, soak_seed = 0, soak.SEED

    assert soak.run(Arguments()) is None
