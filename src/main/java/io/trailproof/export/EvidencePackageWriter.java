package io.trailproof.export;

import static io.trailproof.core.evidence.EvidenceFormat.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.ledger.ChainSlice;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;

/**
 * Writes the evidence package of CONTRACT 5 for a {@link ChainSlice}, streamed: each event is read
 * from the log, written and dropped, so memory does not grow with the number of events. Stored
 * events are written as their stored bytes (already RFC 8785), never re-serialised. Every proof is
 * against the slice's tree size and root. The timestamps ({@link PackageTimestamps} picks them) are
 * written as their stored records, each with the RFC 9162 consistency proof from its tree to the
 * slice's tree.
 */
public final class EvidencePackageWriter {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final HexFormat HEX = HexFormat.of();

    private EvidencePackageWriter() {
    }

    /**
     * Writes the whole package to {@code out} (not closed). An {@link IOException} leaves an
     * incomplete document, which any JSON reader and the verifier refuse.
     *
     * @param timestamps the records to embed (from {@link PackageTimestamps}); each tree_size at most the slice's
     * @param since      the window's start as the caller gave it, or null
     * @param until      the window's end as the caller gave it, or null
     */
    public static void write(ChainSlice slice, List<TimestampRecord> timestamps, String since, String until,
                             OutputStream out) throws IOException {
        try (JsonGenerator g = FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setPrettyPrinter(new OneItemPerLine());
            g.writeStartObject();
            g.writeStringField(FORMAT, FORMAT_NAME);
            g.writeStringField(VERSION, VERSION_1_0);
            g.writeStringField(EXPORTED_AT, EventTime.formatRecordedAt(slice.takenAt()));
            g.writeObjectFieldStart(FILTER);
            g.writeStringField(AGENT_ID, slice.agentId());
            g.writeStringField(SINCE, since);
            g.writeStringField(UNTIL, until);
            g.writeEndObject();
            g.writeStringField(HASH_ALGORITHM, SHA_256);
            g.writeStringField(CANONICALIZATION, RFC_8785);
            g.writeStringField(MERKLE_TREE, RFC_9162);
            g.writeStringField(MERKLE_ROOT, HEX.formatHex(slice.root()));
            g.writeNumberField(TREE_SIZE, slice.treeSize());
            writeChain(g, slice);

            g.writeArrayFieldStart(EVENTS);
            slice.forEach((logIndex, payload) -> {
                if (idOf(payload) != null || isJson(payload)) {
                    g.writeRawValue(new String(payload, StandardCharsets.UTF_8));
                } else {
                    // Not JSON at all (a damaged log): kept in its place as text, so the package stays
                    // readable and verification names this event instead of refusing the whole file.
                    g.writeString(new String(payload, StandardCharsets.UTF_8));
                }
            });
            g.writeEndArray();

            g.writeArrayFieldStart(MERKLE_PROOFS);
            slice.forEach((logIndex, payload) -> {
                g.writeStartObject();
                g.writeStringField(EVENT_ID, idOf(payload));
                g.writeObjectFieldStart(PROOF);
                g.writeStringField(LEAF_HASH, HEX.formatHex(slice.leafHash(logIndex)));
                g.writeNumberField(LEAF_INDEX, logIndex);
                g.writeArrayFieldStart(SIBLINGS);
                for (byte[] sibling : slice.inclusionProof(logIndex)) {
                    g.writeString(HEX.formatHex(sibling));
                }
                g.writeEndArray();
                g.writeNumberField(TREE_SIZE, slice.treeSize());
                g.writeEndObject();
                g.writeEndObject();
            });
            g.writeEndArray();

            g.writeArrayFieldStart(TIMESTAMPS);
            for (TimestampRecord t : timestamps) {
                g.writeRawValue(MAPPER.writeValueAsString(withConsistencyProof(t, slice)));
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /** The record of CONTRACT 6.2 plus {@code consistency_proof: {from, to, proof}} to the slice's tree. */
    private static ObjectNode withConsistencyProof(TimestampRecord t, ChainSlice slice) {
        ObjectNode entry = t.toJson();
        ObjectNode cp = entry.putObject(CONSISTENCY_PROOF);
        cp.put(FROM, t.treeSize());
        cp.put(TO, slice.treeSize());
        ArrayNode path = cp.putArray(PROOF);
        for (byte[] h : slice.consistencyProof(t.treeSize())) {
            path.add(HEX.formatHex(h));
        }
        return entry;
    }

    private static void writeChain(JsonGenerator g, ChainSlice slice) throws IOException {
        g.writeObjectFieldStart(CHAIN);
        g.writeStringField(AGENT_ID, slice.agentId());
        g.writeNumberField(LENGTH, slice.length());
        if (slice.length() == 0) {
            g.writeNullField(FIRST_SEQUENCE);
            g.writeNullField(LAST_SEQUENCE);
            g.writeNullField(ANCHOR_HASH);
        } else {
            g.writeNumberField(FIRST_SEQUENCE, slice.firstSequence());
            g.writeNumberField(LAST_SEQUENCE, slice.lastSequence());
            g.writeStringField(ANCHOR_HASH, slice.anchorHash());
        }
        g.writeEndObject();
    }

    /** The stored event's top-level {@code id}, or null when the payload has none or is not JSON. */
    private static String idOf(byte[] payload) {
        try (JsonParser p = FACTORY.createParser(payload)) {
            if (p.nextToken() != JsonToken.START_OBJECT) {
                return null;
            }
            String id = null;
            while (p.nextToken() == JsonToken.FIELD_NAME) {
                String name = p.currentName();
                JsonToken value = p.nextToken();
                if (name.equals(EventFields.ID) && value == JsonToken.VALUE_STRING) {
                    id = p.getText();
                } else {
                    p.skipChildren();
                }
            }
            return p.nextToken() == null ? id : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static boolean isJson(byte[] payload) {
        try (JsonParser p = FACTORY.createParser(payload)) {
            if (p.nextToken() == null) {
                return false;
            }
            p.skipChildren();
            return p.nextToken() == null;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Compact JSON with a line per top-level member and per item of the top-level arrays (one event,
     * one proof a line), so the file reads and diffs well without the size of full indentation.
     */
    private static final class OneItemPerLine extends MinimalPrettyPrinter {
        private static final long serialVersionUID = 1L;

        private static boolean topLevel(JsonStreamContext container) {
            return container.getParent() != null && container.getParent().inRoot();
        }

        private static boolean topLevelArray(JsonStreamContext container) {
            return container.inArray() && container.getParent() != null && topLevel(container.getParent());
        }

        @Override
        public void beforeObjectEntries(JsonGenerator g) throws IOException {
            if (topLevel(g.getOutputContext())) {
                g.writeRaw("\n  ");
            }
        }

        @Override
        public void writeObjectFieldValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(topLevel(g.getOutputContext()) ? ": " : ":");
        }

        @Override
        public void writeObjectEntrySeparator(JsonGenerator g) throws IOException {
            g.writeRaw(topLevel(g.getOutputContext()) ? ",\n  " : ",");
        }

        @Override
        public void writeEndObject(JsonGenerator g, int entries) throws IOException {
            g.writeRaw(topLevel(g.getOutputContext()) ? "\n}\n" : "}"); // called before the context closes
        }

        @Override
        public void beforeArrayValues(JsonGenerator g) throws IOException {
            if (topLevelArray(g.getOutputContext())) {
                g.writeRaw("\n    ");
            }
        }

        @Override
        public void writeArrayValueSeparator(JsonGenerator g) throws IOException {
            g.writeRaw(topLevelArray(g.getOutputContext()) ? ",\n    " : ",");
        }

        @Override
        public void writeEndArray(JsonGenerator g, int values) throws IOException {
            g.writeRaw(values > 0 && topLevelArray(g.getOutputContext()) ? "\n  ]" : "]");
        }
    }
}
