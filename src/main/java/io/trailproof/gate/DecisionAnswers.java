package io.trailproof.gate;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.gate.GateFields;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The body of the 201 answer of {@code POST /v1/decisions} (src/site/gates.md): the decision's id,
 * the members of its {@code action_output} and where its event is. One is written per decision, so
 * it is written straight into its bytes; they are the bytes Jackson writes for a tree of the same
 * members, which is how a keyed retry's answer (read from the stored event) is the same.
 */
final class DecisionAnswers {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The members of a DECISION's {@code action_output} its answer repeats, in the answer's order. */
    private static final List<String> MEMBERS = List.of(GateFields.OUT_DECISION, GateFields.OUT_POLICY,
            GateFields.OUT_RULE, GateFields.OUT_REASON, GateFields.OUT_POLICY_EVENT_ID, GateFields.OUT_ARGS_SHA256,
            GateFields.OUT_EXPIRES_AT);
    private static final JsonStringEncoder QUOTES = JsonStringEncoder.getInstance();
    private static final byte[] START = ascii("{\"decision_id\":");
    private static final byte[][] NAMES = MEMBERS.stream().map(m -> ascii(",\"" + m + "\":"))
            .toArray(byte[][]::new);
    private static final byte[] EVENT_ID = ascii(",\"event\":{\"" + EventFields.ID + "\":");
    private static final byte[] EVENT_LOG_INDEX = ascii(",\"" + EventFields.LOG_INDEX + "\":");
    private static final byte[] EVENT_HASH = ascii(",\"" + EventFields.HASH + "\":");
    private static final byte[] NULL = ascii("null");

    private DecisionAnswers() {
    }

    /**
     * Written member by member, the same bytes as Jackson writes a tree of the same members (one
     * answer per decision: no tree, generator or buffer beyond the answer's own is made).
     */
    static byte[] of(String decisionId, JsonNode out, JsonNode id, JsonNode logIndex, JsonNode hash)
            throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(384);
        bytes.write(START);
        text(bytes, decisionId);
        for (int i = 0; i < MEMBERS.size(); i++) {
            bytes.write(NAMES[i]);
            write(bytes, out.get(MEMBERS.get(i)));
        }
        bytes.write(EVENT_ID);
        write(bytes, id);
        bytes.write(EVENT_LOG_INDEX);
        write(bytes, logIndex);
        bytes.write(EVENT_HASH);
        write(bytes, hash);
        bytes.write('}');
        bytes.write('}');
        return bytes.toByteArray();
    }

    private static void write(ByteArrayOutputStream bytes, JsonNode value) throws IOException {
        if (value == null || value.isNull()) {
            bytes.write(NULL);
        } else if (value.isTextual()) {
            text(bytes, value.textValue());
        } else {
            bytes.write(MAPPER.writeValueAsBytes(value));
        }
    }

    /** A string as Jackson's generator writes it: escaped by the same table; a surrogate pair (which it escapes) by it. */
    private static void text(ByteArrayOutputStream bytes, String text) throws IOException {
        for (int i = 0; i < text.length(); i++) {
            if (Character.isSurrogate(text.charAt(i))) {
                bytes.write(MAPPER.writeValueAsBytes(text));
                return;
            }
        }
        bytes.write('"');
        bytes.write(QUOTES.quoteAsUTF8(text));
        bytes.write('"');
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
