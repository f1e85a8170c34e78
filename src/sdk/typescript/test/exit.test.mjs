// What happens to queued events when the process ends: a program that simply finishes sends them
// (beforeExit), one that calls process.exit() spools them synchronously for the next client, and
// one whose service is down spools them after closeTimeoutMs and still exits.

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, describe, it } from "node:test";

import { Client } from "../dist/index.js";
import { Spool } from "../dist/spool.js";
import { agent, FLUSH_WAIT_MS, freePort, SDK_DIR, sharedServer, stopShared, tempDir } from "./support.mjs";

let server;
const dirs = [];
const INDEX = pathToFileURL(path.join(SDK_DIR, "dist", "index.js")).href;

before(async () => {
  server = await sharedServer();
});

after(async () => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  await stopShared();
});

/** Runs a module in a child Node process; resolves to its exit code and the time it took. */
async function program(source) {
  const started = performance.now();
  const child = spawn(process.execPath, ["--input-type=module", "-e", `import { Client } from ${JSON.stringify(INDEX)};\n${source}`], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const code = await new Promise((resolve) => child.once("close", resolve));
  return { code, ms: performance.now() - started, err };
}

function spoolDir() {
  const d = tempDir("trailproof-ts-exit-");
  dirs.push(d);
  return d;
}

describe("the end of the process", () => {
  it("a program that simply finishes sends what it queued, and ends its capture stream", async () => {
    const name = agent("finishes");
    const dir = spoolDir();
    const { code, err } = await program(`
const c = new Client({ url: ${JSON.stringify(server.url)}, agentId: ${JSON.stringify(name)}, spoolDir: ${JSON.stringify(dir)}, flushIntervalMs: 60000 });
for (let i = 0; i < 5; i++) c.log({ actionType: "STEP", input: { i } });
`);
    assert.equal(code, 0, err);
    const stored = await server.events(name);
    assert.deepEqual(stored.map((e) => e.action_input.i), [0, 1, 2, 3, 4]);
    assert.deepEqual(stored.map((e) => e.capture_last ?? false), [false, false, false, false, true]);
  });

  it("process.exit() spools the queue synchronously; the next client sends it", async () => {
    const name = agent("exits");
    const dir = spoolDir();
    const { code, err } = await program(`
const c = new Client({ url: ${JSON.stringify(server.url)}, agentId: ${JSON.stringify(name)}, spoolDir: ${JSON.stringify(dir)}, flushIntervalMs: 60000 });
for (let i = 0; i < 5; i++) c.log({ actionType: "STEP", input: { i } });
process.exit(3);
`);
    assert.equal(code, 3, err);
    const spooled = new Spool(dir, server.url).pending();
    assert.equal(spooled.length, 1);
    const events = JSON.parse(fs.readFileSync(spooled[0], "utf8"));
    assert.deepEqual(events.map((e) => e.capture_seq), [1, 2, 3, 4, 5]);
    assert.equal(events[4].capture_last, true);
    const next = new Client({ url: server.url, agentId: name, spoolDir: dir });
    assert.ok(await next.flush(FLUSH_WAIT_MS));
    await next.close(5000);
    const stored = await server.events(name);
    assert.deepEqual(stored.filter((e) => e.action_type === "STEP").map((e) => e.action_input.i), [0, 1, 2, 3, 4]);
  });

  it("with the service down, the program still exits after closeTimeoutMs, its events spooled", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const dir = spoolDir();
    const { code, ms, err } = await program(`
const c = new Client({ url: ${JSON.stringify(url)}, agentId: "down", spoolDir: ${JSON.stringify(dir)}, closeTimeoutMs: 1000, onError: () => {} });
for (let i = 0; i < 5; i++) c.log({ actionType: "STEP", input: { i } });
`);
    assert.equal(code, 0, err);
    assert.ok(ms < 15000, `took ${ms} ms`);
    const events = new Spool(dir, url).pending().flatMap((p) => JSON.parse(fs.readFileSync(p, "utf8")));
    assert.deepEqual(events.map((e) => e.capture_seq), [1, 2, 3, 4, 5]);
  });

  it("a program awaiting flush() with the service down waits through the retries, not closed under it", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const dir = spoolDir();
    const child = spawn(process.execPath, ["--input-type=module", "-e", `import { Client } from ${JSON.stringify(INDEX)};
const c = new Client({ url: ${JSON.stringify(url)}, agentId: "waits", spoolDir: ${JSON.stringify(dir)}, closeTimeoutMs: 500, onError: () => {} });
c.log({ actionType: "STEP" });
await c.flush();
process.stderr.write("flush returned");
`], { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    const ended = new Promise((resolve) => child.once("close", resolve));
    const early = await Promise.race([ended, new Promise((resolve) => setTimeout(() => resolve("running"), 4000))]);
    child.kill("SIGKILL");
    await ended;
    assert.equal(early, "running", `the program ended while awaiting flush(): ${err}`);
    assert.ok(!err.includes("flush returned"), err);
  });

  it("an idle client does not keep the process alive", async () => {
    const dir = spoolDir();
    const { code, ms, err } = await program(`
const c = new Client({ url: ${JSON.stringify(server.url)}, agentId: "idle", spoolDir: ${JSON.stringify(dir)} });
setTimeout(() => {}, 10);
`);
    assert.equal(code, 0, err);
    assert.ok(ms < 15000, `took ${ms} ms`);
  });
});
