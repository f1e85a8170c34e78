/**
 * The trailproof client: events queued by the caller, sent in the background in batches
 * (src/site/typescript-sdk.md of the trailproof documentation).
 */

import { randomBytes } from "node:crypto";

import { type Action, type ActionFields, type Audited, type AuditedOptions, action, audited } from "./capture.js";
import { QueueFull, TrailproofError } from "./errors.js";
import { closeAtExit, forgetAtExit } from "./exit.js";
import { Decision, decide, type DecideOptions } from "./gate.js";
import { type ClientOptions, resolveOptions } from "./options.js";
import { Receipt } from "./receipt.js";
import { Sender } from "./sender.js";
import { Spool } from "./spool.js";
import { asObject, jsonable, mayHoldLoneSurrogate, utcNow } from "./values.js";
import { type Verification, verifyStored } from "./verify.js";

export type { ClientOptions } from "./options.js";
export { Receipt, type Ack } from "./receipt.js";

/** The capture path this SDK names in every event (src/site/completeness.md#coverage). */
export const CAPTURE_METHOD = "typescript-sdk";

/** What `client.log` records; `actionType` is the only field required. */
export interface LogFields {
  actionType: string;
  actionName?: string;
  /** `action_input`: a plain object as is, anything else as `{"value": ...}`. */
  input?: unknown;
  /** `action_output`, as `input`. */
  output?: unknown;
  status?: string;
  error?: string;
  durationMs?: number;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  sessionId?: string;
  /** RFC 3339; defaults to the time of the call. */
  timestamp?: string;
  /** Binds a `TOOL_CALL` to the gate's decision that allowed it. */
  decisionId?: string;
}

/**
 * Sends events to trailproof (src/site/typescript-sdk.md#client).
 *
 * `log()` never waits for the network: events go to a bounded queue (`maxQueue`) that a background
 * loop sends in batches of up to `batchSize` at least every `flushIntervalMs`, each batch with one
 * `Idempotency-Key` reused on every retry. A full queue makes `log()` throw `QueueFull` at once (the
 * event loop cannot block without stopping the sender too). Batches still unsent when `close()`
 * gives up, or when the process exits, are written to the spool and sent first by the next client.
 */
export class Client {
  readonly enabled: boolean;
  readonly url: string;
  readonly apiKey: string | null;
  readonly agentId: string;
  readonly sessionId: string | null;
  readonly labels: Record<string, string>;
  readonly metadata: Record<string, unknown>;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly maxQueue: number;
  readonly requestTimeoutMs: number;
  readonly closeTimeoutMs: number;
  readonly maxBackoffMs: number;
  readonly spoolDir: string;
  readonly logKey: string | null;
  readonly onError: ((error: TrailproofError) => void) | null;
  readonly beforeSend: ((event: Record<string, unknown>) => Record<string, unknown>) | null;
  /** This client's capture stream (src/site/completeness.md#capture-sequences): `ts-` and 32 hex digits. */
  readonly captureId: string;

  private readonly spool: Spool;
  private readonly sender: Sender | null = null;
  private captureSeq = 0;
  private dropped: [number, number][] = [];
  private closePromise: Promise<void> | null = null;

  constructor(options: ClientOptions = {}) {
    const s = resolveOptions(options);
    this.enabled = s.enabled;
    this.url = s.url;
    this.apiKey = s.apiKey;
    this.agentId = s.agentId;
    this.sessionId = s.sessionId;
    this.labels = s.labels;
    this.metadata = s.metadata;
    this.batchSize = s.batchSize;
    this.flushIntervalMs = s.flushIntervalMs;
    this.maxQueue = s.maxQueue;
    this.requestTimeoutMs = s.requestTimeoutMs;
    this.closeTimeoutMs = s.closeTimeoutMs;
    this.maxBackoffMs = s.maxBackoffMs;
    this.spoolDir = s.spoolDir;
    this.logKey = s.logKey;
    this.onError = s.onError;
    this.beforeSend = s.beforeSend;
    this.captureId = "ts-" + randomBytes(16).toString("hex");
    this.spool = new Spool(this.spoolDir, this.url);
    if (this.enabled) {
      closeAtExit(this);
      this.sender = new Sender(this, this.spool, (error) => this.report(error));
    }
  }

  // ------------------------------------------------------------------ capture

  /**
   * Queues one event and returns its `Receipt` at once. Throws `QueueFull` when `maxQueue` events
   * are waiting (the event's capture number is then reported as dropped on the next event), and
   * `TrailproofError` once the client is closed.
   */
  log(fields: LogFields): Receipt {
    const sender = this.sender;
    if (sender === null) {
      const r = new Receipt(null);
      r._resolve(null);
      return r;
    }
    if (sender.closing) throw new TrailproofError("the client is closed");
    const seq = ++this.captureSeq;
    if (sender.queue.size >= this.maxQueue) {
      this.lost(seq);
      throw new QueueFull(
        `the trailproof queue is full (${this.maxQueue} events): trailproof is down or too slow; the event was not queued`,
      );
    }
    const dropped = this.dropped.length ? this.dropped.shift()! : null;
    let event = this.event(fields.actionType, fields.actionName, fields.input, fields.labels, fields.metadata,
      fields.sessionId);
    if (fields.status !== undefined && fields.status !== null) event.action_status = String(fields.status);
    if (fields.error !== undefined && fields.error !== null) event.error_message = String(fields.error);
    if (fields.output !== undefined) event.action_output = asObject(fields.output);
    if (fields.durationMs !== undefined && fields.durationMs !== null) {
      event.duration_ms = Math.max(0, Math.round(fields.durationMs));
    }
    if (fields.decisionId !== undefined && fields.decisionId !== null) event.decision_id = String(fields.decisionId);
    event.timestamp = fields.timestamp ?? utcNow();
    if (this.beforeSend !== null) event = this.redact(event);
    // Set after redaction: a hook cannot take an event out of its stream.
    event.capture_id = this.captureId;
    event.capture_seq = seq;
    if (dropped !== null) event.capture_dropped = dropped;
    let data = JSON.stringify(event);
    if (mayHoldLoneSurrogate(data)) {
      event = jsonable(event) as Record<string, unknown>;
      data = JSON.stringify(event);
    }
    const receipt = new Receipt(data, seq);
    sender.push(receipt);
    return receipt;
  }

  /** The fields a logged event and a proposal to the gate share, in the same order. */
  private event(
    actionType: string | undefined,
    actionName: string | undefined,
    input: unknown,
    labels: Record<string, string> | undefined,
    metadata: Record<string, unknown> | undefined,
    sessionId: string | undefined,
  ): Record<string, unknown> {
    const event: Record<string, unknown> = { agent_id: this.agentId };
    const sid = sessionId || this.sessionId;
    if (sid) event.session_id = String(sid);
    event.capture_method = CAPTURE_METHOD;
    if (actionType !== undefined && actionType !== null) event.action_type = String(actionType);
    if (actionName !== undefined && actionName !== null) event.action_name = String(actionName);
    if (input !== undefined) event.action_input = asObject(input);
    const md = metadata ? { ...this.metadata, ...metadata } : this.metadata;
    for (const _ in md) {
      event.metadata = asObject(md);
      break;
    }
    const lb = labels ? { ...this.labels, ...labels } : this.labels;
    let out: Record<string, string> | null = null;
    for (const k in lb) {
      (out ??= {})[String(k)] = String(lb[k]);
    }
    if (out) event.labels = out;
    return event;
  }

  /** Number `seq` will never be sent: the next event says so (`capture_dropped`). */
  private lost(seq: number): void {
    const last = this.dropped[this.dropped.length - 1];
    if (last && last[1] + 1 === seq) last[1] = seq;
    else this.dropped.push([seq, seq]);
  }

  private redact(event: Record<string, unknown>): Record<string, unknown> {
    try {
      // a deep copy: the caller's objects stay untouched
      const out = this.beforeSend!(jsonable(event) as Record<string, unknown>);
      if (out === null || typeof out !== "object" || Array.isArray(out)) {
        throw new TypeError(`beforeSend returned ${out === null ? "null" : Array.isArray(out) ? "an array" : typeof out}, not an object`);
      }
      return jsonable(out) as Record<string, unknown>;
    } catch (e) {
      // fail safe: the event is kept, its content is not
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      this.report(
        new TrailproofError(
          `beforeSend failed (${what}); the event is sent with its content replaced by {"redaction_failed": true}`,
        ),
      );
      const safe: Record<string, unknown> = {};
      for (const k of Object.keys(event)) {
        if (k !== "action_input" && k !== "action_output" && k !== "metadata" && k !== "error_message") {
          safe[k] = event[k];
        }
      }
      safe.action_input = { redaction_failed: true };
      if ("action_output" in event) safe.action_output = { redaction_failed: true };
      if ("metadata" in event) safe.metadata = { redaction_failed: true };
      return safe;
    }
  }

  /**
   * Asks the gate whether `actionName` with `input` may run now and resolves to its `Decision`
   * (src/site/typescript-sdk.md#gates). The service has recorded the `DECISION` event when it resolves.
   * Rejects with `Unavailable` when trailproof cannot be reached or answers 408, 429 or 5xx,
   * `RejectedEvent` for a proposal the service refuses (400), and `TrailproofError` for any other
   * refusal (401, 403). With the client disabled, the answer is `allow` with no `decisionId`.
   */
  async decide(options: DecideOptions): Promise<Decision> {
    if (!this.enabled) {
      return new Decision(null, {
        decision: "allow",
        decision_id: null,
        reason: "trailproof is disabled (TRAILPROOF_ENABLED=false)",
      });
    }
    const { actionName, input, actionType, labels, metadata, sessionId, fields } = options;
    let event = this.event(actionType ?? "TOOL_CALL", actionName, input, labels, metadata, sessionId);
    for (const [k, v] of Object.entries(fields ?? {})) {
      if (v !== undefined && v !== null) event[k] = jsonable(v);
    }
    event.timestamp = utcNow();
    if (this.beforeSend !== null) event = this.redact(event);
    return decide(this, jsonable(event) as Record<string, unknown>);
  }

  /**
   * Wraps a sync or async function so that each call is recorded (src/site/typescript-sdk.md#capture); with
   * `gate: true` each call is first proposed to the gate and the wrapper returns a promise.
   */
  audited<A extends unknown[], R>(fn: (...args: A) => R, options: AuditedOptions & { gate: true }): (...args: A) => Promise<Awaited<R>>;
  audited<A extends unknown[], R>(fn: (...args: A) => R, options?: AuditedOptions): (...args: A) => R;
  audited<A extends unknown[], R>(fn: (...args: A) => R, options: AuditedOptions = {}): Audited<A, R> {
    return audited(this, fn, options);
  }

  /**
   * Runs `body(a)` and records one action when it ends (src/site/typescript-sdk.md#capture): set
   * `a.output` (and optionally `a.status`) inside; an error is recorded and rethrown. Returns what
   * `body` returns (a promise is awaited before the event is recorded); `a.receipt` is then set.
   */
  action<R>(fields: ActionFields, body: (a: Action) => R): R {
    return action(this, fields, body);
  }

  // ------------------------------------------------------------------ delivery

  /** Events logged but not yet acknowledged, refused or spooled. */
  get pending(): number {
    return this.sender?.pending ?? 0;
  }

  /**
   * Sends everything queued so far now and resolves when it is acknowledged (or refused, or
   * spooled): true when that happened within `timeoutMs` (default: no limit).
   */
  flush(timeoutMs?: number): Promise<boolean> {
    if (this.sender === null) return Promise.resolve(true);
    return this.sender.flush(timeoutMs);
  }

  /**
   * Sends what is queued for up to `timeoutMs` (default `closeTimeoutMs`), then writes whatever is
   * still unsent to the spool. Idempotent; also runs when the process's event loop empties
   * (`beforeExit`). After `process.exit()` the unsent events are spooled synchronously instead.
   */
  close(timeoutMs?: number): Promise<void> {
    const sender = this.sender;
    if (sender === null) return Promise.resolve();
    if (this.closePromise !== null) return this.closePromise;
    this.endStream(sender);
    this.closePromise = (async () => {
      await sender.close(timeoutMs ?? this.closeTimeoutMs);
      forgetAtExit(this);
    })();
    return this.closePromise;
  }

  /**
   * Marks the end of the capture stream: the last event still queued gets `capture_last`, or, when it
   * was sent already, a `CAPTURE_END` event is queued.
   */
  private endStream(sender: Sender): void {
    const last = this.captureSeq;
    const dropped = this.dropped.length ? this.dropped.shift()! : null;
    const tail = sender.queue.last();
    if (tail !== null && tail.seq === last && last > 0 && dropped === null) {
      const event = JSON.parse(tail.data) as Record<string, unknown>;
      event.capture_last = true;
      tail.data = JSON.stringify(event);
      return;
    }
    const seq = ++this.captureSeq;
    const event: Record<string, unknown> = {
      agent_id: this.agentId,
      capture_method: CAPTURE_METHOD,
      action_type: "CAPTURE_END",
      action_name: "close",
      timestamp: utcNow(),
      capture_id: this.captureId,
      capture_seq: seq,
      capture_last: true,
    };
    if (this.sessionId) event.session_id = String(this.sessionId);
    if (dropped !== null) event.capture_dropped = dropped;
    sender.push(new Receipt(JSON.stringify(event), seq));
  }

  /** @internal The process is exiting: spool everything unsent, synchronously. */
  _spoolAtExit(): void {
    const sender = this.sender;
    if (sender === null || sender.closed) return;
    forgetAtExit(this);
    if (!sender.closing) this.endStream(sender);
    sender.spoolAtExit();
  }

  // ------------------------------------------------------------------ verification

  /**
   * Checks one stored event locally (src/site/typescript-sdk.md#verification): its RFC 8785 hash, its
   * inclusion proof, the checkpoint's Ed25519 signature and consistency with the last trusted
   * checkpoint. A receipt is waited for up to `timeoutMs`.
   */
  verify(target: Receipt | string, options: { timeoutMs?: number } = {}): Promise<Verification> {
    return verifyStored(this, target, options.timeoutMs);
  }

  // ------------------------------------------------------------------ reporting

  /** @internal */
  report(error: TrailproofError): void {
    try {
      if (this.onError !== null) this.onError(error);
      else process.emitWarning(error.message, "TrailproofWarning");
    } catch (e) {
      // onError must not stop the sender
      process.emitWarning(`onError threw: ${e instanceof Error ? e.message : String(e)}`, "TrailproofWarning");
    }
  }
}
