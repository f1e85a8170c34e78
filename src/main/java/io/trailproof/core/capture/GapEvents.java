package io.trailproof.core.capture;

import static io.trailproof.core.event.EventFields.*;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventTime;

import java.time.Instant;

/**
 * The service's record of a capture gap (src/site/completeness.md#gaps): a {@code GAP} event of the
 * stream's agent, in the session of the stream's latest event, whose {@code action_output} is
 * {@code {"capture_id", "missing": [[from, to], ...], "detected_at"}}.
 */
public final class GapEvents {

    /** {@code source} of the events the service itself records. */
    public static final String SERVICE_SOURCE = "trailproof";
    /** {@code action_name} of a {@code GAP} event. */
    public static final String ACTION_NAME_GAP = "capture_gap";

    private GapEvents() {
    }

    /** The client fields of the {@code GAP} event reporting {@code due}, detected at {@code detectedAt}. */
    public static ObjectNode of(CaptureState.Due due, Instant detectedAt) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode e = f.objectNode();
        e.put(AGENT_ID, due.agentId());
        if (due.sessionId() != null) {
            e.put(SESSION_ID, due.sessionId());
        }
        e.put(SOURCE, SERVICE_SOURCE);
        e.put(ACTION_TYPE, GAP_ACTION_TYPE);
        e.put(ACTION_NAME, ACTION_NAME_GAP);
        e.put(ACTION_STATUS, "missing");
        ObjectNode out = e.putObject(ACTION_OUTPUT);
        out.put("capture_id", due.captureId());
        ArrayNode missing = out.putArray("missing");
        for (long[] r : due.missing()) {
            missing.addArray().add(r[0]).add(r[1]);
        }
        out.put("detected_at", EventTime.formatRecordedAt(detectedAt));
        return e;
    }
}
