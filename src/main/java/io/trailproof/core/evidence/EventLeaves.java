package io.trailproof.core.evidence;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

/**
 * What the verifier keeps of each event once it has been checked, so that its proof can be matched
 * later without holding the event: id, sequence, log index and RFC 9162 leaf hash, in flat arrays
 * (about 64 bytes an event). An unreadable event keeps its place with no facts.
 */
final class EventLeaves {

    private static final int LEAF = 32;
    private static final long UNKNOWN = -1;

    private long[] sequences = new long[1024];
    private long[] logIndexes = new long[1024];
    private long[] idHigh = new long[1024];
    private long[] idLow = new long[1024];
    private byte[] leaves = new byte[1024 * LEAF];
    private int size;
    /** Ids that are not canonical UUID text (never written by the service), by position. */
    private final Map<Integer, String> irregularIds = new HashMap<>();

    void add(String id, long sequence, long logIndex, byte[] leafHash) {
        grow();
        sequences[size] = sequence;
        logIndexes[size] = logIndex;
        UUID uuid = asUuid(id);
        if (uuid == null) {
            irregularIds.put(size, id);
        } else {
            idHigh[size] = uuid.getMostSignificantBits();
            idLow[size] = uuid.getLeastSignificantBits();
        }
        System.arraycopy(leafHash, 0, leaves, size * LEAF, LEAF);
        size++;
    }

    void addUnreadable() {
        grow();
        sequences[size] = UNKNOWN;
        logIndexes[size] = UNKNOWN;
        irregularIds.put(size, null);
        size++;
    }

    int size() {
        return size;
    }

    boolean readable(int i) {
        return logIndexes[i] != UNKNOWN;
    }

    /** The event's sequence, or null when it was unreadable. */
    Long sequence(int i) {
        return readable(i) ? sequences[i] : null;
    }

    long logIndex(int i) {
        return logIndexes[i];
    }

    /** The event's id, or null when it was unreadable. */
    String id(int i) {
        if (irregularIds.containsKey(i)) {
            return irregularIds.get(i);
        }
        return new UUID(idHigh[i], idLow[i]).toString();
    }

    boolean idEquals(int i, String id) {
        String own = id(i);
        return own != null && own.equals(id);
    }

    byte[] leaf(int i) {
        return Arrays.copyOfRange(leaves, i * LEAF, (i + 1) * LEAF);
    }

    private void grow() {
        if (size == sequences.length) {
            int n = size * 2;
            sequences = Arrays.copyOf(sequences, n);
            logIndexes = Arrays.copyOf(logIndexes, n);
            idHigh = Arrays.copyOf(idHigh, n);
            idLow = Arrays.copyOf(idLow, n);
            leaves = Arrays.copyOf(leaves, n * LEAF);
        }
    }

    private static UUID asUuid(String id) {
        try {
            UUID uuid = UUID.fromString(id);
            return uuid.toString().equals(id) ? uuid : null;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
