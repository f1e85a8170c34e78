// TypeScript SDK: the client's CPU per logged event beside a bare `fetch` posting the same batches,
// and how long `client.log` holds the event loop while 1,000 events wait in the queue.
//
//     node bench/sdk/ts-sdk-cpu.mjs target/trailproof [--events N] [--batch-size B] [--rounds R]
//         [--log-calls WARMUP] [--log-calls-timed C] [--loop-check-only]
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
// the server's CPU is not counted. Then the event-loop check, four child Nodes one after another:
// a bare sink (the same events built, serialized, queued and posted with `fetch`, without the SDK)
// and the SDK, each with V8's background threads on and off (`--single-threaded`: V8 then compiles
// and collects garbage on the event loop's thread, and the process's CPU time is that thread's).
// Each keeps about 1,000 events queued while its sender drains them and times every call after a
// warm-up, with V8's traces of garbage collection, incremental marking and compilation written into
// the same file as the calls' boundaries: each call over 1 ms is put down to what happened inside it
// (see `loopChild`). The machines are shared: compare the ratios, not figures across runs.

import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import * as net from "node:net";
import * as os from "node:os";
import * as path from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
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
    "log-calls-timed": { type: "string", default: "100000" },
    "loop-only": { type: "string" },
    sink: { type: "string", default: "sdk" },
    "loop-check-only": { type: "boolean", default: false },
  },
});
const dist = positionals[0] ?? "target/trailproof";
const N = Number(values.events);
const BATCH = Number(values["batch-size"]);
const ROUNDS = Number(values.rounds);
const LOG_CALLS = Number(values["log-calls"]);
const LOG_CALLS_TIMED = Number(values["log-calls-timed"]);

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

// ------------------------------------------------------------------ the event-loop check

/**
 * What a caller's `log()` is compared with: the same event object built, serialized with
 * `JSON.stringify` and its text kept in an array read from a moving head, drained 100 at a time by
 * `fetch` posts (one at a time, the answer parsed): the objects and the sending the SDK makes,
 * without the SDK.
 */
function bareSink(url) {
  const captureId = "ts-" + randomBytes(16).toString("hex");
  let items = [];
  let head = 0;
  let seq = 0;
  let inFlight = 0;
  let sending = false;
  const drain = async () => {
    if (sending) return;
    sending = true;
    try {
      while (items.length > head) {
        const n = Math.min(BATCH, items.length - head);
        let body = "[";
        for (let k = 0; k < n; k++) body += (k ? "," : "") + items[head + k].data;
        body += "]";
        head += n;
        if (head === items.length) {
          items = [];
          head = 0;
        } else if (head > 4096 && head * 2 > items.length) {
          items = items.slice(head);
          head = 0;
        }
        inFlight = n;
        const r = await fetch(url + "/v1/batch", {
          method: "POST",
          headers: { "Content-Type": "application/json", "Idempotency-Key": randomBytes(16).toString("hex") },
          body,
        });
        const answer = await r.json();
        inFlight = 0;
        if (r.status !== 201 || answer.length !== n) throw new Error(`bare sink: HTTP ${r.status}`);
      }
    } finally {
      sending = false;
    }
  };
  const timer = setInterval(() => void drain(), 50);
  return {
    get pending() {
      return items.length - head + inFlight;
    },
    log(f) {
      const event = {
        agent_id: "bench-loop", capture_method: "typescript-sdk", action_type: f.actionType, action_name: f.actionName,
        action_input: f.input, action_status: f.status, action_output: f.output, duration_ms: f.durationMs,
        timestamp: new Date().toISOString(), capture_id: captureId, capture_seq: ++seq,
      };
      items.push({ data: JSON.stringify(event), seq });
      if (items.length - head >= BATCH) void drain();
    },
    async close() {
      while (this.pending > 0) await sleep(10);
      clearInterval(timer);
    },
  };
}

/**
 * In a child Node (see `loopChild`): keeps a sink at about 1,000 queued events while its sender drains
 * them (each turn of the loop logs at most 50, topping the queue up to 1,000) and, after LOG_CALLS
 * untimed calls (the JIT's warm-up), times LOG_CALLS_TIMED calls. Around each timed call it writes
 * `B` and `E` lines to stderr, unbuffered, into the same file as V8's own traces (garbage collection,
 * incremental marking steps, compilation), so that the parent sees what V8 did inside each call.
 * `E` holds the call's wall time, the process's CPU time during it and the involuntary context
 * switches (the scheduler took the CPU away); `G` lines are the garbage collections Node reports.
 */
async function loopChildMain(url, sinkName, spoolDir) {
  const raw = process._rawDebug;
  const sink = sinkName === "sdk"
    ? new Client({ url, agentId: "bench-loop", batchSize: BATCH, maxQueue: 5000, spoolDir, flushIntervalMs: 50 })
    : bareSink(url);
  const gcObserver = new PerformanceObserver((list) => {
    for (const g of list.getEntries()) raw(`G ${g.startTime.toFixed(3)} ${g.duration.toFixed(3)} ${g.detail?.kind ?? g.kind}`);
  });
  gcObserver.observe({ entryTypes: ["gc"] });
  const fields = (i) => ({ actionType: "TOOL_CALL", actionName: "search_documents", input: input(i), output: output(i), status: "success", durationMs: 12 });
  let i = 0;
  while (sink.pending < 1000) sink.log(fields(i++));
  const run = async (calls, timed) => {
    for (let i = 0; i < calls; ) {
      for (let k = 0; k < 50 && sink.pending < 1000 && i < calls; k++, i++) {
        const f = fields(i);
        if (!timed) {
          sink.log(f);
          continue;
        }
        const depth = sink.pending;
        raw("B");
        const r0 = process.resourceUsage();
        const t = performance.now();
        sink.log(f);
        const ms = performance.now() - t;
        const r1 = process.resourceUsage();
        const cpu = (r1.userCPUTime - r0.userCPUTime + r1.systemCPUTime - r0.systemCPUTime) / 1000;
        raw(`E ${t.toFixed(3)} ${ms.toFixed(4)} ${cpu.toFixed(3)} ${r1.involuntaryContextSwitches - r0.involuntaryContextSwitches} ${depth}`);
      }
      await new Promise((r) => setImmediate(r));
    }
  };
  await run(LOG_CALLS, false);
  await run(LOG_CALLS_TIMED, true);
  await sleep(100); // the last gc entries
  gcObserver.disconnect();
  if (sinkName === "sdk") {
    await sink.flush(600000);
    await sink.close();
  } else {
    await sink.close();
  }
}

if (values["loop-only"]) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "trailproof-ts-bench-loop-"));
  await loopChildMain(values["loop-only"], values.sink, dir);
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

const GC_TRACE = /Scavenge|Mark-Compact|Mark-Sweep|Minor Mark|MinorMS|IncrementalMarking|Memory reducer/;
// compiling on the event loop's thread (with V8's threads on, compiling is concurrent and only its
// short start and end happen there; those are not counted), or leaving optimized code
const COMPILE_TRACE = /^\[compiling method .*kSynchronous|^\[bailout|^\[deoptimizing/;

/**
 * Runs `loopChildMain` in a child Node (`--single-threaded` or not) with V8's traces of garbage
 * collection, incremental marking and compilation on, its stdout and stderr unbuffered into one file,
 * and reads each timed call's line with what V8 printed between its `B` and `E`. A call over 1 ms is
 * put down to the first that applies: garbage collection (a GC or incremental-marking trace inside
 * it, or a collection Node reported overlapping it); V8 compiling on the event loop's thread or
 * deoptimizing (such a trace inside it); the scheduler (an involuntary context switch during the call, or
 * less CPU time than half its wall time); otherwise the call's own work.
 */
async function loopChild(url, sinkName, singleThreaded, dir) {
  const file = path.join(dir, `loop-${sinkName}-${singleThreaded ? "st" : "mt"}.trace`);
  const fd = fs.openSync(file, "w");
  const nodeArgs = [...(singleThreaded ? ["--single-threaded"] : []), "--trace-gc", "--trace-incremental-marking", "--trace-opt", "--trace-deopt"];
  const child = spawn("stdbuf", ["-o0", "-e0", process.execPath, ...nodeArgs, fileURLToPath(import.meta.url), "--loop-only", url,
    "--sink", sinkName, "--batch-size", String(BATCH), "--log-calls", String(LOG_CALLS), "--log-calls-timed", String(LOG_CALLS_TIMED)],
  { stdio: ["ignore", fd, fd] });
  const code = await new Promise((r) => child.once("close", r));
  fs.closeSync(fd);
  if (code !== 0) throw new Error(`the event-loop check (${sinkName}) exited with ${code}; see ${file}`);
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const calls = [];
  const gcs = [];
  let inside = null;
  for (const line of lines) {
    if (line === "B") inside = { gc: false, compile: false };
    else if (line.startsWith("E ")) {
      const [, t, ms, cpu, ics, depth] = line.split(" ").map(Number);
      calls.push({ t, ms, cpu, ics, depth, gc: inside.gc, compile: inside.compile });
      inside = null;
    } else if (line.startsWith("G ")) {
      const [, start, duration] = line.split(" ").map(Number);
      gcs.push([start, start + duration]);
    } else if (inside !== null) {
      if (GC_TRACE.test(line)) inside.gc = true;
      else if (COMPILE_TRACE.test(line)) inside.compile = true;
    }
  }
  gcs.sort((a, b) => a[0] - b[0]);
  const overlapsGc = (c) => gcs.some(([a, b]) => a < c.t + c.ms && b > c.t);
  const why = { gc: 0, compile: 0, scheduler: 0, own: 0 };
  const cpuWhy = { gc: 0, compile: 0, own: 0 };
  let ownMax = 0;
  let clean = 0;
  for (const c of calls) {
    const v8gc = c.gc || (c.ms > 1 && overlapsGc(c));
    const preempted = c.ics > 0 || c.cpu < c.ms / 2;
    if (!v8gc && !c.compile && !preempted) {
      clean++;
      ownMax = Math.max(ownMax, c.ms);
    }
    if (c.cpu > 1) {
      // worked on the process's CPUs for over 1 ms (with V8's threads off: on the event loop's thread)
      if (v8gc) cpuWhy.gc++;
      else if (c.compile) cpuWhy.compile++;
      else cpuWhy.own++;
    }
    if (c.ms <= 1) continue;
    if (v8gc) why.gc++;
    else if (c.compile) why.compile++;
    else if (preempted) why.scheduler++;
    else why.own++;
  }
  const wall = calls.map((c) => c.ms).sort((a, b) => a - b);
  const q = (p) => wall[Math.min(wall.length - 1, Math.floor(p * wall.length))];
  return {
    sink: sinkName, singleThreaded, calls: calls.length, meanDepth: calls.reduce((s, c) => s + c.depth, 0) / calls.length,
    p50: q(0.5), p99: q(0.99), p999: q(0.999), max: wall[wall.length - 1], over1ms: wall.filter((x) => x > 1).length,
    why, cpuWhy, clean, ownMax, gcCount: gcs.length, gcMax: gcs.reduce((m, [a, b]) => Math.max(m, b - a), 0),
  };
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
  if (!values["loop-check-only"]) {
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
  }
  const us = (ms) => `${(ms * 1000).toFixed(1)} us`;
  const loops = [];
  for (const singleThreaded of [false, true]) {
    for (const sinkName of ["bare", "sdk"]) loops.push(await loopChild(url, sinkName, singleThreaded, data));
  }
  console.log(`log() at a queue of about 1,000 events, ${LOG_CALLS_TIMED} timed calls after ${LOG_CALLS} untimed ones, each in a`
    + ` child Node (goal: no call over 1 ms); "bare" builds, serializes and queues the same events and posts them with fetch`);
  console.log(["sink", "V8 threads", "queued", "p50", "p99", "p99.9", "max", "over 1 ms", "GC", "compiler", "scheduler", "own work",
    "longest call with none of these", "collections Node reported (longest)"].join(" | "));
  for (const e of loops) {
    console.log([e.sink === "sdk" ? "SDK log()" : "bare", e.singleThreaded ? "off" : "on", e.meanDepth.toFixed(0), us(e.p50), us(e.p99),
      us(e.p999), `${e.max.toFixed(2)} ms`, e.over1ms, e.why.gc, e.why.compile, e.why.scheduler, e.why.own,
      `${us(e.ownMax)} (of ${e.clean} calls)`, `${e.gcCount} (${e.gcMax.toFixed(2)} ms)`].join(" | "));
  }
  console.log("with V8's threads off, calls with over 1 ms of CPU time (the event loop thread's, whatever the scheduler did), put down to the same causes:");
  for (const e of loops.filter((x) => x.singleThreaded)) {
    console.log(`  ${e.sink === "sdk" ? "SDK log()" : "bare"}: GC ${e.cpuWhy.gc}, compiler ${e.cpuWhy.compile}, own work ${e.cpuWhy.own}`);
  }
  console.log(`calls over 1 ms put down to: GC = a garbage collection or incremental-marking step inside the call; compiler = V8`
    + ` compiling on the event loop's thread; scheduler = an involuntary context switch or less CPU than half the wall time;`
    + ` own work = none of these. Load average now ${os.loadavg()[0].toFixed(2)}`);
} finally {
  try {
    process.kill(-server.pid, "SIGTERM");
  } catch {
    // gone already
  }
  await new Promise((r) => (server.exitCode !== null ? r() : server.once("exit", r)));
  fs.rmSync(data, { recursive: true, force: true });
}
