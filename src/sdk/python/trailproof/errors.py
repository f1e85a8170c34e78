"""The SDK's exceptions."""

from __future__ import annotations

from typing import Any, Dict, Optional

__all__ = ["TrailproofError", "RejectedEvent", "QueueFull", "NotSent", "Denied", "ApprovalTimeout", "Unavailable"]


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


class Denied(TrailproofError):
    """The gate refused the call (a ``deny`` decision, or an ``ask`` a person denied); the function did
    not run. ``decision`` is the :class:`~trailproof.gate.Decision` with its ``rule`` and ``reason``."""

    def __init__(self, message: str, decision: Any = None) -> None:
        super().__init__(message)
        self.decision = decision


class ApprovalTimeout(TrailproofError):
    """An ``ask`` was not approved within the wait (still pending, or expired); the function did not
    run. ``decision`` is the :class:`~trailproof.gate.Decision`, which may still be approved later."""

    def __init__(self, message: str, decision: Any = None) -> None:
        super().__init__(message)
        self.decision = decision


class Unavailable(TrailproofError):
    """The gate could not be asked: trailproof is unreachable or answered 408, 429 or 5xx. A gated call
    with ``fail_mode="closed"`` (the default) raises it without running."""
