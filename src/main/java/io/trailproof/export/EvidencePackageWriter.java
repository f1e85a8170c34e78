package io.trailproof.export;

import static io.trailproof.core.evidence.EvidenceFormat.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.util.MinimalPrettyPrinter;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.EventTime;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.timestamp.TimestampRecord;
import io.trailproof.ledger.ChainSlice;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Writes the evidence package of src/site/evidence-format.md for a {@link ChainSlice}, streamed: each event is read
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
    /** The start of an {@code erased} member in RFC 8785 form (its keys sorted: at, erasure_id, fields). */
    private static final byte[] ERASED_MARK = ("\"" + EventFields.ERASED + "\":{\"at\":").getBytes(StandardCharsets.US_ASCII);

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
        write(slice, timestamps, null, since, until, out);
    }

    /**
     * As {@link #write(ChainSlice, List, String, String, OutputStream)}, with {@code checkpoint}: the
     * log's signed checkpoint note for exactly the slice's tree size and root (src/site/checkpoints.md), or null.
     */
    public static void write(ChainSlice slice, List<TimestampRecord> timestamps, String checkpoint, String since,
                             String until, OutputStream out) throws IOException {
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
            if (checkpoint != null) {
                g.writeStringField(CHECKPOINT, checkpoint);
            }
            writeChain(g, slice);

            ArrayWriter items = new ArrayWriter(out);
            startRawValue(g, EVENTS);
            Set<String> erasureIds = new LinkedHashSet<>();
            slice.forEach((logIndex, payload) -> {
                items.event(payload);
                String erasure = erasureOf(payload);
                if (erasure != null) {
                    erasureIds.add(erasure);
                }
            });
            items.end();

            List<ChainSlice.ErasureEvent> erasures = slice.erasureEvents(erasureIds);
            if (!erasures.isEmpty()) {
                startRawValue(g, ERASURES);
                ChainSlice.Proofs erasureProofs = slice.proofs();
                for (ChainSlice.ErasureEvent e : erasures) {
                    items.erasure(e.payload(), erasureProofs.leafHash(e.logIndex()),
                            erasureProofs.inclusionProof(e.logIndex()), e.logIndex(), slice.treeSize());
                }
                items.end();
            }

            startRawValue(g, MERKLE_PROOFS);
            ChainSlice.Proofs proofs = slice.proofs();
            slice.forEach((logIndex, payload) -> items.proof(PayloadFacts.idOf(payload), logIndex,
                    proofs.leafHash(logIndex), proofs.inclusionProof(logIndex), slice.treeSize()));
            items.end();

            g.writeArrayFieldStart(TIMESTAMPS);
            for (TimestampRecord t : timestamps) {
                g.writeRawValue(MAPPER.writeValueAsString(withConsistencyProof(t, slice)));
            }
            g.writeEndArray();
            g.writeEndObject();
        }
    }

    /**
     * The erasure id of an erased stored event (src/site/erasure.md#erased-event), or null. Only a
     * payload holding the RFC 8785 text of an {@code erased} member is parsed.
     */
    private static String erasureOf(byte[] payload) {
        if (!contains(payload, ERASED_MARK)) {
            return null;
        }
        try {
            return StoredEvent.parse(payload.clone()).erasureId();
        } catch (StoredEventFormatException e) {
            return null; // an unreadable event is written as it is; verification names it
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }

    /**
     * Writes the member name with its separators through the generator and leaves the value to be
     * written straight to the generator's target: the large arrays bypass the generator, which then
     * carries on as if it had written the value.
     */
    private static void startRawValue(JsonGenerator g, String name) throws IOException {
        g.writeFieldName(name);
        g.writeRawValue("");
        g.flush();
    }

    /** The record of src/site/timestamps.md#record plus {@code consistency_proof: {from, to, proof}} to the slice's tree. */
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

    /**
     * One top-level array of the package, written as bytes into a reused buffer: the same bytes the
     * generator with {@link OneItemPerLine} writes (one item a line, items compact), without a String
     * or a generator call per hash. Writes through to the target when full and at {@link #end()}.
     */
    private static final class ArrayWriter {
        private static final byte[] HEX_DIGITS = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
        private static final byte[] FIRST = ascii("[\n    ");
        private static final byte[] NEXT = ascii(",\n    ");
        private static final byte[] END_EMPTY = ascii("[]");
        private static final byte[] END = ascii("\n  ]");
        private static final byte[] NULL = ascii("null");
        private static final byte[] PROOF_START = ascii("{\"" + EVENT_ID + "\":");
        private static final byte[] ERASURE_START = ascii("{\"" + EVENT + "\":");
        private static final byte[] LEAF_HASH_NAME = ascii(",\"" + PROOF + "\":{\"" + LEAF_HASH + "\":");
        private static final byte[] LEAF_INDEX_NAME = ascii(",\"" + LEAF_INDEX + "\":");
        private static final byte[] SIBLINGS_NAME = ascii(",\"" + SIBLINGS + "\":[");
        private static final byte[] TREE_SIZE_NAME = ascii("],\"" + TREE_SIZE + "\":");
        private static final byte[] PROOF_END = ascii("}}");
        private static final int BUFFER_BYTES = 256 * 1024;

        private final OutputStream out;
        private final byte[] buf = new byte[BUFFER_BYTES];
        private int pos;
        private long items;
        // The previous proof's siblings by height from the root, and their quoted hex.
        private byte[][] lastSibling = new byte[64][];
        private byte[][] siblingText = new byte[64][];

        ArrayWriter(OutputStream out) {
            this.out = out;
        }

        /** A stored event as its stored text; anything that is not JSON (a damaged log) as a JSON string. */
        void event(byte[] payload) throws IOException {
            startItem();
            bytes(PayloadFacts.eventItem(payload));
        }

        void proof(String eventId, long leafIndex, byte[] leafHash, List<byte[]> siblings, long treeSize)
                throws IOException {
            startItem();
            bytes(PROOF_START);
            if (eventId == null) {
                bytes(NULL);
            } else {
                string(eventId);
            }
            proofBody(leafIndex, leafHash, siblings, treeSize);
        }

        /** One item of {@code erasures}: {@code {"event": <stored bytes>, "proof": {...}}}. */
        void erasure(byte[] payload, byte[] leafHash, List<byte[]> siblings, long leafIndex, long treeSize)
                throws IOException {
            startItem();
            bytes(ERASURE_START);
            bytes(PayloadFacts.text(payload));
            proofBody(leafIndex, leafHash, siblings, treeSize);
        }

        private void proofBody(long leafIndex, byte[] leafHash, List<byte[]> siblings, long treeSize)
                throws IOException {
            bytes(LEAF_HASH_NAME);
            hex(leafHash);
            bytes(LEAF_INDEX_NAME);
            number(leafIndex);
            bytes(SIBLINGS_NAME);
            int count = siblings.size();
            for (int i = 0; i < count; i++) {
                if (i > 0) {
                    room(1);
                    buf[pos++] = ',';
                }
                siblingHex(siblings.get(i), count - 1 - i);
            }
            bytes(TREE_SIZE_NAME);
            number(treeSize);
            bytes(PROOF_END);
        }

        /** Closes the array and writes everything buffered to the target; the writer can start the next array. */
        void end() throws IOException {
            bytes(items == 0 ? END_EMPTY : END);
            items = 0;
            drain();
        }

        private void startItem() throws IOException {
            bytes(items++ == 0 ? FIRST : NEXT);
        }

        /** A JSON string as the generator escapes it. */
        private void string(String s) throws IOException {
            int n = s.length();
            if (n + 2 > buf.length) {
                bytes(PayloadFacts.jsonString(s));
                return;
            }
            for (int i = 0; i < n; i++) {
                char c = s.charAt(i);
                if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                    bytes(PayloadFacts.jsonString(s));
                    return;
                }
            }
            room(n + 2);
            buf[pos++] = '"';
            for (int i = 0; i < n; i++) {
                buf[pos++] = (byte) s.charAt(i);
            }
            buf[pos++] = '"';
        }

        /**
         * A sibling's hex, taken from the previous proof when the same hash (the same array: the proof
         * cursor hands out the upper siblings it reuses) stood at the same height from the root.
         */
        private void siblingHex(byte[] hash, int fromRoot) throws IOException {
            byte[] text = fromRoot < lastSibling.length && lastSibling[fromRoot] == hash ? siblingText[fromRoot] : null;
            if (text == null) {
                if (fromRoot >= lastSibling.length) {
                    lastSibling = Arrays.copyOf(lastSibling, fromRoot + 8);
                    siblingText = Arrays.copyOf(siblingText, fromRoot + 8);
                }
                text = quotedHex(hash);
                lastSibling[fromRoot] = hash;
                siblingText[fromRoot] = text;
            }
            bytes(text);
        }

        private void hex(byte[] hash) throws IOException {
            bytes(quotedHex(hash));
        }

        private static byte[] quotedHex(byte[] hash) {
            byte[] text = new byte[hash.length * 2 + 2];
            int p = 0;
            text[p++] = '"';
            for (byte b : hash) {
                text[p++] = HEX_DIGITS[(b >> 4) & 0xf];
                text[p++] = HEX_DIGITS[b & 0xf];
            }
            text[p] = '"';
            return text;
        }

        private void number(long v) throws IOException {
            bytes(ascii(Long.toString(v)));
        }

        private void bytes(byte[] b) throws IOException {
            if (b.length > buf.length - pos) {
                drain();
                if (b.length > buf.length) {
                    out.write(b);
                    return;
                }
            }
            System.arraycopy(b, 0, buf, pos, b.length);
            pos += b.length;
        }

        private void room(int n) throws IOException {
            if (n > buf.length - pos) {
                drain();
            }
        }

        private void drain() throws IOException {
            out.write(buf, 0, pos);
            pos = 0;
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
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
