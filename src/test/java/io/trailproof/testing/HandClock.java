package io.trailproof.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when a test moves it, in UTC: what the service reads as "now" in a test
 * that is about time (time-outs, retention, recorded_at). {@link #now} may be set from any thread.
 */
public final class HandClock extends Clock {

    /** The instant every read returns until a test changes it. */
    public volatile Instant now;

    public HandClock(String start) {
        this.now = Instant.parse(start);
    }

    /** Moves the clock by {@code d} (backwards when negative). */
    public void advance(Duration d) {
        now = now.plus(d);
    }

    @Override
    public ZoneOffset getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }

    @Override
    public Instant instant() {
        return now;
    }
}
