"""The query and path parameters of the HTTP API, each with the exact JSON schema of what it accepts and its
description (``fencepost.http.routes`` names them per route)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from fencepost.core.keyed.keyed_table import MAX_KEY_CHARS
from fencepost.core.storage.job_keys import JOB_NAME_PATTERN
from fencepost.core.storage.keys import DATASET_NAME_PATTERN
from fencepost.core.versions.exports import FORMATS as EXPORTS
from fencepost.core.versions.mmdb_profiles import PROFILES
from fencepost.errors import InvalidRequest
from fencepost.http.lookup_params import MAX_DATASETS
from fencepost.http.paging import DEFAULT_LIMIT, MAX_LIMIT, ListingError, parse_limit
from fencepost.http.reverse_params import FORMATS, MAX_WHERE_CHARS, NEXT_CURSOR, SORTS
from fencepost.reading.answers import Mode
from fencepost.reading.fields import FIELDS_PATTERN, MAX_FIELDS_CHARS, MAX_PATHS

# What the API accepts, stated exactly (pydantic's annotations cannot say "an IPv4 or IPv6 address, or me").
ADDRESS: Mapping[str, Any] = {
    "anyOf": [{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}, {"const": "me"}]
}
DATASET_NAME: Mapping[str, Any] = {"type": "string", "pattern": f"^{DATASET_NAME_PATTERN}$"}
DATASET_NAMES: Mapping[str, Any] = {
    "type": "string",
    "pattern": f"^{DATASET_NAME_PATTERN}(?:,{DATASET_NAME_PATTERN}){{0,{MAX_DATASETS - 1}}}$",
}
DATASETS_DESCRIPTION = (
    "Dataset name; the service default when omitted. A comma-separated list of 2 to "
    f"{MAX_DATASETS} distinct names answers every one of them (see `mode`)."
)
LIMIT: Mapping[str, Any] = {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT}
CURSOR: Mapping[str, Any] = {"type": "string"}
MODE: Mapping[str, Any] = {"type": "string", "enum": [mode.value for mode in Mode]}
MODE_DESCRIPTION = (
    "With several datasets: `all` (the default) answers each under `answers`, with the `match` where all of them "
    "hold; `first` answers from the first dataset that has a range for the address (an overlay), and fails with "
    "`UNKNOWN_DATASET` if any dataset of the list is not loaded."
)
FIELDS: Mapping[str, Any] = {"type": "string", "maxLength": MAX_FIELDS_CHARS, "pattern": f"^{FIELDS_PATTERN}$"}
FIELDS_DESCRIPTION = (
    "Paths each answer keeps, comma separated: a top-level field (`version`) or one and a key below it "
    "(`match.network`, `data.<column>`; only the first dot splits). `ip` is always kept, and `error` where there "
    "is one. An unknown top-level field is `INVALID_FIELDS`; an unknown key below a known one is simply absent. "
    f"At most {MAX_PATHS} paths."
)


WHERE: Mapping[str, Any] = {"type": "string", "maxLength": MAX_WHERE_CHARS, "pattern": "^[^:]+:"}
WHERE_DESCRIPTION = (
    "`<column>:<value>` (split at the first colon): only the pieces whose indexed column holds the value, from the "
    "column's value index. A column a keyed join adds (`as_name`) is searched through the index of the join's `on` "
    "column: the keyed version live (or at `as_of`) gives the keys whose column holds the value, and their pieces "
    "are listed value after value (each value's in address order); the answer's `joined` names that keyed version, "
    "which a cursor keeps. A column the version does not index is `NOT_INDEXED`, naming those it does (for a joined "
    "column: its `on` column)."
)
FORMAT: Mapping[str, Any] = {"type": "string", "enum": list(FORMATS)}
FORMAT_DESCRIPTION = (
    "With `where`: `json` (the default) lists the pieces; `cidr` answers `networks`, the fewest CIDR networks "
    "of the pieces (clipped to `within`); `text` (or `Accept: text/plain`) the same networks as plain text, one a "
    f"line, the next page's cursor in the `{NEXT_CURSOR}` header."
)
EXPORT_FORMAT: Mapping[str, Any] = {"type": "string", "enum": list(EXPORTS)}
EXPORT_DESCRIPTION = (
    "`csv` (the default): `start,end,<columns>` of the version's pieces; `cidr`: one CIDR network a line with its "
    "columns, tab separated; `mmdb`: a MaxMind DB file readable by `maxminddb` and the other official readers; "
    "`parquet`: the version in the table layout of the Glue tables (written by the tables function, where deployed)."
)
EXPORT_PROFILE: Mapping[str, Any] = {"type": "string", "enum": list(PROFILES)}
EXPORT_PROFILE_DESCRIPTION = (
    "With `format=mmdb`: the file in a GeoLite2 record shape and `database_type` (`GeoLite2-Country`, "
    "`GeoLite2-City`, `GeoLite2-ASN`) that MaxMind's `geoip2` readers, Elasticsearch, Logstash and nginx's geoip2 "
    "module accept; the version's columns answer its fields (docs/exports.md). A version without a column for a "
    "field the profile needs (a country, an ASN) is `INVALID_REQUEST`, naming the profile, the field and its columns."
)
VERSION: Mapping[str, Any] = {"type": "integer", "minimum": 1}
AS_OF: Mapping[str, Any] = {"type": "string", "format": "date-time", "maxLength": 40}
AS_OF_TEXT = "RFC 3339 with its offset, `2026-11-01T12:00:00Z`; see `as_of` of `GET /lookup`"
AS_OF_DESCRIPTION = (
    "Answer from the version that was live at this instant (RFC 3339 with its offset, `2026-11-01T12:00:00Z`; a "
    "version is live from its switch instant inclusive), with several datasets each from its own. The answer adds "
    "`as_of`. An instant no kept version answers is `NO_VERSION_AT`; a future one, `INVALID_REQUEST`."
)
PAST_VERSION_DESCRIPTION = (
    "Answer from this version (one dataset only), if it was live once and is still kept (`NO_VERSION_AT` if it never "
    "was, `VERSION_GONE` once deleted). Not with `as_of`."
)
BETWEEN: Mapping[str, Any] = {"type": "string", "maxLength": 40, "pattern": "^(?:[0-9]{1,12}|[0-9]{4}-.+)$"}
FROM_DESCRIPTION = (
    "Compare two kept versions instead of the latest build with its baseline: the version the changes lead from, "
    f"as its number or as an instant ({AS_OF_TEXT}: the version live then)."
)
TO_DESCRIPTION = "With `from`: the version the changes lead to, as `from` takes it; the live version when omitted."
COLUMN: Mapping[str, Any] = {"type": "string", "minLength": 1, "maxLength": MAX_WHERE_CHARS}
SORT: Mapping[str, Any] = {"type": "string", "enum": list(SORTS)}
JOB_NAME: Mapping[str, Any] = {"type": "string", "pattern": f"^{JOB_NAME_PATTERN}$"}
JOBS_DEFAULT, JOBS_MAX = 20, 100  # each job listed costs a list of its prefix and a GET or two
JOBS_LIMIT: Mapping[str, Any] = {"type": "integer", "minimum": 1, "maximum": JOBS_MAX}
SORT_DESCRIPTION = "`value` (the default), or `pieces` or `ipv4` (addresses), most first; ties by value."


@dataclass(frozen=True, slots=True)
class Param:
    """A query or path parameter, with the exact JSON schema of the values the API accepts."""

    name: str
    location: Literal["query", "path"]
    description: str
    schema: Mapping[str, Any] = field(compare=False)
    required: bool = True


def page_limit(query: Mapping[str, str]) -> int:
    """A listing's ``limit`` (``DEFAULT_LIMIT`` when absent); ``InvalidRequest`` outside 1 to ``MAX_LIMIT``."""
    try:
        return parse_limit(query.get("limit"))
    except ListingError as error:
        raise InvalidRequest(str(error)) from None


def paging(items: str) -> tuple[Param, Param]:
    """The page size and cursor of a listing of ``items``."""
    return (
        Param("limit", "query", f"{items} per page, 1 to {MAX_LIMIT} ({DEFAULT_LIMIT}).", LIMIT, required=False),
        Param("cursor", "query", "The `next` of the previous page, unchanged.", CURSOR, required=False),
    )


def past_params(listed: str) -> tuple[Param, Param]:
    """A listing of a version of the past: its first page resolves ``as_of`` or ``version``; its cursor keeps it."""
    return (
        Param(
            "as_of",
            "query",
            f"List the {listed} of the version live at this instant ({AS_OF_TEXT}).",
            AS_OF,
            required=False,
        ),
        Param("version", "query", f"List the {listed} of this kept version.", VERSION, required=False),
    )


def export_params() -> tuple[Param, Param]:
    """``format`` and ``profile`` of ``GET /datasets/{name}/export``."""
    return (
        Param("format", "query", EXPORT_DESCRIPTION, EXPORT_FORMAT, required=False),
        Param("profile", "query", EXPORT_PROFILE_DESCRIPTION, EXPORT_PROFILE, required=False),
    )


KEY = Param(
    "key",
    "path",
    "The key (percent-encoded): an AS number as `13335` or `AS13335` when the dataset's keys are AS numbers.",
    {"type": "string", "minLength": 1, "maxLength": MAX_KEY_CHARS},
)
