// The gate in the SDK against the real server: a denied call never runs, an allowed or approved one
// runs and binds to its decision (no GATE_VIOLATION follows), an unanswered ask times out, and an
// unreachable service refuses (fail mode closed) or runs and says so (fail mode open).

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, before, describe, it } from "node:test";

import { ApprovalTimeout, Client, Denied, Unavailable } from "../dist/index.js";
import { Spool } from "../dist/spool.js";
import { agent, FLUSH_WAIT_MS, freePort, sharedServer, stopShared, tempDir } from "./support.mjs";

let server;
const cleanups = [];
const spoolDir = tempDir("trailproof-ts-gate-spool-");

before(async () => {
  server = await sharedServer();
  await server.useGatePolicy();
});

after(async () => {
  for (const c of cleanups.reverse()) await c();
  fs.rmSync(spoolDir, { recursive: true, force: true });
  await stopShared();
});

function client(agentId, options = {}) {
  const c = new Client({ url: server.url, agentId, spoolDir, ...options });
  cleanups.push(() => c.close(1000));
  return c;
}

const types = async (name) => (await server.events(name)).map((e) => e.action_type);

/** Answers the agent's first decision as a person in the console would. */
function answerLater(name, approve, comment) {
  const p = server.decisionOf(name).then((d) => server.answer(d.id, approve, comment));
  cleanups.push(() => p.catch(() => undefined));
  return p;
}

describe("the gate", () => {
  it("decide answers, and the DECISION is recorded before the answer", async () => {
    const name = agent("decide");
    const c = client(name);
    const d = await c.decide({ actionName: "wipe_disk", input: { disk: "/dev/sda" } });
    assert.deepEqual([d.decision, d.state, d.allowed, d.rule, d.reason], ["deny", "deny", false, "no-wipe", "disks are never wiped by an agent"]);
    assert.equal(d.argsSha256.length, 64);
    const stored = await server.events(name); // no flush needed
    assert.deepEqual(stored.map((e) => e.action_type), ["DECISION"]);
    assert.equal(stored[0].id, d.decisionId);
    assert.deepEqual(stored[0].action_input, { disk: "/dev/sda" });
    assert.equal(await d.wait(5000), "deny"); // final at once
    const allowed = await c.decide({ actionName: "read_file", input: { path: "/etc/hosts" } });
    assert.deepEqual([allowed.decision, allowed.allowed, allowed.expiresAt], ["allow", true, null]);
  });

  it("a denied call never runs, sync or async", async () => {
    const name = agent("deny");
    const c = client(name);
    const ran = [];
    const wipeDisk = c.audited((disk) => ran.push(disk), { actionName: "wipe_disk", gate: true, input: (disk) => ({ disk }) });
    const rmRf = c.audited(async ({ command }) => ran.push(command), { actionName: "shell", gate: true, input: (a) => a });
    await assert.rejects(wipeDisk("/dev/sda"), (e) => {
      assert.ok(e instanceof Denied);
      assert.match(e.message, /disks are never wiped by an agent/);
      assert.equal(e.decision.rule, "no-wipe");
      return true;
    });
    await assert.rejects(rmRf({ command: "rm -rf /" }), (e) => e instanceof Denied && e.decision.rule === "no-rm-rf");
    assert.deepEqual(ran, []);
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    assert.deepEqual(await types(name), ["DECISION", "DECISION"]);
  });

  it("an allowed call runs and binds to its decision, with the arguments as decided", async () => {
    const name = agent("allow");
    const c = client(name);
    const readFile = c.audited(
      (path, lines) => {
        lines.push(99); // the function changes its argument: the record keeps what was decided
        return "contents";
      },
      { actionName: "read_file", gate: true, input: (path, lines) => ({ path, lines }) },
    );
    assert.equal(await readFile("/etc/hosts", [1, 2]), "contents");
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const stored = await server.events(name);
    assert.deepEqual(stored.map((e) => e.action_type), ["DECISION", "TOOL_CALL"]);
    assert.equal(stored[1].decision_id, stored[0].id);
    assert.deepEqual(stored[1].action_input, { path: "/etc/hosts", lines: [1, 2] });
    assert.equal(stored[1].action_status, "success");
    assert.ok(!(await types(name)).includes("GATE_VIOLATION"));
  });

  it("an approved ask runs and binds", async () => {
    const name = agent("ask-approved");
    const c = client(name);
    const refund = c.audited(async (order, amount) => ({ refunded: amount }), {
      actionName: "refund",
      gate: true,
      askTimeoutMs: 90000,
    });
    answerLater(name, true, "checked with the customer");
    assert.deepEqual(await refund("O-77", 12.5), { refunded: 12.5 });
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    const stored = await server.events(name);
    assert.deepEqual(stored.map((e) => e.action_type), ["DECISION", "APPROVAL", "TOOL_CALL"]);
    assert.equal(stored[2].decision_id, stored[0].id);
    assert.equal(stored[1].action_output.comment, "checked with the customer");
    assert.ok(!(await types(name)).includes("GATE_VIOLATION"));
  });

  it("an ask a person denies throws Denied; an unanswered one ApprovalTimeout; neither runs", async () => {
    const name = agent("ask-denied");
    const c = client(name);
    const ran = [];
    const refund = c.audited((order) => ran.push(order), { actionName: "refund", gate: true, askTimeoutMs: 90000 });
    answerLater(name, false, "not this one");
    await assert.rejects(refund("O-78"), (e) => e instanceof Denied && e.decision.state === "denied");
    const other = client(agent("ask-timeout"));
    const slow = other.audited((order) => ran.push(order), { actionName: "refund", gate: true, askTimeoutMs: 1000 });
    await assert.rejects(slow("O-79"), (e) => e instanceof ApprovalTimeout && e.decision.state === "pending" && e.decision.expiresAt !== null);
    assert.deepEqual(ran, []);
    assert.ok(await c.flush(FLUSH_WAIT_MS));
    assert.deepEqual(await types(name), ["DECISION", "APPROVAL"]);
  });

  it("refuses bad options", () => {
    const c = client(agent("bad"));
    assert.throws(() => c.audited(() => 1, { gate: true, failMode: "ajar" }), RangeError);
    assert.throws(() => c.audited(() => 1, { gate: true, askTimeoutMs: -1 }), RangeError);
  });
});

describe("the gate unreachable", () => {
  it("fail mode closed refuses the call", async () => {
    const c = client(agent("down-closed"), { url: `http://127.0.0.1:${await freePort()}`, closeTimeoutMs: 300 });
    const ran = [];
    const readFile = c.audited((path) => ran.push(path), { actionName: "read_file", gate: true });
    await assert.rejects(readFile("/etc/hosts"), Unavailable);
    await assert.rejects(c.decide({ actionName: "read_file" }), Unavailable);
    assert.deepEqual(ran, []);
  });

  it("fail mode open runs the call and the spooled record says the gate was unavailable", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const dir = tempDir("trailproof-ts-gate-open-");
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    const c = client(agent("down-open"), { url, spoolDir: dir, closeTimeoutMs: 300 });
    const readFile = c.audited(() => "contents", { actionName: "read_file", gate: true, failMode: "open" });
    assert.equal(await readFile("/etc/hosts"), "contents");
    await c.close();
    const spooled = new Spool(dir, url).pending().flatMap((p) => JSON.parse(fs.readFileSync(p, "utf8")));
    const calls = spooled.filter((e) => e.action_type === "TOOL_CALL");
    assert.equal(calls.length, 1);
    assert.deepEqual(calls[0].metadata, { gate: "unavailable" });
    assert.equal(calls[0].decision_id, undefined);
  });
});
