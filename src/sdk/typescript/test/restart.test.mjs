// kill -9 of the service while a client is sending, then a restart on the same data directory and
// port: every event is stored exactly once, in the order it was logged.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, it } from "node:test";

import { Client } from "../dist/index.js";
import { Server, sleep, tempDir, until } from "./support.mjs";

const server = new Server();
const spoolDir = tempDir("trailproof-ts-restart-");

after(async () => {
  await server.remove();
  fs.rmSync(spoolDir, { recursive: true, force: true });
});

it("nothing is lost and nothing is stored twice across a kill -9 during a flush", async () => {
  await server.start();
  const errors = [];
  const c = new Client({
    url: server.url,
    agentId: "restart",
    spoolDir,
    batchSize: 25,
    flushIntervalMs: 50,
    maxBackoffMs: 500,
    onError: (e) => errors.push(e),
  });
  const n = 1000;
  const receipts = [];
  const producer = (async () => {
    for (let i = 0; i < n; i++) {
      receipts.push(c.log({ actionType: "STEP", actionName: "x", input: { i } }));
      if (i % 50 === 0) await sleep(10);
    }
  })();
  await until(() => receipts.filter((r) => r.done).length >= 100, 60000, "100 acknowledgements");
  const flushing = c.flush(120000); // the kill comes while this flush is under way
  await server.kill9();
  const acknowledged = receipts.filter((r) => r.done).length;
  await producer;
  await server.start();
  assert.ok(await flushing);
  assert.ok(await c.flush(120000));
  assert.ok(acknowledged < n, "the kill came after the last acknowledgement");
  const ids = await Promise.all(receipts.map(async (r) => (await r.result()).id));
  assert.equal(new Set(ids).size, n);
  const stored = await server.events("restart");
  assert.deepEqual(stored.map((e) => e.action_input.i), Array.from({ length: n }, (_, i) => i));
  assert.deepEqual(stored.map((e) => e.sequence), Array.from({ length: n }, (_, i) => i + 1));
  assert.equal((await server.get("/v1/verify?agent_id=restart")).valid, true);
  assert.ok(errors.some((e) => /unreachable|answered/.test(e.message)), errors.map((e) => e.message).join("\n"));
  await c.close(5000);
});
