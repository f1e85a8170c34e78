"""trailproof: the Python client of the tamper-evident audit trail for AI agents.

    import trailproof
    client = trailproof.Client()          # TRAILPROOF_URL, TRAILPROOF_API_KEY, TRAILPROOF_AGENT_ID
    receipt = client.log("TOOL_CALL", "search", input={"q": "..."}, output={"hits": 3})
    client.flush()
    print(client.verify(receipt))

See src/site/python-sdk.md. Names are imported lazily so that ``trailproof-hook`` starts fast.
"""

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"
__all__ = ["Client", "Receipt", "Verification", "Decision", "TrailproofError", "RejectedEvent", "QueueFull",
           "NotSent", "Denied", "ApprovalTimeout", "Unavailable", "canonicalize", "event_hash"]

if TYPE_CHECKING:
    from ._jcs import canonicalize, event_hash
    from .client import Client, Receipt
    from .errors import ApprovalTimeout, Denied, NotSent, QueueFull, RejectedEvent, TrailproofError, Unavailable
    from .gate import Decision
    from .verify import Verification

_WHERE = {"Client": "client", "Receipt": "client", "Verification": "verify", "TrailproofError": "errors",
          "RejectedEvent": "errors", "QueueFull": "errors", "NotSent": "errors", "Denied": "errors",
          "ApprovalTimeout": "errors", "Unavailable": "errors", "Decision": "gate", "canonicalize": "_jcs",
          "event_hash": "_jcs"}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError("module 'trailproof' has no attribute %r" % name)
    import importlib

    value = getattr(importlib.import_module("." + module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> Any:
    return sorted(list(globals()) + list(_WHERE))
