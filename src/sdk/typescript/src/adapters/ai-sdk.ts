/**
 * `trailproof/ai-sdk`: the Vercel AI SDK 6 (`ai`) adapter (src/site/typescript-adapters.md#vercel-ai-sdk).
 *
 * `trailproofTelemetry(client)` is a telemetry integration for `experimental_telemetry.integrations`:
 * each model step becomes `LLM_CALL` + `LLM_RESULT`, each tool execution `TOOL_CALL` + `TOOL_RESULT`.
 * `gateTools(client, tools)` wraps the tools' `execute` so that each call is proposed to the gate
 * first and a refused call never runs.
 */

import type { TelemetryIntegration, ToolSet } from "ai";
import type { Client } from "../client.js";
import { type AdapterOptions, type GateOptions, askGate, asObject, defined, guard, messageOf, record, recordToolCall } from "./common.js";

/** The key a gated tool carries in its `metadata` (which the AI SDK never sends to the model). */
export const GATED = "trailproof_gated";
const ADAPTER = "ai-sdk";

export interface TelemetryOptions extends AdapterOptions {
  /** Record each step's `messages` and `system` in its `LLM_CALL` (default true). */
  recordMessages?: boolean;
}

// The AI SDK's events, read field by field: a field of another shape is left out, never fatal.
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function gated(toolCall: Any | undefined): boolean {
  return toolCall?.toolMetadata?.[GATED] === true;
}

function usageOf(usage: Any | undefined): Record<string, unknown> | undefined {
  if (!usage || typeof usage !== "object") return undefined;
  return defined({ input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.totalTokens });
}

function modelName(model: Any | undefined): string {
  return typeof model?.modelId === "string" && model.modelId ? model.modelId : "model";
}

/**
 * A telemetry integration recording what the AI SDK does (pass it in
 * `experimental_telemetry: { isEnabled: true, integrations: [trailproofTelemetry(client)] }`, or
 * register it for every call with `registerTelemetryIntegration`):
 *
 * - step start: `LLM_CALL`, `action_name` the model id, `action_input` `{provider, model, step,
 *   system, messages, tools}`;
 * - step finish: `LLM_RESULT`, `action_output` `{model, content, tool_calls, finish_reason, usage}`;
 * - tool execution start: `TOOL_CALL`, `action_name` the tool, `action_input` its arguments;
 * - tool execution finish: `TOOL_RESULT` with the output or the error, status and `duration_ms`.
 *
 * Tools wrapped by `gateTools` are recorded by their wrapper instead (with the decision), never twice.
 * Every listener catches its own failures and reports them to `onError`.
 */
export function trailproofTelemetry(client: Client, options: TelemetryOptions = {}): TelemetryIntegration {
  const { onError } = options;
  const recordMessages = options.recordMessages ?? true;
  const base = (e: Any): Record<string, unknown> =>
    defined({ adapter: ADAPTER, function_id: e.functionId ?? undefined, step: e.stepNumber ?? undefined });
  return {
    onStepStart(e: Any) {
      guard(onError, () => {
        const tools = e.tools && typeof e.tools === "object" ? Object.keys(e.tools) : undefined;
        record(client, onError, {
          actionType: "LLM_CALL",
          actionName: modelName(e.model),
          input: defined({
            provider: e.model?.provider,
            model: e.model?.modelId,
            step: e.stepNumber,
            system: recordMessages ? e.system : undefined,
            messages: recordMessages ? e.messages : undefined,
            tools,
          }),
          metadata: base(e),
        });
      });
    },
    onStepFinish(e: Any) {
      guard(onError, () => {
        const toolCalls = Array.isArray(e.toolCalls)
          ? e.toolCalls.map((c: Any) => ({ id: c.toolCallId, name: c.toolName, input: c.input }))
          : undefined;
        const failed = e.finishReason === "error";
        record(client, onError, {
          actionType: "LLM_RESULT",
          actionName: modelName(e.model ?? { modelId: e.response?.modelId }),
          output: defined({
            model: e.response?.modelId ?? e.model?.modelId,
            content: e.text,
            tool_calls: toolCalls,
            finish_reason: e.finishReason,
            usage: usageOf(e.usage),
          }),
          status: failed ? "error" : "success",
          error: failed ? "the model's step ended with an error" : undefined,
          metadata: base(e),
        });
      });
    },
    onToolCallStart(e: Any) {
      guard(onError, () => {
        const call = e.toolCall as Any;
        if (gated(call)) return;
        record(client, onError, {
          actionType: "TOOL_CALL",
          actionName: String(call.toolName),
          input: asObject(call.input),
          metadata: { ...base(e), tool_call_id: call.toolCallId },
        });
      });
    },
    onToolCallFinish(e: Any) {
      guard(onError, () => {
        const call = e.toolCall as Any;
        if (gated(call)) return;
        record(client, onError, {
          actionType: "TOOL_RESULT",
          actionName: String(call.toolName),
          output: e.success ? asObject(e.output) : undefined,
          status: e.success ? "success" : "error",
          error: e.success ? undefined : messageOf(e.error),
          durationMs: typeof e.durationMs === "number" ? Math.max(0, Math.round(e.durationMs)) : undefined,
          metadata: { ...base(e), tool_call_id: call.toolCallId },
        });
      });
    },
  } as TelemetryIntegration;
}

/**
 * The same tools, each with an `execute` that asks the gate first (`POST /v1/decisions`, the tool's
 * name and arguments as the proposed `TOOL_CALL`):
 *
 * - allowed (or approved within `askTimeoutMs`): the tool runs; its `TOOL_CALL` carries the
 *   `decision_id`, then its `TOOL_RESULT` is recorded;
 * - refused (denied, not approved in time, or trailproof unreachable in fail mode `closed`): the tool
 *   does not run; `execute` throws `Denied`, `ApprovalTimeout` or `Unavailable`, which the AI SDK
 *   hands to the model as the tool's error (its message names the rule and the reason), so the
 *   generation goes on. The `DECISION` event is the refused call's record.
 *
 * Tools without `execute` (provider-executed or client-side tools) are returned unchanged.
 */
export function gateTools<TOOLS extends ToolSet>(client: Client, tools: TOOLS, options: GateOptions = {}): TOOLS {
  const { onError } = options;
  const out: Any = {};
  for (const [name, tool] of Object.entries(tools as Any)) {
    if (!tool || typeof tool.execute !== "function") {
      out[name] = tool;
      continue;
    }
    const execute = tool.execute as (input: unknown, opts: unknown) => unknown;
    // Asks the gate, records the TOOL_CALL, and answers the function that records the TOOL_RESULT;
    // throws the refusal when the call must not run.
    const begin = async (input: unknown, opts: Any) => {
      const args = asObject(input);
      const outcome = await askGate(client, name, args, options);
      if (!outcome.run) throw outcome.error;
      const metadata = defined({ adapter: ADAPTER, tool_call_id: opts?.toolCallId, ...(outcome.metadata ?? {}) });
      return recordToolCall(client, onError, { name, args, metadata, decisionId: outcome.decisionId });
    };
    const streaming = Object.prototype.toString.call(execute) === "[object AsyncGeneratorFunction]";
    const wrapped = streaming
      ? // A tool that streams preliminary results: the gate is asked before its first value, and
        // its last value is its output.
        async function* (input: unknown, opts: Any) {
          const done = await begin(input, opts);
          let last: unknown;
          try {
            for await (const part of execute.call(tool, input, opts) as AsyncIterable<unknown>) {
              last = part;
              yield part;
            }
          } catch (e) {
            done(false, e);
            throw e;
          }
          done(true, last);
        }
      : async function (input: unknown, opts: Any) {
          const done = await begin(input, opts);
          let result: unknown;
          try {
            result = await execute.call(tool, input, opts);
          } catch (e) {
            done(false, e);
            throw e;
          }
          done(true, result);
          return result;
        };
    out[name] = { ...tool, metadata: { ...(tool.metadata ?? {}), [GATED]: true }, execute: wrapped };
  }
  return out as TOOLS;
}
