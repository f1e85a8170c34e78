"""Decisions before the action: ``client.decide(...)`` and the :class:`Decision` it returns
(src/site/python-sdk.md#gates).

A decision is asked with ``POST /v1/decisions`` (the service records it as a ``DECISION`` event
before it answers); an ``ask`` is waited for with ``GET /v1/decisions/{id}?wait=...``. Both are
synchronous requests on a connection of their own, never queued behind the background sender.
"""

from __future__ import annotations

import json
import math
import time
from typing import TYPE_CHECKING, Any, Dict, Optional
from urllib.parse import quote

from ._transport import Response, Transport, new_idempotency_key
from .errors import RejectedEvent, TrailproofError, Unavailable

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Decision", "decide", "FAIL_MODES", "RUNS", "MAX_WAIT_PER_REQUEST"]

FAIL_MODES = ("closed", "open")
# the states in which the proposed call may run: an ``allow`` decision, or an ``ask`` a person approved
RUNS = ("allow", "approved")
# the service long-polls at most 60 s per request (src/site/gates.md)
MAX_WAIT_PER_REQUEST = 60.0
_FINAL = ("allow", "deny", "approved", "denied", "expired")


def _unavailable(r: Response) -> bool:
    """A status that says the gate could not answer now (rather than that the request is wrong)."""
    return r.status in (408, 429) or r.status >= 500


class Decision:
    """The service's decision about one proposed call.

    ``decision`` is ``allow``, ``deny`` or ``ask`` as first answered; ``state`` follows it: ``allow``
    and ``deny`` are final at once, an ``ask`` is ``pending`` until a person answers (``approved``,
    ``denied``) or it expires (``expired``). ``decision_id`` is the id of the ``DECISION`` event
    (None when the client is disabled); ``rule`` and ``reason`` come from the rule that decided (None
    when the policy's default did). ``args_sha256`` and ``expires_at`` are the service's; ``answer``
    is the last answer as a dict (for an approval, its ``approver`` and ``comment`` when given).
    """

    def __init__(self, client: Optional["Client"], answer: Dict[str, Any]) -> None:
        self._client = client
        self.answer = answer
        self.decision: str = str(answer.get("decision") or "")
        self.decision_id: Optional[str] = answer.get("decision_id")
        self.rule: Optional[str] = answer.get("rule")
        self.reason: Optional[str] = answer.get("reason")
        self.args_sha256: Optional[str] = answer.get("args_sha256")
        self.expires_at: Optional[str] = answer.get("expires_at")
        self.state: str = "pending" if self.decision == "ask" else self.decision

    @property
    def allowed(self) -> bool:
        """True when the call may run now: allowed at once, or approved."""
        return self.state in RUNS

    @property
    def final(self) -> bool:
        return self.state in _FINAL

    def wait(self, timeout: Optional[float] = None) -> str:
        """Waits up to ``timeout`` seconds (None: until the service says it expired) for a person to
        answer a pending ``ask`` and returns the new ``state`` (still ``pending`` when the time ran
        out). Returns at once when the state is already final. Raises :class:`Unavailable` when the
        service cannot be reached."""
        if self.final or self._client is None or not self.decision_id:
            return self.state
        deadline = None if timeout is None else time.monotonic() + max(0.0, timeout)
        path = "/v1/decisions/" + quote(self.decision_id, safe="")
        while True:
            left = MAX_WAIT_PER_REQUEST if deadline is None else min(MAX_WAIT_PER_REQUEST, deadline - time.monotonic())
            seconds = max(0, int(math.floor(left)))
            query = "?wait=PT%dS" % seconds if seconds > 0 else ""
            self._update(_request(self._client, "GET", path + query, None, seconds))
            if self.final or seconds == 0 or (deadline is not None and time.monotonic() >= deadline - 0.5):
                return self.state

    def _update(self, answer: Dict[str, Any]) -> None:
        self.answer = answer
        state = answer.get("state")
        if isinstance(state, str) and state:
            self.state = state
        for key in ("rule", "reason", "args_sha256", "expires_at"):
            if answer.get(key) is not None:
                setattr(self, key, answer[key])

    def __repr__(self) -> str:
        return "Decision(decision=%r, state=%r, decision_id=%r, rule=%r, reason=%r)" % (
            self.decision, self.state, self.decision_id, self.rule, self.reason)


def _request(client: "Client", method: str, path: str, body: Optional[bytes], wait: float,
             key: Optional[str] = None) -> Dict[str, Any]:
    """One request on a fresh connection; the answer's JSON object, or the SDK's exception for it. With
    an ``Idempotency-Key`` a request that got no answer is sent once more: the service answers a
    repeat from its record, so the decision is still recorded once."""
    headers = {"Idempotency-Key": key} if key else None
    for attempt in (1, 2):
        t = Transport(client.url, client.api_key)
        try:
            r = t.request(method, path, body, headers, client.request_timeout + wait)
            break
        except OSError as e:
            if attempt == 2 or key is None:
                raise Unavailable("trailproof at %s is unreachable: %s" % (client.url, e)) from e
        finally:
            t.close()
    if _unavailable(r):
        raise Unavailable("trailproof answered %d: %s" % (r.status, r.error_message()))
    if r.status == 400:
        raise RejectedEvent(r.error_message())
    if r.status not in (200, 201):
        raise TrailproofError("trailproof answered %d to %s %s: %s" % (r.status, method, path.split("?")[0],
                                                                      r.error_message()))
    try:
        answer = r.json()
    except ValueError as e:
        raise Unavailable("trailproof's answer to %s %s is not JSON" % (method, path.split("?")[0])) from e
    if not isinstance(answer, dict):
        raise Unavailable("trailproof's answer to %s %s is not a JSON object" % (method, path.split("?")[0]))
    return answer


def decide(client: "Client", proposal: Dict[str, Any]) -> Decision:
    """Asks the gate about one proposed event (already shaped and redacted like a logged one)."""
    body = json.dumps(proposal, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    answer = _request(client, "POST", "/v1/decisions", body, 0.0, new_idempotency_key())
    if answer.get("decision") not in ("allow", "deny", "ask") or not answer.get("decision_id"):
        raise Unavailable("trailproof's decision has no decision_id or an unknown decision %r"
                          % (answer.get("decision"),))
    return Decision(client, answer)
