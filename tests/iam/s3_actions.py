"""Which IAM actions, on which resources, an S3 request (path style: ``/<bucket>/<key>?<query>``) needs, as AWS's
"Actions, resources, and condition keys for Amazon S3" lists them for the operations the service uses."""

from __future__ import annotations

import re
from collections.abc import Mapping
from urllib.parse import parse_qs, unquote, urlsplit

Needed = list[tuple[str, str]]  # (action, resource ARN)

# Query parameters that name an operation (a subresource); others (a presigned URL's X-Amz-*, list parameters) do not
_SUBRESOURCES = frozenset(
    {"acl", "cors", "delete", "lifecycle", "location", "notification", "policy", "restore", "tagging", "uploads",
     "uploadId", "versioning", "versions", "attributes", "retention", "legal-hold"}
)  # fmt: skip
_KEY = re.compile(r"<Key>(.*?)</Key>", re.DOTALL)


def needed(method: str, target: str, headers: Mapping[str, str], body: bytes) -> tuple[str, str | None, Needed]:
    """The request's bucket, its key (None for a bucket operation) and the actions it needs."""
    parts = urlsplit(target)
    bucket, _, key = parts.path.lstrip("/").partition("/")
    query = {name: values[0] for name, values in parse_qs(parts.query, keep_blank_values=True).items()}
    sub = sorted(set(query) & _SUBRESOURCES)
    bucket_arn = f"arn:aws:s3:::{bucket}"
    if not key:
        return bucket, None, _bucket_actions(method, sub, bucket_arn, body)
    return bucket, unquote(key), _object_actions(method, sub, f"{bucket_arn}/{unquote(key)}", headers)


def _object_actions(method: str, sub: list[str], arn: str, headers: Mapping[str, str]) -> Needed:
    lowered = {name.lower(): value for name, value in headers.items()}
    named = {
        "GET": {"tagging": "GetObjectTagging", "acl": "GetObjectAcl", "uploadId": "ListMultipartUploadParts"},
        "DELETE": {"uploadId": "AbortMultipartUpload", "tagging": "DeleteObjectTagging"},
        "PUT": {"tagging": "PutObjectTagging", "acl": "PutObjectAcl"},
        "POST": {"restore": "RestoreObject"},
    }
    kind = "GET" if method == "HEAD" else method
    plain = {"GET": "GetObject", "DELETE": "DeleteObject", "PUT": "PutObject", "POST": "PutObject"}
    if kind not in plain:
        return [(f"s3:Unknown{method}", arn)]
    special = [named[kind][name] for name in sub if name in named[kind]]
    found: Needed = [(f"s3:{special[0] if special else plain[kind]}", arn)]
    if kind == "PUT" and not special:  # PutObject (a part of an upload too), with what it may ask besides
        if "x-amz-tagging" in lowered:
            found.append(("s3:PutObjectTagging", arn))
        if "x-amz-copy-source" in lowered:
            found.append(("s3:GetObject", f"arn:aws:s3:::{unquote(lowered['x-amz-copy-source'].lstrip('/'))}"))
    return found


def _bucket_actions(method: str, sub: list[str], arn: str, body: bytes) -> Needed:
    if method == "POST" and sub == ["delete"]:  # DeleteObjects: DeleteObject on each key it names
        return [("s3:DeleteObject", f"{arn}/{key}") for key in _KEY.findall(body.decode())]
    if method in ("GET", "HEAD") and not sub:
        return [("s3:ListBucket", arn)]  # ListObjects(V2), HeadBucket
    names = {"uploads": "ListBucketMultipartUploads", "versions": "ListBucketVersions", "location": "GetBucketLocation"}
    if method == "GET" and len(sub) == 1 and sub[0] in names:
        return [(f"s3:{names[sub[0]]}", arn)]
    return [(f"s3:Bucket{method}:{','.join(sub)}", arn)]  # an operation no function is meant to use
