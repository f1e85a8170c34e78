"""RFC 8785 (JSON Canonicalization Scheme) and the event hash (src/site/events.md#event-hash).

The event hash is the lowercase hex SHA-256 of the UTF-8 bytes of the canonical form of the stored
event without its ``hash`` and ``log_index`` members. Numbers are IEEE-754 doubles written the way
ECMAScript's ``Number.prototype.toString`` writes them; member names are sorted by their UTF-16 code
units; strings are escaped as ``JSON.stringify`` escapes them.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Dict, List, Tuple

__all__ = ["canonicalize", "event_hash", "parse_strict", "CanonicalizationError"]

_NOT_HASHED = ("hash", "log_index")


class CanonicalizationError(ValueError):
    """A value RFC 8785 cannot represent (NaN, an infinity, a lone surrogate, a non-string key)."""


def _no_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError("duplicate member name %r" % k)
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError("%s is not JSON" % name)


def parse_strict(data: bytes) -> Any:
    """Parses JSON text as RFC 8785 reads it: UTF-8 only, no duplicate names, numbers as doubles.

    Raises ``ValueError`` (``UnicodeDecodeError`` or ``json.JSONDecodeError`` included) when the
    text is not such JSON.
    """
    text = data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data
    return json.loads(
        text,
        object_pairs_hook=_no_duplicates,
        parse_float=float,
        parse_int=_int_as_double,
        parse_constant=_reject_constant,
    )


def _int_as_double(text: str) -> float:
    return float(int(text))


def _number(value: float) -> str:
    """ECMAScript Number::toString for a finite double (RFC 8785 section 3.2.2.3)."""
    if value != value or value in (math.inf, -math.inf):
        raise CanonicalizationError("NaN and infinities have no JSON form")
    if value == 0:
        return "0"
    if value < 0:
        return "-" + _number(-value)
    r = repr(value)  # shortest form that reads back the same double
    mantissa, _, exp = r.partition("e")
    exponent = int(exp) if exp else 0
    int_part, _, frac_part = mantissa.partition(".")
    digits = (int_part + frac_part).lstrip("0")
    # position of the decimal point relative to the first significant digit
    point = len(int_part) + exponent - (len(int_part + frac_part) - len((int_part + frac_part).lstrip("0")))
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    sign = "+" if e >= 0 else "-"
    head = digits[0] + ("." + digits[1:] if k > 1 else "")
    return head + "e" + sign + str(abs(e))


_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif o < 0x20:
            out.append("\\u%04x" % o)
        elif 0xD800 <= o <= 0xDFFF:
            raise CanonicalizationError("a lone surrogate (U+%04X) has no UTF-8 form" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def _write(value: Any, out: List[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(_number(float(value)))
    elif isinstance(value, dict):
        for k in value:
            if not isinstance(k, str):
                raise CanonicalizationError("member names must be strings, not %r" % (k,))
        out.append("{")
        first = True
        for k in sorted(value, key=_utf16_key):
            if not first:
                out.append(",")
            first = False
            out.append(_string(k))
            out.append(":")
            _write(value[k], out)
        out.append("}")
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise CanonicalizationError("%s has no JSON form" % type(value).__name__)


def canonicalize(value: Any) -> bytes:
    """The RFC 8785 canonical form of ``value`` (parsed JSON) as UTF-8 bytes."""
    out: List[str] = []
    _write(value, out)
    return "".join(out).encode("utf-8")


def event_hash(event: Dict[str, Any]) -> str:
    """The hash of a stored event: SHA-256 of its canonical form without ``hash`` and ``log_index``."""
    body = {k: v for k, v in event.items() if k not in _NOT_HASHED}
    return hashlib.sha256(canonicalize(body)).hexdigest()
