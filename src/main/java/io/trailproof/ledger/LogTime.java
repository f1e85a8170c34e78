package io.trailproof.ledger;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The clock of a replica's dedupe table (cluster mode): the latest broker time among the records
 * applied, never the machine's clock. Retention is then measured in the log's own time, so whether
 * a key has expired when a record is applied is decided by the log alone, the same on every
 * replica; lookups by this node's requests between records see the time of the last one applied.
 */
final class LogTime extends Clock {

    private final AtomicLong millis;

    LogTime(long startMillis) {
        this.millis = new AtomicLong(startMillis);
    }

    /** Moves the time forward to {@code t} (never back); returns the time now. */
    long advanceTo(long t) {
        return millis.accumulateAndGet(t, Math::max);
    }

    @Override
    public long millis() {
        return millis.get();
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("log time is UTC");
    }
}
