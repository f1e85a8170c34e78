"""The SDK's exceptions."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = ["TrailproofError", "RejectedEvent", "QueueFull", "NotSent"]


class TrailproofError(Exception):
    """Base class of everything the SDK raises or reports to ``on_error``."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class RejectedEvent(TrailproofError):
    """The service refused an event (a 400 for its batch item); ``message`` is the service's sentence.

    ``event`` is the event as it was sent (after ``before_send``), or None for a spooled batch.
    Nothing was stored; sending it again unchanged would be refused again.
    """

    def __init__(self, message: str, event: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(message)
        self.event = event


class QueueFull(TrailproofError):
    """``log()`` waited ``block_timeout`` seconds for room in the full queue; the event was not queued."""


class NotSent(TrailproofError):
    """The event was not acknowledged before ``close()`` gave up; ``spool_path`` holds it (or None
    when even the spool could not be written, which ``on_error`` was also told)."""

    def __init__(self, message: str, spool_path: Optional[str] = None) -> None:
        super().__init__(message)
        self.spool_path = spool_path
