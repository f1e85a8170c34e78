package io.trailproof.ledger;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * One dedupe record as the log stores it: a side frame of the group whose events it describes
 * ({@link io.trailproof.store.EventLog#append(java.util.List, java.util.List)}), so the record and
 * the events are committed, and lost, together. The log is the source of truth; {@link DedupeTable}
 * is rebuilt from these records at start.
 *
 * <pre>
 *   'D'              1 byte, marks a dedupe record among side frames
 *   version          1 byte, 1
 *   namespace        1 byte ({@link #IDEMPOTENCY_KEY}, {@link #OTLP_SPAN})
 *   key digest       32 bytes, SHA-256 naming the key within its namespace and scope ({@link DedupeKey})
 *   content digest   32 bytes, SHA-256 of what was sent under the key (a request body)
 *   recorded at      8 bytes big-endian, epoch milliseconds of the service's clock when sealed
 *   answer           the rest, owned by the namespace (for an Idempotency-Key: the recorded answer;
 *                    for an OTLP span: the log index of its event, 8 bytes big-endian)
 * </pre>
 */
public record DedupeRecord(byte namespace, byte[] keyDigest, byte[] contentDigest, long recordedAtMillis,
                           byte[] answer) {

    /** Namespace of HTTP {@code Idempotency-Key} records (src/site/ingestion.md#idempotency). */
    public static final byte IDEMPOTENCY_KEY = 1;
    /**
     * Namespace of OTLP span marks, one per stored span, keyed by (trace id, span id) (src/site/ingestion.md#otlp;
     * {@code io.trailproof.otlp.TraceIngest}). Every mark has the same content digest (zeros).
     */
    public static final byte OTLP_SPAN = 2;

    static final byte MARKER = 'D';
    static final byte VERSION = 1;
    static final int DIGEST_BYTES = 32;
    static final int HEADER_BYTES = 3 + DIGEST_BYTES + DIGEST_BYTES + 8;

    public DedupeRecord {
        if (keyDigest.length != DIGEST_BYTES || contentDigest.length != DIGEST_BYTES) {
            throw new IllegalArgumentException("digests are 32 bytes");
        }
    }

    byte[] encode() {
        return ByteBuffer.allocate(HEADER_BYTES + answer.length)
                .put(MARKER).put(VERSION).put(namespace).put(keyDigest).put(contentDigest)
                .putLong(recordedAtMillis).put(answer).array();
    }

    /** Whether a side frame's payload is a dedupe record this version knows. */
    static boolean isRecord(byte[] payload) {
        return payload.length >= HEADER_BYTES && payload[0] == MARKER && payload[1] == VERSION;
    }

    /**
     * The record in a side frame's payload, or null when the payload is not a dedupe record this
     * version knows (another side record kind, a later version): such frames are skipped.
     */
    static DedupeRecord decode(byte[] payload) {
        if (!isRecord(payload)) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(payload, 3, payload.length - 3);
        byte[] key = new byte[DIGEST_BYTES];
        byte[] content = new byte[DIGEST_BYTES];
        b.get(key).get(content);
        long at = b.getLong();
        return new DedupeRecord(payload[2], key, content, at, Arrays.copyOfRange(payload, HEADER_BYTES, payload.length));
    }
}
