"""The trailproof client: events queued by the caller, sent in the background in batches
(src/site/python-sdk.md)."""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
import uuid
import weakref
from concurrent.futures import Future
from typing import Any, Callable, Dict, List, Mapping, Optional, Union

from ._queue import EventQueue, Item
from ._sender import DUMPS, Sender, loads
from ._spool import Spool, default_spool_dir
from ._transport import Transport
from ._values import as_object, jsonable, utc_now
from .errors import QueueFull, TrailproofError

__all__ = ["Client", "Receipt"]

_log = logging.getLogger("trailproof")
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
        self._queue = EventQueue(max_queue, batch_size, flush_interval, block_timeout)
        self._sender = Sender(self.url, self.api_key, request_timeout, max_backoff, self._queue,
                              Spool(self.spool_dir, self.url), self._report)
        self._thread: Optional[threading.Thread] = None
        # Capture sequence (src/site/completeness.md#capture-sequences): one stream per client
        # instance, numbered when an event is created, so an event lost later leaves a hole.
        self.capture_id = "py-" + uuid.uuid4().hex
        self._capture_seq = 0
        self._capture_lock = threading.Lock()
        self._dropped: List[List[int]] = []  # numbers lost here, told to the service on the next event
        if self.enabled:
            self._thread = threading.Thread(target=self._sender.run, name="trailproof-sender", daemon=True)
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
            data = DUMPS(event).encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate somewhere: rebuilt with it replaced
            event = jsonable(event)
            data = DUMPS(event).encode("utf-8")
        receipt = Receipt(event)
        try:
            self._queue.put(Item(data, receipt, seq))
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

    def _end_stream(self, queue: EventQueue) -> None:
        """Marks the end of the capture stream, inside ``queue.close``: the last event still queued gets
        ``capture_last``, or, when it was sent already, a ``CAPTURE_END`` event is queued."""
        with self._capture_lock:
            last = self._capture_seq
            dropped = self._dropped.pop(0) if self._dropped else None
        tail = queue.last()
        if tail is not None and tail.seq == last and last > 0 and dropped is None:
            event = dict(tail.receipt.event) if tail.receipt is not None and tail.receipt.event else loads(tail.data)
            if event is not None:
                event["capture_last"] = True
                tail.data = DUMPS(event).encode("utf-8")
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
        queue.append_end(Item(DUMPS(event).encode("utf-8"), Receipt(event), seq))

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

    # ----------------------------------------------------------------- delivery

    def flush(self, timeout: Optional[float] = None) -> bool:
        """Sends everything queued so far now and waits until it is acknowledged (or refused, or
        spooled). True when it all completed within ``timeout`` seconds."""
        if not self.enabled:
            return True
        return self._queue.flush(timeout)

    def close(self, timeout: Optional[float] = None) -> None:
        """Sends what is queued for up to ``timeout`` seconds (default ``close_timeout``), then
        writes whatever is still unsent to the spool. Idempotent; also runs at interpreter exit."""
        if not self.enabled or self._thread is None:
            return
        timeout = self.close_timeout if timeout is None else timeout
        self._queue.close(timeout, self._end_stream)
        self._thread.join(timeout + self.request_timeout + 1.0)
        # the sender is stuck past its deadline: spool the rest from here
        self._sender.spool_batches(self._queue.take_all())

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def pending(self) -> int:
        """Events logged but not yet acknowledged, refused or spooled."""
        return self._queue.pending

    # ----------------------------------------------------------------- verification

    def verify(self, receipt_or_event_id: Union[Receipt, str], timeout: Optional[float] = None) -> Any:
        """Checks one stored event locally and returns a :class:`~trailproof.verify.Verification`
        (src/site/python-sdk.md#verification). A receipt is waited for up to ``timeout`` seconds."""
        from .verify import verify_stored

        return verify_stored(self, receipt_or_event_id, timeout)

    # ----------------------------------------------------------------- reporting

    def _report(self, error: TrailproofError) -> None:
        """Hands ``error`` to ``on_error`` (on the sender thread, mostly), or logs it."""
        try:
            if self.on_error is not None:
                self.on_error(error)
            else:
                _log.warning("%s", error.message)
        except Exception:  # on_error must not stop the sender
            _log.exception("on_error raised")


def _program_name() -> str:
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return name or "python"


def _close_at_exit(ref: "weakref.ReferenceType[Client]") -> None:
    client = ref()
    if client is not None:
        client.close()
