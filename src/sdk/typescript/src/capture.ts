/** The capture helper `client.audited(fn, options)` (src/site/typescript-sdk.md#capture). */

import type { Client, Receipt } from "./client.js";
import { ApprovalTimeout, Denied, Unavailable } from "./errors.js";
import { FAIL_MODES, type FailMode } from "./gate.js";
import { jsonable } from "./values.js";

export interface AuditedOptions {
  /** Default `TOOL_CALL`. */
  actionType?: string;
  /** Default the function's name. */
  actionName?: string;
  /**
   * The event's `action_input` for a call's arguments; default `{"args": [...]}`. A tool called
   * with one object of named arguments is usually recorded best as `(args) => args`.
   */
  input?: (...args: never[]) => unknown;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  /** Propose each call to the gate before it runs (the wrapper then returns a promise). */
  gate?: boolean;
  /** How long an `ask` waits for a person (default 60,000 ms). */
  askTimeoutMs?: number;
  /** When the gate cannot be asked: `closed` (default) refuses the call, `open` runs it. */
  failMode?: FailMode;
}

export type Audited<A extends unknown[], R> = ((...args: A) => R) | ((...args: A) => Promise<Awaited<R>>);

function errorText(e: unknown): string {
  if (e instanceof Error) return e.message ? `${e.name}: ${e.message}` : e.name;
  return String(e);
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

/**
 * Asks the gate about one call; resolves to the `decisionId` and the metadata to record it with, or
 * rejects (`Denied`, `ApprovalTimeout`, `Unavailable`) when it must not run.
 */
async function gateCall(
  client: Client,
  actionType: string,
  name: string,
  input: unknown,
  askTimeoutMs: number,
  failMode: FailMode,
): Promise<{ decisionId: string | null; metadata: Record<string, unknown> | undefined }> {
  let d;
  try {
    d = await client.decide({ actionName: name, input, actionType });
    if (d.state === "pending") await d.wait(askTimeoutMs);
  } catch (e) {
    if (e instanceof Unavailable && failMode === "open") return { decisionId: null, metadata: { gate: "unavailable" } };
    throw e;
  }
  if (d.allowed) return { decisionId: d.decisionId, metadata: undefined };
  const why = d.reason ? ` (${d.reason})` : "";
  if (d.state === "deny" || d.state === "denied") throw new Denied(`the gate refused ${name}${why}`, d);
  throw new ApprovalTimeout(`${name} was not approved within ${askTimeoutMs / 1000} s (${d.state})${why}`, d);
}

/**
 * Wraps `fn` so that each call is recorded: its arguments as input, its result (awaited when it is
 * a promise) as output, or its error (rethrown unchanged). With `gate`, each call is decided first;
 * its input is then copied once, so the recorded input is the one the decision covered even when
 * the function changes its arguments.
 */
export function audited<A extends unknown[], R>(client: Client, fn: (...args: A) => R, options: AuditedOptions = {}): Audited<A, R> {
  if (typeof fn !== "function") throw new TypeError("audited() needs a function");
  const actionType = options.actionType ?? "TOOL_CALL";
  const name = options.actionName ?? (fn.name || "function");
  const failMode = options.failMode ?? "closed";
  if (!FAIL_MODES.includes(failMode)) throw new RangeError(`failMode must be "closed" or "open", not ${JSON.stringify(failMode)}`);
  const askTimeoutMs = options.askTimeoutMs ?? 60_000;
  if (!(askTimeoutMs >= 0)) throw new RangeError("askTimeoutMs must be 0 or more");
  const inputOf = (args: A): unknown => (options.input ? (options.input as (...a: A) => unknown)(...args) : { args });

  function record(input: unknown, start: number, ok: boolean, value: unknown, decisionId: string | null,
    metadata: Record<string, unknown> | undefined): void {
    const md = options.metadata || metadata ? { ...(options.metadata ?? {}), ...(metadata ?? {}) } : undefined;
    client.log({
      actionType,
      actionName: name,
      input,
      output: ok && value !== undefined && value !== null ? value : undefined,
      status: ok ? "success" : "error",
      error: ok ? undefined : errorText(value),
      durationMs: performance.now() - start,
      labels: options.labels,
      metadata: md,
      decisionId: decisionId ?? undefined,
    });
  }

  if (options.gate) {
    return async function (this: unknown, ...args: A): Promise<Awaited<R>> {
      let input = inputOf(args);
      let decisionId: string | null = null;
      let metadata: Record<string, unknown> | undefined;
      if (client.enabled) {
        input = jsonable(input);
        ({ decisionId, metadata } = await gateCall(client, actionType, name, input, askTimeoutMs, failMode));
      }
      const start = performance.now();
      let out: Awaited<R>;
      try {
        out = await fn.apply(this, args);
      } catch (e) {
        record(input, start, false, e, decisionId, metadata);
        throw e;
      }
      record(input, start, true, out, decisionId, metadata);
      return out;
    };
  }

  return function (this: unknown, ...args: A): R {
    const input = inputOf(args);
    const start = performance.now();
    let out: R;
    try {
      out = fn.apply(this, args);
    } catch (e) {
      record(input, start, false, e, null, undefined);
      throw e;
    }
    if (isThenable(out)) {
      return Promise.resolve(out).then(
        (v) => {
          record(input, start, true, v, null, undefined);
          return v;
        },
        (e) => {
          record(input, start, false, e, null, undefined);
          throw e;
        },
      ) as R;
    }
    record(input, start, true, out, null, undefined);
    return out;
  };
}

/** What `client.action` records besides the outcome. */
export interface ActionFields {
  /** Default `TOOL_CALL`. */
  actionType?: string;
  actionName?: string;
  input?: unknown;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  decisionId?: string;
}

/**
 * One action being recorded by `client.action`: set `output` (and optionally `status`) inside the
 * body; `receipt` is the event's receipt once the body has ended.
 */
export class Action {
  output: unknown = undefined;
  status: string | undefined = undefined;
  receipt: Receipt | null = null;
  constructor(readonly fields: ActionFields) {}
}

/**
 * Runs `body(action)` and records one event when it ends (returns, or settles when it returns a
 * promise): `action.output` as output, `action.status` or `success`, or the error, rethrown
 * unchanged. Resolves or returns what `body` does.
 */
export function action<R>(client: Client, fields: ActionFields, body: (a: Action) => R): R {
  const a = new Action(fields);
  const start = performance.now();
  const finish = (failed: boolean, error?: unknown): void => {
    a.receipt = client.log({
      actionType: fields.actionType ?? "TOOL_CALL",
      actionName: fields.actionName,
      input: fields.input,
      output: a.output === null ? undefined : a.output,
      status: a.status ?? (failed ? "error" : "success"),
      error: failed ? errorText(error) : undefined,
      durationMs: performance.now() - start,
      labels: fields.labels,
      metadata: fields.metadata,
      decisionId: fields.decisionId,
    });
  };
  let out: R;
  try {
    out = body(a);
  } catch (e) {
    finish(true, e);
    throw e;
  }
  if (isThenable(out)) {
    return Promise.resolve(out).then(
      (v) => {
        finish(false);
        return v;
      },
      (e) => {
        finish(true, e);
        throw e;
      },
    ) as R;
  }
  finish(false);
  return out;
}
