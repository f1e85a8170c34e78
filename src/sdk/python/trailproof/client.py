"""The trailproof client: events queued by the caller, sent in the background in batches
(src/site/python-sdk.md)."""

from __future__ import annotations

import atexit
import collections
import json
import logging
import os
import random
import sys
import threading
import time
import uuid
import weakref
from concurrent.futures import Future
from typing import Any, Callable, Deque, Dict, List, Mapping, Optional, Union

from ._spool import Spool, default_spool_dir
from ._transport import Response, Transport, new_idempotency_key
from ._values import as_object, jsonable, utc_now
from .errors import NotSent, QueueFull, RejectedEvent, TrailproofError

__all__ = ["Client", "Receipt"]

_log = logging.getLogger("trailproof")
_DUMPS = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_DEFAULT_URL = "http://127.0.0.1:7600"


def _env_flag(name: str, default: bool) -> bool:
    v = os.environ.get(name)
    if v is None or not v.strip():
        return default
    return v.strip().lower() not in ("0", "false", "no", "off")


class Receipt(Future):  # type: ignore[type-arg]
    """The future acknowledgement of one event.

    ``result(timeout)`` is ``{"id", "log_index", "hash", "sequence", "recorded_at"}`` of the stored
    event once its batch is acknowledged. It raises :class:`RejectedEvent` (the service refused the
    event, with its message) or :class:`NotSent` (``close()`` spooled it for a later client).
    ``event`` is the event as sent. A receipt cannot be cancelled: an event, once logged, is sent.
    """

    def __init__(self, event: Optional[Dict[str, Any]]) -> None:
        super().__init__()
        self.event = event

    def cancel(self) -> bool:
        return False


class _Item:
    __slots__ = ("data", "receipt", "seq")

    def __init__(self, data: bytes, receipt: Optional[Receipt], seq: int = 0) -> None:
        self.data = data
        self.receipt = receipt
        self.seq = seq


def _body(items: List[_Item]) -> bytes:
    return b"[" + b",".join(i.data for i in items) + b"]"


_SPOOL = object()  # _deliver's answer when close() ran out of time


class Client:
    """Sends events to trailproof (src/site/python-sdk.md#client).

    Arguments left out come from the environment: ``TRAILPROOF_URL`` (default
    ``http://127.0.0.1:7600``), ``TRAILPROOF_API_KEY``, ``TRAILPROOF_AGENT_ID`` (default: the
    program's file name), ``TRAILPROOF_SPOOL_DIR`` (default ``~/.trailproof/spool``) and
    ``TRAILPROOF_LOG_KEY`` (the log's verifier key, for :meth:`verify`). With
    ``TRAILPROOF_ENABLED=false`` every method is a no-op and receipts resolve to None.

    ``log()`` never waits for the network: events go to a bounded queue (``max_queue``) that a
    background thread sends in batches of up to ``batch_size`` at least every ``flush_interval``
    seconds, each batch with one ``Idempotency-Key`` reused on every retry. A full queue blocks
    ``log()`` up to ``block_timeout`` seconds, then raises :class:`QueueFull`. Batches still unsent
    when ``close()`` gives up are written to the spool and sent first by the next client.

    ``on_error(error)`` is called (on the sender thread) with a :class:`TrailproofError` for every
    refused event, for the first failed attempt of a batch, and for every spooled batch; the default
    logs a warning on the ``trailproof`` logger. ``before_send(event) -> event`` may redact events;
    if it raises or returns something else than a dict, the event is still sent with its content
    replaced by ``{"redaction_failed": true}``.
    """

    def __init__(self, url: Optional[str] = None, api_key: Optional[str] = None, agent_id: Optional[str] = None,
                 session_id: Optional[str] = None, labels: Optional[Mapping[str, str]] = None,
                 metadata: Optional[Mapping[str, Any]] = None, *, batch_size: int = 100,
                 flush_interval: float = 1.0, max_queue: int = 10000, block_timeout: float = 30.0,
                 request_timeout: float = 10.0, close_timeout: float = 10.0, max_backoff: float = 30.0,
                 spool_dir: Optional[str] = None, log_key: Optional[str] = None,
                 on_error: Optional[Callable[[TrailproofError], None]] = None,
                 before_send: Optional[Callable[[Dict[str, Any]], Dict[str, Any]]] = None,
                 enabled: Optional[bool] = None) -> None:
        if batch_size < 1 or batch_size > 10000:
            raise ValueError("batch_size must be 1..10000")
        if max_queue < 1:
            raise ValueError("max_queue must be at least 1")
        self.enabled = _env_flag("TRAILPROOF_ENABLED", True) if enabled is None else enabled
        self.url = (url or os.environ.get("TRAILPROOF_URL") or _DEFAULT_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("TRAILPROOF_API_KEY") or None
        self.agent_id = agent_id or os.environ.get("TRAILPROOF_AGENT_ID") or _program_name()
        self.session_id = session_id
        self.labels = dict(labels or {})
        self.metadata = dict(metadata or {})
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.max_queue = max_queue
        self.block_timeout = block_timeout
        self.request_timeout = request_timeout
        self.close_timeout = close_timeout
        self.max_backoff = max_backoff
        self.spool_dir = spool_dir or default_spool_dir()
        self.log_key = log_key or os.environ.get("TRAILPROOF_LOG_KEY") or None
        self.on_error = on_error
        self.before_send = before_send
        Transport(self.url)  # refuses a malformed URL now rather than on the sender thread
        self._spool = Spool(self.spool_dir, self.url)
        self._cond = threading.Condition()
        self._buf: Deque[_Item] = collections.deque()
        self._oldest_at = 0.0
        self._enqueued = 0
        self._taken = 0
        self._completed = 0
        self._flush_upto = 0
        self._closing = False
        self._close_deadline = 0.0
        self._thread: Optional[threading.Thread] = None
        # Capture sequence (src/site/completeness.md#capture-sequences): one stream per client
        # instance, numbered when an event is created, so an event lost later leaves a hole.
        self.capture_id = "py-" + uuid.uuid4().hex
        self._capture_seq = 0
        self._capture_lock = threading.Lock()
        self._dropped: List[List[int]] = []  # numbers lost here, told to the service on the next event
        if self.enabled:
            self._thread = threading.Thread(target=self._run, name="trailproof-sender", daemon=True)
            self._thread.start()
            ref = weakref.ref(self)
            atexit.register(_close_at_exit, ref)

    # ----------------------------------------------------------------- capture

    def log(self, action_type: str, action_name: Optional[str] = None, input: Any = None, output: Any = None,
            status: Optional[str] = None, error: Optional[str] = None, duration_ms: Optional[float] = None,
            labels: Optional[Mapping[str, str]] = None, metadata: Optional[Mapping[str, Any]] = None,
            *, session_id: Optional[str] = None, timestamp: Optional[str] = None,
            decision_id: Optional[str] = None) -> Receipt:
        """Queues one event and returns its :class:`Receipt` at once (see the class for blocking).

        ``input`` and ``output`` become ``action_input``/``action_output``: a dict as is, anything
        else as ``{"value": ...}``. ``timestamp`` defaults to now (the time of the call).
        ``decision_id`` binds a ``TOOL_CALL`` to the gate's decision that allowed it.
        """
        if not self.enabled:
            r = Receipt(None)
            r.set_result(None)
            return r
        with self._capture_lock:
            self._capture_seq += 1
            seq = self._capture_seq
            dropped = self._dropped.pop(0) if self._dropped else None
        event = self._event(action_type, action_name, input, labels, metadata, session_id)
        if status is not None:
            event["action_status"] = str(status)
        if error is not None:
            event["error_message"] = str(error)
        if output is not None:
            event["action_output"] = as_object(output)
        if duration_ms is not None:
            event["duration_ms"] = max(0, int(round(duration_ms)))
        if decision_id is not None:
            event["decision_id"] = str(decision_id)
        event["timestamp"] = timestamp or utc_now()
        if self.before_send is not None:
            event = self._redact(event)
        # Set after redaction: a hook cannot take an event out of its stream.
        event["capture_id"] = self.capture_id
        event["capture_seq"] = seq
        if dropped is not None:
            event["capture_dropped"] = dropped
        try:
            data = _DUMPS(event).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate somewhere: rebuilt with it replaced
            event = jsonable(event)
            data = _DUMPS(event).encode("utf-8")
        receipt = Receipt(event)
        try:
            self._enqueue(_Item(data, receipt, seq))
        except QueueFull:
            self._lost(seq)
            raise
        return receipt

    def _event(self, action_type: Optional[str], action_name: Optional[str], input: Any,
               labels: Optional[Mapping[str, str]], metadata: Optional[Mapping[str, Any]],
               session_id: Optional[str]) -> Dict[str, Any]:
        """The fields a logged event and a proposal to the gate share, in the same order."""
        event: Dict[str, Any] = {"agent_id": self.agent_id}
        sid = session_id or self.session_id
        if sid:
            event["session_id"] = str(sid)
        event["capture_method"] = "python-sdk"
        if action_type is not None:
            event["action_type"] = str(action_type)
        if action_name is not None:
            event["action_name"] = str(action_name)
        if input is not None:
            event["action_input"] = as_object(input)
        md = dict(self.metadata)
        if metadata:
            md.update(metadata)
        if md:
            event["metadata"] = as_object(md)
        lb = dict(self.labels)
        if labels:
            lb.update(labels)
        if lb:
            event["labels"] = {str(k): str(v) for k, v in lb.items()}
        return event

    def decide(self, action_name: str, input: Any = None, **fields: Any) -> Any:
        """Asks the gate whether ``action_name`` with ``input`` may run now and returns its
        :class:`~trailproof.gate.Decision` (src/site/python-sdk.md#gates). Synchronous: the service has
        recorded the ``DECISION`` event when this returns.

        ``fields`` are further fields of the proposed event: ``action_type`` (default ``TOOL_CALL``),
        ``session_id``, ``labels``, ``metadata``, or any other event field. ``before_send`` applies, as
        for ``log``, so the proposal is hashed as the later ``TOOL_CALL`` will be. Raises
        :class:`Unavailable` when trailproof cannot be reached or answers 408, 429 or 5xx,
        :class:`RejectedEvent` for a proposal the service refuses (400), and :class:`TrailproofError`
        for any other refusal (401, 403: a key without role ``ingest``). With the client disabled, the
        answer is ``allow`` with no ``decision_id``.
        """
        from .gate import Decision, decide

        if not self.enabled:
            return Decision(None, {"decision": "allow", "decision_id": None,
                                   "reason": "trailproof is disabled (TRAILPROOF_ENABLED=false)"})
        rest = dict(fields)
        event = self._event(rest.pop("action_type", "TOOL_CALL"), action_name, input, rest.pop("labels", None),
                            rest.pop("metadata", None), rest.pop("session_id", None))
        for k, v in rest.items():
            if v is not None:
                event[k] = jsonable(v)
        event["timestamp"] = utc_now()
        if self.before_send is not None:
            event = self._redact(event)
        return decide(self, jsonable(event))

    def _lost(self, seq: int) -> None:
        """Number ``seq`` will never be sent: the next event says so (``capture_dropped``)."""
        with self._capture_lock:
            if self._dropped and self._dropped[-1][1] + 1 == seq:
                self._dropped[-1][1] = seq
            else:
                self._dropped.append([seq, seq])

    def _end_stream(self) -> None:
        """Marks the end of the capture stream, ``self._cond`` held: the last event still queued gets
        ``capture_last``, or, when it was sent already, a ``CAPTURE_END`` event is queued."""
        with self._capture_lock:
            last = self._capture_seq
            dropped = self._dropped.pop(0) if self._dropped else None
        if self._buf and self._buf[-1].seq == last and last > 0 and dropped is None:
            item = self._buf[-1]
            event = dict(item.receipt.event) if item.receipt is not None and item.receipt.event else _loads(item.data)
            if event is not None:
                event["capture_last"] = True
                item.data = _DUMPS(event).encode("utf-8")
                return
        with self._capture_lock:
            self._capture_seq += 1
            seq = self._capture_seq
        event = {"agent_id": self.agent_id, "capture_method": "python-sdk", "action_type": "CAPTURE_END",
                 "action_name": "close", "timestamp": utc_now(), "capture_id": self.capture_id,
                 "capture_seq": seq, "capture_last": True}
        if self.session_id:
            event["session_id"] = str(self.session_id)
        if dropped is not None:
            event["capture_dropped"] = dropped
        if not self._buf:
            self._oldest_at = time.monotonic()
        self._buf.append(_Item(_DUMPS(event).encode("utf-8"), Receipt(event), seq))
        self._enqueued += 1

    def _redact(self, event: Dict[str, Any]) -> Dict[str, Any]:
        try:
            out = self.before_send(jsonable(event))  # a deep copy: the caller's objects stay untouched
            if not isinstance(out, dict):
                raise TypeError("before_send returned %s, not a dict" % type(out).__name__)
            return jsonable(out)  # type: ignore[no-any-return]
        except Exception as e:  # fail safe: the event is kept, its content is not
            self._report(TrailproofError("before_send failed (%s: %s); the event is sent with its content "
                                         "replaced by {\"redaction_failed\": true}" % (type(e).__name__, e)))
            safe = {k: v for k, v in event.items() if k not in ("action_input", "action_output", "metadata",
                                                                  "error_message")}
            safe["action_input"] = {"redaction_failed": True}
            if "action_output" in event:
                safe["action_output"] = {"redaction_failed": True}
            if "metadata" in event:
                safe["metadata"] = {"redaction_failed": True}
            return safe

    def audited(self, func: Optional[Callable[..., Any]] = None, *, action_type: str = "TOOL_CALL",
                name: Optional[str] = None, gate: bool = False, ask_timeout: float = 60.0,
                fail_mode: str = "closed") -> Any:
        """Decorator recording each call of a sync or async function (src/site/python-sdk.md#capture).

        The arguments (by parameter name) are the event's input, the return value its output; an
        exception is recorded with status ``error`` and its message, and re-raised unchanged.
        Usable bare (``@client.audited``) or with arguments (``@client.audited(name="search")``).

        With ``gate=True`` each call is first proposed to the gate (src/site/python-sdk.md#gates):
        ``deny`` raises :class:`Denied` without running the function, ``ask`` waits up to
        ``ask_timeout`` seconds for an approval and raises :class:`ApprovalTimeout` when none came,
        ``allow`` (or an approval) runs it and records the call with the decision's id. When the gate
        cannot be asked, ``fail_mode="closed"`` raises :class:`Unavailable` without running;
        ``"open"`` runs the function and records the call with ``metadata.gate = "unavailable"``.
        """
        from .capture import audited
        from .gate import FAIL_MODES

        if fail_mode not in FAIL_MODES:
            raise ValueError("fail_mode must be 'closed' or 'open', not %r" % (fail_mode,))
        if ask_timeout < 0:
            raise ValueError("ask_timeout must be 0 or more seconds")
        return audited(self, func, action_type=action_type, name=name, gate=gate, ask_timeout=ask_timeout,
                       fail_mode=fail_mode)

    def action(self, action_type: str = "TOOL_CALL", name: Optional[str] = None, input: Any = None,
               labels: Optional[Mapping[str, str]] = None, metadata: Optional[Mapping[str, Any]] = None) -> Any:
        """Context manager (``with`` or ``async with``) recording one action when the block ends: set
        ``a.output`` (and optionally ``a.status``) inside; an exception is recorded and propagates.
        After the block, ``a.receipt`` is the event's receipt."""
        from .capture import Action

        return Action(self, action_type, name, input, labels, metadata)

    # ----------------------------------------------------------------- queue

    def _enqueue(self, item: _Item) -> None:
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
            first = not self._buf
            if first:
                self._oldest_at = time.monotonic()
            self._buf.append(item)
            self._enqueued += 1
            # The sender of an idle client waits with no deadline: the first event of a batch starts
            # its flush_interval, a full batch goes at once.
            if first or len(self._buf) >= self.batch_size:
                self._cond.notify_all()

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Sends everything queued so far now and waits until it is acknowledged (or refused, or
        spooled). True when it all completed within ``timeout`` seconds."""
        if not self.enabled:
            return True
        with self._cond:
            target = self._enqueued
            self._flush_upto = max(self._flush_upto, target)
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._completed >= target, timeout)

    def close(self, timeout: Optional[float] = None) -> None:
        """Sends what is queued for up to ``timeout`` seconds (default ``close_timeout``), then
        writes whatever is still unsent to the spool. Idempotent; also runs at interpreter exit."""
        if not self.enabled or self._thread is None:
            return
        timeout = self.close_timeout if timeout is None else timeout
        with self._cond:
            if not self._closing:
                self._end_stream()
                self._closing = True
                self._close_deadline = time.monotonic() + timeout
            self._cond.notify_all()
        self._thread.join(timeout + self.request_timeout + 1.0)
        with self._cond:  # the sender is stuck past its deadline: spool the rest from here
            rest = list(self._buf)
            self._buf.clear()
            self._taken += len(rest)
        for i in range(0, len(rest), self.batch_size):
            self._spool_items(rest[i:i + self.batch_size], new_idempotency_key(), None)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def pending(self) -> int:
        """Events logged but not yet acknowledged, refused or spooled."""
        with self._cond:
            return self._enqueued - self._completed

    # ----------------------------------------------------------------- verification

    def verify(self, receipt_or_event_id: Union[Receipt, str], timeout: Optional[float] = None) -> Any:
        """Checks one stored event locally and returns a :class:`~trailproof.verify.Verification`
        (src/site/python-sdk.md#verification). A receipt is waited for up to ``timeout`` seconds."""
        from .verify import verify_stored

        return verify_stored(self, receipt_or_event_id, timeout)

    # ----------------------------------------------------------------- sender thread

    def _report(self, error: TrailproofError) -> None:
        try:
            if self.on_error is not None:
                self.on_error(error)
            else:
                _log.warning("%s", error.message)
        except Exception:  # on_error must not stop the sender
            _log.exception("on_error raised")

    def _complete(self, n: int) -> None:
        with self._cond:
            self._completed += n
            self._cond.notify_all()

    def _run(self) -> None:
        transport = Transport(self.url, self.api_key)
        try:
            self._drain_spool(transport)
            while True:
                items = self._next_batch()
                if items is None:
                    return
                self._send(transport, items, new_idempotency_key(), None)
        except BaseException as e:  # a bug must not lose events silently
            self._report(TrailproofError("the trailproof sender stopped: %r" % (e,)))
            raise
        finally:
            transport.close()

    def _next_batch(self) -> Optional[List[_Item]]:
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

    def _drain_spool(self, transport: Transport) -> None:
        for path in self._spool.pending():
            claim = self._spool.claim(path)
            if claim is None:
                continue
            why = claim.unreadable()
            if why is not None:
                aside = claim.set_aside()
                if aside is not None:
                    self._report(TrailproofError(
                        "the spooled batch %s cannot be read by this version (%s); it is set aside as %s and the"
                        " other batches are sent" % (path, why, aside)))
                continue
            items = [_Item(_DUMPS(e).encode("utf-8"), None) for e in json.loads(claim.body.decode("utf-8"))]
            if self._send(transport, items, claim.key, claim.body, spooled=True):
                claim.done()
            else:
                claim.release()
                return

    def _send(self, transport: Transport, items: List[_Item], key: str, body: Optional[bytes],
              spooled: bool = False) -> bool:
        """Delivers one batch; False when it stays (or was put) in the spool."""
        if body is None:
            body = _body(items)
        r = self._deliver(transport, body, key, len(items))
        if r is _SPOOL:
            if not spooled:
                self._spool_items(items, key, body)
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
        self._complete(sum(1 for it in items if it.receipt is not None))
        return True

    def _deliver(self, transport: Transport, body: bytes, key: str, count: int) -> Any:
        attempt = 0
        while True:
            timeout = self.request_timeout
            if self._closing:
                left = self._close_deadline - time.monotonic()
                if left <= 0:
                    return _SPOOL
                timeout = min(timeout, left)
            retry_after: Optional[float] = None
            try:
                r = transport.post_batch(body, key, timeout)
                if r.status in (201, 207, 400, 413, 422):
                    return r
                problem = "trailproof answered %d: %s" % (r.status, r.error_message())
                retry_after = r.retry_after()
            except OSError as e:
                problem = "trailproof at %s is unreachable: %s" % (self.url, e)
            attempt += 1
            if attempt == 1:
                self._report(TrailproofError("%s; retrying a batch of %d events with back-off" % (problem, count)))
            cap = min(self.max_backoff, 0.1 * (2 ** min(attempt, 20)))
            delay = random.uniform(cap / 2, cap)
            if retry_after is not None:
                delay = max(delay, retry_after)
            with self._cond:
                end = time.monotonic() + delay
                while True:
                    now = time.monotonic()
                    limit = end if not self._closing else min(end, self._close_deadline)
                    if now >= limit:
                        break
                    self._cond.wait(limit - now)

    def _settle(self, r: Response, items: List[_Item]) -> None:
        try:
            results = r.json()
            by_index = {int(x["index"]): x for x in results}
        except Exception:
            results, by_index = None, {}
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
                self._report(err)
                if it.receipt is not None:
                    it.receipt.set_exception(err)
            if it.receipt is not None:
                done += 1
        self._complete(done)

    def _reject(self, item: _Item, message: str) -> None:
        event = item.receipt.event if item.receipt is not None else _loads(item.data)
        err = RejectedEvent(message, event)
        self._report(err)
        if item.receipt is not None:
            item.receipt.set_exception(err)

    def _spool_items(self, items: List[_Item], key: str, body: Optional[bytes]) -> None:
        if not items:
            return
        try:
            path: Optional[str] = self._spool.write(key, body if body is not None else _body(items))
            msg = "%d events were not acknowledged before close(); they are spooled in %s" % (len(items), path)
        except OSError as e:
            path = None
            msg = "%d events were not acknowledged before close() and the spool could not be written: %s" % (
                len(items), e)
        err = NotSent(msg, path)
        self._report(err)
        n = 0
        for it in items:
            if it.receipt is not None and not it.receipt.done():
                it.receipt.set_exception(err)
                n += 1
        self._complete(n)


def _loads(data: bytes) -> Optional[Dict[str, Any]]:
    try:
        v = json.loads(data.decode("utf-8"))
        return v if isinstance(v, dict) else None
    except Exception:
        return None


def _program_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name or "python"


def _close_at_exit(ref: "weakref.ReferenceType[Client]") -> None:
    client = ref()
    if client is not None:
        client.close()
