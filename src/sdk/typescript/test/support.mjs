// Test support: the real packaged server, started as an operator would, a recording proxy, and the
// Python SDK run as a child process.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { after, before } from "node:test";
import { fileURLToPath } from "node:url";

export const SDK_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const REPO_DIR = path.resolve(SDK_DIR, "..", "..", "..");
export const LAUNCHER = process.env.TRAILPROOF_LAUNCHER || path.join(REPO_DIR, "target", "trailproof", "bin", "trailproof");
export const VECTORS = path.join(REPO_DIR, "src", "test", "resources", "vectors", "event-hashes.json");
export const PYTHON_SDK = path.join(REPO_DIR, "src", "sdk", "python");

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * How long a test's flush() may take: a few batches to the shared server, which beside Maven's
 * integration tests on 2 cores has taken over 30 s to answer them. A slow answer is still an answer;
 * what the tests check is what the service stored.
 */
export const FLUSH_WAIT_MS = 120000;

/** Polls `fn` until it returns a truthy value, or throws after `ms`. */
export async function until(fn, ms = 60000, what = "the condition") {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${ms} ms`);
    await sleep(50);
  }
}

export function tempDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** `trailproof serve` on a free port with its own data directory. */
export class Server {
  constructor({ dataDir, port } = {}) {
    if (!fs.existsSync(LAUNCHER)) {
      throw new Error(`the trailproof launcher ${LAUNCHER} is missing: build it with \`mvn -B -q -DskipTests package\` or set TRAILPROOF_LAUNCHER`);
    }
    this.dataDir = dataDir ?? tempDir("trailproof-ts-sdk-server-");
    this.port = port ?? null;
    this.proc = null;
    this.logPath = this.dataDir + ".log";
  }

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(waitMs = 180000) {
    if (this.port === null) this.port = await freePort();
    const log = fs.openSync(this.logPath, "a");
    const env = { ...process.env };
    env.TRAILPROOF_JAVA_OPTS ??= "-Xmx256m -XX:TieredStopAtLevel=1";
    this.proc = spawn(LAUNCHER, ["serve", "--data-dir", this.dataDir, "--port", String(this.port)], {
      stdio: ["ignore", log, log],
      detached: true,
      env,
    });
    fs.closeSync(log);
    this.exited = new Promise((resolve) => this.proc.once("exit", resolve));
    let exitCode = null;
    this.exited.then((c) => (exitCode = c ?? "a signal"));
    const deadline = Date.now() + waitMs;
    while (Date.now() < deadline) {
      if (exitCode !== null) throw new Error(`the server exited with ${exitCode}; see ${this.logPath}`);
      try {
        // A long time-out per try: a new server on a busy machine may take seconds for its first
        // answer, and a client that gives up after 2 s and asks again never sees one.
        const r = await fetch(this.url + "/health", { signal: AbortSignal.timeout(Math.max(1000, Math.min(30000, deadline - Date.now()))) });
        if (r.status === 200) return this;
      } catch {
        // not up yet
      }
      await sleep(100);
    }
    throw new Error(`the server did not answer within ${waitMs} ms; see ${this.logPath}`);
  }

  async kill9() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      process.kill(-this.proc.pid, "SIGKILL");
      await this.exited;
    }
  }

  async stop() {
    if (this.proc && this.proc.exitCode === null && this.proc.signalCode === null) {
      process.kill(-this.proc.pid, "SIGTERM");
      const t = setTimeout(() => {
        try {
          process.kill(-this.proc.pid, "SIGKILL");
        } catch {
          // gone already
        }
      }, 20000);
      await this.exited;
      clearTimeout(t);
    }
  }

  async remove() {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
    fs.rmSync(this.logPath, { force: true });
  }

  async get(p) {
    const r = await fetch(this.url + p, { signal: AbortSignal.timeout(30000) });
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${await r.text()}`);
    return r.json();
  }

  /**
   * get, asked again while the answer says the index is behind (X-Index-Behind): the service answers
   * from what is indexed after 5 s, which a machine busy with other builds reaches.
   */
  async getComplete(p, ms = 120000) {
    const deadline = Date.now() + ms;
    for (;;) {
      const r = await fetch(this.url + p, { signal: AbortSignal.timeout(30000) });
      if (r.status !== 200) throw new Error(`GET ${p}: ${r.status} ${await r.text()}`);
      const body = await r.json();
      if (r.headers.get("x-index-behind") === null || Date.now() > deadline) return body;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  async getBytes(p) {
    const r = await fetch(this.url + p, { signal: AbortSignal.timeout(30000) });
    if (r.status !== 200) throw new Error(`GET ${p}: ${r.status}`);
    return Buffer.from(await r.arrayBuffer());
  }

  async post(p, body, method = "POST") {
    const r = await fetch(this.url + p, {
      method,
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(60000),
    });
    const text = await r.text();
    if (r.status >= 300) throw new Error(`${method} ${p}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }

  /** The agent's events, oldest first by sequence. */
  async events(agentId) {
    const out = [];
    for (;;) {
      const page = await this.getComplete(`/v1/events?order=asc&limit=1000&offset=${out.length}&agent_id=${encodeURIComponent(agentId)}`);
      out.push(...page);
      if (page.length < 1000) return out.sort((a, b) => a.sequence - b.sequence);
    }
  }

  useGatePolicy() {
    return this.post("/v1/admin/gate-policy", GATE_POLICY, "PUT");
  }

  /** The agent's first DECISION event, waited for. */
  async decisionOf(agentId, ms = 60000) {
    return until(async () => (await this.events(agentId)).find((e) => e.action_type === "DECISION"), ms, `a DECISION of ${agentId}`);
  }

  answer(decisionId, approve, comment) {
    return this.post(`/v1/approvals/${encodeURIComponent(decisionId)}`, { approve, comment });
  }
}

// The gate policy of the tests: the Python SDK's tests use the same document (the active policy is
// the service's latest), its action names chosen so that no other test's events meet them.
export const GATE_POLICY = {
  policies: [
    {
      name: "sdk-gates",
      rules: [
        { name: "no-wipe", type: "absence", deny: "wipe_disk", effect: "deny", reason: "disks are never wiped by an agent" },
        { name: "refunds-need-a-person", type: "absence", deny: "refund", effect: "ask", reason: "refunds need a person's approval" },
        { name: "no-rm-rf", type: "pattern", for_field: "action_input.command", deny_pattern: "rm -rf", effect: "deny", reason: "recursive deletes are not allowed" },
        { name: "pushes-need-a-person", type: "pattern", for_field: "action_input.command", deny_pattern: "git push", effect: "ask", reason: "pushes need a person's approval" },
      ],
    },
  ],
};

let shared = null;

/** One server for every test of a file that needs no server of its own; `stopShared` in `after`. */
export async function sharedServer() {
  if (shared === null) {
    const given = process.env.TRAILPROOF_TEST_SERVER;
    if (given) {
      const { url, port } = JSON.parse(given);
      const s = new Server({ port, dataDir: "(started by test/run.mjs)" });
      s.given = true;
      shared = Promise.resolve(s);
      if (s.url !== url) throw new Error(`TRAILPROOF_TEST_SERVER: ${given}`);
    } else {
      shared = new Server().start();
    }
  }
  return shared;
}

export async function stopShared() {
  if (shared !== null) {
    const s = await shared.catch(() => null);
    shared = null;
    if (s && !s.given) await s.remove();
  }
}

/**
 * Registers a test file's hooks: the shared server before its tests (handed to `onServer`), and after
 * them the returned cleanups, last first, then the file's hold on the server released.
 */
export function withSharedServer(onServer) {
  const cleanups = [];
  before(async () => {
    onServer(await sharedServer());
  });
  after(async () => {
    for (const c of cleanups.reverse()) await c();
    await stopShared();
  });
  return cleanups;
}

export function agent(name) {
  return `${name}-${Math.random().toString(16).slice(2, 10)}`;
}

/**
 * A TCP proxy to `targetPort` that records each request and can swallow the answers of the first
 * `drop` requests (the service got them, the client never hears).
 */
export class Proxy {
  constructor(targetPort, { drop = 0 } = {}) {
    this.targetPort = targetPort;
    this.drop = drop;
    this.requests = [];
    this.answers = [];
    this.sockets = new Set();
    this.server = net.createServer((c) => this.serve(c));
  }

  async listen(port = 0) {
    await new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(port, "127.0.0.1", resolve);
    });
    this.port = this.server.address().port;
    this.url = `http://127.0.0.1:${this.port}`;
    return this;
  }

  close() {
    for (const s of this.sockets) s.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  serve(c) {
    const up = net.connect(this.targetPort, "127.0.0.1");
    this.sockets.add(c);
    this.sockets.add(up);
    const reader = (sock) => {
      let buf = Buffer.alloc(0);
      const waiting = [];
      let ended = false;
      sock.on("data", (d) => {
        buf = Buffer.concat([buf, d]);
        pump();
      });
      sock.on("close", () => {
        ended = true;
        pump();
      });
      sock.on("error", () => undefined);
      function pump() {
        while (waiting.length) {
          const m = message();
          if (m === undefined && !ended) return;
          waiting.shift()(m ?? null);
        }
      }
      function message() {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return undefined;
        const head = buf.subarray(0, end).toString("latin1");
        const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        const len = m ? Number(m[1]) : 0;
        if (buf.length < end + 4 + len) return undefined;
        const msg = buf.subarray(0, end + 4 + len);
        buf = buf.subarray(end + 4 + len);
        return msg;
      }
      return () => new Promise((resolve) => {
        waiting.push(resolve);
        pump();
      });
    };
    const fromClient = reader(c);
    const fromServer = reader(up);
    (async () => {
      try {
        for (;;) {
          const req = await fromClient();
          if (req === null) return;
          this.requests.push(req);
          up.write(req);
          const ans = await fromServer();
          if (ans === null) return;
          this.answers.push(ans);
          if (this.drop > 0) {
            this.drop--;
            return;
          }
          c.write(ans);
        }
      } finally {
        c.destroy();
        up.destroy();
      }
    })();
  }

  batchRequests() {
    const out = [];
    for (const r of this.requests) {
      const end = r.indexOf("\r\n\r\n");
      const lines = r.subarray(0, end).toString("latin1").split("\r\n");
      if (!lines[0].startsWith("POST ") || !lines[0].includes("/v1/batch")) continue;
      const headers = {};
      for (const l of lines.slice(1)) {
        const i = l.indexOf(":");
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      out.push({ key: headers["idempotency-key"], body: r.subarray(end + 4) });
    }
    return out;
  }
}

/**
 * Runs a Python snippet with the Python SDK importable (asynchronously: proxies of this process keep
 * working); answers the last line of its standard output, parsed as JSON.
 */
export async function runPython(code, env = {}) {
  const python = process.env.TRAILPROOF_PYTHON || "python3";
  const child = spawn(python, ["-c", code], { env: { ...process.env, PYTHONPATH: PYTHON_SDK, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), 120000);
  const status = await new Promise((resolve) => child.once("close", (c) => resolve(c)));
  clearTimeout(timer);
  if (status !== 0) throw new Error(`python failed (${status}): ${err}`);
  return JSON.parse(out.trim().split("\n").pop());
}
