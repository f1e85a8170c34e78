// The client against the real server: batching, ordering, one key per batch, retries, the spool, the
// queue bound, refused events, redaction, the capture helper and capture sequences.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { describe, it } from "node:test";

import { Client, NotSent, QueueFull, RejectedEvent, TrailproofError } from "../dist/index.js";
import { Spool } from "../dist/spool.js";
import { agent, FLUSH_WAIT_MS, freePort, Proxy, sleep, tempDir, until, withSharedServer } from "./support.mjs";

let server;
const cleanups = withSharedServer((s) => {
  server = s;
});

function setup() {
  const spoolDir = tempDir("trailproof-ts-spool-");
  const errors = [];
  cleanups.push(() => fs.rmSync(spoolDir, { recursive: true, force: true }));
  const client = (agentId, options = {}) => {
    const c = new Client({ url: server.url, agentId, spoolDir, onError: (e) => errors.push(e), ...options });
    cleanups.push(() => c.close(2000));
    return c;
  };
  return { spoolDir, errors, client };
}

async function proxy(options) {
  const p = await new Proxy(server.port, options).listen();
  cleanups.push(() => p.close());
  return p;
}

describe("batching", () => {
  it("keeps each agent's order, one request and one key per batch", async () => {
    const { errors, client } = setup();
    const p = await proxy();
    const a = agent("order-a");
    const b = agent("order-b");
    const ca = client(a, { url: p.url, batchSize: 50, flushIntervalMs: 30000 });
    const cb = client(b, { url: p.url, batchSize: 50, flushIntervalMs: 30000 });
    const receipts = [];
    for (let i = 0; i < 230; i++) {
      receipts.push(ca.log({ actionType: "STEP", actionName: "a", input: { i } }));
      if (i % 2) receipts.push(cb.log({ actionType: "STEP", actionName: "b", input: { i } }));
    }
    assert.ok(await ca.flush(FLUSH_WAIT_MS));
    assert.ok(await cb.flush(FLUSH_WAIT_MS));
    for (const r of receipts) {
      const ack = await r.result();
      assert.equal(ack.hash.length, 64);
      assert.equal(typeof ack.logIndex, "number");
    }
    for (const [name, n] of [[a, 230], [b, 115]]) {
      const stored = await server.events(name);
      assert.equal(stored.length, n);
      const is = stored.map((e) => e.action_input.i);
      assert.deepEqual(is, [...is].sort((x, y) => x - y));
      assert.deepEqual(stored.map((e) => e.sequence), Array.from({ length: n }, (_, k) => k + 1));
      assert.ok(stored.every((e) => e.capture_method === "typescript-sdk"));
    }
    const batches = p.batchRequests();
    assert.equal(batches.length, 5 + 3); // 230 = 4 x 50 + 30, 115 = 2 x 50 + 15: one request each
    assert.equal(new Set(batches.map((x) => x.key)).size, batches.length);
    assert.deepEqual(errors, []);
  });

  it("sends after the flush interval without flush, also from an idle client", async () => {
    const { client } = setup();
    const c = client(agent("interval"), { flushIntervalMs: 200 });
    assert.equal((await c.log({ actionType: "STEP", actionName: "first" }).result(10000)).sequence, 1);
    await sleep(1000); // a pause of the test's own making: the sender has gone idle, with nothing queued
    assert.equal((await c.log({ actionType: "STEP", actionName: "second" }).result(10000)).sequence, 2);
  });

  it("retries a lost answer with the same key and body, and stores the batch once", async () => {
    const { client } = setup();
    const p = await proxy({ drop: 1 });
    const name = agent("lost-answer");
    const c = client(name, { url: p.url, batchSize: 10, maxBackoffMs: 200 });
    const receipts = Array.from({ length: 10 }, (_, i) => c.log({ actionType: "STEP", actionName: "x", input: { i } }));
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const ids = await Promise.all(receipts.map(async (r) => (await r.result()).id));
    assert.equal(new Set(ids).size, 10);
    const batches = p.batchRequests();
    assert.ok(batches.length >= 2);
    assert.equal(batches[1].key, batches[0].key);
    assert.deepEqual(batches[1].body, batches[0].body);
    assert.match(p.answers[1].toString("latin1"), /Idempotent-Replayed: true/i);
    assert.equal((await server.events(name)).length, 10);
  });

  it("waits at least as long as Retry-After before retrying", async () => {
    const { client } = setup();
    const port = await freePort();
    const { createServer } = await import("node:http");
    const times = [];
    const fake = createServer((req, res) => {
      req.resume();
      times.push(performance.now());
      if (times.length === 1) {
        res.writeHead(503, { "Retry-After": "1", "Content-Type": "application/json" });
        res.end('{"error":"busy"}');
      } else {
        res.writeHead(201, { "Content-Type": "application/json" });
        res.end('[{"index":0,"event":{"id":"e1","log_index":0,"hash":"' + "0".repeat(64) + '","sequence":1,"recorded_at":"t"}}]');
      }
    });
    await new Promise((r) => fake.listen(port, "127.0.0.1", r));
    cleanups.push(() => new Promise((r) => fake.close(r)));
    const c = client(agent("retry-after"), { url: `http://127.0.0.1:${port}`, maxBackoffMs: 50 });
    const r = c.log({ actionType: "STEP" });
    assert.ok(await c.flush(10000));
    assert.equal((await r.result()).id, "e1");
    assert.ok(times[1] - times[0] >= 990, `retried after ${times[1] - times[0]} ms`);
  });
});

describe("spool and queue", () => {
  it("spools what close() could not send; the next client sends it first, in order", async () => {
    const { spoolDir, client } = setup();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const name = agent("spool");
    const first = client(name, { url, batchSize: 3, closeTimeoutMs: 300 });
    const receipts = Array.from({ length: 7 }, (_, i) => first.log({ actionType: "STEP", actionName: "before", input: { i } }));
    await first.close();
    for (const r of receipts) {
      await assert.rejects(r.result(), (e) => e instanceof NotSent && fs.existsSync(e.spoolPath));
    }
    assert.equal(new Spool(spoolDir, url).pending().length, 3); // 3 + 3 + 1 (with the stream's end)
    assert.deepEqual(await server.events(name), []);
    const p = await new Proxy(server.port).listen(port); // trailproof is back at the same address
    cleanups.push(() => p.close());
    const second = client(name, { url });
    const last = second.log({ actionType: "STEP", actionName: "after", input: { i: 7 } });
    assert.ok(await second.flush(FLUSH_WAIT_MS));
    assert.equal((await last.result()).sequence, 8);
    const stored = await server.events(name);
    assert.deepEqual(stored.map((e) => e.action_input?.i), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(new Spool(spoolDir, url).pending(), []);
  });

  it("a full queue throws QueueFull at once; the lost number is told as capture_dropped", async () => {
    const { spoolDir, client } = setup();
    const url = `http://127.0.0.1:${await freePort()}`;
    const c = client(agent("full"), { url, maxQueue: 5, batchSize: 100, flushIntervalMs: 60000, closeTimeoutMs: 200 });
    for (let i = 0; i < 5; i++) c.log({ actionType: "STEP", actionName: "x", input: { i } });
    const start = performance.now();
    assert.throws(() => c.log({ actionType: "STEP", actionName: "x", input: { i: 5 } }), QueueFull);
    // At once: a log() that waited for room would wait for a flush a minute away; the margin is for a busy machine.
    assert.ok(performance.now() - start < 1000);
    await c.close();
    const spooled = new Spool(spoolDir, url).pending();
    assert.equal(spooled.length, 1);
    const events = JSON.parse(fs.readFileSync(spooled[0], "utf8"));
    assert.deepEqual(events.filter((e) => e.action_type === "STEP").map((e) => e.action_input.i), [0, 1, 2, 3, 4]);
    assert.deepEqual(events.map((e) => e.capture_seq), [1, 2, 3, 4, 5, 7]);
    const end = events[events.length - 1];
    assert.deepEqual([end.action_type, end.capture_last, end.capture_dropped], ["CAPTURE_END", true, [6, 6]]);
  });

  it("a refused item rejects its receipt with the server's message; the others are stored", async () => {
    const { errors, client } = setup();
    const c = client(agent("refused"));
    const ok1 = c.log({ actionType: "STEP", actionName: "a" });
    const bad = c.log({ actionType: "STEP", actionName: "b", labels: { "no spaces": "x" } });
    const ok2 = c.log({ actionType: "STEP", actionName: "c" });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    await assert.rejects(bad.result(), (e) => {
      assert.ok(e instanceof RejectedEvent);
      assert.match(e.message, /labels key 'no spaces'/);
      assert.equal(e.event.action_name, "b");
      return true;
    });
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof RejectedEvent);
    assert.deepEqual([(await ok1.result()).sequence, (await ok2.result()).sequence], [1, 2]);
  });

  it("a receipt nobody awaits never becomes an unhandled rejection", async () => {
    const { client } = setup();
    const unhandled = [];
    const onUnhandled = (e) => unhandled.push(e);
    process.on("unhandledRejection", onUnhandled);
    try {
      const c = client(agent("unawaited"));
      c.log({ actionType: "STEP", labels: { "bad key": "x" } });
      assert.ok(await c.flush(FLUSH_WAIT_MS));
      // Node reports an unhandled rejection once the microtasks have run: a turn of the loop later
      await new Promise((r) => setImmediate(r));
    } finally {
      process.off("unhandledRejection", onUnhandled);
    }
    assert.deepEqual(unhandled, []);
  });
});

describe("redaction, settings, capture", () => {
  it("beforeSend redacts, and a failing one keeps the event without its content", async () => {
    const { errors, client } = setup();
    const name = agent("redact");
    const c = client(name, {
      beforeSend: (event) => {
        if (event.action_name === "boom") throw new Error("redactor broke");
        event.action_input = { q: "***" };
        return event;
      },
    });
    const input = { q: "secret" };
    c.log({ actionType: "STEP", actionName: "fine", input });
    c.log({ actionType: "STEP", actionName: "boom", input: { q: "secret" }, output: { a: "secret" }, error: "secret" });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    assert.deepEqual(input, { q: "secret" }); // the caller's object is untouched
    const stored = await server.events(name);
    assert.deepEqual(stored[0].action_input, { q: "***" });
    assert.deepEqual(stored[1].action_input, { redaction_failed: true });
    assert.deepEqual(stored[1].action_output, { redaction_failed: true });
    assert.equal(stored[1].error_message, undefined);
    assert.ok(!JSON.stringify(stored).includes("secret"));
    assert.equal(errors.length, 1);
    assert.match(errors[0].message, /beforeSend failed/);
  });

  it("TRAILPROOF_ENABLED=false makes every call a no-op", async () => {
    process.env.TRAILPROOF_ENABLED = "false";
    let c;
    try {
      c = new Client({ url: "http://127.0.0.1:1", agentId: "off" });
    } finally {
      delete process.env.TRAILPROOF_ENABLED;
    }
    assert.equal(await c.log({ actionType: "STEP" }).result(), null);
    assert.ok(await c.flush(0));
    const d = await c.decide({ actionName: "wipe_disk" });
    assert.equal(d.allowed, true);
    assert.equal(d.decisionId, null);
    await c.close();
  });

  it("the environment supplies the settings", async () => {
    const { spoolDir } = setup();
    const name = agent("env");
    const saved = { ...process.env };
    Object.assign(process.env, { TRAILPROOF_URL: server.url, TRAILPROOF_AGENT_ID: name, TRAILPROOF_SPOOL_DIR: spoolDir });
    let c;
    try {
      c = new Client();
    } finally {
      for (const k of ["TRAILPROOF_URL", "TRAILPROOF_AGENT_ID", "TRAILPROOF_SPOOL_DIR"]) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
    cleanups.push(() => c.close(2000));
    assert.equal(c.agentId, name);
    assert.equal(c.spoolDir, spoolDir);
    assert.equal((await c.log({ actionType: "STEP" }).result(10000)).sequence, 1);
  });

  it("audited records sync, async and throwing functions, and rethrows unchanged", async () => {
    const { client } = setup();
    const name = agent("audited");
    const c = client(name);
    const add = c.audited(function add(a, b = 2) {
      return a + b;
    });
    const ask = c.audited(async (question) => ({ answer: question.toUpperCase() }), {
      actionType: "LLM_CALL",
      actionName: "ask",
      input: (question) => ({ question }),
    });
    const boom = new RangeError("bad x 7");
    const fail = c.audited(function fail() {
      throw boom;
    });
    const failLater = c.audited(async function failLater() {
      throw new TypeError("later");
    });
    assert.equal(add(1), 3); // synchronous stays synchronous
    assert.deepEqual(await ask("hi"), { answer: "HI" });
    assert.throws(() => fail(7), (e) => e === boom);
    await assert.rejects(failLater(), TypeError);
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const ev = await server.events(name);
    assert.deepEqual(ev.map((e) => e.action_type), ["TOOL_CALL", "LLM_CALL", "TOOL_CALL", "TOOL_CALL"]);
    assert.deepEqual([ev[0].action_name, ev[0].action_input, ev[0].action_output, ev[0].action_status], ["add", { args: [1] }, { value: 3 }, "success"]);
    assert.equal(typeof ev[0].duration_ms, "number");
    assert.deepEqual([ev[1].action_name, ev[1].action_input, ev[1].action_output], ["ask", { question: "hi" }, { answer: "HI" }]);
    assert.deepEqual([ev[2].action_status, ev[2].error_message, ev[2].action_input], ["error", "RangeError: bad x 7", { args: [7] }]);
    assert.deepEqual([ev[3].action_name, ev[3].error_message], ["failLater", "TypeError: later"]);
  });

  it("action records a block, sync or async, with its output, status or error", async () => {
    const { client } = setup();
    const name = agent("action");
    const c = client(name);
    let handle;
    const v = c.action({ actionName: "fetch_invoice", input: { id: 7 } }, (a) => {
      handle = a;
      a.output = { total: 12 };
      return "sync";
    });
    assert.equal(v, "sync");
    assert.ok(handle.receipt);
    assert.equal(
      await c.action({ actionType: "LLM_CALL", actionName: "ask" }, async (a) => {
        a.output = "an answer";
        a.status = "partial";
        return 5;
      }),
      5,
    );
    await assert.rejects(c.action({ actionName: "broken" }, async () => {
      throw new RangeError("k");
    }), RangeError);
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    assert.equal((await handle.receipt.result()).sequence, 1);
    const ev = await server.events(name);
    assert.deepEqual(ev.map((e) => [e.action_type, e.action_name, e.action_status]), [["TOOL_CALL", "fetch_invoice", "success"], ["LLM_CALL", "ask", "partial"], ["TOOL_CALL", "broken", "error"]]);
    assert.deepEqual([ev[0].action_input, ev[0].action_output, ev[1].action_output, ev[2].error_message], [{ id: 7 }, { total: 12 }, { value: "an answer" }, "RangeError: k"]);
  });

  it("values JSON cannot hold exactly are recorded as strings, lone surrogates as U+FFFD", async () => {
    const { client } = setup();
    const name = agent("values");
    const c = client(name);
    const cyclic = { a: 1 };
    cyclic.self = cyclic;
    c.log({
      actionType: "STEP",
      input: { big: 2n ** 64n, small: 5n, nan: NaN, when: new Date(0), bytes: Buffer.from("hi"), cyclic, lone: "x\ud800y", map: new Map([["k", 1]]) },
    });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const [e] = await server.events(name);
    assert.deepEqual(e.action_input, {
      big: "18446744073709551616",
      small: 5,
      nan: "NaN",
      when: "1970-01-01T00:00:00.000Z",
      bytes: "aGk=",
      cyclic: { a: 1, self: "[Circular]" },
      lone: "x\ufffdy",
      map: { k: 1 },
    });
  });
});

describe("capture sequences", () => {
  it("numbers each client's events; close marks the last one", async () => {
    const { client } = setup();
    const name = agent("seq");
    const c = client(name, { flushIntervalMs: 60000 });
    for (let i = 0; i < 3; i++) c.log({ actionType: "STEP", input: { i } });
    await c.close();
    const ev = await server.events(name);
    assert.deepEqual(ev.map((e) => e.capture_seq), [1, 2, 3]);
    assert.deepEqual(new Set(ev.map((e) => e.capture_id)), new Set([c.captureId]));
    assert.match(c.captureId, /^ts-[0-9a-f]{32}$/);
    assert.deepEqual(ev.map((e) => e.capture_last ?? false), [false, false, true]);
    assert.notEqual(client(name).captureId, c.captureId);
    assert.throws(() => c.log({ actionType: "STEP" }), TrailproofError);
  });

  it("close sends CAPTURE_END when nothing is left", async () => {
    const { client } = setup();
    const name = agent("end");
    const c = client(name);
    c.log({ actionType: "STEP" });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    await c.close();
    const ev = await server.events(name);
    assert.deepEqual(ev.map((e) => [e.action_type, e.capture_seq, e.capture_last ?? false]), [["STEP", 1, false], ["CAPTURE_END", 2, true]]);
  });

  it("an event the full queue refused is recorded as a gap", async () => {
    const { client } = setup();
    const name = agent("gap");
    const c = client(name, { maxQueue: 1, batchSize: 1, flushIntervalMs: 60000 });
    let lost = 0;
    for (let i = 0; i < 5; i++) {
      try {
        c.log({ actionType: "STEP", input: { i } });
      } catch (e) {
        assert.ok(e instanceof QueueFull);
        lost++;
      }
    }
    assert.equal(lost, 4); // synchronous: the sender cannot run between the calls
    await c.close(30000);
    const gaps = await until(async () => {
      const g = (await server.events(name)).filter((e) => e.action_type === "GAP");
      return g.length ? g : null;
    }, 30000, "a GAP event");
    assert.equal(gaps[0].action_output.capture_id, c.captureId);
    assert.deepEqual(gaps[0].action_output.missing, [[2, 5]]);
  });
});
