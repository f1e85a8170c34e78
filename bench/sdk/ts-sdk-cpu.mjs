// TypeScript SDK: the client's CPU per logged event beside a bare `fetch` posting the same batches,
// and how long `client.log` holds the event loop while 1,000 events wait in the queue.
//
//     node bench/sdk/ts-sdk-cpu.mjs target/trailproof [--events N] [--batch-size B] [--rounds R]
//
// One freshly started server takes every round. Rounds alternate (baseline, SDK, baseline, SDK, ...)
// so that both see the same machine:
//
// - baseline: what a hand-written client does at least: for each batch, the events built as objects,
//   `JSON.stringify` of the batch, `fetch` POST /v1/batch with an Idempotency-Key on the global
//   keep-alive agent, the JSON answer parsed; batches one after another;
// - SDK: `client.log()` for each event (event building, serialization, receipts), then `flush()`;
//   the SDK's sender posts the same batches one after another.
//
// CPU is this process's (`process.cpuUsage()`, user + system) over the round divided by the events;
// the server's CPU is not counted. Then the event-loop check, in this process and again in a child
// with V8's background threads off (so that the process's CPU time is the event loop thread's): a
// client kept at about 1,000 queued events (refilled each turn while its sender drains it) times every
// `log()` call after a warm-up, garbage collections are recorded beside the calls, and
// `perf_hooks.monitorEventLoopDelay` records the longest turn of the loop (the SDK's sender work and
// garbage collection included). The machines are shared: compare the ratios, not figures across runs.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { PerformanceObserver, monitorEventLoopDelay } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const { Client } = await import(pathToFileURL(path.join(HERE, "..", "..", "src", "sdk", "typescript", "dist", "index.js")).href);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    events: { type: "string", default: "30000" },
    "batch-size": { type: "string", default: "100" },
    rounds: { type: "string", default: "3" },
    "log-calls": { type: "string", default: "20000" },
    "loop-only": { type: "string" },
  },
});
const dist = positionals[0] ?? "target/trailproof";
const N = Number(values.events);
const BATCH = Number(values["batch-size"]);
const ROUNDS = Number(values.rounds);
const LOG_CALLS = Number(values["log-calls"]);

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

const input = (i) => ({ query: `quarterly revenue by region ${i}`, top_k: 5 });
const output = (i) => ({ hits: [{ id: `doc-${i % 997}`, score: 0.87 }] });

async function baseline(url, agentId) {
  const captureId = "ts-" + randomBytes(16).toString("hex"); // the same bytes as the SDK's events
  for (let start = 0; start < N; start += BATCH) {
    const events = [];
    for (let i = start; i < Math.min(N, start + BATCH); i++) {
      events.push({
        agent_id: agentId, capture_method: "typescript-sdk", action_type: "TOOL_CALL", action_name: "search_documents",
        action_input: input(i), labels: { env: "bench" }, action_status: "success", action_output: output(i),
        duration_ms: 12, timestamp: new Date().toISOString(), capture_id: captureId, capture_seq: i + 1,
      });
    }
    const r = await fetch(url + "/v1/batch", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": randomBytes(16).toString("hex") },
      body: JSON.stringify(events),
    });
    const answer = await r.json();
    if (r.status !== 201 || answer.length !== events.length) throw new Error(`baseline: HTTP ${r.status}`);
  }
}

async function sdk(url, agentId, spoolDir) {
  const c = new Client({ url, agentId, batchSize: BATCH, maxQueue: N + 10, spoolDir, flushIntervalMs: 1000 });
  for (let i = 0; i < N; i++) {
    c.log({ actionType: "TOOL_CALL", actionName: "search_documents", input: input(i), output: output(i), status: "success", durationMs: 12, labels: { env: "bench" } });
  }
  if (!(await c.flush(600000))) throw new Error("the SDK did not finish");
  await c.close();
}

async function measure(name, fn) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const t1 = performance.now();
  const cpu = process.cpuUsage(cpu0);
  return { name, rate: N / ((t1 - t0) / 1000), cpuUs: (cpu.user + cpu.system) / N };
}

/**
 * Times every log() while the queue holds about 1,000 events and the sender drains it, after as many
 * untimed calls (warm-up): each turn of the loop logs at most 50 events, topping the queue up to
 * 1,000. Each call's wall time and the process's CPU time during it (`process.cpuUsage()`: every
 * thread, so V8's background compiler and collector too, unless --single-threaded) are recorded: on
 * a loaded machine a call can be descheduled midway, which is wall time the event loop lost to
 * other processes, not work the call did.
 */
async function eventLoop(url, spoolDir) {
  const c = new Client({ url, agentId: "bench-loop", batchSize: BATCH, maxQueue: 5000, spoolDir, flushIntervalMs: 50 });
  const wall = [];
  const cpu = [];
  let userMax = 0;
  let depthSum = 0;
  const h = monitorEventLoopDelay({ resolution: 1 });
  const gcs = []; // [start, end] of every garbage collection, to tell which slow calls it explains
  const gcObserver = new PerformanceObserver((list) => {
    for (const g of list.getEntries()) gcs.push([g.startTime, g.startTime + g.duration]);
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  const slow = [];
  let i = 0;
  while (c.pending < 1000) c.log({ actionType: "TOOL_CALL", actionName: "fill", input: input(i++) });
  // warm-up, untimed: the same calls until the JIT has compiled them (with --single-threaded it
  // compiles on the event loop's thread, inside whichever call gets hot)
  for (i = 0; i < LOG_CALLS; ) {
    for (let k = 0; k < 50 && c.pending < 1000 && i < LOG_CALLS; k++, i++) {
      c.log({ actionType: "TOOL_CALL", actionName: "search_documents", input: input(i), output: output(i), status: "success", durationMs: 12 });
    }
    await new Promise((r) => setImmediate(r));
  }
  h.enable();
  i = 0;
  while (i < LOG_CALLS) {
    for (let k = 0; k < 50 && c.pending < 1000 && i < LOG_CALLS; k++, i++) {
      depthSum += c.pending;
      const c0 = process.cpuUsage();
      const t = performance.now();
      c.log({ actionType: "TOOL_CALL", actionName: "search_documents", input: input(i), output: output(i), status: "success", durationMs: 12 });
      const ms = performance.now() - t;
      wall.push(ms);
      if (ms > 1) slow.push([t, t + ms]);
      const used = process.cpuUsage(c0);
      cpu.push((used.user + used.system) / 1000);
      userMax = Math.max(userMax, used.user / 1000);
    }
    await new Promise((r) => setImmediate(r));
  }
  h.disable();
  await new Promise((r) => setTimeout(r, 100)); // the last gc entries
  gcObserver.disconnect();
  const duringGc = slow.filter(([a, b]) => gcs.some(([g0, g1]) => g0 < b && g1 > a)).length;
  await c.flush(600000);
  await c.close();
  const stats = (xs) => {
    xs.sort((a, b) => a - b);
    const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
    return { p50: q(0.5), p99: q(0.99), p999: q(0.999), max: xs[xs.length - 1], over1ms: xs.filter((x) => x > 1).length };
  };
  return {
    calls: wall.length,
    meanDepth: depthSum / wall.length,
    wall: stats(wall),
    cpu: stats(cpu),
    userMax,
    slow: slow.length,
    duringGc,
    gcCount: gcs.length,
    gcMax: gcs.reduce((m, [a, b]) => Math.max(m, b - a), 0),
    loopMax: h.max / 1e6, loopP99: h.percentile(99) / 1e6,
  };
}

if (values["loop-only"]) {
  // the event-loop check alone, against a running server, answered as JSON (see below)
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "trailproof-ts-bench-loop-"));
  console.log(JSON.stringify(await eventLoop(values["loop-only"], dir)));
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

/**
 * The event-loop check in a child Node with V8's background threads off (`--single-threaded`): the
 * process's CPU time during a call is then its event loop's thread's, garbage collection included.
 */
async function eventLoopSingleThreaded(url) {
  const child = spawn(process.execPath, ["--single-threaded", fileURLToPath(import.meta.url), "--loop-only", url,
    "--batch-size", String(BATCH), "--log-calls", String(LOG_CALLS)], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const code = await new Promise((r) => child.once("close", r));
  if (code !== 0) throw new Error(`the single-threaded check exited with ${code}`);
  return JSON.parse(out.trim().split("\n").pop());
}

const data = fs.mkdtempSync(path.join(os.tmpdir(), "trailproof-ts-bench-"));
const port = await freePort();
const url = `http://127.0.0.1:${port}`;
const log = fs.openSync(path.join(data, "server.log"), "a");
const server = spawn(path.join(dist, "bin", "trailproof"), ["serve", "--data-dir", path.join(data, "d"), "--port", String(port)], {
  stdio: ["ignore", log, log],
  detached: true,
});
try {
  const deadline = Date.now() + 120000;
  for (;;) {
    try {
      if ((await fetch(url + "/health")).status === 200) break;
    } catch {
      if (Date.now() > deadline || server.exitCode !== null) throw new Error(`the server did not start; see ${data}/server.log`);
    }
    await sleep(200);
  }
  const load = os.loadavg()[0];
  await baseline(url, "bench-warm"); // the server's JIT and this process's
  await sdk(url, "bench-warm-sdk", path.join(data, "spool"));
  const rows = [];
  for (let r = 0; r < ROUNDS; r++) {
    rows.push(await measure("bare fetch (baseline)", () => baseline(url, `bench-fetch-${r}`)));
    rows.push(await measure("trailproof SDK", () => sdk(url, `bench-sdk-${r}`, path.join(data, "spool"))));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const base = median(rows.filter((x) => x.name.startsWith("bare")).map((x) => x.cpuUs));
  const sdkCpu = median(rows.filter((x) => !x.name.startsWith("bare")).map((x) => x.cpuUs));
  console.log(`${N} events a round, batches of ${BATCH}, ${ROUNDS} rounds each, Node ${process.version}, load average ${load.toFixed(2)} on ${os.cpus().length} cores`);
  console.log(`${"round".padEnd(24)} ${"events/s".padStart(10)} ${"client CPU us/ev".padStart(18)}`);
  for (const x of rows) console.log(`${x.name.padEnd(24)} ${x.rate.toFixed(0).padStart(10)} ${x.cpuUs.toFixed(1).padStart(18)}`);
  console.log(`median client CPU per event: SDK ${sdkCpu.toFixed(1)} us, bare fetch ${base.toFixed(1)} us: ${(sdkCpu / base).toFixed(2)}x (goal: at most 2x)`);
  const us = (ms) => `${(ms * 1000).toFixed(1)} us`;
  for (const [title, e] of [
    ["in this process", await eventLoop(url, path.join(data, "spool"))],
    ["in a child with V8's background threads off (--single-threaded: CPU time is the event loop thread's)", await eventLoopSingleThreaded(url)],
  ]) {
    const line = (what, x) => `${what}: p50 ${us(x.p50)}, p99 ${us(x.p99)}, p99.9 ${us(x.p999)}, max ${x.max.toFixed(3)} ms, ${x.over1ms} of ${e.calls} over 1 ms`;
    console.log(`log() with ${e.meanDepth.toFixed(0)} events queued on average, ${title} (goal: at most 1 ms)`);
    console.log("  " + line("wall time", e.wall));
    console.log("  " + line("the process's CPU time during the call", e.cpu) + `; user time alone at most ${e.userMax.toFixed(3)} ms`);
    console.log(`  of the ${e.slow} calls over 1 ms of wall time, ${e.duringGc} overlapped one of the ${e.gcCount} garbage collections (longest ${e.gcMax.toFixed(2)} ms)`);
    console.log(`  event loop meanwhile (sender work and GC included): p99 delay ${e.loopP99.toFixed(2)} ms, longest ${e.loopMax.toFixed(2)} ms`);
  }
} finally {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // gone already
  }
  await new Promise((r) => (server.exitCode !== null ? r() : server.once("exit", r)));
  fs.rmSync(data, { recursive: true, force: true });
}
