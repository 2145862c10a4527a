"""The loader's two queues in memory, delivered as SQS and Lambda deliver them.

A message is delivered once it is due; a handler that returns deletes it; one that raises leaves it on its queue
with its receive count grown: ``HandBack`` makes it due again after the delay asked for, any other exception (a
crash) after the visibility timeout. A message that failed on its ``max_receives``-th receive goes to the
dead-letter list. The harness chooses what is delivered: the next due message (of a lane, or not held back), each
message twice (at once, or again later), one dropped, a chosen one first.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from fencepost.aws.sqs import MAX_DELAY
from fencepost.loading.delivery import Delivery, HandBack
from fencepost.loading.messages import Command, Lane, dump
from tests.fakes.kernel import Clock, Faults, port
from tests.faults import Killed

Handler = Callable[[str, Delivery], None]


@dataclass(slots=True)
class Envelope:
    number: int  # in the order sent: among messages due at once, the oldest is delivered first
    lane: Lane
    body: str
    due: float
    receives: int = 0
    echo: bool = False  # a duplicate of a message already delivered (it is not duplicated again)

    @property
    def kind(self) -> str:
        """``build``, ``chunk``, ``delete``, ``notification`` (S3's), or ``unparsable``."""
        try:
            document = json.loads(self.body)
        except ValueError:
            return "unparsable"
        if not isinstance(document, dict):
            return "unparsable"
        return "notification" if "Records" in document else str(document.get("kind", "unparsable"))

    @property
    def fields(self) -> dict[str, object]:
        document = json.loads(self.body) if self.kind not in ("notification", "unparsable") else {}
        return dict(document)


Selector = Callable[[Envelope], bool]


class FakeQueues:
    def __init__(
        self,
        clock: Clock,
        faults: Faults,
        *,
        max_receives: int,
        visibility: float = 60.0,
        invocation_seconds: float = 880.0,
    ) -> None:
        self.clock, self.faults = clock, faults
        self.max_receives, self.visibility, self.invocation_seconds = max_receives, visibility, invocation_seconds
        self.handler: Handler | None = None
        self.pending: list[Envelope] = []
        self.dead_letters: list[Envelope] = []
        self.sent: list[Envelope] = []  # every message the loader sent (copies, as sent)
        self.delivered: list[Envelope] = []  # every delivery (copies, receive count as delivered)
        self.errors: list[BaseException] = []  # exceptions other than HandBack and Killed: bugs
        self.crashes: list[str] = []  # the kind of each message whose invocation was killed
        self.repeat = 1  # handler calls per delivery (a duplicate delivered at the same moment)
        self.echoes = 0  # copies of each message delivered again later (a duplicate delivered afterwards)
        self.echo_delay = 1.0  # seconds after the original's delivery
        self.twin_at: set[str] = set()  # a duplicate runs to its end when the delivery reaches one of these steps
        self._numbers = 0

    def _enqueue(self, lane: Lane, body: str, delay: float) -> Envelope:
        self._numbers += 1
        envelope = Envelope(self._numbers, lane, body, self.clock() + delay)
        self.pending.append(envelope)
        return envelope

    # -- the loader's Outbox ----------------------------------------------------------------------------------------

    @port
    def send(self, message: Command, delay: float = 0) -> None:
        seconds = max(0, min(MAX_DELAY, int(delay + 0.999)))  # as fencepost.aws.sqs.Queues rounds and caps it
        envelope = self._enqueue(message.lane, dump(message), seconds)
        self.sent.append(Envelope(envelope.number, envelope.lane, envelope.body, envelope.due))

    @port
    def send_all(self, messages: Iterable[Command]) -> int:
        count = 0
        for message in messages:  # sent as produced: a crash midway has sent some
            self.send(message)
            count += 1
        return count

    # -- what the outside sends (S3's notifications, stray bodies) -------------------------------------------------

    def post(self, body: str, lane: Lane = Lane.CONTROL, delay: float = 0) -> Envelope:
        return self._enqueue(lane, body, delay)

    # -- delivery ------------------------------------------------------------------------------------------------------

    def waiting(self, lane: Lane | None = None, hold: Selector | None = None) -> list[Envelope]:
        """Pending messages that may be delivered (of ``lane``; not held back), in delivery order."""
        found = [e for e in self.pending if (lane is None or e.lane == lane) and not (hold and hold(e))]
        return sorted(found, key=lambda e: (e.due, e.number))

    def deliver(self, envelope: Envelope) -> bool:
        """Deliver one pending message now (the clock moves to when it is due); True if the handler returned."""
        assert self.handler is not None
        assert envelope in self.pending
        self.clock.advance_to(envelope.due)
        envelope.receives += 1
        self.delivered.append(Envelope(envelope.number, envelope.lane, envelope.body, envelope.due, envelope.receives))
        delivery = Delivery(self.clock.monotonic() + self.invocation_seconds, envelope.receives)
        self.faults.hook = self._twin(envelope.body, delivery) if self.twin_at else None
        try:
            for _ in range(self.repeat):
                self.handler(envelope.body, delivery)
        except HandBack as hand_back:
            return self._failed(envelope, hand_back.delay)
        except Killed:
            self.crashes.append(envelope.kind)
            return self._failed(envelope, self.visibility)
        except Exception as error:  # SQS delivers again whatever the handler raised; the test sees it
            self.errors.append(error)
            return self._failed(envelope, self.visibility)
        finally:
            self.faults.hook = None
        self.pending.remove(envelope)
        for _ in range(0 if envelope.echo else self.echoes):
            self._enqueue(envelope.lane, envelope.body, self.echo_delay).echo = True
        return True

    def _twin(self, body: str, delivery: Delivery) -> Callable[[str], None]:
        """A duplicate delivered at the same time, in another invocation: it runs between two steps of the first."""

        def hook(step: str) -> None:
            if step in self.twin_at:
                self.faults.hook = None  # once per delivery
                assert self.handler is not None
                with contextlib.suppress(HandBack, Killed):  # the original's outcome decides the message's fate
                    self.handler(body, delivery)

        return hook

    def _failed(self, envelope: Envelope, delay: float) -> bool:
        if envelope.receives >= self.max_receives:
            self.pending.remove(envelope)
            self.dead_letters.append(envelope)
        else:
            envelope.due = self.clock() + delay
        return False

    def deliver_next(self, lane: Lane | None = None, hold: Selector | None = None) -> Envelope | None:
        waiting = self.waiting(lane, hold)
        if not waiting:
            return None
        self.deliver(waiting[0])
        return waiting[0]

    def run(self, hold: Selector | None = None, *, until: Callable[[], bool] | None = None, limit: int = 5000) -> int:
        """Deliver due messages, oldest first, until none is left (but held ones) or ``until()`` holds."""
        count = 0
        while not (until and until()) and self.deliver_next(hold=hold) is not None:
            count += 1
            assert count < limit, f"still delivering after {limit} deliveries: {[e.kind for e in self.pending]}"
        return count

    def drop(self, select: Selector) -> Envelope:
        """Lose one pending message (the first that ``select`` picks)."""
        envelope = next(e for e in self.waiting() if select(e))
        self.pending.remove(envelope)
        return envelope
