package io.trailproof.core.capture;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The byte search that decides whether a stored event belongs to a capture stream
 * ({@link CaptureFacts#read}) answers exactly what a byte-by-byte search answers: seeded random
 * payloads over a small alphabet (so that near misses are frequent), with the needle planted at every
 * position, cut by one byte, or with one byte changed.
 */
class CaptureFactsNeedleTest {

    @Test
    void findsExactlyWhatAByteByByteSearchFinds() {
        Random random = new Random(20261202);
        byte[] alphabet = "\"capture_seq:1ACTION_TYPE ,{}".getBytes(StandardCharsets.UTF_8);
        for (byte[] needle : new byte[][] {"\"capture_seq\":".getBytes(StandardCharsets.UTF_8),
                "\"action_type\":\"GAP\"".getBytes(StandardCharsets.UTF_8), "a".getBytes(StandardCharsets.UTF_8),
                "aa".getBytes(StandardCharsets.UTF_8)}) {
            CaptureFacts.Needle search = new CaptureFacts.Needle(needle);
            for (int round = 0; round < 20_000; round++) {
                byte[] hay = new byte[random.nextInt(60)];
                for (int i = 0; i < hay.length; i++) {
                    hay[i] = alphabet[random.nextInt(alphabet.length)];
                }
                int plant = random.nextInt(4);
                if (plant > 0 && hay.length >= needle.length) {
                    int at = random.nextInt(hay.length - needle.length + 1);
                    int len = plant == 2 ? needle.length - 1 : needle.length;
                    System.arraycopy(needle, 0, hay, at, len);
                    if (plant == 3) {
                        hay[at + random.nextInt(needle.length)] ^= 1;
                    }
                }
                assertThat(search.in(hay)).as(new String(hay, StandardCharsets.UTF_8)).isEqualTo(naive(hay, needle));
            }
        }
    }

    private static boolean naive(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
