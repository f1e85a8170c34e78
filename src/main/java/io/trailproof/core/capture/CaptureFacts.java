package io.trailproof.core.capture;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.MemberScanner;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What gap detection needs from one stored event (src/site/completeness.md#gaps): its capture
 * stream and number, whether it ends the stream or reports numbers lost, or, for a {@code GAP}
 * event of the service, which numbers it recorded as missing.
 *
 * <p>{@link #read} is on the path of every stored event, so it first looks for the two names that
 * matter with a byte search and returns null without reading anything else when neither is there
 * (events of no capture stream); a payload that has them is read member by member
 * ({@link MemberScanner}), with a full parse only for the two small arrays.
 *
 * @param captureId null for a {@code GAP} event
 * @param dropped {@code [from, to]} from {@code capture_dropped}, or null
 * @param gapCaptureId for a {@code GAP} event: the stream it reports, else null
 * @param gapMissing for a {@code GAP} event: the ranges it reports, else empty
 */
public record CaptureFacts(String agentId, String sessionId, String captureId, long seq, boolean last,
                           long[] dropped, String recordedAt, String gapCaptureId, List<long[]> gapMissing) {

    private static final String GAP = GAP_ACTION_TYPE;

    private static final Needle SEQ_NAME = new Needle(("\"" + CAPTURE_SEQ + "\":").getBytes(StandardCharsets.UTF_8));
    private static final Needle GAP_TYPE = new Needle(("\"" + ACTION_TYPE + "\":\"" + GAP + "\"").getBytes(StandardCharsets.UTF_8));

    /** {@code recorded_at} in epoch milliseconds (0 when absent), read only where a hole needs it. */
    public long recordedAtMillis() {
        return recordedAt == null ? 0 : EventTime.parseTimestamp(recordedAt).toEpochMilli();
    }

    public boolean isGap() {
        return gapCaptureId != null;
    }

    /** The facts of a stored payload, or null when it belongs to no capture stream and is no {@code GAP}. */
    public static CaptureFacts read(byte[] payload) {
        boolean seq = SEQ_NAME.in(payload);
        boolean gap = GAP_TYPE.in(payload);
        if (!seq && !gap) {
            return null;
        }
        String agent = null;
        String session = null;
        String captureId = null;
        long number = 0;
        boolean last = false;
        long[] dropped = null;
        String recordedAt = null;
        String actionType = null;
        JsonNode output = null;
        MemberScanner m = new MemberScanner(payload);
        while (m.next()) {
            if (m.nameIs(AGENT_ID)) {
                agent = m.stringValue();
            } else if (m.nameIs(SESSION_ID)) {
                session = m.stringValue();
            } else if (m.nameIs(CAPTURE_ID)) {
                captureId = m.stringValue();
            } else if (m.nameIs(CAPTURE_SEQ) && m.kind() == MemberScanner.Kind.NUMBER) {
                number = m.integerValue();
            } else if (m.nameIs(CAPTURE_LAST)) {
                last = m.kind() == MemberScanner.Kind.LITERAL && payload[m.valueStart()] == 't';
            } else if (m.nameIs(CAPTURE_DROPPED)) {
                JsonNode d = slice(payload, m.valueStart(), m.valueEnd());
                if (d != null && d.isArray() && d.size() == 2) {
                    dropped = new long[] {d.get(0).longValue(), d.get(1).longValue()};
                }
            } else if (m.nameIs(RECORDED_AT)) {
                recordedAt = m.stringValue();
            } else if (m.nameIs(ACTION_TYPE)) {
                actionType = m.stringValue();
            } else if (m.nameIs(ACTION_OUTPUT) && gap) {
                output = slice(payload, m.valueStart(), m.valueEnd());
            }
        }
        if (GAP.equals(actionType) && captureId == null) {
            return gapFacts(agent, session, recordedAt, output);
        }
        if (captureId == null || number < 1) {
            return null;
        }
        return new CaptureFacts(agent, session, captureId, number, last, dropped, recordedAt, null, List.of());
    }

    private static CaptureFacts gapFacts(String agent, String session, String at, JsonNode output) {
        if (output == null || !output.path("capture_id").isTextual() || !output.path("missing").isArray()) {
            return null;
        }
        List<long[]> missing = new ArrayList<>();
        for (JsonNode r : output.get("missing")) {
            if (r.isArray() && r.size() == 2 && r.get(0).canConvertToLong() && r.get(1).canConvertToLong()) {
                missing.add(new long[] {r.get(0).longValue(), r.get(1).longValue()});
            }
        }
        return new CaptureFacts(agent, session, null, 0, false, null, at, output.get("capture_id").textValue(),
                missing);
    }

    private static JsonNode slice(byte[] payload, int from, int to) {
        try {
            return StrictJson.parse(Arrays.copyOfRange(payload, from, to), 66);
        } catch (JsonRejection e) {
            return null;
        }
    }

    /** Whether {@code needle} occurs in {@code hay}. */
    static boolean contains(byte[] hay, byte[] needle) {
        return new Needle(needle).in(hay);
    }

    /**
     * A byte string searched for with Horspool's method: the byte under the needle's last position
     * says how far the needle can move, so a search looks at about one byte in every few of the
     * payload rather than at each (every stored event is searched twice, on the ingest path).
     */
    static final class Needle {
        private final byte[] bytes;
        private final int[] shift = new int[256];

        Needle(byte[] bytes) {
            if (bytes.length == 0) {
                throw new IllegalArgumentException("empty needle");
            }
            this.bytes = bytes.clone();
            Arrays.fill(shift, bytes.length);
            for (int i = 0; i < bytes.length - 1; i++) {
                shift[bytes[i] & 0xff] = bytes.length - 1 - i;
            }
        }

        boolean in(byte[] hay) {
            int m = bytes.length;
            byte lastByte = bytes[m - 1];
            for (int end = m - 1; end < hay.length; end += shift[hay[end] & 0xff]) {
                if (hay[end] == lastByte && Arrays.equals(hay, end - m + 1, end + 1, bytes, 0, m)) {
                    return true;
                }
            }
            return false;
        }
    }
}
