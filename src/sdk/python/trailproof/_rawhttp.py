"""One HTTP/1.1 POST over a plain socket, for ``trailproof-hook``: ``http.client`` pulls in
``email`` and ``ssl``, which cost more start time than the whole hook may take. ``https`` URLs
still go through ``http.client`` (see ``_transport``)."""

from __future__ import annotations

import socket
from typing import Dict, Optional, Tuple
from urllib.parse import urlsplit

__all__ = ["post", "request"]


def post(url: str, path: str, body: bytes, headers: Dict[str, str], timeout: float) -> Tuple[int, Dict[str, str], bytes]:
    """Sends one POST with ``Connection: close`` and reads the whole answer; raises ``OSError``."""
    return request("POST", url, path, body, headers, timeout)


def request(method: str, url: str, path: str, body: Optional[bytes], headers: Dict[str, str],
            timeout: float) -> Tuple[int, Dict[str, str], bytes]:
    """Sends one request with ``Connection: close`` and reads the whole answer; raises ``OSError``."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    head = ["%s %s%s HTTP/1.1" % (method, parts.path.rstrip("/"), path), "Host: %s" % parts.netloc,
            "Connection: close"]
    if body is not None:
        head += ["Content-Type: application/json", "Content-Length: %d" % len(body)]
    else:
        body = b""
    head += ["%s: %s" % kv for kv in headers.items()]
    raw = ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + body
    with socket.create_connection((host, port), timeout=timeout) as s:
        s.settimeout(timeout)
        s.sendall(raw)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            status = _complete(data)
            if status is not None:
                return status
    status = _complete(data, eof=True)
    if status is None:
        raise OSError("the connection closed before a whole answer arrived")
    return status


def _complete(data: bytes, eof: bool = False) -> Optional[Tuple[int, Dict[str, str], bytes]]:
    end = data.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = data[:end].decode("latin-1").split("\r\n")
    try:
        status = int(lines[0].split(" ", 2)[1])
    except (IndexError, ValueError):
        raise OSError("not an HTTP answer: %r" % lines[0][:80]) from None
    headers = {}
    for line in lines[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    rest = data[end + 4:]
    if "content-length" in headers:
        n = int(headers["content-length"])
        return (status, headers, rest[:n]) if len(rest) >= n else None
    if headers.get("transfer-encoding", "").lower() == "chunked":
        out, at = b"", 0
        while True:
            nl = rest.find(b"\r\n", at)
            if nl < 0:
                return None
            size = int(rest[at:nl].split(b";")[0], 16)
            if size == 0:
                return status, headers, out
            if len(rest) < nl + 2 + size + 2:
                return None
            out += rest[nl + 2:nl + 2 + size]
            at = nl + 2 + size + 2
    return (status, headers, rest) if eof else None
