"""The client's bounded queue of events waiting to be sent, shared by the caller's threads (which
put events) and the sender thread (which takes them in batches and reports them completed).

One condition variable guards everything here: the events, the counters that ``flush()`` and
``pending`` read, and the closing state the sender watches.
"""

from __future__ import annotations

import collections
import threading
import time
from typing import TYPE_CHECKING, Callable, Deque, List, Optional

from .errors import QueueFull, TrailproofError

if TYPE_CHECKING:
    from .client import Receipt

__all__ = ["Item", "EventQueue", "body"]


class Item:
    """One queued event: its JSON bytes as sent, its receipt (None for a spooled one) and its capture
    number (0 for a spooled one)."""

    __slots__ = ("data", "receipt", "seq")

    def __init__(self, data: bytes, receipt: Optional["Receipt"], seq: int = 0) -> None:
        self.data = data
        self.receipt = receipt
        self.seq = seq


def body(items: List[Item]) -> bytes:
    """The request body of a batch: the events' JSON texts as one JSON array."""
    return b"[" + b",".join(i.data for i in items) + b"]"


class EventQueue:
    """First in, first out, at most ``max_queue`` events: ``put`` blocks up to ``block_timeout``
    seconds while it is full, then raises :class:`QueueFull`."""

    def __init__(self, max_queue: int, batch_size: int, flush_interval: float, block_timeout: float) -> None:
        self.max_queue = max_queue
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.block_timeout = block_timeout
        self._cond = threading.Condition()
        self._buf: Deque[Item] = collections.deque()
        self._oldest_at = 0.0  # when the oldest waiting event was queued: it starts its batch's interval
        self._enqueued = 0  # events ever queued
        self._taken = 0  # events ever taken
        self._completed = 0  # events acknowledged, refused or spooled
        self._flush_upto = 0  # flush() asked for every event up to this count to go now
        self._closing = False
        self._close_deadline = 0.0

    @property
    def closing(self) -> bool:
        """True once ``close`` began: nothing is queued any more but the end of the stream."""
        return self._closing

    @property
    def close_deadline(self) -> float:
        """``time.monotonic()`` after which nothing is sent any more (once closing)."""
        return self._close_deadline

    @property
    def pending(self) -> int:
        """Events queued but not yet completed."""
        with self._cond:
            return self._enqueued - self._completed

    def put(self, item: Item) -> None:
        """Queues ``item``; raises :class:`TrailproofError` once closing and :class:`QueueFull` when the
        queue stayed full for ``block_timeout`` seconds."""
        with self._cond:
            if self._closing:
                raise TrailproofError("the client is closed")
            if len(self._buf) >= self.max_queue:
                deadline = time.monotonic() + self.block_timeout
                while len(self._buf) >= self.max_queue:
                    left = deadline - time.monotonic()
                    if left <= 0 or self._closing:
                        raise QueueFull("the trailproof queue has been full (%d events) for %.1f s: trailproof "
                                        "is down or too slow; the event was not queued" %
                                        (self.max_queue, self.block_timeout))
                    self._cond.wait(left)
            self._append(item)

    def _append(self, item: Item) -> None:
        first = not self._buf
        if first:
            self._oldest_at = time.monotonic()
        self._buf.append(item)
        self._enqueued += 1
        # The sender of an idle client waits with no deadline: the first event of a batch starts its
        # flush_interval, a full batch goes at once.
        if first or len(self._buf) >= self.batch_size:
            self._cond.notify_all()

    def close(self, timeout: float, end_stream: Callable[["EventQueue"], None]) -> None:
        """Starts closing (once): ``end_stream`` runs first, with the lock held, and may change the last
        event (``last``) or add one (``append_end``); nothing is sent after ``timeout`` seconds."""
        with self._cond:
            if not self._closing:
                end_stream(self)
                self._closing = True
                self._close_deadline = time.monotonic() + timeout
            self._cond.notify_all()

    def last(self) -> Optional[Item]:
        """The newest waiting event, or None; only inside ``close``'s ``end_stream``."""
        return self._buf[-1] if self._buf else None

    def append_end(self, item: Item) -> None:
        """Queues the stream's last event past the bound; only inside ``close``'s ``end_stream``."""
        self._append(item)

    def flush(self, timeout: Optional[float]) -> bool:
        """Asks for everything queued so far to go now and waits until it completed: True when it did
        within ``timeout`` seconds."""
        with self._cond:
            target = self._enqueued
            self._flush_upto = max(self._flush_upto, target)
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._completed >= target, timeout)

    def complete(self, n: int) -> None:
        """``n`` more events were acknowledged, refused or spooled."""
        with self._cond:
            self._completed += n
            self._cond.notify_all()

    def next_batch(self) -> Optional[List[Item]]:
        """Waits for the next batch to send: ``batch_size`` events, or fewer once the oldest waited
        ``flush_interval``, a flush asks or the queue closes; None once closed and empty."""
        with self._cond:
            while True:
                n = len(self._buf)
                if n:
                    due = self._oldest_at + self.flush_interval
                    now = time.monotonic()
                    if (n >= self.batch_size or self._closing or now >= due
                            or self._flush_upto > self._taken):
                        take = min(n, self.batch_size)
                        items = [self._buf.popleft() for _ in range(take)]
                        self._taken += take
                        if self._buf:
                            self._oldest_at = time.monotonic()
                        self._cond.notify_all()
                        return items
                    self._cond.wait(due - now)
                elif self._closing:
                    return None
                else:
                    self._cond.wait()

    def take_all(self) -> List[Item]:
        """Removes and returns every waiting event."""
        with self._cond:
            rest = list(self._buf)
            self._buf.clear()
            self._taken += len(rest)
            return rest

    def sleep(self, seconds: float) -> None:
        """Waits ``seconds``, or less when the queue closes meanwhile with an earlier deadline."""
        with self._cond:
            end = time.monotonic() + seconds
            while True:
                now = time.monotonic()
                limit = end if not self._closing else min(end, self._close_deadline)
                if now >= limit:
                    break
                self._cond.wait(limit - now)
