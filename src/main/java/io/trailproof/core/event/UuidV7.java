package io.trailproof.core.event;

/**
 * UUID version 7 (RFC 9562 section 5.7), the form of an event {@code id} (src/site/events.md#service-assigned-fields): 48 bits of
 * Unix milliseconds, then randomness, so ids sort by creation time. Pure: the caller supplies the
 * clock reading and the random bytes.
 */
public final class UuidV7 {
    private UuidV7() {}

    /** Number of random bytes {@link #create} consumes: 12 bits rand_a plus 62 bits rand_b, rounded up. */
    public static final int RANDOM_BYTES = 10;

    private static final long MAX_MILLIS = (1L << 48) - 1;
    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * A lowercase UUIDv7 string.
     *
     * @param unixMillis milliseconds since 1970-01-01T00:00:00Z, 0..2^48-1
     * @param random10 ten bytes from a cryptographically strong source; bytes 0-1 give rand_a (the
     *     low 12 bits are used), bytes 2-9 give rand_b (the low 62 bits are used)
     */
    public static String create(long unixMillis, byte[] random10) {
        if (unixMillis < 0 || unixMillis > MAX_MILLIS) {
            throw new IllegalArgumentException("unixMillis out of the 48-bit range: " + unixMillis);
        }
        if (random10 == null || random10.length != RANDOM_BYTES) {
            throw new IllegalArgumentException("need exactly " + RANDOM_BYTES + " random bytes");
        }
        int randA = ((random10[0] & 0x0F) << 8) | (random10[1] & 0xFF);
        long randB = 0;
        for (int i = 2; i < RANDOM_BYTES; i++) {
            randB = (randB << 8) | (random10[i] & 0xFF);
        }
        long msb = (unixMillis << 16) | (0x7L << 12) | randA;
        long lsb = (0b10L << 62) | (randB & 0x3FFF_FFFF_FFFF_FFFFL);

        char[] out = new char[36];
        int p = hex(msb >>> 32, 8, out, 0);
        out[p++] = '-';
        p = hex(msb >>> 16, 4, out, p);
        out[p++] = '-';
        p = hex(msb, 4, out, p);
        out[p++] = '-';
        p = hex(lsb >>> 48, 4, out, p);
        out[p++] = '-';
        hex(lsb, 12, out, p);
        return new String(out);
    }

    /** Writes the low {@code digits} hex digits of {@code value}, most significant first. */
    private static int hex(long value, int digits, char[] out, int at) {
        for (int i = digits - 1; i >= 0; i--) {
            out[at + i] = HEX[(int) (value & 0xF)];
            value >>>= 4;
        }
        return at + digits;
    }
}
