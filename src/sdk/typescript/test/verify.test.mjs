// The canonicalizer against the repository's known-answer vectors and the service's own hashes;
// verify(): true for a stored event, false for every one-bit change of the event, its inclusion
// proof and its checkpoint, and for a checkpoint inconsistent with the one trusted before.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, describe, it } from "node:test";

import { Client, canonicalize, checkEventProof, eventHash, parseStrict } from "../dist/index.js";
import { agent, FLUSH_WAIT_MS, tempDir, VECTORS, withSharedServer } from "./support.mjs";

let server;
const cleanups = withSharedServer((s) => {
  server = s;
});

function client(agentId, options = {}) {
  const spoolDir = tempDir("trailproof-ts-verify-");
  const c = new Client({ url: server.url, agentId, spoolDir, ...options });
  cleanups.push(async () => {
    await c.close(1000);
    fs.rmSync(spoolDir, { recursive: true, force: true });
  });
  return c;
}

/** Every change of one bit (0x01) and of the ASCII case bit (0x20) of bytes start..end. */
function* changes(data, start, end) {
  for (let i = start; i < end; i++) {
    for (const mask of [0x01, 0x20]) {
      const changed = Buffer.from(data);
      changed[i] ^= mask;
      yield [i, changed];
    }
  }
}

describe("RFC 8785", () => {
  it("reproduces the known-answer vectors", () => {
    const { vectors } = JSON.parse(fs.readFileSync(VECTORS, "utf8"));
    assert.ok(vectors.length > 0);
    for (const v of vectors) {
      const event = parseStrict(Buffer.from(v.input_json, "utf8"));
      const body = Object.fromEntries(Object.entries(event).filter(([k]) => k !== "hash" && k !== "log_index"));
      assert.equal(canonicalize(body), v.canonical, v.description);
      assert.equal(eventHash(event), v.sha256, v.description);
    }
  });

  it("writes numbers as ECMAScript does and sorts names by UTF-16 code units", () => {
    const cases = [[1.0, "1"], [4.5, "4.5"], [1e21, "1e+21"], [1e20, "100000000000000000000"], [1e-7, "1e-7"],
      [1e-6, "0.000001"], [-0, "0"], [5e-324, "5e-324"], [1.7976931348623157e308, "1.7976931348623157e+308"],
      [-1.5e-9, "-1.5e-9"], [333333333.3333333, "333333333.3333333"]];
    for (const [n, text] of cases) assert.equal(canonicalize(n), text);
    assert.equal(canonicalize({ "\ufb01": 2, "\u{1f600}": 1 }), '{"\u{1f600}":1,"\ufb01":2}');
    assert.equal(canonicalize("\u2028\u0001\"\\/"), '"\u2028\\u0001\\"\\\\/"');
  });

  it("refuses what RFC 8785 cannot read: duplicate names, invalid UTF-8, lone surrogates, NaN", () => {
    assert.throws(() => parseStrict('{"a":1,"a":2}'), SyntaxError);
    assert.throws(() => parseStrict(Buffer.from([0x22, 0xc3, 0x28, 0x22])), SyntaxError);
    assert.throws(() => canonicalize("\ud800"));
    assert.throws(() => canonicalize(NaN));
    assert.deepEqual(parseStrict('{"__proto__":{"x":1}}'), JSON.parse('{"__proto__":{"x":1}}'));
  });

  it("hashes seeded random events exactly as the service does", async () => {
    let seed = 41;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
    const alphabet = ["a", "Z", "0", " ", '"', "\\", "/", "\n", "\t", "\u0001", "\u001f", "\u007f", "\u00e9", "\u2028", "\u20ac", "\ud7ff", "\ue000", "\ufb01", "\u{1f600}", "\u{10000}"];
    const value = (depth) => {
      const kind = Math.floor(rnd() * (depth < 3 ? 8 : 5));
      if (kind === 0) return pick([true, false, null]);
      if (kind === 1) return Math.floor((rnd() - 0.5) * 2 ** 53);
      if (kind === 2) return pick([(rnd() - 0.5) * 2e6, rnd() * 10 ** Math.floor(rnd() * 60 - 30), 1e21, 1e-7, 0.1]);
      if (kind <= 4) return Array.from({ length: Math.floor(rnd() * 12) }, () => pick(alphabet)).join("");
      if (kind === 5) return Array.from({ length: Math.floor(rnd() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(rnd() * 4) }, () => ["k" + pick(alphabet) + pick(alphabet), value(depth + 1)]));
    };
    const name = agent("random-hash");
    const events = Array.from({ length: 40 }, (_, i) => ({ agent_id: name, action_type: "STEP", action_input: { i, v: value(0) } }));
    const r = await fetch(server.url + "/v1/batch", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(events) });
    assert.equal(r.status, 201, await r.clone().text());
    for (const stored of await server.events(name)) {
      const raw = await server.getBytes("/v1/events/" + stored.id);
      const parsed = parseStrict(raw);
      assert.equal(eventHash(parsed), parsed.hash);
    }
  });
});

describe("verify", () => {
  let c;
  let receipt;
  let eventId;
  let key;
  let material;

  before(async () => {
    c = client(agent("verify"));
    receipt = c.log({ actionType: "TOOL_CALL", actionName: "search", input: { q: "caf\u00e9 \u{1f600}", n: 1.5 }, output: { hits: [1, 2, 3] }, labels: { env: "test" } });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    eventId = (await receipt.result()).id;
    key = (await server.get("/v1/checkpoint/key")).vkey;
    material = async () => [
      await server.getBytes("/v1/events/" + eventId),
      await server.getBytes("/v1/merkle/proof?format=tlog-proof&event_id=" + eventId),
    ];
  });

  it("a stored event verifies, with the signature checked; the trusted checkpoint is kept", async () => {
    const v = await c.verify(receipt);
    assert.deepEqual(v.problems, []);
    assert.equal(v.ok, true);
    assert.equal(v.signatureChecked, true);
    assert.ok(v.treeSize > (await receipt.result()).logIndex);
    assert.ok(v.notes.some((n) => n.includes("trusted on first use")));
    const state = JSON.parse(fs.readFileSync(path.join(c.spoolDir, "trusted-checkpoints.json"), "utf8"));
    assert.equal(Object.values(state)[0].vkey, key);
    c.log({ actionType: "STEP" }); // the tree grows: the next verification checks consistency
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const v2 = await c.verify(eventId);
    assert.equal(v2.ok, true, v2.problems.join("; "));
    assert.ok(v2.treeSize >= v.treeSize);
  });

  it("every one-bit change of the event fails", async () => {
    const [event, proof] = await material();
    assert.equal(checkEventProof(event, proof, key).ok, true);
    for (const [i, changed] of changes(event, 0, event.length)) {
      const v = checkEventProof(changed, proof, key);
      assert.equal(v.ok, false, `byte ${i} of the event changed: ${changed}`);
      assert.ok(v.problems.length > 0);
    }
  });

  it("every one-bit change of the proof and of the signed checkpoint fails", async () => {
    const [event, proof] = await material();
    for (const [i, changed] of changes(proof, 0, proof.length)) {
      assert.equal(checkEventProof(event, changed, key).ok, false, `byte ${i} of the proof changed`);
    }
  });

  it("another log key fails; a checkpoint inconsistent with the trusted one fails", async () => {
    const [event, proof] = await material();
    const other = "localhost/trailproof/b89da969+a5a6f54f+AUM/uZ4Lhg4U4LwiM6M6u82Fm3eRuWGRI/+RqoydpXYy";
    assert.equal(checkEventProof(event, proof, other).ok, false);
    const forked = client(agent("forked"));
    const r = forked.log({ actionType: "STEP" });
    assert.ok(await forked.flush(FLUSH_WAIT_MS));
    assert.equal((await forked.verify(r)).ok, true);
    const file = path.join(forked.spoolDir, "trusted-checkpoints.json");
    const state = JSON.parse(fs.readFileSync(file, "utf8"));
    const origin = Object.keys(state)[0];
    state[origin].root = "00".repeat(32); // a view of the log this client never saw
    fs.writeFileSync(file, JSON.stringify(state));
    const v = await forked.verify(r);
    assert.equal(v.ok, false);
    assert.match(v.problems.join(" "), /not consistent|another root/);
  });
});

describe("an erased event", () => {
  let c;
  let erased;
  let kept;
  let answer;

  before(async () => {
    c = client(agent("erased"));
    erased = c.log({ actionType: "TOOL_CALL", actionName: "lookup", input: { email: "someone@example.com" } });
    kept = c.log({ actionType: "TOOL_CALL", actionName: "lookup", input: { email: "other@example.com" } });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    answer = await server.post("/v1/admin/erasures", { event_ids: [(await erased.result()).id], reason: "art. 17 request" });
  });

  it("verifies against its receipt and names its erasure", async () => {
    const v = await c.verify(erased);
    assert.deepEqual(v.problems, []);
    assert.equal(v.erased.erasure_id, answer.erasure_id);
    assert.ok(v.notes.some((n) => n.includes("was not recomputed")), v.notes.join("\n"));
    assert.ok(v.notes.some((n) => n.includes("names this event")), v.notes.join("\n"));
    assert.equal((await c.verify(kept)).ok, true);
  });

  it("an event made to look erased by an erasure that does not name it fails", async () => {
    const { Verification, checkErasureRecord } = await import("../dist/verify.js");
    const keptId = (await kept.result()).id;
    const forged = JSON.parse((await server.getBytes("/v1/events/" + keptId)).toString("utf8"));
    const erasedForm = (await server.get("/v1/events/" + (await erased.result()).id)).erased;
    delete forged.action_input;
    forged.erased = erasedForm;
    const v = new Verification();
    v.erased = erasedForm;
    await checkErasureRecord(c, v, Buffer.from(JSON.stringify(forged)), (await server.get("/v1/checkpoint/key")).vkey);
    assert.equal(v.ok, false);
    assert.ok(v.problems.some((p) => p.includes("erasure without record")), v.problems.join("\n"));
  });
});
