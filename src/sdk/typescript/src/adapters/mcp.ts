/**
 * `trailproof/mcp`: a wrapper of an MCP SDK (`@modelcontextprotocol/sdk`) client `Transport`
 * (src/site/typescript-adapters.md#mcp-clients).
 */

import type { Transport, TransportSendOptions } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage, MessageExtraInfo } from "@modelcontextprotocol/sdk/types.js";
import type { Client } from "../client.js";
import { type GateOptions, askGate, asObject, defined, guard, record, report } from "./common.js";

const ADAPTER = "mcp";
/** Calls sent and not yet answered that the wrapper remembers at most (older ones are forgotten). */
const MAX_PENDING = 10_000;

export interface McpTransportOptions extends GateOptions {
  /** Ask the gate before each `tools/call` is sent (default false). */
  gate?: boolean;
}

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface Pending {
  name: string;
  start: number;
  metadata: Record<string, unknown>;
}

function idText(id: unknown): string {
  return typeof id === "string" ? id : JSON.stringify(id);
}

function isToolsCall(m: Any): boolean {
  return m?.method === "tools/call" && m.id !== undefined && m.id !== null;
}

function isAnswer(m: Any): boolean {
  return m && m.method === undefined && m.id !== undefined && ("result" in m || "error" in m);
}

/** The text content of a tool result, for `error_message` (which `record` cuts to 64 KiB). */
function textOf(result: Any | undefined): string {
  const parts = Array.isArray(result?.content) ? result.content : [];
  const text = parts.filter((c: Any) => c?.type === "text" && typeof c.text === "string").map((c: Any) => c.text).join("\n");
  return text || "the tool reported an error";
}

/**
 * A `Transport` that passes every message through to `inner`, in order and unchanged, and records
 * the client's tool calls: each `tools/call` request is a `TOOL_CALL` (`action_name` the tool,
 * `action_input` its `arguments`), and the server's answer with the same id a `TOOL_RESULT`
 * (`action_output` the result, or `{"error": ...}` for a JSON-RPC error; status `error` when
 * `isError` or a JSON-RPC error; `duration_ms`). `metadata` carries `jsonrpc_id` and, once the server
 * has answered `initialize`, `mcp_server_name` and `mcp_server_version`. A call cancelled by the
 * client (`notifications/cancelled`) or still unanswered when the transport closes gets a
 * `TOOL_RESULT` with status `error` saying so.
 *
 * With `gate`, each `tools/call` is proposed first; a refused call is never sent: the client is
 * answered with a tool result `isError: true` whose text is the refusal (rule and reason), as the
 * server would answer a tool that failed, and its `DECISION` is its record. Other messages are not
 * held up while a call waits for its decision. The wrapper's own failures go to `onError`.
 */
export class TrailproofTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;

  private readonly inner: Transport;
  private readonly client: Client;
  private readonly options: McpTransportOptions;
  private readonly pending = new Map<string, Pending>();
  private initializeId: string | null = null;
  private server: Record<string, unknown> = {};

  constructor(client: Client, inner: Transport, options: McpTransportOptions = {}) {
    this.client = client;
    this.inner = inner;
    this.options = options;
    inner.onmessage = (message, extra) => {
      guard(options.onError, () => this.fromServer(message as Any));
      this.onmessage?.(message, extra);
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      guard(options.onError, () => this.unanswered("the call was never answered: the transport closed"));
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const m = message as Any;
    let call: { name: string; args: Record<string, unknown>; metadata: Record<string, unknown> } | null = null;
    try {
      if (m?.method === "initialize" && m.id !== undefined) this.initializeId = idText(m.id);
      if (m?.method === "notifications/cancelled") this.cancelled(m.params);
      if (isToolsCall(m)) {
        call = {
          name: String(m.params?.name ?? "unknown"),
          args: asObject(m.params?.arguments ?? {}),
          metadata: defined({ adapter: ADAPTER, jsonrpc_id: idText(m.id), ...this.server }),
        };
      }
    } catch (e) {
      report(this.options.onError, e);
    }
    if (call === null) return this.inner.send(message, options);
    let decisionId: string | undefined;
    if (this.options.gate) {
      const outcome = await askGate(this.client, call.name, call.args, this.options);
      if (!outcome.run) {
        const refusal = { jsonrpc: "2.0", id: m.id, result: { content: [{ type: "text", text: outcome.text }], isError: true } };
        queueMicrotask(() => this.onmessage?.(refusal as JSONRPCMessage));
        return;
      }
      decisionId = outcome.decisionId;
      Object.assign(call.metadata, outcome.metadata ?? {});
    }
    const { name, args, metadata } = call;
    guard(this.options.onError, () => {
      record(this.client, this.options.onError, { actionType: "TOOL_CALL", actionName: name, input: args, metadata, decisionId });
      if (this.pending.size >= MAX_PENDING) {
        const oldest = this.pending.keys().next().value;
        if (oldest !== undefined) this.pending.delete(oldest);
      }
      this.pending.set(idText(m.id), { name, start: performance.now(), metadata });
    });
    return this.inner.send(message, options);
  }

  private fromServer(m: Any): void {
    if (!isAnswer(m)) return;
    const id = idText(m.id);
    if (id === this.initializeId) {
      this.initializeId = null;
      const info = m.result?.serverInfo as Any | undefined;
      this.server = defined({
        mcp_server_name: typeof info?.name === "string" ? info.name : undefined,
        mcp_server_version: typeof info?.version === "string" ? info.version : undefined,
      });
    }
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    const failed = "error" in m || m.result?.isError === true;
    this.result(call, "error" in m ? { error: m.error } : asObject(m.result), failed,
      failed ? ("error" in m ? String(m.error?.message ?? "JSON-RPC error") : textOf(m.result)) : undefined);
  }

  private result(call: Pending, output: Record<string, unknown> | undefined, failed: boolean, error: string | undefined): void {
    record(this.client, this.options.onError, {
      actionType: "TOOL_RESULT",
      actionName: call.name,
      output,
      status: failed ? "error" : "success",
      error,
      durationMs: Math.round(performance.now() - call.start),
      metadata: call.metadata,
    });
  }

  private cancelled(params: Any | undefined): void {
    if (params?.requestId === undefined) return;
    const id = idText(params.requestId);
    const call = this.pending.get(id);
    if (!call) return;
    this.pending.delete(id);
    const reason = typeof params.reason === "string" && params.reason ? `: ${params.reason}` : "";
    this.result(call, undefined, true, `cancelled by the client${reason}`);
  }

  private unanswered(message: string): void {
    for (const call of this.pending.values()) this.result(call, undefined, true, message);
    this.pending.clear();
  }
}

/** `new TrailproofTransport(client, transport, options)`: connect your MCP `Client` with it. */
export function auditTransport(client: Client, transport: Transport, options: McpTransportOptions = {}): TrailproofTransport {
  return new TrailproofTransport(client, transport, options);
}
