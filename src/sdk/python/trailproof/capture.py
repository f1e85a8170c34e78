"""Capture helpers: the ``@client.audited`` decorator and the ``client.action(...)`` context manager
(src/site/python-sdk.md#capture)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Tuple

from ._values import jsonable
from .errors import ApprovalTimeout, Denied, Unavailable

if TYPE_CHECKING:
    from .client import Client, Receipt

__all__ = ["audited", "Action"]


def _error_text(e: BaseException) -> str:
    text = str(e)
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


def _arguments(sig: Optional[inspect.Signature], args: Any, kwargs: Any) -> Dict[str, Any]:
    if sig is not None:
        try:
            bound = sig.bind(*args, **kwargs)
            bound.apply_defaults()
            out: Dict[str, Any] = {}
            for name, value in bound.arguments.items():
                param = sig.parameters[name]
                if param.kind is inspect.Parameter.VAR_KEYWORD:
                    out.update(value)
                else:
                    out[name] = value
            out.pop("self", None)
            out.pop("cls", None)
            return out
        except TypeError:
            pass
    return {"args": list(args), "kwargs": dict(kwargs)}


def _gate(client: "Client", action_type: str, name: str, args: Any, ask_timeout: float,
          fail_mode: str) -> Tuple[Optional[str], Optional[Dict[str, Any]]]:
    """Asks the gate about one call; returns the ``decision_id`` and the metadata to record it with,
    or raises (:class:`Denied`, :class:`ApprovalTimeout`, :class:`Unavailable`) when it must not run."""
    try:
        d = client.decide(name, args, action_type=action_type)
        if d.state == "pending":
            d.wait(ask_timeout)
    except Unavailable:
        if fail_mode == "open":
            return None, {"gate": "unavailable"}
        raise
    if d.allowed:
        return d.decision_id, None
    why = (" (%s)" % d.reason) if d.reason else ""
    if d.state in ("deny", "denied"):
        raise Denied("the gate refused %s%s" % (name, why), d)
    raise ApprovalTimeout("%s was not approved within %g s (%s)%s" % (name, ask_timeout, d.state, why), d)


def audited(client: "Client", func: Optional[Callable[..., Any]], *, action_type: str,
            name: Optional[str], gate: bool = False, ask_timeout: float = 60.0, fail_mode: str = "closed") -> Any:
    """Wraps a sync or async function so that each call is recorded as an :class:`Action` (its
    arguments as input, its result as output, or its error); only how the function is called differs.
    With ``gate`` each call is decided first (see :meth:`trailproof.Client.audited`); its arguments
    are then copied once, so the recorded input is the one the decision covered even when the
    function changes them."""
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        action_name = name or getattr(f, "__qualname__", None) or getattr(f, "__name__", "function")
        try:
            sig: Optional[inspect.Signature] = inspect.signature(f)
        except (TypeError, ValueError):
            sig = None

        if inspect.iscoroutinefunction(f):
            @functools.wraps(f)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                arguments: Any = _arguments(sig, args, kwargs)
                decision_id, metadata = None, None
                if gate and client.enabled:
                    arguments = jsonable(arguments)
                    loop = asyncio.get_running_loop()
                    decision_id, metadata = await loop.run_in_executor(
                        None, functools.partial(_gate, client, action_type, action_name, arguments, ask_timeout,
                                                fail_mode))
                with Action(client, action_type, action_name, arguments, None, metadata, decision_id) as a:
                    a.output = await f(*args, **kwargs)
                return a.output
            return async_wrapper

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            arguments: Any = _arguments(sig, args, kwargs)
            decision_id, metadata = None, None
            if gate and client.enabled:
                arguments = jsonable(arguments)
                decision_id, metadata = _gate(client, action_type, action_name, arguments, ask_timeout, fail_mode)
            with Action(client, action_type, action_name, arguments, None, metadata, decision_id) as a:
                a.output = f(*args, **kwargs)
            return a.output
        return wrapper

    return decorate(func) if func is not None else decorate


class Action:
    """One action being recorded; see :meth:`trailproof.Client.action`."""

    def __init__(self, client: "Client", action_type: str, name: Optional[str], input: Any,
                 labels: Optional[Mapping[str, str]], metadata: Optional[Mapping[str, Any]],
                 decision_id: Optional[str] = None) -> None:
        self.client = client
        self.decision_id = decision_id
        self.action_type = action_type
        self.name = name
        self.input = input
        self.output: Any = None
        self.status: Optional[str] = None
        self.labels = labels
        self.metadata = metadata
        self.receipt: Optional["Receipt"] = None
        self._start = 0.0

    def __enter__(self) -> "Action":
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        duration = (time.perf_counter() - self._start) * 1000
        self.receipt = self.client.log(self.action_type, self.name, input=self.input, output=self.output,
                                       status=self.status or ("success" if exc is None else "error"),
                                       error=None if exc is None else _error_text(exc), duration_ms=duration,
                                       labels=self.labels, metadata=self.metadata, decision_id=self.decision_id)
        return False

    async def __aenter__(self) -> "Action":
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        return self.__exit__(exc_type, exc, tb)
