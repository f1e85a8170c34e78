"""The background sender: sends the spool's batches first, then takes events from the queue in
batches, each with one ``Idempotency-Key`` reused on every retry, backs off while trailproof is down,
and spools what it could not send before the client's close deadline.

Every queued event with a receipt ends acknowledged, refused or spooled, and is then reported to the
queue as completed.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any, Callable, Dict, List, Optional

from ._queue import EventQueue, Item, body
from ._spool import Spool
from ._transport import Response, Transport, new_idempotency_key
from .errors import NotSent, RejectedEvent, TrailproofError

__all__ = ["Sender", "DUMPS", "loads"]

#: Compact JSON as the service stores it; refuses NaN and infinities.
DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

_SPOOL = object()  # _deliver's answer when close() ran out of time


def loads(data: bytes) -> Optional[Dict[str, Any]]:
    """The JSON object in ``data``, or None."""
    try:
        v = json.loads(data.decode("utf-8"))
        return v if isinstance(v, dict) else None
    except Exception:
        return None


class Sender:
    """Runs on the client's sender thread (``run``), but for ``spool_batches``, which ``close`` calls
    on the caller's thread once the sender thread stopped or gave up."""

    def __init__(self, url: str, api_key: Optional[str], request_timeout: float, max_backoff: float,
                 queue: EventQueue, spool: Spool, report: Callable[[TrailproofError], None]) -> None:
        self.url = url
        self.api_key = api_key
        self.request_timeout = request_timeout
        self.max_backoff = max_backoff
        self.queue = queue
        self.spool = spool
        self.report = report

    def run(self) -> None:
        transport = Transport(self.url, self.api_key)
        try:
            self._drain_spool(transport)
            while True:
                items = self.queue.next_batch()
                if items is None:
                    return
                self._send(transport, items, new_idempotency_key(), None)
        except BaseException as e:  # a bug must not lose events silently
            self.report(TrailproofError("the trailproof sender stopped: %r" % (e,)))
            raise
        finally:
            transport.close()

    def spool_batches(self, items: List[Item]) -> None:
        """Writes ``items`` to the spool in batches of the queue's batch size, each with a new key."""
        size = self.queue.batch_size
        for i in range(0, len(items), size):
            self._spool_items(items[i:i + size], new_idempotency_key(), None)

    def _drain_spool(self, transport: Transport) -> None:
        for path in self.spool.pending():
            claim = self.spool.claim(path)
            if claim is None:
                continue
            why = claim.unreadable()
            if why is not None:
                aside = claim.set_aside()
                if aside is not None:
                    self.report(TrailproofError(
                        "the spooled batch %s cannot be read by this version (%s); it is set aside as %s and the"
                        " other batches are sent" % (path, why, aside)))
                continue
            items = [Item(DUMPS(e).encode("utf-8"), None) for e in json.loads(claim.body.decode("utf-8"))]
            if self._send(transport, items, claim.key, claim.body, spooled=True):
                claim.done()
            else:
                claim.release()
                return

    def _send(self, transport: Transport, items: List[Item], key: str, data: Optional[bytes],
              spooled: bool = False) -> bool:
        """Delivers one batch; False when it stays (or was put) in the spool."""
        if data is None:
            data = body(items)
        r = self._deliver(transport, data, key, len(items))
        if r is _SPOOL:
            if not spooled:
                self._spool_items(items, key, data)
            return False
        assert isinstance(r, Response)
        if r.status in (201, 207):
            self._settle(r, items)
            return True
        # refused as a whole, so nothing was stored: halves go out as new batches with new keys
        message = r.error_message()
        if len(items) > 1 and r.status in (400, 413):
            half = len(items) // 2
            first = self._send(transport, items[:half], new_idempotency_key(), None)
            if not first:
                self._spool_items(items[half:], new_idempotency_key(), None)
            else:
                self._send(transport, items[half:], new_idempotency_key(), None)
            return True  # every item is now sent, refused or in a spool file of its own
        for it in items:
            self._reject(it, message)
        self.queue.complete(sum(1 for it in items if it.receipt is not None))
        return True

    def _deliver(self, transport: Transport, data: bytes, key: str, count: int) -> Any:
        attempt = 0
        while True:
            timeout = self.request_timeout
            if self.queue.closing:
                left = self.queue.close_deadline - time.monotonic()
                if left <= 0:
                    return _SPOOL
                timeout = min(timeout, left)
            retry_after: Optional[float] = None
            try:
                r = transport.post_batch(data, key, timeout)
                if r.status in (201, 207, 400, 413, 422):
                    return r
                problem = "trailproof answered %d: %s" % (r.status, r.error_message())
                retry_after = r.retry_after()
            except OSError as e:
                problem = "trailproof at %s is unreachable: %s" % (self.url, e)
            attempt += 1
            if attempt == 1:
                self.report(TrailproofError("%s; retrying a batch of %d events with back-off" % (problem, count)))
            cap = min(self.max_backoff, 0.1 * (2 ** min(attempt, 20)))
            delay = random.uniform(cap / 2, cap)
            if retry_after is not None:
                delay = max(delay, retry_after)
            self.queue.sleep(delay)

    def _settle(self, r: Response, items: List[Item]) -> None:
        try:
            results = r.json()
            by_index = {int(x["index"]): x for x in results}
        except Exception:
            by_index = {}
        done = 0
        for i, it in enumerate(items):
            res = by_index.get(i)
            if res is not None and isinstance(res.get("event"), dict):
                ev = res["event"]
                if it.receipt is not None:
                    it.receipt.set_result({k: ev.get(k) for k in ("id", "log_index", "hash", "sequence",
                                                                  "recorded_at")})
            elif res is not None and "error" in res:
                self._reject(it, str(res["error"]))
            else:
                err = TrailproofError("trailproof acknowledged the batch (HTTP %d) but its answer has no result "
                                      "for item %d" % (r.status, i))
                self.report(err)
                if it.receipt is not None:
                    it.receipt.set_exception(err)
            if it.receipt is not None:
                done += 1
        self.queue.complete(done)

    def _reject(self, item: Item, message: str) -> None:
        event = item.receipt.event if item.receipt is not None else loads(item.data)
        err = RejectedEvent(message, event)
        self.report(err)
        if item.receipt is not None:
            item.receipt.set_exception(err)

    def _spool_items(self, items: List[Item], key: str, data: Optional[bytes]) -> None:
        if not items:
            return
        try:
            path: Optional[str] = self.spool.write(key, data if data is not None else body(items))
            msg = "%d events were not acknowledged before close(); they are spooled in %s" % (len(items), path)
        except OSError as e:
            path = None
            msg = "%d events were not acknowledged before close() and the spool could not be written: %s" % (
                len(items), e)
        err = NotSent(msg, path)
        self.report(err)
        n = 0
        for it in items:
            if it.receipt is not None and not it.receipt.done():
                it.receipt.set_exception(err)
                n += 1
        self.queue.complete(n)
