// The TypeScript and Python SDKs side by side: each sends the other's spool (in order, nothing
// twice), a spool file neither can read is set aside with one warning while the others are sent, and
// both verify the same receipts, sharing the trusted checkpoint.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, it } from "node:test";

import { Client, NotSent } from "../dist/index.js";
import { Spool } from "../dist/spool.js";
import { agent, FLUSH_WAIT_MS, freePort, Proxy, runPython, tempDir, withSharedServer } from "./support.mjs";

let server;
const cleanups = withSharedServer((s) => {
  server = s;
});

function dir(prefix) {
  const d = tempDir(prefix);
  cleanups.push(() => fs.rmSync(d, { recursive: true, force: true }));
  return d;
}

/** A URL nothing listens on yet; `open()` makes it reach the service. */
async function laterUrl() {
  const port = await freePort();
  return {
    url: `http://127.0.0.1:${port}`,
    open: async () => {
      const p = await new Proxy(server.port).listen(port);
      cleanups.push(() => p.close());
      return p;
    },
  };
}

describe("the spool, shared with the Python SDK", () => {
  it("the Python SDK sends what the TypeScript SDK spooled, first and once", async () => {
    const spoolDir = dir("trailproof-ts-py-spool-");
    const { url, open } = await laterUrl();
    const name = agent("ts-to-py");
    const ts = new Client({ url, agentId: name, spoolDir, batchSize: 3, closeTimeoutMs: 300, onError: () => undefined });
    const receipts = Array.from({ length: 7 }, (_, i) => ts.log({ actionType: "STEP", input: { i } }));
    await ts.close();
    for (const r of receipts) await assert.rejects(r.result(), NotSent);
    assert.equal(new Spool(spoolDir, url).pending().length, 3);
    await open();
    const out = await runPython(`
import json, trailproof
c = trailproof.Client(${JSON.stringify(url)}, agent_id=${JSON.stringify(name)}, spool_dir=${JSON.stringify(spoolDir)})
r = c.log("STEP", "after", input={"i": 7})
assert c.flush(60)
print(json.dumps(r.result(0)))
c.close()
`);
    assert.equal(out.sequence, 8);
    const stored = await server.events(name);
    assert.deepEqual(stored.filter((e) => e.action_type === "STEP").map((e) => e.action_input.i), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(new Spool(spoolDir, url).pending(), []);
    // the TypeScript client's stream arrived whole, with its end: no gap
    const tsEvents = stored.filter((e) => e.capture_id === ts.captureId);
    assert.deepEqual(tsEvents.map((e) => e.capture_seq), [1, 2, 3, 4, 5, 6, 7]);
    assert.equal(tsEvents[6].capture_last, true);
  });

  it("the TypeScript SDK sends what the Python SDK spooled, first and once", async () => {
    const spoolDir = dir("trailproof-py-ts-spool-");
    const { url, open } = await laterUrl();
    const name = agent("py-to-ts");
    const spooledByPython = await runPython(`
import json, trailproof
from trailproof._spool import Spool
c = trailproof.Client(${JSON.stringify(url)}, agent_id=${JSON.stringify(name)}, spool_dir=${JSON.stringify(spoolDir)},
                      batch_size=3, close_timeout=0.3, on_error=lambda e: None)
for i in range(7):
    c.log("STEP", "before", input={"i": i})
c.close()
print(json.dumps(len(Spool(${JSON.stringify(spoolDir)}, ${JSON.stringify(url)}).pending())))
`);
    assert.equal(spooledByPython, 3);
    assert.equal(new Spool(spoolDir, url).pending().length, 3);
    const p = await open();
    const ts = new Client({ url, agentId: name, spoolDir });
    cleanups.push(() => ts.close(2000));
    const last = ts.log({ actionType: "STEP", input: { i: 7 } });
    assert.ok(await ts.flush(60000));
    assert.equal((await last.result()).sequence, 8); // after the 7 the Python client spooled
    const stored = await server.events(name);
    assert.deepEqual(stored.filter((e) => e.action_type === "STEP").map((e) => e.action_input.i), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.deepEqual(new Spool(spoolDir, url).pending(), []);
    // each spooled batch went out with the key it was spooled under, once
    const keys = p.batchRequests().map((b) => b.key);
    assert.equal(new Set(keys).size, keys.length);
  });

  it("a damaged or newer-format spool file is set aside with one warning; the others are sent", async () => {
    const spoolDir = dir("trailproof-ts-aside-");
    const { url, open } = await laterUrl();
    const name = agent("aside");
    const spool = new Spool(spoolDir, url);
    const event = (i) => ({ agent_id: name, action_type: "STEP", action_input: { i } });
    spool.write("a".repeat(32), JSON.stringify([event(0)]));
    const damaged = spool.write("b".repeat(32), '[{"agent_id": "' + name + '", "action_ty');
    const newer = spool.write("c".repeat(32), JSON.stringify({ format: 2, events: [event(99)] }));
    spool.write("d".repeat(32), JSON.stringify([event(1)]));
    // a batch another process is still writing: its temporary file is no batch yet, for either SDK
    const writing = path.join(spool.dir, ".tmp-" + path.basename(spool.write("e".repeat(32), "[]")));
    fs.renameSync(writing.replace(".tmp-", ""), writing);
    fs.writeFileSync(writing, '[{"agent_id": "' + name + '", "action_type": "ST');
    await open();
    const errors = [];
    const ts = new Client({ url, agentId: name, spoolDir, onError: (e) => errors.push(e) });
    assert.ok(await ts.flush(60000));
    await ts.close(5000);
    const stored = await server.events(name);
    assert.deepEqual(stored.filter((e) => e.action_type === "STEP").map((e) => e.action_input.i), [0, 1]);
    assert.deepEqual(spool.pending(), []);
    assert.ok(fs.existsSync(damaged + ".unreadable"));
    assert.ok(fs.existsSync(newer + ".unreadable"));
    const warnings = errors.filter((e) => /set aside/.test(e.message));
    assert.equal(warnings.length, 2, errors.map((e) => e.message).join("\n"));
    assert.match(warnings[0].message, /not JSON/);
    assert.match(warnings[1].message, /not a JSON array of events/);
    // set aside for good: the next client of either SDK neither sends nor warns again
    const again = [];
    const next = new Client({ url, agentId: name, spoolDir, onError: (e) => again.push(e) });
    assert.ok(await next.flush(FLUSH_WAIT_MS));
    await next.close(5000);
    assert.deepEqual(again, []);
    const py = await runPython(`
import json, trailproof
errors = []
c = trailproof.Client(${JSON.stringify(url)}, agent_id=${JSON.stringify(name)}, spool_dir=${JSON.stringify(spoolDir)}, on_error=errors.append)
c.flush(30); c.close()
print(json.dumps([e.message for e in errors]))
`);
    assert.deepEqual(py, []);
    assert.ok(fs.existsSync(writing));
  });
});

describe("receipts verified by both SDKs", () => {
  it("the same events verify in both, sharing the trusted checkpoint", async () => {
    const spoolDir = dir("trailproof-ts-py-verify-");
    const name = agent("both-verify");
    const ts = new Client({ url: server.url, agentId: name, spoolDir });
    cleanups.push(() => ts.close(2000));
    const r = ts.log({ actionType: "TOOL_CALL", actionName: "search", input: { q: "caf\u00e9 \u{1f600}", n: 1.5, big: 1e21 } });
    assert.ok(await ts.flush(FLUSH_WAIT_MS));
    const tsResult = await ts.verify(r);
    assert.deepEqual(tsResult.problems, []);
    const ack = await r.result();
    const py = await runPython(`
import json, trailproof
c = trailproof.Client(${JSON.stringify(server.url)}, agent_id=${JSON.stringify(name)}, spool_dir=${JSON.stringify(spoolDir)})
v = c.verify(${JSON.stringify(ack.id)})
r = c.log("TOOL_CALL", "lookup", input={"k": [1, 2.5, "\\u00e9"]})
c.flush(30)
print(json.dumps({"ok": v.ok, "problems": v.problems, "hash": v.event_hash, "size": v.tree_size, "id": r.result(0)["id"],
                  "event_hash": r.result(0)["hash"]}))
c.close()
`);
    assert.deepEqual([py.ok, py.problems, py.hash], [true, [], ack.hash]);
    assert.ok(py.size >= tsResult.treeSize);
    const pyEvent = await ts.verify(py.id);
    assert.deepEqual(pyEvent.problems, []);
    assert.equal(pyEvent.eventHash, py.event_hash);
    assert.equal(pyEvent.signatureChecked, true);
  });
});
