"""Change events: what is announced on EventBridge's default bus for each change of a dataset (``kinds``: the kinds
declared once, with their ``detail-type``; the pure builders of each event's detail), what an announcement that must
be made once needs to remember (``announced``), and the port every function announces through (``ChangeEvents``)."""

from fencepost.core.events.kinds import KINDS, ChangeEvents, Event, Kind, NoEvents

__all__ = ["KINDS", "ChangeEvents", "Event", "Kind", "NoEvents"]
