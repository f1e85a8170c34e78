// What the adapters' suites share: the packaged server (shared with the other files by
// test/run.mjs) with the tests' gate policy, a client per test, and the checks of the gate's record.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import { after, before } from "node:test";

import { Client } from "trailproof";

import { agent, sharedServer, stopShared, tempDir, until } from "./support.mjs";

let server;
let spoolDir;

/** Registers the file's hooks: the shared server with the gate policy (wipe_disk is denied by rule no-wipe). */
export function useServer() {
  before(async () => {
    spoolDir = tempDir("trailproof-ts-adapters-spool-");
    server = await sharedServer();
    await server.useGatePolicy();
  });
  after(async () => {
    fs.rmSync(spoolDir, { recursive: true, force: true });
    await stopShared();
  });
  return () => server;
}

export function eventsOf(agentId, ready = () => true) {
  return until(async () => {
    const events = await server.events(agentId);
    return ready(events) ? events : null;
  }, 60000, `the events of ${agentId}`);
}

export const ofType = (events, type) => events.filter((e) => e.action_type === type);

/** A client of its own agent, closed after the test; `errors` collects what it and the adapter report. */
export function newClient(t, name) {
  const agentId = agent(name);
  const errors = [];
  const onError = (e) => errors.push(e);
  // A spool directory of its own: a client replays at its start whatever a spool directory holds, so
  // with one directory for the file, a batch an earlier test's client spooled when its close ran out
  // of time (a busy machine) was replayed by the next test's client while the server still worked on
  // its first send, and that client reported the 409 ("still being processed") to this test's onError.
  const ownSpool = fs.mkdtempSync(`${spoolDir}/client-`);
  const client = new Client({ url: server.url, agentId, spoolDir: ownSpool, flushIntervalMs: 50, onError });
  t.after(() => client.close(1000));
  return { client, agentId, errors, onError };
}

/** The allowed call of `toolName` is recorded once, bound to its DECISION, with no violation. */
export function assertBound(events, toolName) {
  const calls = ofType(events, "TOOL_CALL").filter((e) => e.action_name === toolName);
  assert.equal(calls.length, 1, `one TOOL_CALL of ${toolName}`);
  const decision = ofType(events, "DECISION").find((d) => d.action_name === toolName);
  assert.ok(decision, `a DECISION for ${toolName}`);
  assert.equal(decision.action_output.decision, "allow");
  assert.equal(calls[0].decision_id, decision.id);
  assert.deepEqual(ofType(events, "GATE_VIOLATION"), []);
}

/** The call of `toolName` was denied by rule no-wipe and left no TOOL_CALL or TOOL_RESULT. */
export function assertRefused(events, toolName) {
  const decision = ofType(events, "DECISION").find((d) => d.action_name === toolName);
  assert.ok(decision, `a DECISION for ${toolName}`);
  assert.equal(decision.action_output.decision, "deny");
  assert.equal(decision.action_output.rule, "no-wipe");
  assert.deepEqual(
    events.filter((e) => e.action_name === toolName && e.action_type !== "DECISION"),
    [],
    "a refused call leaves no TOOL_CALL or TOOL_RESULT",
  );
}

