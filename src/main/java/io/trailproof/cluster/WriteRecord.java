package io.trailproof.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventLimits;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;
import io.trailproof.ledger.DedupeKey;
import io.trailproof.ledger.Submission;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * One write as a record of the topic (the record's value): what one request asked to store, after
 * validation and redaction on the node that accepted it, so that applying it needs nothing but the
 * record. JSON, read back with the same strict parser as requests:
 *
 * <pre>
 *   {"v": 1, "node": "&lt;node id&gt;", "request": "&lt;request id&gt;",
 *    "answer": "event" | "batch" | "spans", "refused": [[item, "error"], ...], "items": n,
 *    "key": {"ns": 1, "key": "&lt;hex&gt;", "content": "&lt;hex&gt;"},      (only for a keyed write)
 *    "events": [{"allowance": bytes redaction added, "mark": {"ns": 2, "key": "&lt;hex&gt;"}  (only "spans"),
 *                "fields": {&lt;the event's fields&gt;}}, ...]}
 * </pre>
 *
 * @param key the idempotency key (scope and path folded in), or null
 * @param contentDigest SHA-256 of the request body sent with the key, or null
 * @param marks per event its span's mark (answer "spans"), else empty
 */
public record WriteRecord(String nodeId, String requestId, List<Submission> events, DedupeKey key, byte[] contentDigest,
                          AnswerSpec answer, List<DedupeKey> marks) {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();
    /** The envelope adds three levels above an event's own. */
    private static final int MAX_DEPTH = EventLimits.MAX_NESTING_DEPTH + 3;

    public WriteRecord {
        events = List.copyOf(events);
        marks = List.copyOf(marks);
        if ((answer instanceof AnswerSpec.Spans) != !marks.isEmpty() && !events.isEmpty()
                || !marks.isEmpty() && (marks.size() != events.size() || key != null)) {
            throw new IllegalArgumentException("a spans write has one mark per event and no key; other writes no marks");
        }
    }

    /** A write without marks (events, batch). */
    public WriteRecord(String nodeId, String requestId, List<Submission> events, DedupeKey key, byte[] contentDigest,
                       AnswerSpec answer) {
        this(nodeId, requestId, events, key, contentDigest, answer, List.of());
    }

    public byte[] encode() {
        String kind = answer instanceof AnswerSpec.Batch ? "batch" : answer instanceof AnswerSpec.Spans ? "spans" : "event";
        ObjectNode o = envelope(nodeId, requestId, kind);
        if (answer instanceof AnswerSpec.Batch b) {
            String[] refused = b.refused();
            o.put("items", refused.length);
            ArrayNode r = o.putArray("refused");
            for (int i = 0; i < refused.length; i++) {
                if (refused[i] != null) {
                    r.addArray().add(i).add(refused[i]);
                }
            }
        }
        if (key != null) {
            ObjectNode k = o.putObject("key");
            k.put("ns", key.namespace());
            k.put("key", HEX.formatHex(key.digest()));
            k.put("content", HEX.formatHex(contentDigest));
        }
        ArrayNode list = o.putArray("events");
        for (int i = 0; i < events.size(); i++) {
            Submission s = events.get(i);
            ObjectNode e = list.addObject();
            e.put("allowance", s.sizeAllowance());
            if (!marks.isEmpty()) {
                ObjectNode m = e.putObject("mark");
                m.put("ns", marks.get(i).namespace());
                m.put("key", HEX.formatHex(marks.get(i).digest()));
            }
            e.set("fields", s.fields());
        }
        return bytes(o);
    }

    /**
     * What every record of the topic starts with (a write, a timestamp, a cosignature): the record
     * version, the producing node, its request id, and which kind of answer the record carries.
     */
    static ObjectNode envelope(String nodeId, String requestId, String answer) {
        ObjectNode o = MAPPER.createObjectNode();
        o.put("v", 1);
        o.put("node", nodeId);
        o.put("request", requestId);
        o.put("answer", answer);
        return o;
    }

    static byte[] bytes(ObjectNode record) {
        try {
            return MAPPER.writeValueAsBytes(record);
        } catch (IOException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
    }

    /**
     * @throws IOException when the value is not a write record of this version: a replica cannot apply
     *     it, and must stop rather than skip it
     */
    public static WriteRecord decode(byte[] value) throws IOException {
        return decode(parse(value));
    }

    /**
     * Parses a record of the topic (a write or a {@link TimestampWrite}) as far as its envelope.
     *
     * @throws IOException when it is not a version 1 trailproof record
     */
    static JsonNode parse(byte[] value) throws IOException {
        JsonNode o;
        try {
            o = StrictJson.parse(value, MAX_DEPTH);
        } catch (JsonRejection e) {
            throw new IOException("the record is not a trailproof write: " + e.getMessage());
        }
        if (!o.isObject() || o.path("v").asInt(-1) != 1) {
            throw new IOException("the record is not a version 1 trailproof write");
        }
        return o;
    }

    /** Reads a parsed record that is a write of events. */
    static WriteRecord decode(JsonNode o) throws IOException {
        AnswerSpec answer;
        switch (o.path("answer").asText()) {
            case "event" -> answer = new AnswerSpec.Single();
            case "spans" -> answer = new AnswerSpec.Spans();
            case "batch" -> {
                String[] refused = new String[o.path("items").asInt()];
                for (JsonNode r : o.path("refused")) {
                    refused[r.get(0).asInt()] = r.get(1).asText();
                }
                answer = new AnswerSpec.Batch(refused);
            }
            default -> throw new IOException("the record names no answer kind");
        }
        DedupeKey key = null;
        byte[] content = null;
        JsonNode k = o.get("key");
        if (k != null) {
            key = new DedupeKey((byte) k.path("ns").asInt(), HEX.parseHex(k.path("key").asText()));
            content = HEX.parseHex(k.path("content").asText());
        }
        List<Submission> events = new ArrayList<>();
        List<DedupeKey> marks = new ArrayList<>();
        for (JsonNode e : o.path("events")) {
            JsonNode fields = e.get("fields");
            if (fields == null || !fields.isObject()) {
                throw new IOException("an event of the record has no fields");
            }
            events.add(new Submission((ObjectNode) fields, e.path("allowance").asInt()));
            JsonNode m = e.get("mark");
            if ((m != null) != answer instanceof AnswerSpec.Spans) {
                throw new IOException("an event of the record has a mark where none belongs, or lacks one");
            }
            if (m != null) {
                marks.add(new DedupeKey((byte) m.path("ns").asInt(), HEX.parseHex(m.path("key").asText())));
            }
        }
        try {
            return new WriteRecord(o.path("node").asText(), o.path("request").asText(), events, key, content, answer, marks);
        } catch (IllegalArgumentException e) {
            throw new IOException("the record is not a consistent trailproof write: " + e.getMessage());
        }
    }
}
