/**
 * The trailproof client: events queued by the caller, sent in the background in batches
 * (src/site/typescript-sdk.md of the trailproof documentation).
 */

import { randomBytes } from "node:crypto";
import * as path from "node:path";

import { type Action, type ActionFields, type Audited, type AuditedOptions, action, audited } from "./capture.js";
import { NotSent, QueueFull, RejectedEvent, TrailproofError } from "./errors.js";
import { Decision, decide, type DecideOptions } from "./gate.js";
import { Spool, defaultSpoolDir } from "./spool.js";
import {
  NoAnswer,
  type Response,
  checkUrl,
  errorMessage,
  newIdempotencyKey,
  request,
  retryAfterMs,
} from "./transport.js";
import { asObject, jsonable, mayHoldLoneSurrogate, utcNow } from "./values.js";
import { type Verification, verifyStored } from "./verify.js";

const DEFAULT_URL = "http://127.0.0.1:7600";
/** The capture path this SDK names in every event (src/site/completeness.md#coverage). */
export const CAPTURE_METHOD = "typescript-sdk";

/** The stored event's identity, once its batch is acknowledged. */
export interface Ack {
  id: string;
  logIndex: number;
  hash: string;
  sequence: number;
  recordedAt: string;
}

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

export interface ClientOptions {
  /** `TRAILPROOF_URL`, default `http://127.0.0.1:7600`. */
  url?: string;
  /** `TRAILPROOF_API_KEY`; sent as `Authorization: Bearer <key>`. */
  apiKey?: string;
  /** `TRAILPROOF_AGENT_ID`, default the program's file name. */
  agentId?: string;
  sessionId?: string;
  labels?: Record<string, string>;
  metadata?: Record<string, unknown>;
  /** Events per request, 1 to 10,000 (default 100). */
  batchSize?: number;
  /** The longest an event waits in the queue before its batch is sent (default 1,000 ms). */
  flushIntervalMs?: number;
  /** Events the queue holds before `log` throws `QueueFull` (default 10,000). */
  maxQueue?: number;
  requestTimeoutMs?: number;
  /** How long `close()` keeps sending before it spools the rest (default 10,000 ms). */
  closeTimeoutMs?: number;
  maxBackoffMs?: number;
  /** `TRAILPROOF_SPOOL_DIR`, default `~/.trailproof/spool`. */
  spoolDir?: string;
  /** `TRAILPROOF_LOG_KEY`: the log's verifier key, for `verify`. */
  logKey?: string;
  onError?: (error: TrailproofError) => void;
  beforeSend?: (event: Record<string, unknown>) => Record<string, unknown>;
  /** `TRAILPROOF_ENABLED` (`false`, `0`, `no`, `off` disable); default enabled. */
  enabled?: boolean;
}

function envFlag(name: string, dflt: boolean): boolean {
  const v = process.env[name];
  if (v === undefined || !v.trim()) return dflt;
  return !["0", "false", "no", "off"].includes(v.trim().toLowerCase());
}

function programName(): string {
  const main = process.argv[1];
  return (main && path.basename(main)) || "node";
}

/**
 * The future acknowledgement of one event. `result()` resolves to the stored event's `Ack` once its
 * batch is acknowledged (null when the client is disabled), and rejects with `RejectedEvent` (the
 * service refused the event, with its message) or `NotSent` (spooled for a later client). A
 * receipt nobody awaits never causes an unhandled rejection.
 */
export class Receipt {
  // The queued item whose JSON text is the event as sent: the text alone is kept, not the objects
  // it was made of, so a queue of events is cheap for the garbage collector.
  private readonly item: { data: string } | null;
  private state: 0 | 1 | 2 = 0; // pending, resolved, rejected
  private value: Ack | null = null;
  private error: Error | null = null;
  // Created only when someone asks: most receipts are never awaited, and a promise per event is
  // garbage the event loop pays for.
  private promise: Promise<Ack | null> | null = null;
  private settle: ((state: 1 | 2) => void) | null = null;

  constructor(item: { data: string } | null) {
    this.item = item;
  }

  /** The event as sent (after `beforeSend`; a fresh copy each time), or null when the client is disabled. */
  get event(): Record<string, unknown> | null {
    return this.item === null ? null : (JSON.parse(this.item.data) as Record<string, unknown>);
  }

  /** True once acknowledged, refused or spooled. */
  get done(): boolean {
    return this.state !== 0;
  }

  /** The acknowledgement; with `timeoutMs`, rejects with a `TrailproofError` when it takes longer. */
  result(timeoutMs?: number): Promise<Ack | null> {
    if (this.promise === null) {
      if (this.state === 1) this.promise = Promise.resolve(this.value);
      else if (this.state === 2) this.promise = Promise.reject(this.error);
      else {
        this.promise = new Promise<Ack | null>((resolve, reject) => {
          this.settle = (state) => (state === 1 ? resolve(this.value) : reject(this.error));
        });
      }
    }
    if (timeoutMs === undefined || this.state !== 0) return this.promise;
    const settled = this.promise;
    return new Promise<Ack | null>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new TrailproofError(`the event was not acknowledged within ${timeoutMs} ms`)),
        timeoutMs,
      );
      settled.then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** @internal */
  _resolve(ack: Ack | null): boolean {
    if (this.state !== 0) return false;
    this.state = 1;
    this.value = ack;
    this.settle?.(1);
    return true;
  }

  /** @internal */
  _reject(error: Error): boolean {
    if (this.state !== 0) return false;
    this.state = 2;
    this.error = error;
    this.settle?.(2);
    return true;
  }
}

interface Item {
  data: string;
  receipt: Receipt | null;
  seq: number;
}

function body(items: Item[]): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) out += (i ? "," : "") + items[i].data;
  return out + "]";
}

const SPOOL = Symbol("spool"); // deliver's answer when close() ran out of time

/** The clients to close when the process ends; see `installExitHooks`. */
const live = new Set<Client>();
let hooksInstalled = false;

/**
 * `beforeExit` (the event loop has nothing left to do) closes every open client, which sends what is
 * queued; `exit` (also after `process.exit()`) writes whatever is still unsent to the spool,
 * synchronously, since nothing asynchronous runs any more.
 */
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("beforeExit", () => {
    for (const c of [...live]) void c.close();
  });
  process.on("exit", () => {
    for (const c of [...live]) c._spoolAtExit();
  });
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
  private queue: Item[] = [];
  private head = 0;
  private oldestAt = 0;
  private enqueued = 0;
  private taken = 0;
  private completed = 0;
  private flushUpto = 0;
  private closing = false;
  private closeDeadline = 0;
  private closed = false;
  private captureSeq = 0;
  private dropped: [number, number][] = [];
  private wakeFn: (() => void) | null = null;
  private flushWaiters: { target: number; resolve: (ok: boolean) => void }[] = [];
  private sender: Promise<void> | null = null;
  private inFlight: { items: Item[]; key: string; body: string | Buffer; spooled: boolean } | null = null;
  private closePromise: Promise<void> | null = null;

  constructor(options: ClientOptions = {}) {
    const batchSize = options.batchSize ?? 100;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10000) {
      throw new RangeError("batchSize must be an integer 1..10000");
    }
    const maxQueue = options.maxQueue ?? 10000;
    if (!Number.isInteger(maxQueue) || maxQueue < 1) throw new RangeError("maxQueue must be at least 1");
    this.enabled = options.enabled ?? envFlag("TRAILPROOF_ENABLED", true);
    this.url = checkUrl(options.url || process.env.TRAILPROOF_URL || DEFAULT_URL);
    this.apiKey = options.apiKey ?? (process.env.TRAILPROOF_API_KEY || null);
    this.agentId = options.agentId || process.env.TRAILPROOF_AGENT_ID || programName();
    this.sessionId = options.sessionId ?? null;
    this.labels = { ...(options.labels ?? {}) };
    this.metadata = { ...(options.metadata ?? {}) };
    this.batchSize = batchSize;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.maxQueue = maxQueue;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10000;
    this.closeTimeoutMs = options.closeTimeoutMs ?? 10000;
    this.maxBackoffMs = options.maxBackoffMs ?? 30000;
    this.spoolDir = options.spoolDir || defaultSpoolDir();
    this.logKey = options.logKey || process.env.TRAILPROOF_LOG_KEY || null;
    this.onError = options.onError ?? null;
    this.beforeSend = options.beforeSend ?? null;
    this.captureId = "ts-" + randomBytes(16).toString("hex");
    this.spool = new Spool(this.spoolDir, this.url);
    if (this.enabled) {
      installExitHooks();
      live.add(this);
      this.sender = this.run();
    }
  }

  // ------------------------------------------------------------------ capture

  /**
   * Queues one event and returns its `Receipt` at once. Throws `QueueFull` when `maxQueue` events
   * are waiting (the event's capture number is then reported as dropped on the next event), and
   * `TrailproofError` once the client is closed.
   */
  log(fields: LogFields): Receipt {
    if (!this.enabled) {
      const r = new Receipt(null);
      r._resolve(null);
      return r;
    }
    if (this.closing) throw new TrailproofError("the client is closed");
    const seq = ++this.captureSeq;
    if (this.queue.length - this.head >= this.maxQueue) {
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
    const item: Item = { data, receipt: null, seq };
    item.receipt = new Receipt(item);
    this.push(item);
    return item.receipt;
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

  // ------------------------------------------------------------------ queue

  private push(item: Item): void {
    const first = this.queue.length === this.head;
    if (first) this.oldestAt = performance.now();
    this.queue.push(item);
    this.enqueued++;
    // An idle sender waits with no deadline: the first event of a batch starts its flush interval,
    // a full batch goes at once.
    if (first || this.queue.length - this.head >= this.batchSize) this.wake();
  }

  private take(n: number): Item[] {
    const items = this.queue.slice(this.head, this.head + n);
    this.head += n;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    this.taken += n;
    return items;
  }

  private wake(): void {
    const w = this.wakeFn;
    if (w !== null) {
      this.wakeFn = null;
      w();
    }
  }

  /**
   * Waits for `wake()` or `ms` milliseconds (forever when null). The timer does not keep the process
   * alive unless the client is closing: an idle or retrying client lets the process reach
   * `beforeExit`, which closes it.
   */
  private sleep(ms: number | null): Promise<void> {
    return new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      this.wakeFn = () => {
        if (timer !== null) clearTimeout(timer);
        resolve();
      };
      if (ms !== null) {
        timer = setTimeout(() => {
          this.wakeFn = null;
          resolve();
        }, Math.max(0, ms));
        if (!this.closing) timer.unref();
      }
    });
  }

  /** Events logged but not yet acknowledged, refused or spooled. */
  get pending(): number {
    return this.enqueued - this.completed;
  }

  /**
   * Sends everything queued so far now and resolves when it is acknowledged (or refused, or
   * spooled): true when that happened within `timeoutMs` (default: no limit).
   */
  flush(timeoutMs?: number): Promise<boolean> {
    if (!this.enabled) return Promise.resolve(true);
    const target = this.enqueued;
    if (this.completed >= target) return Promise.resolve(true);
    this.flushUpto = Math.max(this.flushUpto, target);
    this.wake();
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | null = null;
      const waiter = {
        target,
        resolve: (ok: boolean) => {
          if (timer !== null) clearTimeout(timer);
          resolve(ok);
        },
      };
      this.flushWaiters.push(waiter);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.flushWaiters = this.flushWaiters.filter((w) => w !== waiter);
          resolve(this.completed >= target);
        }, timeoutMs);
      }
    });
  }

  /**
   * Sends what is queued for up to `timeoutMs` (default `closeTimeoutMs`), then writes whatever is
   * still unsent to the spool. Idempotent; also runs when the process's event loop empties
   * (`beforeExit`). After `process.exit()` the unsent events are spooled synchronously instead.
   */
  close(timeoutMs?: number): Promise<void> {
    if (!this.enabled || this.sender === null) return Promise.resolve();
    if (this.closePromise !== null) return this.closePromise;
    const timeout = timeoutMs ?? this.closeTimeoutMs;
    this.endStream();
    this.closing = true;
    this.closeDeadline = performance.now() + timeout;
    this.wake();
    this.closePromise = (async () => {
      let timer: NodeJS.Timeout | null = null;
      const limit = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeout + this.requestTimeoutMs + 1000);
      });
      await Promise.race([this.sender, limit]);
      if (timer !== null) clearTimeout(timer);
      // the sender is stuck past its deadline: spool the rest from here
      const rest = this.take(this.queue.length - this.head);
      for (let i = 0; i < rest.length; i += this.batchSize) {
        this.spoolItems(rest.slice(i, i + this.batchSize), newIdempotencyKey(), null);
      }
      this.closed = true;
      live.delete(this);
    })();
    return this.closePromise;
  }

  /**
   * Marks the end of the capture stream: the last event still queued gets `capture_last`, or, when it
   * was sent already, a `CAPTURE_END` event is queued.
   */
  private endStream(): void {
    const last = this.captureSeq;
    const dropped = this.dropped.length ? this.dropped.shift()! : null;
    const n = this.queue.length;
    if (n > this.head && this.queue[n - 1].seq === last && last > 0 && dropped === null) {
      const item = this.queue[n - 1];
      const event = JSON.parse(item.data) as Record<string, unknown>;
      event.capture_last = true;
      item.data = JSON.stringify(event);
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
    const item: Item = { data: JSON.stringify(event), receipt: null, seq };
    item.receipt = new Receipt(item);
    this.push(item);
  }

  /** @internal The process is exiting: spool everything unsent, synchronously. */
  _spoolAtExit(): void {
    if (this.closed) return;
    this.closed = true;
    live.delete(this);
    if (!this.closing) {
      this.endStream();
      this.closing = true;
    }
    const f = this.inFlight;
    if (f !== null && !f.spooled) {
      // its answer may have been lost: the same key and body make a resend store nothing twice
      this.inFlight = null;
      this.spoolItems(f.items, f.key, f.body);
    }
    const rest = this.take(this.queue.length - this.head);
    for (let i = 0; i < rest.length; i += this.batchSize) {
      this.spoolItems(rest.slice(i, i + this.batchSize), newIdempotencyKey(), null);
    }
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

  // ------------------------------------------------------------------ sender

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

  private complete(n: number): void {
    if (n === 0) return;
    this.completed += n;
    if (this.flushWaiters.length) {
      const still: typeof this.flushWaiters = [];
      for (const w of this.flushWaiters) {
        if (this.completed >= w.target) w.resolve(true);
        else still.push(w);
      }
      this.flushWaiters = still;
    }
  }

  private async run(): Promise<void> {
    try {
      await this.drainSpool();
      for (;;) {
        const items = await this.nextBatch();
        if (items === null) return;
        await this.send(items, newIdempotencyKey(), null);
      }
    } catch (e) {
      // a bug must not lose events silently
      this.report(new TrailproofError(`the trailproof sender stopped: ${e instanceof Error ? e.stack : String(e)}`));
    }
  }

  private async nextBatch(): Promise<Item[] | null> {
    for (;;) {
      if (this.closed) return null;
      const n = this.queue.length - this.head;
      if (n > 0) {
        const due = this.oldestAt + this.flushIntervalMs;
        const now = performance.now();
        if (n >= this.batchSize || this.closing || now >= due || this.flushUpto > this.taken) {
          const items = this.take(Math.min(n, this.batchSize));
          if (this.queue.length > this.head) this.oldestAt = performance.now();
          return items;
        }
        await this.sleep(due - now);
      } else if (this.closing) {
        return null;
      } else {
        await this.sleep(null);
      }
    }
  }

  private async drainSpool(): Promise<void> {
    for (const file of this.spool.pending()) {
      if (this.closed) return;
      const batch = this.spool.read(file, (aside, why) =>
        this.report(
          new TrailproofError(
            `the spooled batch ${file} cannot be read by this version (${why}); it is set aside as ${aside} and the other batches are sent`,
          ),
        ),
      );
      if (batch === null) continue;
      const items: Item[] = batch.events.map((e) => ({ data: JSON.stringify(e), receipt: null, seq: 0 }));
      if (await this.send(items, batch.key, batch.body, true)) {
        this.spool.done(file);
      } else {
        return;
      }
    }
  }

  /** Delivers one batch; false when it stays (or was put) in the spool. */
  private async send(items: Item[], key: string, data: string | Buffer | null, spooled = false): Promise<boolean> {
    const payload = data ?? body(items);
    this.inFlight = { items, key, body: payload, spooled };
    let r: Response | typeof SPOOL;
    try {
      r = await this.deliver(payload, key, items.length);
    } finally {
      this.inFlight = null;
    }
    if (r === SPOOL) {
      if (!spooled) this.spoolItems(items, key, payload);
      return false;
    }
    if (r.status === 201 || r.status === 207) {
      this.settle(r, items);
      return true;
    }
    // refused as a whole, so nothing was stored: halves go out as new batches with new keys
    const message = errorMessage(r);
    if (items.length > 1 && (r.status === 400 || r.status === 413)) {
      const half = items.length >> 1;
      const first = await this.send(items.slice(0, half), newIdempotencyKey(), null);
      if (!first) this.spoolItems(items.slice(half), newIdempotencyKey(), null);
      else await this.send(items.slice(half), newIdempotencyKey(), null);
      return true; // every item is now sent, refused or in a spool file of its own
    }
    let n = 0;
    for (const it of items) {
      this.rejectItem(it, message);
      if (it.receipt !== null) n++;
    }
    this.complete(n);
    return true;
  }

  private async deliver(payload: string | Buffer, key: string, count: number): Promise<Response | typeof SPOOL> {
    let attempt = 0;
    for (;;) {
      let timeout = this.requestTimeoutMs;
      if (this.closing) {
        const left = this.closeDeadline - performance.now();
        if (left <= 0 || this.closed) return SPOOL;
        timeout = Math.min(timeout, left);
      }
      let retryAfter: number | null = null;
      let problem: string;
      try {
        const r = await request(this.url, this.apiKey, "POST", "/v1/batch", payload, { "Idempotency-Key": key }, timeout);
        if ([201, 207, 400, 413, 422].includes(r.status)) return r;
        problem = `trailproof answered ${r.status}: ${errorMessage(r)}`;
        retryAfter = retryAfterMs(r);
      } catch (e) {
        if (!(e instanceof NoAnswer)) throw e;
        problem = `trailproof at ${this.url} is unreachable: ${e.message}`;
      }
      if (this.closed) return SPOOL;
      attempt++;
      if (attempt === 1) {
        this.report(new TrailproofError(`${problem}; retrying a batch of ${count} events with back-off`));
      }
      const cap = Math.min(this.maxBackoffMs, 100 * 2 ** Math.min(attempt, 20));
      let delay = cap / 2 + Math.random() * (cap / 2);
      if (retryAfter !== null) delay = Math.max(delay, retryAfter);
      const end = performance.now() + delay;
      for (;;) {
        const now = performance.now();
        const until = this.closing ? Math.min(end, this.closeDeadline) : end;
        if (now >= until || this.closed) break;
        await this.sleep(until - now);
      }
    }
  }

  private settle(r: Response, items: Item[]): void {
    const byIndex = new Map<number, Record<string, unknown>>();
    try {
      const results = JSON.parse(r.body.toString("utf8"));
      if (Array.isArray(results)) {
        for (const x of results) if (x && typeof x === "object") byIndex.set(Number(x.index), x);
      }
    } catch {
      // no usable answer: every item is reported below
    }
    let done = 0;
    items.forEach((it, i) => {
      const res = byIndex.get(i);
      const ev = res?.event;
      if (ev && typeof ev === "object" && !Array.isArray(ev)) {
        const e = ev as Record<string, unknown>;
        it.receipt?._resolve({
          id: e.id as string,
          logIndex: e.log_index as number,
          hash: e.hash as string,
          sequence: e.sequence as number,
          recordedAt: e.recorded_at as string,
        });
      } else if (res !== undefined && "error" in res) {
        this.rejectItem(it, String(res.error));
      } else {
        const err = new TrailproofError(
          `trailproof acknowledged the batch (HTTP ${r.status}) but its answer has no result for item ${i}`,
        );
        this.report(err);
        it.receipt?._reject(err);
      }
      if (it.receipt !== null) done++;
    });
    this.complete(done);
  }

  private rejectItem(item: Item, message: string): void {
    let event: Record<string, unknown> | null;
    try {
      event = JSON.parse(item.data) as Record<string, unknown>;
    } catch {
      event = null;
    }
    const err = new RejectedEvent(message, event);
    this.report(err);
    item.receipt?._reject(err);
  }

  private spoolItems(items: Item[], key: string, data: string | Buffer | null): void {
    if (items.length === 0) return;
    let file: string | null;
    let msg: string;
    try {
      file = this.spool.write(key, data ?? body(items));
      msg = `${items.length} events were not acknowledged before close(); they are spooled in ${file}`;
    } catch (e) {
      file = null;
      msg = `${items.length} events were not acknowledged before close() and the spool could not be written: ${e instanceof Error ? e.message : String(e)}`;
    }
    const err = new NotSent(msg, file);
    this.report(err);
    let n = 0;
    for (const it of items) {
      if (it.receipt !== null && it.receipt._reject(err)) n++;
    }
    this.complete(n);
  }
}
