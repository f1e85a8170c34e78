/** The future acknowledgement of one logged event (src/site/typescript-sdk.md#client). */

import { TrailproofError } from "./errors.js";

/** The stored event's identity, once its batch is acknowledged. */
export interface Ack {
  id: string;
  logIndex: number;
  hash: string;
  sequence: number;
  recordedAt: string;
}

/**
 * The future acknowledgement of one event. `result()` resolves to the stored event's `Ack` once its
 * batch is acknowledged (null when the client is disabled), and rejects with `RejectedEvent` (the
 * service refused the event, with its message) or `NotSent` (spooled for a later client). A
 * receipt nobody awaits never causes an unhandled rejection.
 */
export class Receipt {
  /**
   * @internal The event's JSON text as sent (null when the client is disabled): the receipt is
   * itself the queued item, and the text alone is kept, not the objects it was made of, so that a
   * queue of events is one string and one object per event for the garbage collector.
   */
  data: string;
  /** @internal The event's capture number. */
  readonly seq: number;
  private readonly disabled: boolean;
  private state: 0 | 1 | 2 = 0; // pending, resolved, rejected
  private value: Ack | null = null;
  private error: Error | null = null;
  // Created only when someone asks: most receipts are never awaited, and a promise per event is
  // garbage the event loop pays for.
  private promise: Promise<Ack | null> | null = null;
  private settle: ((state: 1 | 2) => void) | null = null;

  /** @internal */
  constructor(data: string | null, seq = 0) {
    this.data = data ?? "";
    this.seq = seq;
    this.disabled = data === null;
  }

  /** @internal The queued item's receipt: itself. */
  get receipt(): Receipt {
    return this;
  }

  /** The event as sent (after `beforeSend`; a fresh copy each time), or null when the client is disabled. */
  get event(): Record<string, unknown> | null {
    return this.disabled ? null : (JSON.parse(this.data) as Record<string, unknown>);
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
