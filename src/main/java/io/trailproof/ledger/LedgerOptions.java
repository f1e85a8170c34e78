package io.trailproof.ledger;

import io.trailproof.core.redaction.Redactor;

import java.time.Duration;

/**
 * Tunables of the storage layout and the ledger's limits.
 *
 * @param acceptTruncation open even when acknowledged events are missing from the log (the loss is
 *     then reported by {@code GET /health}); false refuses to open
 * @param maxQueuedEvents single events waiting for the sequencer before {@link Ledger#appendAsync} refuses more
 * @param dedupeRetention how long a dedupe record is honoured ({@code idempotency.retention})
 * @param dedupeMaxKeys dedupe keys held at most; beyond it the oldest are forgotten ({@code idempotency.max-keys})
 * @param redactor applied to every event before it is sealed ({@code redaction.enabled}); null for none
 */
public record LedgerOptions(long segmentBytes, long snapshotIntervalEvents, boolean acceptTruncation,
                      int maxQueuedEvents, Duration dedupeRetention, int dedupeMaxKeys, Redactor redactor) {
    public static final Duration DEFAULT_DEDUPE_RETENTION = Duration.ofHours(24);
    public static final int DEFAULT_DEDUPE_MAX_KEYS = 1_000_000;

    public LedgerOptions(long segmentBytes, long snapshotIntervalEvents) {
        this(segmentBytes, snapshotIntervalEvents, false, 65536);
    }

    public LedgerOptions(long segmentBytes, long snapshotIntervalEvents, boolean acceptTruncation, int maxQueuedEvents) {
        this(segmentBytes, snapshotIntervalEvents, acceptTruncation, maxQueuedEvents, DEFAULT_DEDUPE_RETENTION,
                DEFAULT_DEDUPE_MAX_KEYS);
    }

    public LedgerOptions(long segmentBytes, long snapshotIntervalEvents, boolean acceptTruncation, int maxQueuedEvents,
                   Duration dedupeRetention, int dedupeMaxKeys) {
        this(segmentBytes, snapshotIntervalEvents, acceptTruncation, maxQueuedEvents, dedupeRetention, dedupeMaxKeys,
                null);
    }

    public static LedgerOptions defaults() {
        return new LedgerOptions(64L << 20, 100_000);
    }
}
