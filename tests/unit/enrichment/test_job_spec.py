"""A job file's settings (``enrichment.job_spec.JobSpec.parse``): what it may say, each mistake named."""

from __future__ import annotations

from typing import Any

import pytest

from fencepost.enrichment.inputs import InputError
from fencepost.enrichment.job_spec import JobSpec


def test_a_job_file_with_its_settings() -> None:
    spec = JobSpec.parse({"datasets": "geo", "format": "alb", "fields": "data,range", "gzip": False})
    assert spec.datasets == ("geo",)
    assert spec.form_of("_enrich/j/in/a.log.gz") == "alb"
    assert spec.out_form_of("_enrich/j/in/a.log.gz") == "csv"  # a log is written as CSV unless asked
    plain = JobSpec.parse({"datasets": ["geo", "asn"]})
    assert plain.form_of("x/rows.jsonl.gz") == "jsonl"
    assert plain.form_of("x/addresses.txt") == "lines"
    assert plain.gzip is None  # as the input


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        ([], "a JSON object"),
        ({}, "names its datasets"),
        ({"datasets": []}, "names its datasets"),
        ({"datasets": [1]}, "names its datasets"),
        ({"datasets": ["d"] * 17}, "at most 16"),
        ({"datasets": ["geo"], "colour": 1}, "no setting 'colour'"),
        ({"datasets": ["geo"], "header": "no"}, "true or false"),
        ({"datasets": ["geo"], "fields": 3}, "a string"),
        ({"datasets": ["geo"], "format": "xml"}, "unknown input format"),
        ({"datasets": ["geo"], "out_format": "xml"}, "unknown output format"),
        ({"datasets": ["geo"], "mode": "some"}, "unknown mode"),
        ({"datasets": ["geo"], "as_of": "2024-01-01T00:00:00Z", "time": "at"}, "not both"),
        ({"datasets": ["geo"], "column": "x" * 1001}, "too long"),
        ({"datasets": ["geo"], "out_format": "parquet"}, "parquet is written by python -m enrich"),
    ],
)
def test_a_job_file_that_cannot_be_used_says_why(document: Any, reason: str) -> None:
    with pytest.raises(InputError, match=reason):
        JobSpec.parse(document)
