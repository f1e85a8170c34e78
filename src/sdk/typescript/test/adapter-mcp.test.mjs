// trailproof/mcp between the real MCP SDK's client and an in-memory MCP server of its own, recording
// into the packaged server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { createHash } from "node:crypto";
import * as fs from "node:fs";

import { Client, canonicalize } from "trailproof";
import { TrailproofTransport } from "trailproof/mcp";

import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";

import { assertBound, assertRefused, eventsOf, newClient, ofType, useServer } from "./adapter-support.mjs";
import { agent, tempDir } from "./support.mjs";

const trailproof = useServer();

function mcpServer(calls) {
  const server = new McpServer({ name: "disk-tools", version: "1.2.3" });
  server.registerTool("weather", { inputSchema: { city: z.string() } }, async ({ city }) => {
    calls.push("weather");
    return { content: [{ type: "text", text: `sunny in ${city}` }] };
  });
  server.registerTool("wipe_disk", { inputSchema: { disk: z.string() } }, async () => {
    calls.push("wipe_disk");
    return { content: [{ type: "text", text: "wiped" }] };
  });
  server.registerTool("refund", { inputSchema: { order: z.string() } }, async ({ order }) => {
    calls.push("refund");
    return { content: [{ type: "text", text: `refunded ${order}` }] };
  });
  server.registerTool("broken", { inputSchema: {} }, async () => ({ content: [{ type: "text", text: "disk on fire" }], isError: true }));
  server.registerTool("dump", { inputSchema: { chars: z.number(), fail: z.boolean() } }, async ({ chars, fail }) => ({
    content: [{ type: "text", text: "\u00e9".repeat(chars) }],
    isError: fail,
  }));
  return server;
}

async function mcpPair(t, client, options, calls) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcpServer(calls).connect(serverSide);
  const mcp = new McpClient({ name: "test-agent", version: "1.0.0" });
  await mcp.connect(new TrailproofTransport(client, clientSide, options));
  t.after(() => mcp.close());
  return mcp;
}

describe("trailproof/mcp", () => {
  test("each tools/call and its answer are recorded, other messages pass untouched", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "mcp");
    const calls = [];
    const mcp = await mcpPair(t, client, { onError }, calls);
    assert.deepEqual((await mcp.listTools()).tools.map((x) => x.name), ["weather", "wipe_disk", "refund", "broken", "dump"]);
    const answer = await mcp.callTool({ name: "weather", arguments: { city: "Oslo" } });
    assert.deepEqual(answer.content, [{ type: "text", text: "sunny in Oslo" }]);
    const failed = await mcp.callTool({ name: "broken", arguments: {} });
    assert.equal(failed.isError, true);
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 4);
    assert.deepEqual(events.map((e) => `${e.action_type} ${e.action_name}`), ["TOOL_CALL weather", "TOOL_RESULT weather", "TOOL_CALL broken", "TOOL_RESULT broken"]);
    const [call, result, , brokenResult] = events;
    assert.deepEqual(call.action_input, { city: "Oslo" });
    assert.equal(call.metadata.mcp_server_name, "disk-tools");
    assert.equal(call.metadata.mcp_server_version, "1.2.3");
    assert.equal(call.metadata.jsonrpc_id, result.metadata.jsonrpc_id);
    assert.deepEqual(result.action_output.content, [{ type: "text", text: "sunny in Oslo" }]);
    assert.equal(result.action_status, "success");
    assert.ok(result.duration_ms >= 0);
    assert.equal(brokenResult.action_status, "error");
    assert.equal(brokenResult.error_message, "disk on fire");
    assert.deepEqual(errors, []);
  });

  test("content larger than an event may hold is summarised, never refused or lost", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "mcp-large");
    const mcp = await mcpPair(t, client, { onError }, []);
    const big = await mcp.callTool({ name: "dump", arguments: { chars: 600_000, fail: false } });
    assert.equal(big.content[0].text.length, 600_000, "the answer passes through whole");
    await mcp.callTool({ name: "dump", arguments: { chars: 100_000, fail: true } });
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 4);
    const summary = events[1].action_output;
    assert.equal(summary.omitted, "larger than one event may hold (1 MiB)");
    const canonical = Buffer.from(canonicalize(big), "utf8");
    assert.equal(summary.canonical_bytes, canonical.length);
    assert.equal(summary.canonical_sha256, createHash("sha256").update(canonical).digest("hex"));
    assert.equal(events[3].action_status, "error");
    assert.equal(events[3].error_message, "\u00e9".repeat(65_536));
    assert.deepEqual(errors, []);
  });

  test("with gate, an allowed call is bound to its decision and a denied one is answered as an error, never sent", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "mcp-gate");
    const calls = [];
    const mcp = await mcpPair(t, client, { onError, gate: true }, calls);
    assert.deepEqual((await mcp.callTool({ name: "weather", arguments: { city: "Oslo" } })).content, [{ type: "text", text: "sunny in Oslo" }]);
    const refused = await mcp.callTool({ name: "wipe_disk", arguments: { disk: "sda" } });
    assert.equal(refused.isError, true);
    assert.equal(refused.content[0].text, "trailproof gate denied wipe_disk (rule no-wipe: disks are never wiped by an agent)");
    assert.deepEqual(calls, ["weather"], "the denied call never reached the server");
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "TOOL_RESULT").length >= 1 && ofType(es, "DECISION").length >= 2);
    assertBound(events, "weather");
    assertRefused(events, "wipe_disk");
    assert.deepEqual(errors, []);
  });

  test("an ask waits for a person: an approved call runs bound to its decision, an unanswered one is refused", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "mcp-ask");
    const calls = [];
    const mcp = await mcpPair(t, client, { onError, gate: true, askTimeoutMs: 60000 }, calls);
    const approved = trailproof().decisionOf(agentId).then((d) => trailproof().answer(d.id, true, "one refund is fine"));
    assert.deepEqual((await mcp.callTool({ name: "refund", arguments: { order: "O-77" } })).content, [{ type: "text", text: "refunded O-77" }]);
    await approved;
    const other = newClient(t, "mcp-ask-timeout");
    const impatient = await mcpPair(t, other.client, { onError, gate: true, askTimeoutMs: 1000 }, calls);
    const refused = await impatient.callTool({ name: "refund", arguments: { order: "O-78" } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /^trailproof gate: refund was not approved within 1 s \(rule refunds-need-a-person: /);
    assert.deepEqual(calls, ["refund"]);
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "TOOL_RESULT").length >= 1 && ofType(es, "APPROVAL").length >= 1);
    const call = ofType(events, "TOOL_CALL")[0];
    assert.equal(call.decision_id, ofType(events, "DECISION")[0].id);
    assert.equal(ofType(events, "APPROVAL")[0].action_output.approved, true);
    assert.deepEqual(ofType(events, "GATE_VIOLATION"), []);
    assert.deepEqual(errors, []);
  });

  test("when the gate cannot be asked, fail mode closed refuses the call and open lets it through", async (t) => {
    const spool = tempDir("trailproof-ts-adapters-down-");
    const down = new Client({ url: "http://127.0.0.1:9", agentId: agent("mcp-down"), spoolDir: spool, requestTimeoutMs: 2000, onError: () => {} });
    t.after(async () => {
      await down.close(100);
      fs.rmSync(spool, { recursive: true, force: true });
    });
    const calls = [];
    const errors = [];
    const closed = await mcpPair(t, down, { gate: true, onError: (e) => errors.push(e) }, calls);
    const refused = await closed.callTool({ name: "weather", arguments: { city: "Oslo" } });
    assert.equal(refused.isError, true);
    assert.match(refused.content[0].text, /^trailproof gate unavailable, weather refused: /);
    assert.deepEqual(calls, []);
    const open = await mcpPair(t, down, { gate: true, failMode: "open", onError: (e) => errors.push(e) }, calls);
    assert.deepEqual((await open.callTool({ name: "weather", arguments: { city: "Oslo" } })).content, [{ type: "text", text: "sunny in Oslo" }]);
    assert.deepEqual(calls, ["weather"]);
    assert.equal(errors.length, 1, "fail mode open says the gate was unavailable");
  });

  test("a failure inside the wrapper goes to onError and every message still passes", async (t) => {
    const errors = [];
    const broken = { enabled: true, log() { throw new Error("queue full"); } };
    const calls = [];
    const mcp = await mcpPair(t, broken, { onError: (e) => errors.push(e) }, calls);
    assert.deepEqual((await mcp.callTool({ name: "weather", arguments: { city: "Oslo" } })).content, [{ type: "text", text: "sunny in Oslo" }]);
    assert.deepEqual(calls, ["weather"]);
    assert.equal(errors.length, 2, "the TOOL_CALL and the TOOL_RESULT that could not be queued");
  });

  test("a call unanswered when the transport closes is recorded as never answered", async (t) => {
    const { client, agentId, onError } = newClient(t, "mcp-close");
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const wrapped = new TrailproofTransport(client, clientSide, { onError });
    const seen = [];
    wrapped.onmessage = (m) => seen.push(m);
    await wrapped.start();
    await serverSide.start();
    await wrapped.send({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "slow", arguments: { n: 1 } } });
    await wrapped.close();
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 2);
    assert.equal(events[1].action_type, "TOOL_RESULT");
    assert.equal(events[1].action_status, "error");
    assert.match(events[1].error_message, /never answered/);
  });
});
