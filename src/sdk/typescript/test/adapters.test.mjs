// The framework adapters against their real npm packages, each driven by a fake model of its own (no
// network), recording into the real packaged server (shared with the other files by test/run.mjs),
// with the tests' gate policy set through the admin API.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import { after, before, describe, test } from "node:test";

import { Client, Denied, canonicalize } from "trailproof";
import { gateTools, trailproofTelemetry } from "trailproof/ai-sdk";
import { TrailproofCallbackHandler } from "trailproof/langchain";
import { TrailproofTransport } from "trailproof/mcp";
import { TrailproofTracingProcessor, gateTool } from "trailproof/openai-agents";

import { FakeListChatModel } from "@langchain/core/utils/testing";
import { tool as lcTool } from "@langchain/core/tools";
import { Client as McpClient } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTraceProcessors, tool as agentsTool } from "@openai/agents";
import { generateText, stepCountIs, streamText, tool as aiTool } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { z } from "zod";

import { agent, sharedServer, stopShared, tempDir, until } from "./support.mjs";

let server;
const spoolDir = tempDir("trailproof-ts-adapters-spool-");

before(async () => {
  server = await sharedServer();
  await server.useGatePolicy(); // wipe_disk is denied by rule no-wipe
});

after(async () => {
  fs.rmSync(spoolDir, { recursive: true, force: true });
  await stopShared();
});

/** The agent's events, oldest first, once `ready(events)` holds. */
function eventsOf(agentId, ready = () => true) {
  return until(async () => {
    const events = await server.events(agentId);
    return ready(events) ? events : null;
  }, 60000, `the events of ${agentId}`);
}

const ofType = (events, type) => events.filter((e) => e.action_type === type);

/** A client of its own agent, closed after the test; `errors` collects what it and the adapter report. */
function newClient(t, name) {
  const agentId = agent(name);
  const errors = [];
  const onError = (e) => errors.push(e);
  const client = new Client({ url: server.url, agentId, spoolDir, flushIntervalMs: 50, onError });
  t.after(() => client.close(1000));
  return { client, agentId, errors, onError };
}

/** The allowed call of `toolName` is recorded once, bound to its DECISION, with no violation. */
function assertBound(events, toolName) {
  const calls = ofType(events, "TOOL_CALL").filter((e) => e.action_name === toolName);
  assert.equal(calls.length, 1, `one TOOL_CALL of ${toolName}`);
  const decision = ofType(events, "DECISION").find((d) => d.action_name === toolName);
  assert.ok(decision, `a DECISION for ${toolName}`);
  assert.equal(decision.action_output.decision, "allow");
  assert.equal(calls[0].decision_id, decision.id);
  assert.deepEqual(ofType(events, "GATE_VIOLATION"), []);
}

/** The call of `toolName` was denied by rule no-wipe and left no TOOL_CALL or TOOL_RESULT. */
function assertRefused(events, toolName) {
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

// ---------------------------------------------------------------------------------- Vercel AI SDK

const USAGE = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** A fake model that first calls `toolName` with `input`, then answers `text`. */
function aiModel(toolName, input, text) {
  return new MockLanguageModelV3({
    modelId: "fake-1",
    doGenerate: [
      {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage: USAGE,
        warnings: [],
      },
      { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage: USAGE, warnings: [] },
    ],
  });
}

describe("trailproof/ai-sdk", () => {
  test("records each model step and tool call with its fields", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "ai-sdk");
    const result = await generateText({
      model: aiModel("weather", { city: "Oslo" }, "It is sunny."),
      prompt: "Weather in Oslo?",
      stopWhen: stepCountIs(3),
      tools: {
        weather: aiTool({
          description: "the weather",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, sky: "sunny" }),
        }),
      },
      experimental_telemetry: { isEnabled: true, integrations: [trailproofTelemetry(client, { onError })] },
    });
    assert.equal(result.text, "It is sunny.");
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 6);
    assert.deepEqual(
      events.map((e) => e.action_type),
      ["LLM_CALL", "TOOL_CALL", "TOOL_RESULT", "LLM_RESULT", "LLM_CALL", "LLM_RESULT"],
    );
    const [call0, toolCall, toolResult, result0, , result1] = events;
    assert.equal(call0.action_name, "fake-1");
    assert.equal(call0.action_input.provider, "mock-provider");
    assert.deepEqual(call0.action_input.tools, ["weather"]);
    assert.equal(call0.action_input.messages[0].role, "user");
    assert.equal(toolCall.action_name, "weather");
    assert.deepEqual(toolCall.action_input, { city: "Oslo" });
    assert.equal(toolCall.metadata.tool_call_id, "call-1");
    assert.deepEqual(toolResult.action_output, { city: "Oslo", sky: "sunny" });
    assert.equal(toolResult.action_status, "success");
    assert.ok(toolResult.duration_ms >= 0);
    assert.equal(result0.action_output.finish_reason, "tool-calls");
    assert.deepEqual(result0.action_output.tool_calls, [{ id: "call-1", name: "weather", input: { city: "Oslo" } }]);
    assert.equal(result1.action_output.content, "It is sunny.");
    assert.deepEqual(result1.action_output.usage, { input_tokens: 10, output_tokens: 5, total_tokens: 15 });
    for (const e of events) {
      assert.equal(e.capture_method, "typescript-sdk");
      assert.equal(e.metadata.adapter, "ai-sdk");
    }
    assert.deepEqual(events.map((e) => e.capture_seq), events.map((_, i) => events[0].capture_seq + i));
    assert.deepEqual(errors, []);
  });

  test("streamText is recorded the same way", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "ai-sdk-stream");
    const finish = (unified) => ({ type: "finish", finishReason: { unified, raw: unified }, usage: USAGE });
    const model = new MockLanguageModelV3({
      modelId: "fake-stream",
      doStream: [
        { stream: convertArrayToReadableStream([{ type: "tool-call", toolCallId: "s-1", toolName: "weather", input: '{"city":"Rome"}' }, finish("tool-calls")]) },
        { stream: convertArrayToReadableStream([{ type: "text-start", id: "t" }, { type: "text-delta", id: "t", delta: "Warm." }, { type: "text-end", id: "t" }, finish("stop")]) },
      ],
    });
    const result = streamText({
      model,
      prompt: "Weather in Rome?",
      stopWhen: stepCountIs(3),
      tools: { weather: aiTool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `warm in ${city}` }) },
      experimental_telemetry: { isEnabled: true, integrations: [trailproofTelemetry(client, { onError })] },
    });
    assert.equal(await result.text, "Warm.");
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 6);
    assert.deepEqual(
      events.map((e) => `${e.action_type} ${e.action_name}`),
      ["LLM_CALL fake-stream", "TOOL_CALL weather", "TOOL_RESULT weather", "LLM_RESULT fake-stream", "LLM_CALL fake-stream", "LLM_RESULT fake-stream"],
    );
    assert.deepEqual(events[1].action_input, { city: "Rome" });
    assert.deepEqual(events[2].action_output, { value: "warm in Rome" });
    assert.equal(events[5].action_output.content, "Warm.");
    assert.deepEqual(errors, []);
  });

  test("a gated tool runs once allowed, bound to its decision, and never runs when denied", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "ai-sdk-gate");
    let wiped = false;
    const tools = gateTools(
      client,
      {
        weather: aiTool({ inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` }),
        wipe_disk: aiTool({
          inputSchema: z.object({ disk: z.string() }),
          execute: async () => {
            wiped = true;
            return "wiped";
          },
        }),
      },
      { onError },
    );
    const telemetry = { isEnabled: true, integrations: [trailproofTelemetry(client, { onError })] };
    const allowed = await generateText({ model: aiModel("weather", { city: "Oslo" }, "ok"), prompt: "w", tools, stopWhen: stepCountIs(3), experimental_telemetry: telemetry });
    assert.equal(allowed.steps[0].toolResults[0].output, "sunny in Oslo");
    const model = aiModel("wipe_disk", { disk: "sda" }, "I may not.");
    const refused = await generateText({ model, prompt: "wipe", tools, stopWhen: stepCountIs(3), experimental_telemetry: telemetry });
    assert.equal(wiped, false, "the denied tool never ran");
    assert.equal(refused.text, "I may not.");
    const toolError = refused.steps[0].content.find((p) => p.type === "tool-error");
    assert.ok(toolError.error instanceof Denied);
    assert.match(JSON.stringify(model.doGenerateCalls[1].prompt), /trailproof gate denied wipe_disk \(rule no-wipe: disks are never wiped by an agent\)/);
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "LLM_RESULT").length >= 4);
    assertBound(events, "weather");
    assertRefused(events, "wipe_disk");
    assert.equal(ofType(events, "TOOL_RESULT").length, 1);
    assert.deepEqual(errors, []);
  });

  test("a failure inside the adapter goes to onError, never into the generation", async (t) => {
    const errors = [];
    const broken = { enabled: true, log() { throw new Error("queue full"); } };
    const integration = trailproofTelemetry(broken, { onError: (e) => errors.push(e) });
    const result = await generateText({
      model: aiModel("weather", { city: "Oslo" }, "fine"),
      prompt: "w",
      stopWhen: stepCountIs(3),
      tools: { weather: aiTool({ inputSchema: z.object({ city: z.string() }), execute: async () => "sunny" }) },
      experimental_telemetry: { isEnabled: true, integrations: [integration] },
    });
    assert.equal(result.text, "fine");
    assert.equal(errors.length, 6);
    // A framework event of another shape than expected.
    for (const listener of Object.values(integration)) await listener(null);
    assert.ok(errors.length >= 8 && errors.every((e) => e instanceof Error));
  });
});

// ------------------------------------------------------------------------------ OpenAI Agents SDK

/** A fake Chat Completions client: answers each request with the next of `answers`. */
function fakeOpenAI(answers) {
  const requests = [];
  return {
    requests,
    baseURL: "http://fake.invalid",
    chat: {
      completions: {
        create: async (request) => {
          requests.push(structuredClone(request));
          return answers[requests.length - 1];
        },
      },
    },
  };
}

function completion(message, finishReason, usage = { prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 }) {
  return { id: "cmpl", object: "chat.completion", created: 1, model: "fake-gpt", choices: [{ index: 0, finish_reason: finishReason, message: { role: "assistant", ...message } }], usage };
}

function toolCallCompletion(name, args, id = "call_1") {
  return completion({ content: null, tool_calls: [{ id, type: "function", function: { name, arguments: JSON.stringify(args) } }] }, "tool_calls");
}

describe("trailproof/openai-agents", () => {
  test("the tracing processor records tool calls and generations", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "openai-agents");
    setTraceProcessors([new TrailproofTracingProcessor(client, { onError })]);
    t.after(() => setTraceProcessors([]));
    const openai = fakeOpenAI([toolCallCompletion("weather", { city: "Oslo" }), completion({ content: "Sunny." }, "stop")]);
    const weather = agentsTool({ name: "weather", description: "w", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
    const agent = new Agent({ name: "forecaster", instructions: "be brief", model: new OpenAIChatCompletionsModel(openai, "fake-gpt"), tools: [weather] });
    const result = await run(agent, "Weather in Oslo?");
    assert.equal(result.finalOutput, "Sunny.");
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 6);
    assert.deepEqual(
      events.map((e) => e.action_type),
      ["LLM_CALL", "LLM_RESULT", "TOOL_CALL", "TOOL_RESULT", "LLM_CALL", "LLM_RESULT"],
    );
    const [call0, result0, toolCall, toolResult, , result1] = events;
    assert.equal(call0.action_name, "fake-gpt");
    assert.equal(call0.action_input.messages[1].content, "Weather in Oslo?");
    assert.deepEqual(result0.action_output.tool_calls, [{ id: "call_1", name: "weather", input: '{"city":"Oslo"}' }]);
    assert.equal(result0.action_output.finish_reason, "tool_calls");
    assert.deepEqual(result0.action_output.usage, { input_tokens: 11, output_tokens: 3 });
    assert.equal(toolCall.action_name, "weather");
    assert.deepEqual(toolCall.action_input, { city: "Oslo" });
    assert.deepEqual(toolResult.action_output, { value: "sunny in Oslo" });
    assert.equal(toolResult.action_status, "success");
    assert.ok(toolResult.duration_ms >= 0);
    assert.equal(result1.action_output.content, "Sunny.");
    assert.equal(toolCall.metadata.trace_id, call0.metadata.trace_id);
    assert.match(toolCall.metadata.trace_id, /^trace_/);
    assert.deepEqual(errors, []);
  });

  test("with a Responses API model, the response spans are recorded as model calls", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "openai-agents-responses");
    setTraceProcessors([new TrailproofTracingProcessor(client, { onError })]);
    t.after(() => setTraceProcessors([]));
    const usage = (i, o) => ({ input_tokens: i, output_tokens: o, total_tokens: i + o, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } });
    const answers = [
      { id: "resp_1", object: "response", model: "fake-resp", status: "completed", usage: usage(12, 4),
        output: [{ type: "function_call", id: "fc_1", call_id: "call_1", name: "weather", arguments: '{"city":"Oslo"}', status: "completed" }] },
      { id: "resp_2", object: "response", model: "fake-resp", status: "completed", usage: usage(20, 2),
        output: [{ type: "message", id: "msg_1", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Sunny.", annotations: [] }] }] },
    ];
    let n = 0;
    const openai = { baseURL: "http://fake.invalid", responses: { create: async () => answers[n++] } };
    const weather = agentsTool({ name: "weather", description: "w", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` });
    const agent = new Agent({ name: "forecaster", instructions: "be brief", model: new OpenAIResponsesModel(openai, "fake-resp"), tools: [weather] });
    assert.equal((await run(agent, "Weather in Oslo?")).finalOutput, "Sunny.");
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 6);
    assert.deepEqual(
      events.map((e) => `${e.action_type} ${e.action_name}`),
      ["LLM_CALL fake-resp", "LLM_RESULT fake-resp", "TOOL_CALL weather", "TOOL_RESULT weather", "LLM_CALL fake-resp", "LLM_RESULT fake-resp"],
    );
    assert.equal(events[0].action_input.messages[0].content, "Weather in Oslo?");
    assert.deepEqual(events[1].action_output, {
      model: "fake-resp", tool_calls: [{ id: "call_1", name: "weather", input: '{"city":"Oslo"}' }], finish_reason: "completed",
      usage: { input_tokens: 12, output_tokens: 4 }, response_id: "resp_1",
    });
    assert.equal(events[5].action_output.content, "Sunny.");
    assert.deepEqual(errors, []);
  });

  test("a gated tool runs once allowed, bound to its decision; a denied one answers the refusal", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "openai-agents-gate");
    setTraceProcessors([new TrailproofTracingProcessor(client, { onError })]);
    t.after(() => setTraceProcessors([]));
    let wiped = false;
    const weather = gateTool(client, agentsTool({ name: "weather", description: "w", parameters: z.object({ city: z.string() }), execute: async ({ city }) => `sunny in ${city}` }), { onError });
    const wipe = gateTool(
      client,
      agentsTool({ name: "wipe_disk", description: "wipe", parameters: z.object({ disk: z.string() }), execute: async () => { wiped = true; return "wiped"; } }),
      { onError },
    );
    const openai = fakeOpenAI([
      toolCallCompletion("weather", { city: "Oslo" }),
      toolCallCompletion("wipe_disk", { disk: "sda" }, "call_2"),
      completion({ content: "I may not wipe it." }, "stop"),
    ]);
    const agent = new Agent({ name: "ops", instructions: "help", model: new OpenAIChatCompletionsModel(openai, "fake-gpt"), tools: [weather, wipe] });
    const result = await run(agent, "check the weather, then wipe sda");
    assert.equal(result.finalOutput, "I may not wipe it.");
    assert.equal(wiped, false, "the denied tool never ran");
    const toolMessage = openai.requests[2].messages.find((m) => m.role === "tool" && /wipe_disk/.test(m.content));
    assert.match(toolMessage.content, /^trailproof gate denied wipe_disk \(rule no-wipe: disks are never wiped by an agent\)$/);
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "LLM_RESULT").length >= 3);
    assertBound(events, "weather");
    assertRefused(events, "wipe_disk");
    assert.equal(ofType(events, "TOOL_RESULT").length, 1);
    assert.deepEqual(errors, []);
  });

  test("the processor reports what it cannot read to onError and never throws", async () => {
    const errors = [];
    const processor = new TrailproofTracingProcessor({ enabled: true, log() { throw new Error("queue full"); }, flush: async () => { throw new Error("down"); } }, { onError: (e) => errors.push(e) });
    const span = { spanData: { type: "function", name: "weather", input: "{}", output: "x" }, traceId: "t", spanId: "s", error: null, startedAt: null, endedAt: null };
    await processor.onSpanEnd(span);
    await processor.onSpanEnd(null);
    await processor.forceFlush();
    await processor.shutdown();
    assert.equal(errors.length, 5);
  });
});

// ------------------------------------------------------------------------------------ LangChain.js

describe("trailproof/langchain", () => {
  test("the callback handler records model and tool runs, errors included", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "langchain");
    const handler = new TrailproofCallbackHandler(client, { onError });
    const model = new FakeListChatModel({ responses: ["Sunny in Oslo."] });
    const answer = await model.invoke("Weather in Oslo?", { callbacks: [handler] });
    assert.equal(answer.content, "Sunny in Oslo.");
    const weather = lcTool(async ({ city }) => `sunny in ${city}`, { name: "weather", description: "w", schema: z.object({ city: z.string() }) });
    const message = await weather.invoke({ name: "weather", args: { city: "Oslo" }, id: "tc-1", type: "tool_call" }, { callbacks: [handler] });
    assert.equal(message.content, "sunny in Oslo");
    const broken = lcTool(async () => { throw new Error("disk on fire"); }, { name: "broken", description: "b", schema: z.object({}) });
    await assert.rejects(broken.invoke({}, { callbacks: [handler] }), /disk on fire/);
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 6);
    assert.deepEqual(
      events.map((e) => `${e.action_type} ${e.action_name}`),
      ["LLM_CALL FakeListChatModel", "LLM_RESULT FakeListChatModel", "TOOL_CALL weather", "TOOL_RESULT weather", "TOOL_CALL broken", "TOOL_RESULT broken"],
    );
    const [llmCall, llmResult, toolCall, toolResult, , brokenResult] = events;
    assert.deepEqual(llmCall.action_input.messages, [{ role: "human", content: "Weather in Oslo?" }]);
    assert.equal(llmResult.action_output.content, "Sunny in Oslo.");
    assert.ok(llmResult.duration_ms >= 0);
    assert.deepEqual(toolCall.action_input, { city: "Oslo" });
    assert.equal(toolCall.metadata.tool_call_id, "tc-1");
    assert.deepEqual(toolResult.action_output, { content: "sunny in Oslo", status: "success", tool_call_id: "tc-1" });
    assert.equal(brokenResult.action_status, "error");
    assert.equal(brokenResult.error_message, "disk on fire");
    assert.deepEqual(errors, []);
  });

  test("with gate, an allowed tool is bound to its decision and a denied one throws without running", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "langchain-gate");
    const handler = new TrailproofCallbackHandler(client, { onError, gate: ["weather", "wipe_disk"] });
    let wiped = false;
    const weather = lcTool(async ({ city }) => `sunny in ${city}`, { name: "weather", description: "w", schema: z.object({ city: z.string() }) });
    const wipe = lcTool(async () => { wiped = true; return "wiped"; }, { name: "wipe_disk", description: "w", schema: z.object({ disk: z.string() }) });
    assert.equal(await weather.invoke({ city: "Oslo" }, { callbacks: [handler] }), "sunny in Oslo");
    const quiet = t.mock.method(console, "error", () => {}); // LangChain prints a line about a refusing handler
    await assert.rejects(wipe.invoke({ disk: "sda" }, { callbacks: [handler] }), (e) => e instanceof Denied && /rule no-wipe/.test(e.message));
    quiet.mock.restore();
    assert.equal(wiped, false, "the denied tool never ran");
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "TOOL_RESULT").length >= 1 && ofType(es, "DECISION").length >= 2);
    assertBound(events, "weather");
    assertRefused(events, "wipe_disk");
    assert.deepEqual(errors, []);
  });

  test("a run of another shape goes to onError, never into the chain", async () => {
    const errors = [];
    const handler = new TrailproofCallbackHandler({ enabled: true, log() { throw new Error("queue full"); } }, { onError: (e) => errors.push(e) });
    const model = new FakeListChatModel({ responses: ["ok"] });
    assert.equal((await model.invoke("hi", { callbacks: [handler] })).content, "ok");
    await handler.handleLLMEnd(null, "no-such-run");
    await handler.handleChatModelStart(null, null, "r");
    assert.equal(errors.length, 4);
  });
});

// --------------------------------------------------------------------------------------------- MCP

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
    const approved = server.decisionOf(agentId).then((d) => server.answer(d.id, true, "one refund is fine"));
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
