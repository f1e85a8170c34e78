"""The spool: batches that could not be sent, kept on disk until a later client or hook sends them.

One file per batch, named ``<nanoseconds>-<pid>-<idempotency key>.batch``, holding the exact
request body, so that resending it with the same key is answered from the service's record when an
earlier attempt did arrive (src/site/ingestion.md#idempotency) and stores nothing twice. Files are
written whole (temporary file, fsync, rename), so a crash leaves either the whole batch or nothing.
Each service URL has its own subdirectory (the URL with every run of other characters than
letters, digits, ``.`` and ``-`` made one ``_``). Senders lock a file (``fcntl.flock`` where available)
while they send it, so two processes do not send the same batch at once.

A file this version cannot read (see ``unreadable``: a damaged file, or one written by a newer
version) is renamed with ``.unreadable`` appended, as the TypeScript SDK does, so that no sender of
either SDK tries it again and it stays for a person to inspect.
"""

from __future__ import annotations

import json
import os
import re
import time
from typing import Any, Iterator, List, Optional, Tuple

__all__ = ["Spool", "default_spool_dir", "unreadable", "SET_ASIDE_SUFFIX"]

_SUFFIX = ".batch"
#: What a batch file set aside gets appended to its name: no SDK reads it again.
SET_ASIDE_SUFFIX = ".unreadable"
_NAME = re.compile(r"^(\d{20})-(\d+)-([A-Za-z0-9._~-]{1,200})\.batch$")


def default_spool_dir() -> str:
    """``TRAILPROOF_SPOOL_DIR``, else ``~/.trailproof/spool``."""
    return os.environ.get("TRAILPROOF_SPOOL_DIR") or os.path.join(os.path.expanduser("~"), ".trailproof", "spool")


def _no_constant(name: str) -> Any:
    raise ValueError("%s is not JSON" % name)


def unreadable(name: str, body: bytes) -> Optional[str]:
    """Why a spool file named ``name`` holding ``body`` cannot be read by this version, or None when it
    can: the same checks as the TypeScript SDK's."""
    if not _NAME.match(name):
        return "its name is not <nanoseconds>-<pid>-<idempotency key>.batch"
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return "it is not UTF-8"
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except ValueError as e:
        return "it is not JSON (%s)" % e
    if not isinstance(value, list) or not value or not all(isinstance(e, dict) for e in value):
        return "it is not a JSON array of events"
    return None


class Spool:
    """The spooled batches meant for one service URL."""

    def __init__(self, root: str, url: str) -> None:
        self.root = root
        self.dir = os.path.join(root, re.sub(r"[^A-Za-z0-9.-]+", "_", url)[:120])
        self.url = url

    def _ensure(self) -> None:
        if not os.path.isdir(self.dir):
            os.makedirs(self.dir, mode=0o700, exist_ok=True)
            with open(os.path.join(self.dir, "url.txt"), "w", encoding="utf-8") as f:
                f.write(self.url + "\n")

    def write(self, key: str, body: bytes) -> str:
        """Stores one batch durably and returns its path."""
        self._ensure()
        name = "%020d-%d-%s%s" % (time.time_ns(), os.getpid(), key, _SUFFIX)
        tmp = os.path.join(self.dir, ".tmp-" + name)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            view = memoryview(body)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        path = os.path.join(self.dir, name)
        os.replace(tmp, path)
        _fsync_dir(self.dir)
        return path

    def pending(self) -> List[str]:
        """Paths of the spooled batches, oldest first."""
        try:
            names = os.listdir(self.dir)
        except FileNotFoundError:
            return []
        # a name starting with "." is the temporary file of a batch still being written
        return [os.path.join(self.dir, n) for n in sorted(names) if n.endswith(_SUFFIX) and not n.startswith(".")]

    def __len__(self) -> int:
        return len(self.pending())

    def claim(self, path: str) -> Optional["Claim"]:
        """Opens and locks one spooled batch, or None when it is gone or another process holds it."""
        try:
            f = open(path, "rb")
        except FileNotFoundError:
            return None
        try:
            import fcntl
        except ImportError:  # no advisory locks here: the idempotency key still stores nothing twice
            fcntl = None  # type: ignore[assignment]
        if fcntl is not None:
            try:
                fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                f.close()
                return None
        if not os.path.exists(path):  # sent and removed by another process before we locked it
            f.close()
            return None
        body = f.read()
        m = _NAME.match(os.path.basename(path))
        return Claim(path, m.group(3) if m else "", body, f)


class Claim:
    """A spooled batch this process holds: ``done()`` removes it, ``release()`` leaves it spooled,
    ``set_aside()`` renames it so that no sender reads it again."""

    def __init__(self, path: str, key: str, body: bytes, handle) -> None:  # type: ignore[no-untyped-def]
        self.path, self.key, self.body, self._handle = path, key, body, handle

    def unreadable(self) -> Optional[str]:
        """Why this version cannot read the batch, or None when it can (see ``unreadable``)."""
        return unreadable(os.path.basename(self.path), self.body)

    def set_aside(self) -> Optional[str]:
        """Renames the file with ``.unreadable`` appended and returns its new path; None when it is
        gone meanwhile (another sender dealt with it)."""
        aside = self.path + SET_ASIDE_SUFFIX
        try:
            os.replace(self.path, aside)
        except FileNotFoundError:
            return None
        finally:
            self.release()
        return aside

    def done(self) -> None:
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        self.release()

    def release(self) -> None:
        if self._handle is not None:
            self._handle.close()
            self._handle = None


def _fsync_dir(path: str) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def iter_claims(spool: Spool) -> Iterator[Tuple[str, Optional[Claim]]]:
    for path in spool.pending():
        yield path, spool.claim(path)
