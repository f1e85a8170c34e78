// trailproof/openai-agents against the real OpenAI Agents SDK, its models given fake OpenAI clients
// that answer canned completions and responses (no network), recording into the packaged server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { TrailproofTracingProcessor, gateTool } from "trailproof/openai-agents";

import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTraceProcessors, tool as agentsTool } from "@openai/agents";
import { z } from "zod";

import { assertBound, assertRefused, eventsOf, newClient, ofType, useServer } from "./adapter-support.mjs";

useServer();

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
