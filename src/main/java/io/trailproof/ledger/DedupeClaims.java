package io.trailproof.ledger;

import io.trailproof.store.EventLog;

import java.io.IOException;
import java.util.Arrays;

/**
 * The dedupe lookups of a ledger (src/site/ingestion.md#idempotency): claims a key in the
 * {@link DedupeTable}, and for a key already recorded reads its {@link DedupeRecord} back from the
 * log to tell a replay from a conflict. Handed out by {@link Ledger#dedupe()}; the keyed writes that
 * record under a claim are the ledger's (its appends that take a {@link KeyedAnswer}).
 */
public final class DedupeClaims {

    private final DedupeTable table;
    private final EventLog log;

    DedupeClaims(DedupeTable table, EventLog log) {
        this.table = table;
        this.log = log;
    }

    /**
     * Looks a dedupe key up and claims it when it is free (see {@link DedupeTable#claim}). A key
     * recorded within retention with the same content is answered {@link DedupeTable.Replay}: its
     * record read back from the log, full key and content digests checked (the table compares
     * prefixes); another content is {@link DedupeTable.Conflict}.
     *
     * @throws DedupeLoadingException while the keys recorded before the start are loaded (nothing claimed)
     */
    public DedupeTable.Lookup claim(DedupeKey key, byte[] contentDigest) throws IOException {
        table.checkComplete();
        DedupeTable.Lookup found = table.claim(key, contentDigest);
        if (!(found instanceof DedupeTable.Recorded r)) {
            return found;
        }
        DedupeRecord record = DedupeRecord.decode(log.readSide(r.address()));
        if (record == null || record.namespace() != key.namespace() || !Arrays.equals(record.keyDigest(), key.digest())) {
            throw new IOException("the dedupe record of " + key + " is not at log address " + r.address()
                    + " where the table holds it (the log changed under the running service)");
        }
        return Arrays.equals(record.contentDigest(), contentDigest) ? new DedupeTable.Replay(record)
                : new DedupeTable.Conflict();
    }

    /**
     * {@link #claim}, waiting as long as it takes for the keys recorded before the start: for the
     * service's own keyed writes (the gate's records), which no client waits on and which must not be
     * refused for it.
     *
     * @throws IOException when those keys cannot be loaded, or a read back fails
     */
    public DedupeTable.Lookup claimWhenLoaded(DedupeKey key, byte[] contentDigest) throws IOException {
        table.awaitKeys();
        return claim(key, contentDigest);
    }

    /**
     * Looks a dedupe key up and claims it when it is free, without reading its record back: for
     * namespaces whose record marks a thing as stored and carries no answer to replay (an OTLP span,
     * src/site/ingestion.md#otlp), where {@link DedupeTable.Recorded} is all the caller needs to know, and where
     * one read per key would make a retried export of 512 spans 512 random reads.
     *
     * @throws DedupeLoadingException while the keys recorded before the start are loaded (nothing claimed)
     */
    public DedupeTable.Lookup claimMark(DedupeKey key, byte[] contentDigest) throws DedupeLoadingException {
        table.checkComplete();
        return table.claim(key, contentDigest);
    }

    /**
     * True while the keys recorded before the start are loaded: {@link #claim} and {@link #claimMark}
     * would wait (a caller that must not block refuses the write itself).
     */
    public boolean keysLoading() {
        return table.keysLoading();
    }

    /** The dedupe table (sizes, for tests and benchmarks). */
    public DedupeTable table() {
        return table;
    }
}
