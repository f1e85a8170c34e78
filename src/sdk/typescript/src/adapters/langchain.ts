/**
 * `trailproof/langchain`: a LangChain.js (`@langchain/core`) callback handler
 * (src/site/typescript-adapters.md#langchainjs).
 */

import { BaseCallbackHandler } from "@langchain/core/callbacks/base";
import type { Serialized } from "@langchain/core/load/serializable";
import type { BaseMessage } from "@langchain/core/messages";
import type { LLMResult } from "@langchain/core/outputs";
import type { Client } from "../client.js";
import { type GateOptions, askGate, asObject, defined, guard, messageOf, record, report } from "./common.js";

const ADAPTER = "langchain";
/** Runs started and not yet ended that the handler remembers at most (older ones are forgotten). */
const MAX_OPEN_RUNS = 10_000;

// LangChain's values read field by field: a field of another shape is left out, never fatal.
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface CallbackHandlerOptions extends GateOptions {
  /**
   * Ask the gate before tools run: `true` for every tool, or the names of the tools to gate
   * (default none). A refused tool call throws `Denied`, `ApprovalTimeout` or `Unavailable` from the
   * tool's `invoke` without running it.
   */
  gate?: boolean | string[];
  /** Record the messages or prompts sent to a model in its `LLM_CALL` (default true). */
  recordMessages?: boolean;
}

interface OpenRun {
  name: string;
  start: number;
  metadata: Record<string, unknown>;
}

function nameOf(serialized: Serialized | undefined, runName: string | undefined): string {
  if (runName) return runName;
  const s = serialized as Any | undefined;
  if (typeof s?.name === "string" && s.name) return s.name;
  const id = Array.isArray(s?.id) ? s.id : [];
  return typeof id[id.length - 1] === "string" ? id[id.length - 1] : "unknown";
}

function modelOf(serialized: Serialized | undefined, extra: Any | undefined, metadata: Any | undefined, runName?: string): string {
  const params = (extra?.invocation_params ?? {}) as Any;
  const m = metadata?.ls_model_name ?? params.model ?? params.model_name ?? params.modelName;
  return typeof m === "string" && m ? m : nameOf(serialized, runName);
}

/** A message as `{role, content, tool_calls}`. */
function messageOut(m: BaseMessage | Any): Record<string, unknown> {
  const msg = m as Any;
  const role = typeof msg.getType === "function" ? msg.getType() : typeof msg._getType === "function" ? msg._getType() : msg.role;
  const toolCalls = Array.isArray(msg.tool_calls) && msg.tool_calls.length
    ? msg.tool_calls.map((t: Any) => defined({ id: t.id, name: t.name, input: t.args }))
    : undefined;
  return defined({ role, content: msg.content, tool_calls: toolCalls, tool_call_id: msg.tool_call_id });
}

/** A tool's output: a `ToolMessage` as `{content, status, tool_call_id}`, anything else as JSON. */
function toolOutput(output: unknown): Record<string, unknown> {
  const o = output as Any | null | undefined;
  if (o && typeof o === "object" && typeof o.getType === "function" && o.getType() === "tool") {
    return defined({ content: o.content, status: o.status, tool_call_id: o.tool_call_id, artifact: o.artifact });
  }
  return asObject(output);
}

/**
 * A LangChain callback handler recording what models and tools do (pass it in `callbacks: [handler]`
 * of any runnable, chain, agent or graph):
 *
 * - tool start: `TOOL_CALL` (`action_name` the tool, `action_input` its arguments);
 * - tool end / error: `TOOL_RESULT` (`action_output` the output, or status `error` and the message;
 *   `duration_ms`);
 * - chat model or LLM start: `LLM_CALL` (`action_name` the model, `action_input` `{model, messages}`
 *   or `{model, prompts}`);
 * - model end / error: `LLM_RESULT` (`{model, content, tool_calls, finish_reason, usage}`).
 *
 * With `gate`, each tool call is proposed to the gate first; a refused call throws from the tool's
 * `invoke` (the handler sets `raiseError`, so LangChain lets the refusal through, and prints its own
 * line about it), and the `DECISION` is its record. Its handlers are awaited (`awaitHandlers`), and
 * every failure of the handler itself goes to `onError`.
 */
export class TrailproofCallbackHandler extends BaseCallbackHandler {
  name = "trailproof";
  private readonly client: Client;
  private readonly options: CallbackHandlerOptions;
  private readonly runs = new Map<string, OpenRun>();

  constructor(client: Client, options: CallbackHandlerOptions = {}) {
    super();
    this.client = client;
    this.options = options;
    this.awaitHandlers = true;
    // Only a gate's refusal is ever thrown: every other failure is caught and reported.
    this.raiseError = Boolean(options.gate && (options.gate === true || options.gate.length));
  }

  private gated(tool: string): boolean {
    const g = this.options.gate;
    return g === true || (Array.isArray(g) && g.includes(tool));
  }

  private open(runId: string, run: OpenRun): void {
    if (this.runs.size >= MAX_OPEN_RUNS) {
      const oldest = this.runs.keys().next().value;
      if (oldest !== undefined) this.runs.delete(oldest);
    }
    this.runs.set(runId, run);
  }

  private close(runId: string): OpenRun | undefined {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    return run;
  }

  /** How long the run took and its metadata, for the event that ends it (a run never seen: its id alone). */
  private ending(run: OpenRun | undefined, runId: string): { durationMs?: number; metadata: Record<string, unknown> } {
    return {
      durationMs: run ? Math.round(performance.now() - run.start) : undefined,
      metadata: run?.metadata ?? { adapter: ADAPTER, run_id: runId },
    };
  }

  private log(fields: Parameters<Client["log"]>[0]): void {
    record(this.client, this.options.onError, fields);
  }

  /**
   * Records the run `runId` ending in `error` as `actionType` with status `error` and the error's
   * message (`unnamed` names a run the handler never saw start).
   */
  private failed(actionType: "TOOL_RESULT" | "LLM_RESULT", unnamed: string, error: unknown, runId: string): void {
    guard(this.options.onError, () => {
      const run = this.close(runId);
      this.log({
        actionType,
        actionName: run?.name ?? unnamed,
        status: "error",
        error: messageOf(error),
        ...this.ending(run, runId),
      });
    });
  }

  override async handleToolStart(
    tool: Serialized,
    input: string,
    runId: string,
    parentRunId?: string,
    _tags?: string[],
    _metadata?: Record<string, unknown>,
    runName?: string,
    toolCallId?: string,
  ): Promise<void> {
    let name = "unknown";
    let args: Record<string, unknown> = {};
    try {
      name = nameOf(tool, runName);
      args = asObject(input);
    } catch (e) {
      report(this.options.onError, e);
    }
    const metadata = defined({ adapter: ADAPTER, run_id: runId, parent_run_id: parentRunId, tool_call_id: toolCallId });
    let decisionId: string | undefined;
    if (this.gated(name)) {
      const outcome = await askGate(this.client, name, args, this.options);
      if (!outcome.run) throw outcome.error;
      decisionId = outcome.decisionId;
      Object.assign(metadata, outcome.metadata ?? {});
    }
    guard(this.options.onError, () => {
      this.log({ actionType: "TOOL_CALL", actionName: name, input: args, metadata, decisionId });
      this.open(runId, { name, start: performance.now(), metadata });
    });
  }

  override async handleToolEnd(output: unknown, runId: string): Promise<void> {
    guard(this.options.onError, () => {
      const run = this.close(runId);
      this.log({
        actionType: "TOOL_RESULT",
        actionName: run?.name ?? "unknown",
        output: toolOutput(output),
        status: "success",
        ...this.ending(run, runId),
      });
    });
  }

  override async handleToolError(error: unknown, runId: string): Promise<void> {
    this.failed("TOOL_RESULT", "unknown", error, runId);
  }

  override async handleChatModelStart(
    llm: Serialized,
    messages: BaseMessage[][],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): Promise<void> {
    guard(this.options.onError, () => {
      const model = modelOf(llm, extraParams, metadata, runName);
      const record = this.options.recordMessages ?? true;
      const md = defined({ adapter: ADAPTER, run_id: runId, parent_run_id: parentRunId });
      this.log({
        actionType: "LLM_CALL",
        actionName: model,
        input: defined({
          model,
          messages: record ? (messages.length === 1 ? messages[0] : messages.flat()).map(messageOut) : undefined,
        }),
        metadata: md,
      });
      this.open(runId, { name: model, start: performance.now(), metadata: md });
    });
  }

  override async handleLLMStart(
    llm: Serialized,
    prompts: string[],
    runId: string,
    parentRunId?: string,
    extraParams?: Record<string, unknown>,
    _tags?: string[],
    metadata?: Record<string, unknown>,
    runName?: string,
  ): Promise<void> {
    guard(this.options.onError, () => {
      const model = modelOf(llm, extraParams, metadata, runName);
      const md = defined({ adapter: ADAPTER, run_id: runId, parent_run_id: parentRunId });
      this.log({
        actionType: "LLM_CALL",
        actionName: model,
        input: defined({ model, prompts: (this.options.recordMessages ?? true) ? prompts : undefined }),
        metadata: md,
      });
      this.open(runId, { name: model, start: performance.now(), metadata: md });
    });
  }

  override async handleLLMEnd(output: LLMResult, runId: string): Promise<void> {
    guard(this.options.onError, () => {
      const run = this.close(runId);
      const generation = output?.generations?.[0]?.[0] as Any | undefined;
      const message = generation?.message as Any | undefined;
      const toolCalls = Array.isArray(message?.tool_calls) && message.tool_calls.length
        ? message.tool_calls.map((t: Any) => defined({ id: t.id, name: t.name, input: t.args }))
        : undefined;
      const usageMeta = message?.usage_metadata as Any | undefined;
      const tokenUsage = (output?.llmOutput as Any | undefined)?.tokenUsage as Any | undefined;
      const usage = usageMeta
        ? defined({ input_tokens: usageMeta.input_tokens, output_tokens: usageMeta.output_tokens })
        : tokenUsage
          ? defined({ input_tokens: tokenUsage.promptTokens, output_tokens: tokenUsage.completionTokens })
          : undefined;
      const info = (generation?.generationInfo ?? message?.response_metadata ?? {}) as Any;
      this.log({
        actionType: "LLM_RESULT",
        actionName: run?.name ?? "model",
        output: defined({
          model: run?.name,
          content: message ? message.content : generation?.text,
          tool_calls: toolCalls,
          finish_reason: info.finish_reason ?? info.stop_reason ?? undefined,
          usage: usage && Object.keys(usage).length ? usage : undefined,
        }),
        status: "success",
        ...this.ending(run, runId),
      });
    });
  }

  override async handleLLMError(error: unknown, runId: string): Promise<void> {
    this.failed("LLM_RESULT", "model", error, runId);
  }
}
