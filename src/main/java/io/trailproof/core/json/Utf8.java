package io.trailproof.core.json;

/**
 * Strict UTF-8 well-formedness (Unicode 15, table 3-7): no overlong forms, no encoded surrogates,
 * nothing above U+10FFFF, no truncated sequences. Jackson's decoder is more lenient, and a hash over
 * text that different readers decode differently would not be tamper-evident.
 */
final class Utf8 {
    private Utf8() {}

    /** The offset of the first byte that does not start a well-formed sequence, or -1 if all are valid. */
    static int firstInvalidByte(byte[] b) {
        int i = 0;
        int n = b.length;
        while (i < n) {
            int c = b[i];
            if (c >= 0) {
                i++;
                continue;
            }
            c &= 0xFF;
            if (c < 0xC2) {
                return i; // a continuation byte without a lead, or an overlong two-byte lead
            } else if (c < 0xE0) {
                if (i + 1 >= n || !continuation(b[i + 1])) {
                    return i;
                }
                i += 2;
            } else if (c < 0xF0) {
                if (i + 2 >= n) {
                    return i;
                }
                int c1 = b[i + 1] & 0xFF;
                int lo = c == 0xE0 ? 0xA0 : 0x80; // E0 80..9F would be overlong
                int hi = c == 0xED ? 0x9F : 0xBF; // ED A0..BF would encode a surrogate
                if (c1 < lo || c1 > hi || !continuation(b[i + 2])) {
                    return i;
                }
                i += 3;
            } else if (c < 0xF5) {
                if (i + 3 >= n) {
                    return i;
                }
                int c1 = b[i + 1] & 0xFF;
                int lo = c == 0xF0 ? 0x90 : 0x80; // F0 80..8F would be overlong
                int hi = c == 0xF4 ? 0x8F : 0xBF; // F4 90.. would exceed U+10FFFF
                if (c1 < lo || c1 > hi || !continuation(b[i + 2]) || !continuation(b[i + 3])) {
                    return i;
                }
                i += 4;
            } else {
                return i;
            }
        }
        return -1;
    }

    private static boolean continuation(byte b) {
        return (b & 0xC0) == 0x80;
    }
}
