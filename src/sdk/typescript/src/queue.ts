/** The client's queue of events waiting to be sent. */

import type { Receipt } from "./receipt.js";

/**
 * One queued event: its JSON text as sent, its receipt, and its capture number. A logged event's
 * item is its `Receipt` (one object per event); a spooled one's is `{data, receipt: null, seq: 0}`.
 */
export interface Item {
  data: string;
  readonly receipt: Receipt | null;
  readonly seq: number;
}

/** The request body of a batch: the events' JSON texts as one JSON array. */
export function body(items: Item[]): string {
  let out = "[";
  for (let i = 0; i < items.length; i++) out += (i ? "," : "") + items[i].data;
  return out + "]";
}

/**
 * First in, first out. Taking from the front moves an index rather than shifting the array, which is
 * compacted now and then. The bound (`maxQueue`) is the caller's to check against `size`.
 */
export class EventQueue {
  private items: Item[] = [];
  private head = 0;
  /** When the oldest queued event was queued (`performance.now()`): it starts its batch's flush interval. */
  oldestAt = 0;
  /** Events ever queued. */
  enqueued = 0;
  /** Events ever taken. */
  taken = 0;

  /** Events waiting. */
  get size(): number {
    return this.items.length - this.head;
  }

  /** The newest waiting event, or null. */
  last(): Item | null {
    return this.items.length > this.head ? this.items[this.items.length - 1] : null;
  }

  /** Appends `item`; true when the queue was empty. */
  push(item: Item): boolean {
    const first = this.items.length === this.head;
    if (first) this.oldestAt = performance.now();
    this.items.push(item);
    this.enqueued++;
    return first;
  }

  /** Removes and returns the `n` oldest events. */
  take(n: number): Item[] {
    const items = this.items.slice(this.head, this.head + n);
    this.head += n;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head > 4096 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.taken += n;
    return items;
  }
}
