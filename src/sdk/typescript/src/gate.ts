/**
 * Decisions before the action: `client.decide(...)` and the `Decision` it resolves to
 * (src/site/typescript-sdk.md#gates).
 *
 * A decision is asked with `POST /v1/decisions` (the service records it as a `DECISION` event
 * before it answers); an `ask` is waited for with `GET /v1/decisions/{id}?wait=...`. Both are
 * requests of their own, never queued behind the background sender.
 */

import type { Client } from "./client.js";
import { RejectedEvent, TrailproofError, Unavailable } from "./errors.js";
import { NoAnswer, type Response, errorMessage, newIdempotencyKey, request } from "./transport.js";

export type FailMode = "closed" | "open";
export const FAIL_MODES: readonly FailMode[] = ["closed", "open"];
/** The states in which the proposed call may run: an `allow` decision, or an `ask` a person approved. */
const RUNS = ["allow", "approved"];
/** The service long-polls at most 60 s per request (src/site/gates.md). */
export const MAX_WAIT_PER_REQUEST_MS = 60_000;
const FINAL = ["allow", "deny", "approved", "denied", "expired"];

/** What `client.decide` proposes: the fields of the event the action would be recorded as. */
export interface DecideOptions {
  actionName: string;
  input?: unknown;
  /** Default `TOOL_CALL`. */
  actionType?: string;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  sessionId?: string;
  /** Any further event fields, by their wire names. */
  fields?: Record<string, unknown>;
}

/** A status that says the gate could not answer now (rather than that the request is wrong). */
function unavailable(r: Response): boolean {
  return r.status === 408 || r.status === 429 || r.status >= 500;
}

function str(v: unknown): string | null {
  return typeof v === "string" ? v : null;
}

/**
 * The service's decision about one proposed call.
 *
 * `decision` is `allow`, `deny` or `ask` as first answered; `state` follows it: `allow` and `deny`
 * are final at once, an `ask` is `pending` until a person answers (`approved`, `denied`) or it
 * expires (`expired`). `decisionId` is the id of the `DECISION` event (null when the client is
 * disabled); `rule` and `reason` come from the rule that decided (null when the policy's default
 * did). `answer` is the service's last answer as it came.
 */
export class Decision {
  answer: Record<string, unknown>;
  readonly decision: string;
  readonly decisionId: string | null;
  rule: string | null;
  reason: string | null;
  argsSha256: string | null;
  expiresAt: string | null;
  state: string;

  constructor(
    private readonly client: Client | null,
    answer: Record<string, unknown>,
  ) {
    this.answer = answer;
    this.decision = String(answer.decision ?? "");
    this.decisionId = str(answer.decision_id);
    this.rule = str(answer.rule);
    this.reason = str(answer.reason);
    this.argsSha256 = str(answer.args_sha256);
    this.expiresAt = str(answer.expires_at);
    this.state = this.decision === "ask" ? "pending" : this.decision;
  }

  /** True when the call may run now: allowed at once, or approved. */
  get allowed(): boolean {
    return RUNS.includes(this.state);
  }

  get final(): boolean {
    return FINAL.includes(this.state);
  }

  /**
   * Waits up to `timeoutMs` (default: until the service says it expired) for a person to answer a
   * pending `ask` and resolves to the new `state` (still `pending` when the time ran out). Resolves at
   * once when the state is already final. Rejects with `Unavailable` when the service cannot be
   * reached.
   */
  async wait(timeoutMs?: number): Promise<string> {
    if (this.final || this.client === null || !this.decisionId) return this.state;
    const deadline = timeoutMs === undefined ? null : performance.now() + Math.max(0, timeoutMs);
    const path = "/v1/decisions/" + encodeURIComponent(this.decisionId);
    for (;;) {
      const left = deadline === null ? MAX_WAIT_PER_REQUEST_MS : Math.min(MAX_WAIT_PER_REQUEST_MS, deadline - performance.now());
      const seconds = Math.max(0, Math.floor(left / 1000));
      const query = seconds > 0 ? `?wait=PT${seconds}S` : "";
      this.update(await call(this.client, "GET", path + query, null, seconds * 1000));
      if (this.final || seconds === 0 || (deadline !== null && performance.now() >= deadline - 500)) {
        return this.state;
      }
    }
  }

  private update(answer: Record<string, unknown>): void {
    this.answer = answer;
    const state = answer.state;
    if (typeof state === "string" && state) this.state = state;
    if (str(answer.rule) !== null) this.rule = str(answer.rule);
    if (str(answer.reason) !== null) this.reason = str(answer.reason);
    if (str(answer.args_sha256) !== null) this.argsSha256 = str(answer.args_sha256);
    if (str(answer.expires_at) !== null) this.expiresAt = str(answer.expires_at);
  }
}

/**
 * One request; the answer's JSON object, or the SDK's error for it. With an `Idempotency-Key` a
 * request that got no answer is sent once more: the service answers a repeat from its record, so
 * the decision is still recorded once.
 */
async function call(
  client: Client,
  method: string,
  path: string,
  body: string | null,
  waitMs: number,
  key: string | null = null,
): Promise<Record<string, unknown>> {
  const headers = key ? { "Idempotency-Key": key } : null;
  const route = path.split("?")[0];
  let r: Response | null = null;
  for (let attempt = 1; r === null; attempt++) {
    try {
      r = await request(client.url, client.apiKey, method, path, body, headers, client.requestTimeoutMs + waitMs);
    } catch (e) {
      if (!(e instanceof NoAnswer)) throw e;
      if (attempt === 2 || key === null) {
        throw new Unavailable(`trailproof at ${client.url} is unreachable: ${e.message}`);
      }
    }
  }
  if (unavailable(r)) throw new Unavailable(`trailproof answered ${r.status}: ${errorMessage(r)}`);
  if (r.status === 400) throw new RejectedEvent(errorMessage(r));
  if (r.status !== 200 && r.status !== 201) {
    throw new TrailproofError(`trailproof answered ${r.status} to ${method} ${route}: ${errorMessage(r)}`);
  }
  let answer: unknown;
  try {
    answer = JSON.parse(r.body.toString("utf8"));
  } catch {
    throw new Unavailable(`trailproof's answer to ${method} ${route} is not JSON`);
  }
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) {
    throw new Unavailable(`trailproof's answer to ${method} ${route} is not a JSON object`);
  }
  return answer as Record<string, unknown>;
}

/** Asks the gate about one proposed event (already shaped and redacted like a logged one). */
export async function decide(client: Client, proposal: Record<string, unknown>): Promise<Decision> {
  const answer = await call(client, "POST", "/v1/decisions", JSON.stringify(proposal), 0, newIdempotencyKey());
  if (!["allow", "deny", "ask"].includes(answer.decision as string) || !answer.decision_id) {
    throw new Unavailable(
      `trailproof's decision has no decision_id or an unknown decision ${JSON.stringify(answer.decision)}`,
    );
  }
  return new Decision(client, answer);
}
