"""Python SDK throughput and client CPU per event against the packaged server, with same-run baselines.

    python bench/sdk/python_client_bench.py target/trailproof [--events N] [--batch-size B]

Three scenarios send the same events (about 300 bytes of JSON each) into one freshly started server:

- ``sdk``: ``Client.log()`` for every event, then ``flush()``: the caller's work (building and
  serializing each event) and the sender thread's (batches, keep-alive HTTP, receipts);
- ``http.client``: the floor: pre-built event dicts serialized per batch and posted with
  ``http.client`` on one keep-alive connection, one ``Idempotency-Key`` per batch;
- ``urllib``: what a script would write by hand: ``urllib.request.urlopen`` per batch.

For each: events per second (until the last acknowledgement), client CPU per event (process CPU
time, every thread, over the events) and server CPU per event (``/proc/<pid>/stat``). The machines
are shared: compare the ratios printed beside the baseline, not figures across runs.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "sdk", "python"))

import trailproof  # noqa: E402


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_cpu(pid: int) -> float:
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for p in [pid] + _children(pid):
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / tick
        except OSError:
            pass
    return total


def _children(pid: int) -> list:
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            kids = [int(x) for x in f.read().split()]
    except OSError:
        return []
    out = list(kids)
    for k in kids:
        out += _children(k)
    return out


def event(agent: str, i: int) -> dict:
    return {"agent_id": agent, "action_type": "TOOL_CALL", "action_name": "search_documents",
            "action_input": {"query": "quarterly revenue by region %d" % i, "top_k": 5},
            "action_output": {"hits": [{"id": "doc-%d" % (i % 997), "score": 0.87}]},
            "action_status": "success", "duration_ms": 12, "labels": {"env": "bench"}}


def run_sdk(url: str, n: int, batch: int, spool: str) -> None:
    c = trailproof.Client(url, agent_id="bench-sdk", batch_size=batch, flush_interval=1.0, max_queue=20000,
                          spool_dir=spool)
    for i in range(n):
        e = event("bench-sdk", i)
        c.log(e["action_type"], e["action_name"], input=e["action_input"], output=e["action_output"],
              status="success", duration_ms=12, labels={"env": "bench"})
    if not c.flush(600):
        raise SystemExit("the SDK did not finish")
    c.close()



def run_http_client(url: str, n: int, batch: int) -> None:
    host, port = url.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    for start in range(0, n, batch):
        events = [event("bench-http", i) for i in range(start, min(n, start + batch))]
        body = json.dumps(events, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        conn.request("POST", "/v1/batch", body, {"Content-Type": "application/json",
                                                 "Idempotency-Key": os.urandom(16).hex()})
        r = conn.getresponse()
        r.read()
        if r.status != 201:
            raise SystemExit("http.client baseline: HTTP %d" % r.status)
    conn.close()


def run_urllib(url: str, n: int, batch: int) -> None:
    for start in range(0, n, batch):
        events = [event("bench-urllib", i) for i in range(start, min(n, start + batch))]
        req = urllib.request.Request(url + "/v1/batch", data=json.dumps(events).encode("utf-8"),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()


def measure(name: str, fn, pid: int, n: int) -> dict:
    cpu0, srv0, t0 = time.process_time(), server_cpu(pid), time.perf_counter()
    fn()
    t1, cpu1, srv1 = time.perf_counter(), time.process_time(), server_cpu(pid)
    return {"name": name, "rate": n / (t1 - t0), "client_us": (cpu1 - cpu0) / n * 1e6,
            "server_us": (srv1 - srv0) / n * 1e6}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("dist")
    ap.add_argument("--events", type=int, default=50000)
    ap.add_argument("--batch-size", type=int, default=100)
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="trailproof-sdk-bench-")
    port = free_port()
    url = "http://127.0.0.1:%d" % port
    log = open(os.path.join(data, "server.log"), "wb")
    proc = subprocess.Popen([os.path.join(args.dist, "bin", "trailproof"), "serve", "--data-dir",
                             os.path.join(data, "d"), "--port", str(port)], stdout=log, stderr=log,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(url + "/health", timeout=2).read()
                break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise SystemExit("the server did not start; see %s" % log.name)
                time.sleep(0.2)
        n, b = args.events, args.batch_size
        run_http_client(url, min(n, 5000), b)  # warm-up of the server's JIT
        rows = [measure("http.client (baseline)", lambda: run_http_client(url, n, b), proc.pid, n),
                measure("urllib", lambda: run_urllib(url, n, b), proc.pid, n),
                measure("trailproof SDK", lambda: run_sdk(url, n, b, os.path.join(data, "spool")), proc.pid, n)]
        base = rows[0]
        print("%d events of about %d bytes, batches of %d, Python %s" % (
            n, len(json.dumps(event("bench-sdk", 1))), b, sys.version.split()[0]))
        print("%-24s %12s %8s %18s %8s %18s" % ("scenario", "events/s", "ratio", "client CPU us/ev", "ratio",
                                                 "server CPU us/ev"))
        for r in rows:
            print("%-24s %12.0f %7.2fx %18.1f %7.2fx %18.1f" % (r["name"], r["rate"], r["rate"] / base["rate"],
                                                               r["client_us"], r["client_us"] / base["client_us"],
                                                               r["server_us"]))
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(30)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
