// trailproof/ai-sdk against the real Vercel AI SDK 6, driven by its MockLanguageModelV3 (no network),
// recording into the packaged server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Denied } from "trailproof";
import { gateTools, trailproofTelemetry } from "trailproof/ai-sdk";

import { generateText, stepCountIs, streamText, tool as aiTool } from "ai";
import { MockLanguageModelV3, convertArrayToReadableStream } from "ai/test";
import { z } from "zod";

import { assertBound, assertRefused, eventsOf, newClient, ofType, useServer } from "./adapter-support.mjs";

useServer();

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

  test("a gated tool that streams preliminary results asks before its first value", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "ai-sdk-gate-stream");
    const ran = [];
    const progress = (name) =>
      aiTool({
        inputSchema: z.object({ disk: z.string() }),
        async *execute({ disk }) {
          ran.push(name);
          yield { disk, done: 0.5 };
          yield { disk, done: 1 };
        },
      });
    const tools = gateTools(client, { check_disk: progress("check_disk"), wipe_disk: progress("wipe_disk") }, { onError });
    const allowed = await generateText({ model: aiModel("check_disk", { disk: "sda" }, "ok"), prompt: "c", tools, stopWhen: stepCountIs(3) });
    assert.deepEqual(allowed.steps[0].toolResults[0].output, { disk: "sda", done: 1 });
    const refused = await generateText({ model: aiModel("wipe_disk", { disk: "sda" }, "no"), prompt: "w", tools, stopWhen: stepCountIs(3) });
    assert.ok(refused.steps[0].content.find((p) => p.type === "tool-error").error instanceof Denied);
    assert.deepEqual(ran, ["check_disk"], "the denied tool never ran");
    await client.flush();
    const events = await eventsOf(agentId, (es) => ofType(es, "TOOL_RESULT").length >= 1 && ofType(es, "DECISION").length >= 2);
    assertBound(events, "check_disk");
    assertRefused(events, "wipe_disk");
    assert.deepEqual(ofType(events, "TOOL_RESULT")[0].action_output, { disk: "sda", done: 1 });
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
