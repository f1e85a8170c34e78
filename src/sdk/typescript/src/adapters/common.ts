/**
 * What the framework adapters share: reporting their own failures to `onError` instead of throwing
 * into the user's agent, turning framework values into event fields, and asking the gate before a
 * tool runs.
 */

import { createHash } from "node:crypto";

import { ApprovalTimeout, Denied, Unavailable } from "../errors.js";
import { canonicalize } from "../jcs.js";
import { jsonable } from "../values.js";
import type { Client, LogFields } from "../client.js";

/** Options every adapter takes. */
export interface AdapterOptions {
  /**
   * Told about every failure of the adapter itself (a framework value it could not read, an event
   * the client refused to queue). The adapter never throws into the agent for these; without
   * `onError` each is a process warning (`TrailproofWarning`), as the client's own.
   */
  onError?: (error: unknown) => void;
}

/** Options of the gated tool wrappers. */
export interface GateOptions extends AdapterOptions {
  /** How long an `ask` waits for a person's answer (default 60,000 ms). */
  askTimeoutMs?: number;
  /**
   * What to do when trailproof cannot be asked: `closed` (the default) refuses the call; `open` runs
   * it and records it with `metadata.gate = "unavailable"` and no `decision_id`.
   */
  failMode?: "closed" | "open";
}

/** Reports `error` to `onError`, or as a process warning; never throws. */
export function report(onError: ((error: unknown) => void) | undefined, error: unknown): void {
  try {
    if (onError) {
      onError(error);
      return;
    }
  } catch {
    // An onError that throws is not allowed to break the agent either: fall back to a warning.
  }
  try {
    process.emitWarning(describe(error), "TrailproofWarning");
  } catch {
    // Nothing left to tell.
  }
}

/** Runs `fn`, reporting whatever it throws to `onError`; never throws. */
export function guard(onError: ((error: unknown) => void) | undefined, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    report(onError, e);
  }
}

/** One event's canonical form may be at most 1 MiB (events.md#accepted-fields). */
const MAX_EVENT_BYTES = 1_048_576;
/** What an input or output may take of it, leaving room for the event's other fields. */
export const MAX_CONTENT_BYTES = MAX_EVENT_BYTES - 65_536;
/** `error_message` holds at most 64 KiB (UTF-16 code units). */
export const MAX_ERROR_CHARS = 65_536;

/**
 * `value` as `action_input` / `action_output` may hold it: a JSON object (anything else as
 * `{"value": ...}`), or, when its RFC 8785 form is larger than an event may hold, a summary saying so
 * that lets anyone match it against the original: `{"omitted": "larger than one event may hold
 * (1 MiB)", "canonical_bytes", "canonical_sha256"}`, as the MCP proxy and the LLM gateway record it.
 */
export function fit(value: unknown): Record<string, unknown> {
  const j = jsonable(value);
  const obj = j !== null && typeof j === "object" && !Array.isArray(j) ? (j as Record<string, unknown>) : { value: j ?? null };
  // A UTF-16 code unit is at most 3 bytes of UTF-8, and the canonical form is no longer than JSON's.
  if (JSON.stringify(obj).length * 3 <= MAX_CONTENT_BYTES) return obj;
  const canonical = Buffer.from(canonicalize(obj), "utf8");
  if (canonical.length <= MAX_CONTENT_BYTES) return obj;
  return {
    omitted: "larger than one event may hold (1 MiB)",
    canonical_bytes: canonical.length,
    canonical_sha256: createHash("sha256").update(canonical).digest("hex"),
  };
}

/** `s` cut to at most `max` UTF-16 code units, never between the two halves of a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const code = s.charCodeAt(max - 1);
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * Logs one event, its input and output fitted (`fit`) and its error message cut to 64 KiB, so the
 * service never refuses it for its size; whatever `log` throws (a full queue, say) goes to
 * `onError`. Never throws.
 */
export function record(client: Client, onError: ((error: unknown) => void) | undefined, fields: LogFields): void {
  guard(onError, () => {
    const f: LogFields = { ...fields };
    if (f.input !== undefined) f.input = fit(f.input);
    if (f.output !== undefined) f.output = fit(f.output);
    if (f.error !== undefined) f.error = cut(f.error, MAX_ERROR_CHARS);
    client.log(f);
  });
}

/**
 * Records a gated tool's call as it starts and returns what records its result: `(true, output)` or
 * `(false, error)`, with the call's duration and the same metadata.
 */
export function recordToolCall(
  client: Client,
  onError: ((error: unknown) => void) | undefined,
  call: { name: string; args: Record<string, unknown>; metadata: Record<string, unknown>; decisionId?: string },
): (ok: boolean, value: unknown) => void {
  const { name, metadata } = call;
  record(client, onError, { actionType: "TOOL_CALL", actionName: name, input: call.args, metadata, decisionId: call.decisionId });
  const start = performance.now();
  return (ok, value) =>
    record(client, onError, {
      actionType: "TOOL_RESULT",
      actionName: name,
      output: ok ? asObject(value) : undefined,
      status: ok ? "success" : "error",
      error: ok ? undefined : messageOf(value),
      durationMs: Math.round(performance.now() - start),
      metadata,
    });
}

/** One line about an error or any thrown value. */
export function describe(error: unknown): string {
  if (error instanceof Error) return error.message ? `${error.name}: ${error.message}` : error.name;
  try {
    return typeof error === "string" ? error : JSON.stringify(jsonable(error));
  } catch {
    return String(error);
  }
}

/** The message of an error as `error_message` carries it. */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return describe(error);
}

/**
 * A JSON object for `action_input` / `action_output` (which must be objects): an object as it is
 * (through `jsonable`), a string holding a JSON object parsed, anything else as `{"value": ...}`.
 */
export function asObject(value: unknown): Record<string, unknown> {
  let v: unknown = value;
  if (typeof v === "string") {
    const t = v.trim();
    if (t.startsWith("{")) {
      try {
        v = JSON.parse(t);
      } catch {
        v = value;
      }
    }
  }
  const j = jsonable(v);
  if (j !== null && typeof j === "object" && !Array.isArray(j)) return j as Record<string, unknown>;
  return j === undefined ? {} : { value: j };
}


/** Leaves out the fields whose value is undefined (an absent field, not a null one). */
export function defined<T extends Record<string, unknown>>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}

/** What the gate said about one proposed call. */
export type GateOutcome =
  | {
      /** Run the call, recording it with these fields. */
      run: true;
      /** The decision the `TOOL_CALL` binds to (absent when the gate was unavailable in fail mode `open`). */
      decisionId?: string;
      /** `{gate: "unavailable"}` when the call runs unchecked in fail mode `open`. */
      metadata?: Record<string, unknown>;
    }
  | {
      /** Do not run the call. */
      run: false;
      /** `Denied`, `ApprovalTimeout`, `Unavailable`, or the error that stopped the proposal. */
      error: Error;
      /** The sentence the agent (or its model) is answered with. */
      text: string;
    };

/**
 * Proposes `actionName` with `input` to the gate and waits for a final answer: `allow` or an approved
 * `ask` runs (with the decision's id), `deny`, a denied `ask` or one not approved within `askTimeout`
 * does not. When trailproof cannot be asked, fail mode `closed` refuses and `open` runs unchecked.
 * Any other failure of the proposal (a 400, a key without role `ingest`) refuses in both modes: `open`
 * is for an outage, never for a misconfiguration. Never throws.
 */
export async function askGate(
  client: Client,
  actionName: string,
  input: Record<string, unknown>,
  options: GateOptions,
): Promise<GateOutcome> {
  const failMode = options.failMode ?? "closed";
  const askTimeoutMs = options.askTimeoutMs ?? 60_000;
  if (!client.enabled) return { run: true };
  let decision;
  try {
    decision = await client.decide({ actionName, input, actionType: "TOOL_CALL" });
    if (decision.state === "pending") await decision.wait(askTimeoutMs);
  } catch (e) {
    if (e instanceof Unavailable) {
      if (failMode === "open") {
        report(options.onError, e);
        return { run: true, metadata: { gate: "unavailable" } };
      }
      return { run: false, error: e, text: `trailproof gate unavailable, ${actionName} refused: ${messageOf(e)}` };
    }
    report(options.onError, e);
    const err = e instanceof Error ? e : new Error(describe(e));
    return { run: false, error: err, text: `trailproof gate could not decide on ${actionName}: ${messageOf(e)}` };
  }
  if (decision.allowed) return { run: true, decisionId: decision.decisionId ?? undefined };
  const because = `(${decision.rule ? `rule ${decision.rule}: ` : ""}${decision.reason ?? "no reason given"})`;
  const state = decision.state;
  if (state === "deny" || state === "denied") {
    const text = `trailproof gate ${state === "denied" ? "denied by a person" : "denied"} ${actionName} ${because}`;
    return { run: false, error: new Denied(text, decision), text };
  }
  const text =
    state === "expired"
      ? `trailproof gate: the approval of ${actionName} expired ${because}`
      : `trailproof gate: ${actionName} was not approved within ${askTimeoutMs / 1000} s ${because}`;
  return { run: false, error: new ApprovalTimeout(text, decision), text };
}
