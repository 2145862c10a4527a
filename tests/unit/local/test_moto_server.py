"""``local.moto_server``: moto's routing of a request to a service, found once per host, answers as moto's own; its
SQS's clock reads the same times as moto's."""

from __future__ import annotations

import calendar
from datetime import datetime
from typing import Any

from moto.core.utils import unix_time, unix_time_millis
from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app

from local.moto_server import now_millis, now_seconds, remembered

HOSTS = [
    "s3.us-east-1.amazonaws.com",
    "sqs.us-east-1.amazonaws.com",
    "secretsmanager.us-east-1.amazonaws.com",
    "wafv2.us-east-1.amazonaws.com",
    "ec2.us-east-1.amazonaws.com",
    "events.us-east-1.amazonaws.com",
    "logs.us-east-1.amazonaws.com",
    "bucket-one.s3.amazonaws.com",
    "moto_api",
    "not-a-service.example.com",
    None,
]


def test_each_host_is_routed_as_moto_routes_it_and_looked_up_once() -> None:
    application = DomainDispatcherApplication(create_backend_app)
    own = DomainDispatcherApplication.get_backend_for_host
    calls: list[Any] = []

    def counted(self: DomainDispatcherApplication, host: str | None) -> Any:
        calls.append(host)
        return own(self, host)

    find = remembered(counted)
    for _ in range(3):
        assert [find(application, host) for host in HOSTS] == [own(application, host) for host in HOSTS]
    assert calls == HOSTS  # each host matched against moto's patterns once, then remembered
    assert [find(application, host) for host in HOSTS[:2]] == ["s3", "sqs"]


def test_each_application_remembers_its_own_hosts() -> None:
    first, second = (DomainDispatcherApplication(create_backend_app) for _ in range(2))
    seen: list[int] = []

    def look(self: DomainDispatcherApplication, host: str | None) -> Any:
        seen.append(id(self))
        return host

    find = remembered(look)
    find(first, "sqs.us-east-1.amazonaws.com")
    find(second, "sqs.us-east-1.amazonaws.com")
    assert seen == [id(first), id(second)]


def test_the_sqs_clock_reads_now_as_moto_does_and_a_given_time_by_moto_s_own() -> None:
    before = unix_time()
    seconds, millis = now_seconds(), now_millis()
    after = unix_time()
    assert before <= seconds <= after
    assert before * 1000 <= millis <= after * 1000
    given = datetime(2026, 11, 30, 1, 2, 3, 456_000)
    assert (now_seconds(given), now_millis(given)) == (unix_time(given), unix_time_millis(given))
    assert now_seconds(given) == calendar.timegm(given.timetuple()) + 0.456
