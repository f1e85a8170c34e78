"""Test support: the real packaged server, started as an operator would, and a recording proxy."""

from __future__ import annotations

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest
import urllib.error
import urllib.request
from typing import Any, Dict, List, Optional

SDK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.abspath(os.path.join(SDK_DIR, "..", "..", ".."))
LAUNCHER = os.environ.get("TRAILPROOF_LAUNCHER") or os.path.join(REPO_DIR, "target", "trailproof", "bin",
                                                                  "trailproof")
VECTORS = os.path.join(REPO_DIR, "src", "test", "resources", "vectors", "event-hashes.json")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """``trailproof serve`` on a free port with its own data directory."""

    def __init__(self, data_dir: Optional[str] = None, port: Optional[int] = None) -> None:
        if not os.access(LAUNCHER, os.X_OK):
            raise RuntimeError("the trailproof launcher %s is missing: build it with `mvn -B -q -DskipTests package` "
                               "or set TRAILPROOF_LAUNCHER" % LAUNCHER)
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="trailproof-sdk-server-")
        self.port = port or free_port()
        self.url = "http://127.0.0.1:%d" % self.port
        self.proc: Optional[subprocess.Popen] = None  # type: ignore[type-arg]
        self.log_path = os.path.join(self.data_dir, "..", os.path.basename(self.data_dir) + ".log")

    def start(self, wait: float = 180.0) -> "Server":
        log = open(self.log_path, "ab")
        env = dict(os.environ)
        env.setdefault("TRAILPROOF_JAVA_OPTS", "-Xmx256m -XX:TieredStopAtLevel=1")
        self.proc = subprocess.Popen([LAUNCHER, "serve", "--data-dir", self.data_dir, "--port", str(self.port)],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True,
                                     env=env)
        log.close()
        deadline = time.monotonic() + wait
        last: object = None
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("the server exited with %s; see %s" % (self.proc.returncode, self.log_path))
            try:
                # A long time-out per try: a new server on a busy machine may take seconds for its first
                # answer, and a client that gives up after 2 s and asks again never sees one.
                with urllib.request.urlopen(self.url + "/health", timeout=max(1.0, min(30.0, deadline - time.monotonic()))) as r:
                    if r.status == 200:
                        return self
                    last = "status %d" % r.status
            except (OSError, urllib.error.URLError) as e:
                last = e
                time.sleep(0.1)
        with open(self.log_path, "rb") as f:
            tail = f.read()[-2000:].decode("utf-8", "replace")
        raise RuntimeError("the server on port %d did not answer /health within %.0f s (last: %r); its log %s ends:\n%s"
                           % (self.port, wait, last, self.log_path, tail))

    def kill9(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill9()

    # Reads wait up to 60 s for their answer, as writes do: beside Maven's integration tests on 2 cores
    # a search of this server has taken over 20 s to answer.
    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=60) as r:
            return json.loads(r.read().decode("utf-8"))

    def get_complete(self, path: str, wait: float = 120.0) -> Any:
        """``get``, asked again while the answer says the index is behind (``X-Index-Behind``): the
        service answers from what is indexed after 5 s, which a machine busy with other builds reaches."""
        deadline = time.monotonic() + wait
        while True:
            with urllib.request.urlopen(self.url + path, timeout=60) as r:
                behind = r.headers.get("X-Index-Behind")
                body = json.loads(r.read().decode("utf-8"))
            if behind is None or time.monotonic() > deadline:
                return body
            time.sleep(0.2)

    def get_bytes(self, path: str) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=60) as r:
            return r.read()

    def post(self, path: str, body: Any, method: str = "POST") -> Any:
        data = json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, headers={"Content-Type": "application/json"},
                                     method=method)
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read().decode("utf-8"))

    def use_gate_policy(self) -> None:
        """Makes GATE_POLICY the active gate policy (the same document for every test, so the order
        of the tests does not matter)."""
        self.post("/v1/admin/gate-policy", GATE_POLICY, method="PUT")

    def decision_of(self, agent_id: str, wait: float = 60.0) -> Dict[str, Any]:
        """The agent's first DECISION event, waited for."""
        deadline = time.monotonic() + wait
        while True:
            found = [e for e in self.events(agent_id) if e.get("action_type") == "DECISION"]
            if found:
                return found[0]
            if time.monotonic() > deadline:
                raise AssertionError("no DECISION for %s within %.0f s" % (agent_id, wait))
            time.sleep(0.05)

    def answer(self, decision_id: str, approve: bool, comment: str) -> Any:
        return self.post("/v1/approvals/" + urllib.request.quote(decision_id, safe=""),
                         {"approve": approve, "comment": comment})

    def events(self, agent_id: str) -> List[Dict[str, Any]]:
        """The agent's events, oldest first by sequence."""
        out: List[Dict[str, Any]] = []
        while True:
            page = self.get_complete("/v1/events?order=asc&limit=1000&offset=%d&agent_id=%s" %
                                     (len(out), urllib.request.quote(agent_id)))
            out.extend(page)
            if len(page) < 1000:
                return sorted(out, key=lambda e: e["sequence"])


# The gate policy of the tests: one document for every test (the active policy is the service's
# latest), its action names chosen so that no other test's events meet them.
GATE_POLICY = {"policies": [{"name": "sdk-gates", "rules": [
    {"name": "no-wipe", "type": "absence", "deny": "wipe_disk", "effect": "deny",
     "reason": "disks are never wiped by an agent"},
    {"name": "refunds-need-a-person", "type": "absence", "deny": "refund", "effect": "ask",
     "reason": "refunds need a person's approval"},
    {"name": "no-rm-rf", "type": "pattern", "for_field": "action_input.command", "deny_pattern": "rm -rf",
     "effect": "deny", "reason": "recursive deletes are not allowed"},
    {"name": "pushes-need-a-person", "type": "pattern", "for_field": "action_input.command",
     "deny_pattern": "git push", "effect": "ask", "reason": "pushes need a person's approval"},
]}]}

_shared: Optional[Server] = None
_lock = threading.Lock()


def shared_server() -> Server:
    """One server for every test that needs no server of its own, stopped at exit."""
    global _shared
    with _lock:
        if _shared is None:
            _shared = Server().start()
            atexit.register(_stop_shared)
        return _shared


def _stop_shared() -> None:
    if _shared is not None:
        _shared.stop()
        shutil.rmtree(_shared.data_dir, ignore_errors=True)


def has_cryptography() -> bool:
    try:
        import cryptography  # noqa: F401
        return True
    except ImportError:
        return False


class Proxy:
    """A TCP proxy on ``port`` to ``target_port`` that records each request's head and body and can
    swallow the answers of the first ``drop`` requests (the service got them, the client never hears)."""

    def __init__(self, target_port: int, port: Optional[int] = None, drop: int = 0) -> None:
        self.target_port = target_port
        self.drop = drop
        self.requests: List[bytes] = []
        self.answers: List[bytes] = []
        self._sock = socket.socket()
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", port or 0))
        self._sock.listen(16)
        self.port = self._sock.getsockname()[1]
        self.url = "http://127.0.0.1:%d" % self.port
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self) -> None:
        self._closed = True
        self._sock.close()

    def _accept(self) -> None:
        while not self._closed:
            try:
                c, _ = self._sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    @staticmethod
    def _read_message(s: socket.socket, buf: bytes) -> Any:
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            if not chunk:
                return None, buf
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            k, _, v = line.partition(b":")
            if k.strip().lower() == b"content-length":
                length = int(v.strip())
        while len(rest) < length:
            chunk = s.recv(65536)
            if not chunk:
                return None, b""
            rest += chunk
        return head + b"\r\n\r\n" + rest[:length], rest[length:]

    def _serve(self, c: socket.socket) -> None:
        up = socket.create_connection(("127.0.0.1", self.target_port))
        buf, ubuf = b"", b""
        try:
            while True:
                req, buf = self._read_message(c, buf)
                if req is None:
                    return
                self.requests.append(req)
                up.sendall(req)
                ans, ubuf = self._read_message(up, ubuf)
                if ans is None:
                    return
                self.answers.append(ans)
                if self.drop > 0:
                    self.drop -= 1
                    return
                c.sendall(ans)
        except OSError:
            pass
        finally:
            c.close()
            up.close()

    def batch_requests(self) -> List[Dict[str, Any]]:
        out = []
        for r in self.requests:
            head, _, body = r.partition(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            if not lines[0].startswith("POST ") or "/v1/batch" not in lines[0]:
                continue
            headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
            out.append({"key": headers.get("idempotency-key"), "body": body})
        return out


class ServerTest(unittest.TestCase):
    server: Server

    @classmethod
    def setUpClass(cls) -> None:
        cls.server = shared_server()

    def setUp(self) -> None:
        self.spool_dir = tempfile.mkdtemp(prefix="trailproof-sdk-spool-")
        self.addCleanup(shutil.rmtree, self.spool_dir, True)
        self.errors: List[Any] = []

    def agent(self, name: str) -> str:
        return "%s-%s" % (name, os.urandom(4).hex())

    def client(self, agent: str, url: Optional[str] = None, **kw: Any) -> Any:
        from trailproof import Client

        kw.setdefault("on_error", self.errors.append)
        kw.setdefault("spool_dir", self.spool_dir)
        c = Client(url or self.server.url, agent_id=agent, **kw)
        self.addCleanup(c.close, 2.0)
        return c
