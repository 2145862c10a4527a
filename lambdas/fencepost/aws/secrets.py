"""The secret store (AWS Secrets Manager) as a source check reads it (``fencepost.sources.needs.Secrets``): a secret's
text, or one field of a JSON secret, and the hosts its tag ``fencepost:hosts`` binds it to (``DescribeSecret``: the
tags are the operator's, not the bucket's; ``fencepost.core.sources.bindings``). Read once per invocation; never
logged, never stored."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError

from fencepost.aws import USER_AGENT
from fencepost.core.sources.bindings import HOSTS_TAG, tagged_hosts
from fencepost.core.sources.spec import Secret
from fencepost.errors import SecretUnavailable

if TYPE_CHECKING:
    from mypy_boto3_secretsmanager import SecretsManagerClient


def make_secrets_client() -> SecretsManagerClient:
    config = Config(
        connect_timeout=2, read_timeout=10, retries={"max_attempts": 3, "mode": "standard"}, user_agent=USER_AGENT
    )
    return boto3.client("secretsmanager", config=config)


class SecretStore:
    """Secrets read once each, the client made at the first (most sources name no secret)."""

    def __init__(self, make: Callable[[], SecretsManagerClient] = make_secrets_client) -> None:
        self.make = make
        self.client: SecretsManagerClient | None = None
        self.read: dict[str, str] = {}
        self.hosts: dict[str, frozenset[str] | None] = {}

    def secret_hosts(self, secret: Secret) -> frozenset[str] | None:
        if secret.name not in self.hosts:
            try:
                self.client = self.client or self.make()
                tags = self.client.describe_secret(SecretId=secret.name).get("Tags", [])
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "error")
                raise SecretUnavailable(f"secret {secret.name!r}: its tags could not be read ({code})") from None
            except BotoCoreError as error:
                raise SecretUnavailable(
                    f"secret {secret.name!r}: its tags could not be read ({type(error).__name__})"
                ) from None
            found = [tag.get("Value", "") for tag in tags if tag.get("Key") == HOSTS_TAG]
            self.hosts[secret.name] = tagged_hosts(found[0]) if found else None
        return self.hosts[secret.name]

    def secret_value(self, secret: Secret) -> str:
        if secret.name not in self.read:
            try:
                self.client = self.client or self.make()
                self.read[secret.name] = self.client.get_secret_value(SecretId=secret.name)["SecretString"]
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code", "error")
                raise SecretUnavailable(f"secret {secret.name!r} could not be read ({code})") from None
            except (BotoCoreError, KeyError) as error:
                raise SecretUnavailable(f"secret {secret.name!r} could not be read ({type(error).__name__})") from None
        text = self.read[secret.name]
        if secret.key is None:
            return text
        try:
            value = json.loads(text)[secret.key]
        except (ValueError, KeyError, TypeError):
            raise SecretUnavailable(f"secret {secret.name!r} holds no JSON field {secret.key!r}") from None
        if not isinstance(value, str | int):
            raise SecretUnavailable(f"secret {secret.name!r} field {secret.key!r} is not text")
        return str(value)
