"""Capture helpers: the ``@client.audited`` decorator and the ``client.action(...)`` context manager
(src/site/python-sdk.md#capture)."""

from __future__ import annotations

import functools
import inspect
import time
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional

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


def audited(client: "Client", func: Optional[Callable[..., Any]], *, action_type: str,
            name: Optional[str]) -> Any:
    """Wraps a sync or async function so that each call is recorded as an :class:`Action` (its
    arguments as input, its result as output, or its error); only how the function is called differs."""
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        action_name = name or getattr(f, "__qualname__", None) or getattr(f, "__name__", "function")
        try:
            sig: Optional[inspect.Signature] = inspect.signature(f)
        except (TypeError, ValueError):
            sig = None

        if inspect.iscoroutinefunction(f):
            @functools.wraps(f)
            async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
                with Action(client, action_type, action_name, _arguments(sig, args, kwargs), None, None) as a:
                    a.output = await f(*args, **kwargs)
                return a.output
            return async_wrapper

        @functools.wraps(f)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with Action(client, action_type, action_name, _arguments(sig, args, kwargs), None, None) as a:
                a.output = f(*args, **kwargs)
            return a.output
        return wrapper

    return decorate(func) if func is not None else decorate


class Action:
    """One action being recorded; see :meth:`trailproof.Client.action`."""

    def __init__(self, client: "Client", action_type: str, name: Optional[str], input: Any,
                 labels: Optional[Mapping[str, str]], metadata: Optional[Mapping[str, Any]]) -> None:
        self.client = client
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
                                       labels=self.labels, metadata=self.metadata)
        return False

    async def __aenter__(self) -> "Action":
        return self.__enter__()

    async def __aexit__(self, exc_type: Any, exc: Optional[BaseException], tb: Any) -> bool:
        return self.__exit__(exc_type, exc, tb)
