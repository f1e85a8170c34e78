"""A small blocking HTTP/1.1 client on ``http.client`` (imported when first used), one keep-alive
connection per instance. Not thread-safe: each thread that talks to the service has its own."""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, NamedTuple, Optional, Tuple
from urllib.parse import urlsplit

__all__ = ["Transport", "Response", "new_idempotency_key", "USER_AGENT"]

USER_AGENT = "trailproof-python/0.1.0"


def new_idempotency_key() -> str:
    """A fresh key for one batch: 32 hex characters of randomness (src/site/ingestion.md#idempotency)."""
    return os.urandom(16).hex()


class Response(NamedTuple):
    status: int
    headers: Dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))

    def error_message(self) -> str:
        """The service's one-sentence ``error``, or the start of the body when there is none."""
        try:
            msg = self.json().get("error")
            if isinstance(msg, str):
                return msg
        except Exception:
            pass
        text = self.body[:300].decode("utf-8", "replace").strip()
        return "HTTP %d%s" % (self.status, (": " + text) if text else "")

    def retry_after(self) -> Optional[float]:
        """``Retry-After`` in seconds (delta-seconds or an HTTP date), or None."""
        value = self.headers.get("retry-after")
        if not value:
            return None
        try:
            return max(0.0, float(value))
        except ValueError:
            pass
        try:
            import email.utils
            import time

            return max(0.0, email.utils.parsedate_to_datetime(value).timestamp() - time.time())
        except Exception:
            return None


class Transport:
    """Requests against one base URL (``http`` or ``https``, optionally with a path prefix)."""

    def __init__(self, url: str, api_key: Optional[str] = None) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("the trailproof URL must be http:// or https:// with a host, not %r" % url)
        self.url = url
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port
        self._prefix = parts.path.rstrip("/")
        self._headers = {"User-Agent": USER_AGENT}
        if api_key:
            self._headers["Authorization"] = "Bearer " + api_key
        self._conn: Any = None
        self._timeout: Optional[float] = None

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None

    def request(self, method: str, path: str, body: Optional[bytes] = None,
                headers: Optional[Mapping[str, str]] = None, timeout: float = 10.0) -> Response:
        """One request; raises ``OSError`` (``http.client.HTTPException`` included, as ``OSError``)
        when no answer arrives. A connection that failed is closed, so the next call opens a new one."""
        import http.client

        h = dict(self._headers)
        if body is not None:
            h["Content-Type"] = "application/json"
        if headers:
            h.update(headers)
        if self._conn is None or self._timeout != timeout:
            self.close()
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=timeout)
            self._timeout = timeout
        try:
            self._conn.request(method, self._prefix + path, body=body, headers=h)
            r = self._conn.getresponse()
            data = r.read()
            hdrs = {k.lower(): v for k, v in r.getheaders()}
            if hdrs.get("connection", "").lower() == "close":
                self.close()
            return Response(r.status, hdrs, data)
        except http.client.HTTPException as e:
            self.close()
            raise OSError("the connection to trailproof failed: %s" % (e.__class__.__name__,)) from e
        except OSError:
            self.close()
            raise

    def post_batch(self, body: bytes, key: str, timeout: float = 10.0, light: bool = False) -> Response:
        """``POST /v1/batch`` with an ``Idempotency-Key``. ``light``: see :meth:`light_request`."""
        return self.light_request("POST", "/v1/batch", body, {"Idempotency-Key": key}, timeout, light)

    def light_request(self, method: str, path: str, body: Optional[bytes], headers: Optional[Mapping[str, str]],
                      timeout: float, light: bool = True) -> Response:
        """One request; ``light`` (plain ``http`` only) sends it on a socket of its own without importing
        ``http.client``, for short-lived processes. Raises ``OSError`` when no answer arrives."""
        if light and not self._https:
            from ._rawhttp import request

            h = dict(self._headers)
            h.update(headers or {})
            status, hdrs, data = request(method, self.url, path, body, h, timeout)
            return Response(status, hdrs, data)
        return self.request(method, path, body, headers, timeout)

    def get(self, path: str, timeout: float = 10.0) -> Tuple[int, bytes, Response]:
        r = self.request("GET", path, None, None, timeout)
        return r.status, r.body, r
