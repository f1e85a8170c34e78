/**
 * The background sender: takes events from the queue in batches, sends each with one
 * `Idempotency-Key` reused on every retry, backs off while trailproof is down, and spools what it
 * could not send when the client closes or the process exits.
 */

import { NotSent, RejectedEvent, TrailproofError } from "./errors.js";
import { EventQueue, type Item, body } from "./queue.js";
import { replaySpool } from "./replay.js";
import type { Spool } from "./spool.js";
import { NoAnswer, type Response, errorMessage, newIdempotencyKey, request, retryAfterMs } from "./transport.js";

/** The options the sender works with. */
export interface SenderSettings {
  readonly url: string;
  readonly apiKey: string | null;
  readonly batchSize: number;
  readonly flushIntervalMs: number;
  readonly requestTimeoutMs: number;
  readonly maxBackoffMs: number;
}

const SPOOL = Symbol("spool"); // deliver's answer when close() ran out of time

/**
 * Owns the queue once an event is pushed: every pushed event with a receipt ends acknowledged,
 * refused or spooled, and is then counted as completed. The loop starts with the spool's batches.
 */
export class Sender {
  readonly queue = new EventQueue();
  private completed = 0;
  private flushUpto = 0;
  private closingFlag = false;
  private closeDeadline = 0;
  private closedFlag = false;
  private wakeFn: (() => void) | null = null;
  private flushWaiters: { target: number; resolve: (ok: boolean) => void }[] = [];
  private inFlight: { items: Item[]; key: string; body: string | Buffer; spooled: boolean } | null = null;
  private readonly loop: Promise<void>;

  constructor(
    private readonly settings: SenderSettings,
    private readonly spool: Spool,
    private readonly report: (error: TrailproofError) => void,
  ) {
    this.loop = this.run();
  }

  /** True once `close` or `spoolAtExit` began: no event is pushed any more but the end of the stream. */
  get closing(): boolean {
    return this.closingFlag;
  }

  /** True once the sender stopped: nothing is sent any more. */
  get closed(): boolean {
    return this.closedFlag;
  }

  /** Events pushed but not yet acknowledged, refused or spooled. */
  get pending(): number {
    return this.queue.enqueued - this.completed;
  }

  push(item: Item): void {
    const first = this.queue.push(item);
    // An idle sender waits with no deadline: the first event of a batch starts its flush interval,
    // a full batch goes at once.
    if (first || this.queue.size >= this.settings.batchSize) this.wake();
  }

  /** See `Client.flush`. */
  flush(timeoutMs?: number): Promise<boolean> {
    const target = this.queue.enqueued;
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

  /** Sends what is queued for up to `timeoutMs`, then spools whatever is still unsent. Call once. */
  async close(timeoutMs: number): Promise<void> {
    this.closingFlag = true;
    this.closeDeadline = performance.now() + timeoutMs;
    this.wake();
    let timer: NodeJS.Timeout | null = null;
    const limit = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs + this.settings.requestTimeoutMs + 1000);
    });
    await Promise.race([this.loop, limit]);
    if (timer !== null) clearTimeout(timer);
    // the sender is stuck past its deadline: spool the rest from here
    this.spoolQueued();
    this.closedFlag = true;
  }

  /** The process is exiting: stops, and spools everything unsent, synchronously. */
  spoolAtExit(): void {
    this.closedFlag = true;
    this.closingFlag = true;
    const f = this.inFlight;
    if (f !== null && !f.spooled) {
      // its answer may have been lost: the same key and body make a resend store nothing twice
      this.inFlight = null;
      this.spoolItems(f.items, f.key, f.body);
    }
    this.spoolQueued();
  }

  private spoolQueued(): void {
    const rest = this.queue.take(this.queue.size);
    for (let i = 0; i < rest.length; i += this.settings.batchSize) {
      this.spoolItems(rest.slice(i, i + this.settings.batchSize), newIdempotencyKey(), null);
    }
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
   * alive unless the client is closing or someone awaits a `flush()`: an idle or retrying client lets
   * the process reach `beforeExit`, which closes it, but a program waiting for its events to be
   * acknowledged waits through the retries (otherwise the event loop would empty under it).
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
        if (!this.closingFlag && this.flushWaiters.length === 0) timer.unref();
      }
    });
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
      await replaySpool(
        this.spool,
        (items, key, data) => this.send(items, key, data, true),
        () => this.closedFlag,
        this.report,
      );
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
      if (this.closedFlag) return null;
      const n = this.queue.size;
      if (n > 0) {
        const due = this.queue.oldestAt + this.settings.flushIntervalMs;
        const now = performance.now();
        if (n >= this.settings.batchSize || this.closingFlag || now >= due || this.flushUpto > this.queue.taken) {
          const items = this.queue.take(Math.min(n, this.settings.batchSize));
          if (this.queue.size > 0) this.queue.oldestAt = performance.now();
          return items;
        }
        await this.sleep(due - now);
      } else if (this.closingFlag) {
        return null;
      } else {
        await this.sleep(null);
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
      let timeout = this.settings.requestTimeoutMs;
      if (this.closingFlag) {
        const left = this.closeDeadline - performance.now();
        if (left <= 0 || this.closedFlag) return SPOOL;
        timeout = Math.min(timeout, left);
      }
      let retryAfter: number | null = null;
      let problem: string;
      try {
        const r = await request(this.settings.url, this.settings.apiKey, "POST", "/v1/batch", payload, { "Idempotency-Key": key }, timeout);
        if ([201, 207, 400, 413, 422].includes(r.status)) return r;
        problem = `trailproof answered ${r.status}: ${errorMessage(r)}`;
        retryAfter = retryAfterMs(r);
      } catch (e) {
        if (!(e instanceof NoAnswer)) throw e;
        problem = `trailproof at ${this.settings.url} is unreachable: ${e.message}`;
      }
      if (this.closedFlag) return SPOOL;
      attempt++;
      if (attempt === 1) {
        this.report(new TrailproofError(`${problem}; retrying a batch of ${count} events with back-off`));
      }
      const cap = Math.min(this.settings.maxBackoffMs, 100 * 2 ** Math.min(attempt, 20));
      let delay = cap / 2 + Math.random() * (cap / 2);
      if (retryAfter !== null) delay = Math.max(delay, retryAfter);
      const end = performance.now() + delay;
      for (;;) {
        const now = performance.now();
        const until = this.closingFlag ? Math.min(end, this.closeDeadline) : end;
        if (now >= until || this.closedFlag) break;
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
