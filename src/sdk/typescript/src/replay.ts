/** Replaying the spool: batches a previous client could not send, sent before any new event. */

import { TrailproofError } from "./errors.js";
import type { Item } from "./queue.js";
import type { Spool } from "./spool.js";

/**
 * Sends each spooled batch with its own key and exact body, so that a batch the service stored
 * before its answer was lost is not stored twice, and deletes its file once it is delivered. Stops at
 * the first batch that is spooled again (trailproof is still down) or when `stopped()`. A file this
 * version cannot read is set aside by the spool, reported once, and the other batches are sent.
 */
export async function replaySpool(
  spool: Spool,
  send: (items: Item[], key: string, body: Buffer) => Promise<boolean>,
  stopped: () => boolean,
  report: (error: TrailproofError) => void,
): Promise<void> {
  for (const file of spool.pending()) {
    if (stopped()) return;
    const batch = spool.read(file, (aside, why) =>
      report(
        new TrailproofError(
          `the spooled batch ${file} cannot be read by this version (${why}); it is set aside as ${aside} and the other batches are sent`,
        ),
      ),
    );
    if (batch === null) continue;
    const items: Item[] = batch.events.map((e) => ({ data: JSON.stringify(e), receipt: null, seq: 0 }));
    if (await send(items, batch.key, batch.body)) {
      spool.done(file);
    } else {
      return;
    }
  }
}
