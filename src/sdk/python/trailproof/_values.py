"""Turning arbitrary Python values into JSON the service accepts (src/site/events.md#accepted-fields)."""

from __future__ import annotations

import base64
import datetime
import math
from typing import Any, Dict

__all__ = ["jsonable", "as_object", "utc_now"]

_MAX_SAFE = 2 ** 53
_MAX_DEPTH = 60


def utc_now() -> str:
    """The current time as RFC 3339 UTC with microseconds."""
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _text(s: str) -> str:
    try:
        s.encode("utf-8")
        return s
    except UnicodeEncodeError:  # lone surrogates have no UTF-8 form; the service refuses them
        return s.encode("utf-8", "replace").decode("utf-8")


def jsonable(value: Any, _depth: int = 0) -> Any:
    """A JSON value for ``value``: exact where JSON can hold it exactly, a string otherwise.

    Integers beyond 2^53 and non-finite floats become strings (an IEEE-754 double cannot hold them,
    so the event hash could not cover them faithfully); bytes become base64; tuples, sets and other
    iterables of known types become arrays; anything else becomes its ``repr``.
    """
    if value is None or value is True or value is False:
        return value
    if isinstance(value, str):
        return _text(value)
    if isinstance(value, int):
        return int(value) if -_MAX_SAFE <= value <= _MAX_SAFE else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if _depth >= _MAX_DEPTH:
        return _text(repr(value))
    if isinstance(value, dict):
        return {_text(k if isinstance(k, str) else str(k)): jsonable(v, _depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v, _depth + 1) for v in value]
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return _text(repr(value))


def _plain(value: Any, depth: int = 0) -> bool:
    """True when ``value`` is already JSON the service takes as is (strings aside, whose lone
    surrogates the caller catches when it encodes): the common case, checked without copying."""
    t = type(value)
    if t is str or value is None or t is bool:
        return True
    if t is int:
        return -_MAX_SAFE <= value <= _MAX_SAFE
    if t is float:
        return math.isfinite(value)
    if depth >= _MAX_DEPTH:
        return False
    if t is dict:
        for k, v in value.items():
            if type(k) is not str or not _plain(v, depth + 1):
                return False
        return True
    if t is list:
        for v in value:
            if not _plain(v, depth + 1):
                return False
        return True
    return False


def as_object(value: Any, copy: bool = False) -> Dict[str, Any]:
    """A JSON object for ``value``: a mapping as is, anything else as ``{"value": value}``. Plain
    JSON data is used as is (not copied) unless ``copy``; anything else goes through ``jsonable``."""
    v = value if not copy and _plain(value) else jsonable(value)
    return v if isinstance(v, dict) else {"value": v}
