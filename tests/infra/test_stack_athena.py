"""The Athena workgroup of the datasets' tables: bounded scans, results under the bucket's ``_athena/`` that expire."""

from __future__ import annotations

from typing import Any

import pytest

from infra.athena import MB, RESULTS_PREFIX
from infra.context import SettingsError
from infra.settings import DeploySettings
from tests.synth import Synth


def _rule(synth: Synth, rule_id: str) -> dict[str, Any]:
    rules = synth.props("bucket")["LifecycleConfiguration"]["Rules"]
    (rule,) = (rule for rule in rules if rule.get("Id") == rule_id)
    return dict(rule)


def test_the_workgroup_bounds_each_query_and_keeps_its_results_under_the_bucket(default: Synth) -> None:
    workgroup = default.only("AWS::Athena::WorkGroup")
    config = workgroup["WorkGroupConfiguration"]
    assert config["BytesScannedCutoffPerQuery"] == 10 * 1024 * MB
    assert config["EnforceWorkGroupConfiguration"] is True  # a client cannot lift the limit or move the results
    assert config["EngineVersion"] == {"SelectedEngineVersion": "Athena engine version 3"}
    results = config["ResultConfiguration"]
    assert results["EncryptionConfiguration"] == {"EncryptionOption": "SSE_S3"}
    location = results["OutputLocation"]["Fn::Join"][1]
    assert location == ["s3://", default.ref("bucket"), f"/{RESULTS_PREFIX}"]
    rule = _rule(default, "expire-athena-results")
    assert (rule["Prefix"], rule["ExpirationInDays"], rule["Status"]) == (RESULTS_PREFIX, 7, "Enabled")


def test_the_scan_limit_and_the_results_life_are_deploy_choices(synthesize: Any) -> None:
    chosen = synthesize(athenaScanLimitMb="500", athenaResultsDays="2")
    assert chosen.only("AWS::Athena::WorkGroup")["WorkGroupConfiguration"]["BytesScannedCutoffPerQuery"] == 500 * MB
    assert _rule(chosen, "expire-athena-results")["ExpirationInDays"] == 2


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("athenaScanLimitMb", "5", "athenaScanLimitMb must be at least 10"),
        ("athenaResultsDays", "0", "athenaResultsDays must be between 1 and 3650"),
        ("athenaDataset", "Geo Data", "athenaDataset must be a dataset name"),
    ],
)
def test_a_bad_athena_choice_names_its_key(key: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        DeploySettings.from_context({key: value}.get)


def test_the_saved_queries_enrich_each_log_table_live_and_as_of_each_line_in_the_workgroup(default: Synth) -> None:
    queries = {props["Properties"]["Name"]: props for props in default.of_type("AWS::Athena::NamedQuery").values()}

    assert sorted(queries) == sorted(
        f"fencepost-{log}-geo{form}" for log in ("alb", "cloudfront", "vpc") for form in ("", "-as-of-line")
    )
    for saved in queries.values():
        props = saved["Properties"]
        assert props["WorkGroup"] == default.ref("workgroup")
        assert props["Database"] == "fencepost"  # the tables' Glue database
        assert set(saved["DependsOn"]) == {default.ids["workgroup"], default.ids["glue_database"]}
        assert '"fencepost"."geo' in props["QueryString"]


def test_the_saved_queries_name_the_dataset_columns_and_logs_database_chosen(synthesize: Any) -> None:
    chosen = synthesize(athenaDataset="asn-v2", athenaColumns="asn, name", athenaLogsDatabase="weblogs")
    sql = [saved["Properties"]["QueryString"] for saved in chosen.of_type("AWS::Athena::NamedQuery").values()]

    assert len(sql) == 6
    assert all('"weblogs".' in text and '"fencepost"."asn_v2' in text for text in sql)
    assert all('AS "asn-v2.asn"' in text and 'AS "asn-v2.name"' in text for text in sql)
