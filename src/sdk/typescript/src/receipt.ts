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
