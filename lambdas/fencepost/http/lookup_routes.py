"""``GET /lookup`` and ``POST /lookup``: addresses answered from one dataset, or from several at once.

Each request reads the live version of every dataset it names once, and answers all its addresses from those
versions (pinned for the request); the Queries of several datasets, and of a batch, run concurrently.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from typing import Any

from aws_lambda_powertools.metrics import MetricUnit

from fencepost.errors import (
    BatchTooLarge,
    InvalidIp,
    InvalidRequest,
    NotFound,
    NoVersionAt,
    ServiceError,
    UnknownDataset,
    VersionGone,
)
from fencepost.http.batch import BatchAsk, Result, batch_answer, batch_request, request_body
from fencepost.http.conditional import Validators
from fencepost.http.key_routes import ranged
from fencepost.http.lookup_params import MAX_LOOKUPS
from fencepost.http.lookup_request import Address, GetLookup, parse_ip
from fencepost.http.responses import NO_STORE, HttpResponse, bounded_json_response, text_response
from fencepost.model import LivePointer, VersionInfo
from fencepost.observability import HandlerMetrics
from fencepost.reading.answers import Answer, Miss, Mode, Outcome, Unknown, combined, overlay
from fencepost.reading.fields import Selection, select, select_combined
from fencepost.reading.joining import NO_JOINS, Joins, Pinned
from fencepost.reading.lookup import Lookup
from fencepost.reading.past import History, Past, parse_past
from fencepost.reading.version_dates import add_dates
from fencepost.settings import LookupSettings

UNRESOLVED = (UnknownDataset, NoVersionAt, VersionGone)  # a dataset of the list that cannot answer


class LookupRoutes:
    """The two lookup routes; ``refuse`` turns an error into its answer (and logs it), as for every route."""

    def __init__(
        self,
        settings: LookupSettings,
        lookup: Lookup,
        metrics: HandlerMetrics,
        pool: Executor,
        refuse: Callable[[ServiceError], HttpResponse],
        *,
        history: History,
        joins: Joins,
    ) -> None:
        self.settings, self.lookup, self.metrics, self.pool, self.refuse = settings, lookup, metrics, pool, refuse
        self.history, self.joins = history, joins

    def get(self, request: GetLookup) -> HttpResponse:
        family, address = request.family, request.address
        pointers = self.pointers(request.names, strict=request.strict, past=request.past)
        versions = self.versions(pointers, strict=request.strict)
        pinned = self.joins.pin(versions, request.past)
        # The answer's validators, from the cached pointers and versions (of the keyed datasets joined too): a 304
        # reads no range.
        validators = Validators.of([*map(_validated, pointers), *pinned.validated()], request.me)
        cache = {"Cache-Control": f"{'public' if request.me is None else 'private'}, max-age={self.settings.max_age}"}
        if validators.not_modified_by(request.if_none_match):
            self.metrics.add_metric(name="NotModified", unit=MetricUnit.Count, value=1)
            return HttpResponse(304, "", {**cache, **validators.headers()}, content_type=None)
        outcomes = self.outcomes(versions, [(family, address)], pinned)[0]
        if len(request.names) == 1:
            body: dict[str, Any] | NotFound = self.single(outcomes[0])
        elif request.mode is Mode.FIRST:
            body = overlay(family, address, _known(outcomes))
        else:
            body = combined(family, address, outcomes)
        if request.past is not None and request.past.shown is not None:
            (body.details if isinstance(body, NotFound) else body)["as_of"] = request.past.shown
        selection = request.selection
        add_dates(body.details if isinstance(body, NotFound) else body, versions, selection)
        if isinstance(body, NotFound):
            missing = self.refuse(_selected_error(body, selection))
            missing.headers.update(validators.headers())
            return missing
        several = "answers" in body
        chosen = body if selection is None else (select_combined if several else select)(body, selection)
        return bounded_json_response(200, chosen, {**cache, **validators.headers()}, self.settings.response_budget)

    def single(self, outcome: Outcome) -> dict[str, Any] | NotFound:
        if isinstance(outcome, Answer):
            return outcome.body()
        if isinstance(outcome, Unknown):
            raise outcome.error
        return NotFound(outcome.message(), **outcome.details())

    def post(self, raw: str | None, base64_encoded: bool, source_ip: str) -> HttpResponse:
        ask = batch_request(request_body(raw, base64_encoded))
        if len(ask.ips) > self.settings.max_batch:
            raise BatchTooLarge(f"a batch holds at most {self.settings.max_batch} addresses, not {len(ask.ips)}")
        names = ask.datasets or (self.settings.default_dataset if ask.dataset is None else ask.dataset,)
        if len(ask.ips) * len(names) > MAX_LOOKUPS:
            raise BatchTooLarge(
                f"a batch looks up at most {MAX_LOOKUPS} addresses times datasets, not {len(ask.ips)} x {len(names)}"
            )
        strict = ask.datasets is None or ask.mode is Mode.FIRST
        past = parse_past(ask.as_of, ask.version, several=ask.datasets is not None, now=time.time())
        versions = self.versions(self.pointers(names, strict=strict, past=past), strict=strict)
        pinned = self.joins.pin(versions, past)
        parsed: list[Address | InvalidIp] = []
        for text in ask.ips:
            try:
                parsed.append(parse_ip(text, source_ip))
            except InvalidIp as error:
                parsed.append(error)
        addresses = [item for item in parsed if isinstance(item, tuple)]  # invalid addresses are not lookups
        answered = iter(self.outcomes(versions, addresses, pinned))
        results: list[Result] = []
        for text, item in zip(ask.ips, parsed, strict=True):
            if isinstance(item, InvalidIp):
                results.append((text, {"ip": text, "error": item.body()}))
            else:
                element = _batch_element(ask, item, next(answered), text)
                if past is not None and past.shown is not None:
                    element["as_of"] = past.shown
                results.append((text, add_dates(element, versions, ask.selection)))
        if ask.selection is not None:  # before the budget: the selected answers are what is sent
            chosen = select_combined if ask.datasets is not None and ask.mode is Mode.ALL else select
            results = [(text, chosen(body, ask.selection)) for text, body in results]
        return text_response(200, batch_answer(results, self.settings.response_budget), NO_STORE)

    def pointers(self, names: Sequence[str], *, strict: bool, past: Past | None = None) -> list[LivePointer | Unknown]:
        """The live pointer of each dataset (or, ``past``, that of the version asked for); an unknown one fails the
        request when ``strict``, else is marked."""
        pointers: list[LivePointer | Unknown] = []
        for name in names:
            try:
                pointers.append(self.history.pointer(name, past))
            except UNRESOLVED as error:
                if strict:
                    raise
                pointers.append(Unknown(name, error))
        return pointers

    def versions(self, pointers: Sequence[LivePointer | Unknown], *, strict: bool) -> list[VersionInfo | Unknown]:
        """The version each pointer names, read once for the whole request (cached across requests)."""
        versions: list[VersionInfo | Unknown] = []
        for pointer in pointers:
            if isinstance(pointer, Unknown):
                versions.append(pointer)
                continue
            try:
                versions.append(ranged(self.lookup.version_of(pointer)))
            except (UnknownDataset, InvalidRequest) as error:
                if strict:
                    raise
                versions.append(Unknown(pointer.dataset, error))
        return versions

    def outcomes(
        self, versions: Sequence[VersionInfo | Unknown], addresses: Sequence[Address], pinned: Pinned = NO_JOINS
    ) -> list[list[Outcome]]:
        """For each address, each dataset's answer in list order (with the keyed datasets ``pinned`` joined): every
        Query of the request at once."""
        known = [info for info in versions if not isinstance(info, Unknown)]
        asks = [(info, family, address) for family, address in addresses for info in known]
        answers = iter(self.lookup.answer_many(asks, self.pool if len(asks) > 1 else None))
        attach = pinned.attach
        outcomes = [[v if isinstance(v, Unknown) else attach(next(answers)) for v in versions] for _ in addresses]
        found = sum(isinstance(answer, Answer) for row in outcomes for answer in row)
        self.metrics.add_counts({"Lookups": len(asks), "Found": found, "NotFound": len(asks) - found})
        return outcomes


def _validated(pointer: LivePointer | Unknown) -> tuple[str, int | None, float | None]:
    if isinstance(pointer, Unknown):
        return pointer.name, None, None
    return pointer.dataset, pointer.version, pointer.live_since


def _known(outcomes: Sequence[Outcome]) -> list[Answer | Miss]:
    return [outcome for outcome in outcomes if not isinstance(outcome, Unknown)]


def _selected_error(error: NotFound, selection: Selection | None) -> NotFound:
    """A NOT_FOUND whose fields beside the error (``ip`` always) are only those selected."""
    if selection is not None:
        error.details = select(error.details, selection)
    return error


def _batch_element(ask: BatchAsk, address: Address, outcomes: list[Outcome], text: str) -> dict[str, Any]:
    """One address's answer in a batch: the ``ip`` of an answer that is not found is the address as sent."""
    family, value = address
    if ask.datasets is None:  # one dataset: today's answers (its element names the dataset and version)
        outcome = outcomes[0]
        if isinstance(outcome, Miss):
            return {**outcome.details(text), "error": NotFound(outcome.message()).body()}
        return outcome.body() if isinstance(outcome, Answer) else {"ip": text, "error": outcome.error.body()}
    if ask.mode is Mode.ALL:
        return combined(family, value, outcomes, ip=text)
    body = overlay(family, value, _known(outcomes), ip=text)
    return {**body.details, "error": body.body()} if isinstance(body, NotFound) else body
