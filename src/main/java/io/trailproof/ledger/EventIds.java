package io.trailproof.ledger;

import io.trailproof.core.event.UuidV7;

import java.util.OptionalLong;
import java.util.random.RandomGenerator;
import java.util.regex.Pattern;

/**
 * Event ids: UUID version 7 whose last 48 bits carry the event's log index (RFC 9562 lets an
 * implementation use those bits for its own monotonic data) and whose other 26 free bits are random.
 * The id therefore locates its event in the log with no separate lookup table; a lookup still reads
 * the event and compares the whole id, so a made-up id never finds an event that is not its own.
 */
final class EventIds {

    private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
    private static final long MAX_INDEX = (1L << 48) - 1;

    private final RandomGenerator random;

    EventIds(RandomGenerator random) {
        this.random = random;
    }

    String create(long unixMillis, long logIndex) {
        return withBits(unixMillis, logIndex, random.nextLong());
    }

    /**
     * The id a replica gives the event at {@code logIndex} of a replicated record (cluster mode):
     * the bits the embedded mode draws at random are {@code bits} (from a hash of the record), so
     * every replica derives the same id from the record alone.
     */
    static String derived(long unixMillis, long logIndex, int bits) {
        return withBits(unixMillis, logIndex, bits & 0xFFFFFFFFL);
    }

    private static String withBits(long unixMillis, long logIndex, long r) {
        if (logIndex < 0 || logIndex > MAX_INDEX) {
            throw new IllegalStateException("log index " + logIndex + " does not fit in an event id");
        }
        byte[] tail = new byte[10];
        for (int i = 0; i < 4; i++) {
            tail[i] = (byte) (r >>> (8 * i));
        }
        for (int i = 0; i < 6; i++) {
            tail[9 - i] = (byte) (logIndex >>> (8 * i));
        }
        return UuidV7.create(unixMillis, tail);
    }

    /** The log index an id of this service points at, or empty when the string is not such an id. */
    static OptionalLong logIndexOf(String id) {
        if (id == null || !UUID.matcher(id).matches()) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(Long.parseLong(id.substring(24), 16));
    }

    static boolean wellFormed(String id) {
        return id != null && UUID.matcher(id).matches();
    }
}
