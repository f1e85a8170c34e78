package io.trailproof.core.capture;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The capture streams the service has seen (src/site/completeness.md#gaps): per (agent, capture
 * id), the highest {@code capture_seq}, and the holes not reported yet. Pure: no I/O of its own, no
 * clock (times come from the events' {@code recorded_at} and the caller). Not thread-safe: one
 * owner applies events in log order; others lock around it.
 *
 * <p><b>Memory.</b> A stream is a 128-bit key (the first 16 bytes of SHA-256 over agent id, a NUL
 * and capture id), never its strings: an open stream costs three longs in an open-addressing
 * table, a closed one (its last event seen, no hole left) moves to a set of keys (two longs), and
 * only a stream with holes keeps its strings, in a side map, until they are reported. Two streams
 * share a key only if SHA-256 collides in 128 bits.
 *
 * <p><b>Holes</b>: an event whose number is beyond the highest seen + 1 opens a hole of the numbers
 * between, due {@code gapAfter} after that event's {@code recorded_at}; a stream's end
 * ({@code capture_last}) makes all its holes due at once, and {@code capture_dropped} the numbers
 * it names. An event inside a hole fills that number. A {@code GAP} event of the service removes
 * what it reports, so a hole is reported once, and the log (which holds the {@code GAP}) says so
 * after any restart.
 */
public final class CaptureState {

    /** One hole range of a stream, not reported yet. */
    static final class Hole {
        long from;
        long to;
        /** {@code recorded_at} (ms) of the event that opened it, or of the report that made it due. */
        long since;
        /** Due at once (stream end, {@code capture_dropped}), not {@code gapAfter} after {@code since}. */
        boolean immediate;
        /** Handed to a reporter whose {@code GAP} is not in the log yet. */
        boolean inFlight;

        Hole(long from, long to, long since, boolean immediate) {
            this.from = from;
            this.to = to;
            this.since = since;
            this.immediate = immediate;
        }

        Hole copy(long from, long to) {
            Hole h = new Hole(from, to, since, immediate);
            h.inFlight = inFlight;
            return h;
        }
    }

    /** A stream's open holes and the names a report needs. */
    static final class StreamHoles {
        final String agentId;
        final String captureId;
        String sessionId;
        final List<Hole> holes = new ArrayList<>(2);

        StreamHoles(String agentId, String captureId, String sessionId) {
            this.agentId = agentId;
            this.captureId = captureId;
            this.sessionId = sessionId;
        }
    }

    /** Holes due for a report: one {@code GAP} event of {@code agentId}, for one stream. */
    public record Due(String agentId, String sessionId, String captureId, List<long[]> missing) {
    }

    private record Key(long k1, long k2) {
    }

    private static final int SNAPSHOT_MAGIC = 0x54504353;   // "TPCS"
    private static final int SNAPSHOT_VERSION = 1;

    private final KeyTable open = new KeyTable(true);
    private final KeyTable closed = new KeyTable(false);
    private final Map<Key, StreamHoles> holes = new HashMap<>();
    private final MessageDigest sha256;

    public CaptureState() {
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Streams whose last event was not seen yet. */
    public long openStreams() {
        return open.size();
    }

    /** Streams ended and without a hole left to report. */
    public long closedStreams() {
        return closed.size();
    }

    /** Streams with holes not reported yet. */
    public int streamsWithHoles() {
        return holes.size();
    }

    /** Applies one stored event's facts, in log order. */
    public void apply(CaptureFacts f) {
        if (f.isGap()) {
            StreamHoles s = holes.get(key(f.agentId(), f.gapCaptureId()));
            if (s != null) {
                for (long[] r : f.gapMissing()) {
                    subtract(s, r[0], r[1]);
                }
                forgetIfEmpty(key(f.agentId(), f.gapCaptureId()), s);
            }
            return;
        }
        Key k = key(f.agentId(), f.captureId());
        StreamHoles s = holes.get(k);
        if (s != null) {
            subtract(s, f.seq(), f.seq());
            s.sessionId = f.sessionId();
        }
        if (closed.contains(k.k1, k.k2)) {
            forgetIfEmpty(k, s);
            return;   // an event after its stream's end (a resent copy): nothing is missing by it
        }
        int slot = open.find(k.k1, k.k2);
        long high = slot < 0 ? 0 : open.value(slot);
        if (f.seq() > high + 1) {
            if (s == null) {
                s = new StreamHoles(f.agentId(), f.captureId(), f.sessionId());
                holes.put(k, s);
            }
            s.holes.add(new Hole(high + 1, f.seq() - 1, f.recordedAtMillis(), false));
        }
        if (f.seq() > high) {
            open.put(k.k1, k.k2, f.seq());
        }
        if (s != null && f.dropped() != null) {
            markDue(s, f.dropped()[0], f.dropped()[1], f.recordedAtMillis());
        }
        if (f.last()) {
            if (s != null) {
                markDue(s, 1, Long.MAX_VALUE, f.recordedAtMillis());
            }
            open.remove(k.k1, k.k2);
            closed.put(k.k1, k.k2, 0);
        }
        forgetIfEmpty(k, s);
    }

    /**
     * Holes due at {@code nowMillis} and not handed out yet, one entry per stream; they are marked
     * in flight until a {@code GAP} for them is applied or {@link #release} gives them back.
     */
    public List<Due> due(long nowMillis, long gapAfterMillis) {
        List<Due> out = new ArrayList<>();
        for (StreamHoles s : holes.values()) {
            List<long[]> missing = new ArrayList<>();
            for (Hole h : s.holes) {
                if (!h.inFlight && (h.immediate || h.since + gapAfterMillis <= nowMillis)) {
                    h.inFlight = true;
                    missing.add(new long[] {h.from, h.to});
                }
            }
            if (!missing.isEmpty()) {
                out.add(new Due(s.agentId, s.sessionId, s.captureId, missing));
            }
        }
        return out;
    }

    /** A report that could not be written: its holes may be handed out again. */
    public void release(Due d) {
        StreamHoles s = holes.get(key(d.agentId(), d.captureId()));
        if (s == null) {
            return;
        }
        for (Hole h : s.holes) {
            for (long[] r : d.missing()) {
                if (h.from >= r[0] && h.to <= r[1]) {
                    h.inFlight = false;
                }
            }
        }
    }

    /** The unreported holes of one stream, as {@code [from, to]} (tests, diagnostics). */
    public List<long[]> holes(String agentId, String captureId) {
        StreamHoles s = holes.get(key(agentId, captureId));
        List<long[]> out = new ArrayList<>();
        if (s != null) {
            for (Hole h : s.holes) {
                out.add(new long[] {h.from, h.to});
            }
        }
        return out;
    }

    /** The highest number seen of an open stream, 0 when unknown or closed. */
    public long highest(String agentId, String captureId) {
        Key k = key(agentId, captureId);
        int slot = open.find(k.k1, k.k2);
        return slot < 0 ? 0 : open.value(slot);
    }

    /** Whether the stream's end was seen. */
    public boolean ended(String agentId, String captureId) {
        Key k = key(agentId, captureId);
        return closed.contains(k.k1, k.k2);
    }

    private void forgetIfEmpty(Key k, StreamHoles s) {
        if (s != null && s.holes.isEmpty()) {
            holes.remove(k);
        }
    }

    /** Removes {@code [from, to]} from the stream's holes, splitting a hole it falls inside. */
    private static void subtract(StreamHoles s, long from, long to) {
        List<Hole> next = new ArrayList<>(s.holes.size() + 1);
        for (Hole h : s.holes) {
            if (h.to < from || h.from > to) {
                next.add(h);
                continue;
            }
            if (h.from < from) {
                next.add(h.copy(h.from, from - 1));
            }
            if (h.to > to) {
                next.add(h.copy(to + 1, h.to));
            }
        }
        s.holes.clear();
        s.holes.addAll(next);
    }

    /** Makes the numbers {@code [from, to]} of the stream's holes due at once, splitting holes at the bounds. */
    private static void markDue(StreamHoles s, long from, long to, long at) {
        List<Hole> next = new ArrayList<>(s.holes.size() + 2);
        for (Hole h : s.holes) {
            if (h.to < from || h.from > to || h.immediate) {
                next.add(h);
                continue;
            }
            if (h.from < from) {
                next.add(h.copy(h.from, from - 1));
            }
            Hole mid = h.copy(Math.max(h.from, from), Math.min(h.to, to));
            mid.immediate = true;
            mid.since = at;
            next.add(mid);
            if (h.to > to) {
                next.add(h.copy(to + 1, h.to));
            }
        }
        s.holes.clear();
        s.holes.addAll(next);
    }

    private Key key(String agentId, String captureId) {
        sha256.reset();
        sha256.update(agentId.getBytes(StandardCharsets.UTF_8));
        sha256.update((byte) 0);
        byte[] d = sha256.digest(captureId.getBytes(StandardCharsets.UTF_8));
        long k1 = 0;
        long k2 = 0;
        for (int i = 0; i < 8; i++) {
            k1 = (k1 << 8) | (d[i] & 0xff);
            k2 = (k2 << 8) | (d[8 + i] & 0xff);
        }
        if (k1 == 0 && k2 == 0) {
            k2 = 1;   // (0, 0) marks an empty slot
        }
        return new Key(k1, k2);
    }

    // ---------------------------------------------------------------- snapshot

    /** Writes the whole state; {@link #read} gives it back (holes in flight come back not in flight). */
    public void write(DataOutputStream out) throws IOException {
        out.writeInt(SNAPSHOT_MAGIC);
        out.writeInt(SNAPSHOT_VERSION);
        open.write(out);
        closed.write(out);
        out.writeInt(holes.size());
        for (Map.Entry<Key, StreamHoles> e : holes.entrySet()) {
            StreamHoles s = e.getValue();
            out.writeUTF(s.agentId);
            out.writeUTF(s.captureId);
            out.writeBoolean(s.sessionId != null);
            if (s.sessionId != null) {
                out.writeUTF(s.sessionId);
            }
            out.writeInt(s.holes.size());
            for (Hole h : s.holes) {
                out.writeLong(h.from);
                out.writeLong(h.to);
                out.writeLong(h.since);
                out.writeBoolean(h.immediate);
            }
        }
    }

    /** The state {@link #write} wrote. */
    public static CaptureState read(DataInputStream in) throws IOException {
        if (in.readInt() != SNAPSHOT_MAGIC || in.readInt() != SNAPSHOT_VERSION) {
            throw new IOException("not a capture state snapshot of this version");
        }
        CaptureState s = new CaptureState();
        s.open.read(in);
        s.closed.read(in);
        int n = in.readInt();
        for (int i = 0; i < n; i++) {
            String agent = in.readUTF();
            String capture = in.readUTF();
            String session = in.readBoolean() ? in.readUTF() : null;
            StreamHoles sh = new StreamHoles(agent, capture, session);
            int m = in.readInt();
            for (int j = 0; j < m; j++) {
                sh.holes.add(new Hole(in.readLong(), in.readLong(), in.readLong(), in.readBoolean()));
            }
            s.holes.put(s.key(agent, capture), sh);
        }
        return s;
    }
}
