"""What one check's requests carry: the source's parameters filled in (secrets read from the store), its basic
authentication, each secret with the hosts it is bound to, the largest body it accepts, and the time it has."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import quote

from fencepost.core.sources.bindings import DEFAULT_HOSTS
from fencepost.core.sources.spec import Secret, Source
from fencepost.core.sources.urls import public_url
from fencepost.downloads import Credential, Request
from fencepost.sources.needs import Secrets


@dataclass(frozen=True, slots=True)
class Given:
    params: Mapping[str, str]  # every parameter, filled in (secrets included: never shown)
    auth: tuple[str, str] | None
    auth_params: tuple[str, ...]  # the parameters sent as basic authentication
    credentials: Mapping[str, Credential]  # the secret parameters', by parameter name
    max_bytes: int
    deadline: float | None  # a monotonic instant: the check's

    def request(self, url: str, *, etag: str | None = None, last_modified: str | None = None) -> Request:
        """A request of ``url`` (as the source writes it), carrying the secrets it names or its authentication."""
        named = {name for name in self.credentials if "{" + name + "}" in url}
        if self.auth is not None:
            named |= set(self.auth_params)
        return Request(
            url=filled(url, self.params),
            shown=public_url(url),
            auth=self.auth,
            etag=etag,
            last_modified=last_modified,
            max_bytes=self.max_bytes,
            credentials=tuple(self.credentials[name] for name in sorted(named & set(self.credentials))),
        )


def given(source: Source, secrets: Secrets, *, max_bytes: int, deadline: float | None) -> Given:
    """The source's parameters read (``SecretUnavailable`` when a secret cannot be), bound and bounded."""
    params: dict[str, str] = {}
    credentials: dict[str, Credential] = {}
    for name, value in source.params.items():
        if isinstance(value, Secret):
            params[name] = secrets.secret_value(value)
            tagged = secrets.secret_hosts(value)
            hosts = DEFAULT_HOSTS if tagged is None else tagged
            credentials[name] = Credential(value.name, params[name], hosts, tagged=tagged is not None)
        else:
            params[name] = value
    names = source.basic_auth
    auth = None if names is None else (params[names[0]], params[names[1]])
    limit = min(source.max_bytes or max_bytes, max_bytes)
    return Given(params, auth, names or (), credentials, limit, deadline)


def filled(url: str, params: Mapping[str, str]) -> str:
    """The address with its placeholders filled in, each value quoted as one part of a URL."""
    return url.format_map({name: quote(value, safe="") for name, value in params.items()})
