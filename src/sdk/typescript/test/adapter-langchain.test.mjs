// trailproof/langchain against the real @langchain/core, driven by its FakeListChatModel and tools of
// its own (no network), recording into the packaged server.

import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { Denied } from "trailproof";
import { TrailproofCallbackHandler } from "trailproof/langchain";

import { FakeLLM, FakeListChatModel } from "@langchain/core/utils/testing";
import { tool as lcTool } from "@langchain/core/tools";
import { z } from "zod";

import { assertBound, assertRefused, eventsOf, newClient, ofType, useServer } from "./adapter-support.mjs";

useServer();

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

  test("a model that fails is recorded as an LLM_RESULT with status error, as a failed tool is", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "langchain-llm-error");
    const handler = new TrailproofCallbackHandler(client, { onError });
    await assert.rejects(new FakeLLM({ thrownErrorString: "model overloaded" }).invoke("hello", { callbacks: [handler] }), /model overloaded/);
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 2);
    assert.deepEqual(events.map((e) => e.action_type), ["LLM_CALL", "LLM_RESULT"]);
    assert.equal(events[1].action_name, events[0].action_name);
    assert.equal(events[1].action_status, "error");
    assert.match(events[1].error_message, /model overloaded/);
    assert.equal(events[1].metadata.run_id, events[0].metadata.run_id);
    assert.ok(events[1].duration_ms >= 0);
    assert.deepEqual(errors, []);
  });

  test("a text-completion model (an LLM, not a chat model) is recorded with its prompts", async (t) => {
    const { client, agentId, errors, onError } = newClient(t, "langchain-llm");
    const handler = new TrailproofCallbackHandler(client, { onError });
    assert.equal(await new FakeLLM({}).invoke("echo this", { callbacks: [handler] }), "echo this");
    await client.flush();
    const events = await eventsOf(agentId, (es) => es.length >= 2);
    assert.deepEqual(events.map((e) => e.action_type), ["LLM_CALL", "LLM_RESULT"]);
    assert.deepEqual(events[0].action_input.prompts, ["echo this"]);
    assert.equal(events[1].action_output.content, "echo this");
    assert.equal(events[1].action_name, events[0].action_name);
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
