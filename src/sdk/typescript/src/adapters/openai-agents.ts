/**
 * `trailproof/openai-agents`: the OpenAI Agents SDK (`@openai/agents`) adapter
 * (src/site/typescript-adapters.md#openai-agents-sdk).
 *
 * `TrailproofTracingProcessor` records the spans of a run as events (function spans as `TOOL_CALL` +
 * `TOOL_RESULT`, generation and response spans as `LLM_CALL` + `LLM_RESULT`); `gateTool(client,
 * tool)` asks the gate before a function tool runs.
 */

import { getCurrentSpan } from "@openai/agents";
import type { FunctionTool, Span, Trace, TracingProcessor } from "@openai/agents";
import type { Client } from "../client.js";
import { type AdapterOptions, type GateOptions, askGate, asObject, defined, guard, record, recordToolCall, report } from "./common.js";

const ADAPTER = "openai-agents";

// Span data read field by field: a field of another shape is left out, never fatal.
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * The function spans in which a gated tool ran (or was refused): its wrapper records them, with the
 * decision, so the processor leaves them out. Weak, so a span nobody processes is never kept.
 */
const gatedSpans = new WeakSet<object>();

function millisBetween(from: string | null | undefined, to: string | null | undefined): number | undefined {
  if (!from || !to) return undefined;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms : undefined;
}

function usageOf(u: Any | undefined): Record<string, unknown> | undefined {
  if (!u || typeof u !== "object") return undefined;
  const usage = defined({
    input_tokens: u.input_tokens ?? u.prompt_tokens,
    output_tokens: u.output_tokens ?? u.completion_tokens,
  });
  return Object.keys(usage).length ? usage : undefined;
}

/** `{model, content, tool_calls, finish_reason}` of a Chat Completions answer (a generation span's output). */
function chatAnswer(output: unknown): Record<string, unknown> {
  const first = (Array.isArray(output) ? output[0] : undefined) as Any | undefined;
  const choice = first?.choices?.[0] as Any | undefined;
  if (!choice) return { output };
  const message = (choice.message ?? {}) as Any;
  const toolCalls = Array.isArray(message.tool_calls)
    ? message.tool_calls.map((t: Any) => defined({ id: t.id, name: t.function?.name, input: t.function?.arguments }))
    : undefined;
  return defined({
    model: first?.model,
    content: message.content ?? message.refusal ?? undefined,
    tool_calls: toolCalls,
    finish_reason: choice.finish_reason,
    usage: usageOf(first?.usage),
  });
}

/** The same for a Responses API answer (a response span's `_response`). */
function responsesAnswer(response: Any | undefined): Record<string, unknown> {
  if (!response || typeof response !== "object") return {};
  const items = Array.isArray(response.output) ? (response.output as Any[]) : [];
  const text = items
    .filter((i) => i?.type === "message" && Array.isArray(i.content))
    .flatMap((i) => (i.content as Any[]).map((c) => (typeof c?.text === "string" ? c.text : c?.refusal)))
    .filter((t) => typeof t === "string")
    .join("");
  const toolCalls = items
    .filter((i) => i?.type === "function_call")
    .map((i) => defined({ id: i.call_id, name: i.name, input: i.arguments }));
  return defined({
    model: response.model,
    content: text || undefined,
    tool_calls: toolCalls.length ? toolCalls : undefined,
    finish_reason: response.status,
    usage: usageOf(response.usage),
    response_id: response.id,
  });
}

/**
 * A tracing processor recording a run of the OpenAI Agents SDK (`addTraceProcessor(new
 * TrailproofTracingProcessor(client))`). When a span ends:
 *
 * - a function span (a tool call) becomes `TOOL_CALL` (`action_name` the tool, `action_input` its
 *   arguments, `timestamp` the span's start) and `TOOL_RESULT` (`action_output` the tool's output,
 *   status `error` with the span's error message when the span failed, `duration_ms`);
 * - a generation span (Chat Completions) or a response span (Responses API) becomes `LLM_CALL`
 *   (`action_name` the model, `action_input` `{model, model_config, messages}`) and `LLM_RESULT`
 *   (`{model, content, tool_calls, finish_reason, usage}`).
 *
 * The Agents SDK fills a span's inputs and outputs only when `traceIncludeSensitiveData` is on (its
 * default); without them the events carry the names and statuses alone. Each event's `metadata` has
 * the `trace_id` and `span_id`. Spans of tools wrapped by `gateTool` are recorded by the wrapper.
 * The processor never throws: its failures go to `onError`.
 */
export class TrailproofTracingProcessor implements TracingProcessor {
  private readonly client: Client;
  private readonly onError: ((error: unknown) => void) | undefined;

  constructor(client: Client, options: AdapterOptions = {}) {
    this.client = client;
    this.onError = options.onError;
  }

  async onTraceStart(_trace: Trace): Promise<void> {}

  async onTraceEnd(_trace: Trace): Promise<void> {}

  async onSpanStart(_span: Span<any>): Promise<void> {} // eslint-disable-line @typescript-eslint/no-explicit-any

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async onSpanEnd(span: Span<any>): Promise<void> {
    guard(this.onError, () => this.recordSpan(span));
  }

  /** Sends what is queued (the client's `flush`); never rejects. */
  async forceFlush(): Promise<void> {
    try {
      await this.client.flush();
    } catch (e) {
      report(this.onError, e);
    }
  }

  /** Sends what is queued; the client stays open (close it yourself). Never rejects. */
  async shutdown(timeout?: number): Promise<void> {
    try {
      await this.client.flush(timeout);
    } catch (e) {
      report(this.onError, e);
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  private recordSpan(span: Span<any>): void {
    const data = span.spanData as Any;
    const type = data?.type;
    if (type !== "function" && type !== "generation" && type !== "response") return;
    if (type === "function" && gatedSpans.has(span)) return;
    const metadata = defined({ adapter: ADAPTER, trace_id: span.traceId, span_id: span.spanId });
    const error = span.error;
    const status = error ? "error" : "success";
    const errorText = error ? error.message || "the span ended with an error" : undefined;
    const durationMs = millisBetween(span.startedAt, span.endedAt);
    const timestamp = span.startedAt ?? undefined;
    const log = (fields: Parameters<Client["log"]>[0]) => record(this.client, this.onError, fields);
    if (type === "function") {
      const name = String(data.name ?? "function");
      log({ actionType: "TOOL_CALL", actionName: name, input: data.input ? asObject(data.input) : undefined, metadata, timestamp });
      log({
        actionType: "TOOL_RESULT",
        actionName: name,
        output: data.output !== undefined && data.output !== "" ? asObject(data.output) : undefined,
        status,
        error: errorText,
        durationMs,
        metadata,
        timestamp: span.endedAt ?? undefined,
      });
      return;
    }
    const answer = type === "generation" ? chatAnswer(data.output) : responsesAnswer(data._response);
    if (type === "generation" && data.usage && !answer.usage) answer.usage = usageOf(data.usage);
    const model = String(data.model ?? answer.model ?? "model");
    log({
      actionType: "LLM_CALL",
      actionName: model,
      input: defined({
        model: data.model ?? answer.model,
        model_config: data.model_config,
        messages: type === "generation" ? data.input : data._input,
      }),
      metadata,
      timestamp,
    });
    log({
      actionType: "LLM_RESULT",
      actionName: model,
      output: answer,
      status,
      error: errorText,
      durationMs,
      metadata,
      timestamp: span.endedAt ?? undefined,
    });
  }
}

/**
 * The same function tool with an `invoke` that asks the gate first (the tool's name and parsed
 * arguments as the proposed `TOOL_CALL`):
 *
 * - allowed (or approved within `askTimeoutMs`): the tool runs; its `TOOL_CALL` carries the
 *   `decision_id`, then its `TOOL_RESULT` is recorded;
 * - refused (denied, not approved in time, or trailproof unreachable in fail mode `closed`): the tool
 *   does not run and its output, which the model reads, is the refusal with the rule and the
 *   reason (`trailproof gate denied <tool> (rule <rule>: <reason>)`), so the run goes on. The
 *   `DECISION` event is the refused call's record.
 */
export function gateTool<T extends FunctionTool<any, any, any>>(client: Client, tool: T, options: GateOptions = {}): T { // eslint-disable-line @typescript-eslint/no-explicit-any
  const { onError } = options;
  const invoke = tool.invoke;
  const name = tool.name;
  const gatedInvoke: FunctionTool["invoke"] = async (runContext, input, details) => {
    const span = getCurrentSpan();
    if (span && (span.spanData as Any)?.type === "function") gatedSpans.add(span);
    const args = asObject(input);
    const outcome = await askGate(client, name, args, options);
    if (!outcome.run) return outcome.text;
    const metadata = defined({
      adapter: ADAPTER,
      tool_call_id: (details as Any | undefined)?.toolCall?.callId,
      trace_id: span?.traceId,
      span_id: span?.spanId,
      ...(outcome.metadata ?? {}),
    });
    const done = recordToolCall(client, onError, { name, args, metadata, decisionId: outcome.decisionId });
    let result: unknown;
    try {
      result = await invoke.call(tool, runContext, input, details);
    } catch (e) {
      done(false, e);
      throw e;
    }
    done(true, result);
    return result;
  };
  return { ...tool, invoke: gatedInvoke };
}
