package io.trailproof.core.evidence;

import static io.trailproof.core.evidence.EvidenceFormat.*;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerationException;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import io.trailproof.core.event.StoredEvent;
import io.trailproof.core.event.StoredEventFormatException;
import io.trailproof.core.json.JsonRejection;
import io.trailproof.core.json.StrictJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads an evidence package from a stream, once, and hands each part to whoever checks it: the
 * small members into the {@link PackageHeader}, each event, proof and timestamp entry to its sink
 * as it is read. The only place the package's JSON is parsed.
 *
 * <p>Streams: an item is read, handed on and dropped. A sink sees its section only once what it
 * needs has been read (events after the chain summary; proofs and timestamps after the events, the
 * root and the tree size); a section that comes earlier is held as bytes and handed on at the end,
 * so packages in the order the service writes them ({@link EvidenceFormat}) are read in memory
 * independent of their size, and reordered ones still verify.
 *
 * <p>Decides what makes a document unreadable ({@link UnreadablePackage}): not JSON, not an object,
 * not a trailproof package, another version. What it finds wrong in a readable package (a member
 * twice, a small member it cannot read, a section that is not an array, content after the object)
 * is a {@link EvidenceCheck#FORMAT} failure in the tally it is given.
 */
final class PackageReader {

    /** Receives the events, in order. */
    interface EventSink {
        void event(StoredEvent event);

        /** An element of {@code events} that is not a readable stored event; it keeps its place. */
        void unreadableEvent(String why);
    }

    /** Receives the inclusion proofs, in order. */
    interface ProofSink {
        /** One item of {@code merkle_proofs}, null when it cannot be read. */
        void proof(JsonNode item);

        /** The array of proofs is complete (not called when {@code merkle_proofs} is not an array). */
        void endOfProofs();
    }

    /** Receives each item of {@code erasures} (src/site/evidence-format.md#erasures), null when it cannot be read. */
    interface ErasureSink {
        void erasure(JsonNode item);
    }

    /** Receives each readable entry of {@code timestamps}. */
    interface TimestampSink {
        void timestamp(JsonNode entry);
    }

    /** The document is not a readable evidence package at all; the message says why, for a person. */
    static final class UnreadablePackage extends Exception {
        private static final long serialVersionUID = 1L;

        UnreadablePackage(String message) {
            super(message, null, false, false);
        }
    }

    /** Jackson's own limits lifted, as for every strict reader of the core: the reader's checks speak first. */
    private static final JsonFactory FACTORY = StrictJson.unlimitedFactory();
    /** Nesting allowed in the small members (filter, chain, one proof, one timestamp). */
    private static final int SMALL_MEMBER_DEPTH = 8;

    private final PackageHeader header;
    private final Tally format;
    private final EventSink events;
    private final ProofSink proofs;
    private final TimestampSink timestamps;
    private final ErasureSink erasures;
    private final ByteArrayOutputStream buffer = new ByteArrayOutputStream(4096);
    private final Map<String, byte[]> deferred = new LinkedHashMap<>();
    private boolean eventsRead;

    PackageReader(PackageHeader header, Tally format, EventSink events, ProofSink proofs, TimestampSink timestamps,
                  ErasureSink erasures) {
        this.header = header;
        this.erasures = erasures;
        this.format = format;
        this.events = events;
        this.proofs = proofs;
        this.timestamps = timestamps;
    }

    /**
     * Reads the package from {@code in} to its end. The caller opened the stream and closes it.
     *
     * @throws UnreadablePackage when the document is not a readable evidence package
     */
    void read(InputStream in) throws UnreadablePackage {
        try (JsonParser p = FACTORY.createParser(in)) {
            p.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
            readDocument(p);
        } catch (JsonProcessingException e) {
            throw new UnreadablePackage("the file is not valid JSON" + where(e.getLocation()) + ": "
                    + e.getOriginalMessage() + " (is it complete? a partial download or an edit can cause this)");
        } catch (IOException e) {
            throw new UnreadablePackage("the file could not be read: " + e.getMessage());
        }
    }

    private static String where(JsonLocation at) {
        return at == null || at.getLineNr() < 0 ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
    }

    private void readDocument(JsonParser p) throws IOException, UnreadablePackage {
        if (p.nextToken() != JsonToken.START_OBJECT) {
            throw new UnreadablePackage("the file is not an evidence package: it is not a JSON object");
        }
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String name = p.currentName();
            p.nextToken();
            if (!header.firstSighting(name)) {
                format.fail(null, null, "member " + name + " once", "member " + name + " twice",
                        "the package has the member " + name + " more than once, so what it states is ambiguous");
                p.skipChildren();
                continue;
            }
            switch (name) {
                case EVENTS -> {
                    if (header.chain() != null) {
                        events(p);
                    } else {
                        defer(name, p);
                    }
                }
                case MERKLE_PROOFS, TIMESTAMPS -> {
                    if (eventsRead && header.has(MERKLE_ROOT) && header.has(TREE_SIZE)) {
                        section(name, p);
                    } else {
                        defer(name, p);
                    }
                }
                case FORMAT, VERSION, EXPORTED_AT, FILTER, HASH_ALGORITHM, CANONICALIZATION, MERKLE_TREE,
                     MERKLE_ROOT, TREE_SIZE, CHECKPOINT -> {
                    JsonNode value = small(p, name);
                    header.put(name, value);
                    if (name.equals(FORMAT) || name.equals(VERSION)) {
                        checkIdentity();
                    }
                }
                case CHAIN -> header.chain(small(p, name));
                case ERASURES -> erasures(p);
                default -> p.skipChildren(); // unknown members state nothing this version relies on
            }
        }
        if (p.currentToken() != JsonToken.END_OBJECT) {
            throw new UnreadablePackage("the file is not valid JSON: the package object is not closed");
        }
        if (p.nextToken() != null) {
            format.fail(null, null, "nothing after the package object", "more content",
                    "the file holds more than one JSON value");
        }
        if (!header.has(FORMAT)) {
            throw new UnreadablePackage("the file is not an evidence package: it has no \"format\" member");
        }
        for (String name : new String[] {EVENTS, MERKLE_PROOFS, TIMESTAMPS}) {
            byte[] bytes = deferred.remove(name);
            if (bytes != null) {
                try (JsonParser again = FACTORY.createParser(bytes)) {
                    again.nextToken();
                    section(name, again);
                }
            }
        }
    }

    private void section(String name, JsonParser p) throws IOException {
        switch (name) {
            case EVENTS -> events(p);
            case MERKLE_PROOFS -> proofs(p);
            default -> timestamps(p);
        }
    }

    /** Keeps a section whose prerequisites come later in the document. */
    private void defer(String name, JsonParser p) throws IOException {
        deferred.put(name, copy(p));
    }

    private void checkIdentity() throws UnreadablePackage {
        JsonNode f = header.get(FORMAT);
        if (header.has(FORMAT) && (f == null || !FORMAT_NAME.equals(f.textValue()))) {
            throw new UnreadablePackage("the file is not a trailproof evidence package: its format is "
                    + f + ", expected \"" + FORMAT_NAME + "\"");
        }
        JsonNode v = header.get(VERSION);
        if (v != null && !VERSION_1_0.equals(v.textValue())) {
            throw new UnreadablePackage("the package is version " + v + "; this verifier reads version " + VERSION_1_0
                    + " only: use a newer trailproof");
        }
    }

    /** Reads one small member strictly (no duplicate keys, exact numbers); a bad one is a format failure. */
    private JsonNode small(JsonParser p, String name) throws IOException {
        try {
            return StrictJson.parse(copy(p), SMALL_MEMBER_DEPTH);
        } catch (JsonRejection | ValueProblem e) {
            format.fail(null, null, "a readable " + name, "unreadable: " + e.getMessage(),
                    "the member " + name + " cannot be read");
            return null;
        }
    }

    /** The current value, copied token by token with numbers as written, as UTF-8 bytes. */
    private byte[] copy(JsonParser p) throws IOException {
        buffer.reset();
        JsonStreamContext enclosing = p.currentToken().isStructStart()
                ? p.getParsingContext().getParent() : p.getParsingContext();
        try (JsonGenerator g = FACTORY.createGenerator(buffer)) {
            g.copyCurrentStructureExact(p);
        } catch (JsonGenerationException e) {
            // Leave the parser after this value, as a successful copy would.
            while (p.getParsingContext() != enclosing) {
                p.nextToken();
            }
            throw new ValueProblem(e.getOriginalMessage());
        }
        return buffer.toByteArray();
    }

    private void events(JsonParser p) throws IOException {
        eventsRead = true;
        if (p.currentToken() != JsonToken.START_ARRAY) {
            format.fail(null, null, "an array of events", String.valueOf(p.currentToken()), "events is not an array");
            p.skipChildren();
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            StoredEvent event;
            try {
                event = StoredEvent.parse(copy(p));
            } catch (ValueProblem | StoredEventFormatException e) {
                events.unreadableEvent(e.getMessage());
                continue;
            }
            events.event(event);
        }
    }

    private void proofs(JsonParser p) throws IOException {
        if (!isArray(p, "an array of proofs", "merkle_proofs is not an array")) {
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            proofs.proof(smallItemOrNull(p));
        }
        proofs.endOfProofs();
    }

    /** Each erasure item is small enough to hold (an erasure event names at most 10,000 events). */
    private void erasures(JsonParser p) throws IOException {
        if (!isArray(p, "an array of erasures", "erasures is not an array")) {
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            erasures.erasure(smallItemOrNull(p));
        }
    }

    /**
     * Whether the member's value starts an array; otherwise the format failure is reported with
     * {@code expected} and {@code problem}, and the value skipped.
     */
    private boolean isArray(JsonParser p, String expected, String problem) throws IOException {
        if (p.currentToken() == JsonToken.START_ARRAY) {
            return true;
        }
        format.fail(null, null, expected, String.valueOf(p.currentToken()), problem);
        p.skipChildren();
        return false;
    }

    /** The array item at the parser as a tree, or null when it is not strict JSON (its check reports it). */
    private JsonNode smallItemOrNull(JsonParser p) throws IOException {
        try {
            return StrictJson.parse(copy(p), SMALL_MEMBER_DEPTH);
        } catch (JsonRejection | ValueProblem e) {
            return null;
        }
    }

    private void timestamps(JsonParser p) throws IOException {
        if (!isArray(p, "an array of timestamps", "timestamps is not an array")) {
            return;
        }
        while (p.nextToken() != JsonToken.END_ARRAY) {
            JsonNode entry;
            try {
                entry = StrictJson.parse(copy(p), SMALL_MEMBER_DEPTH);
            } catch (JsonRejection | ValueProblem e) {
                format.fail(null, null, "a readable timestamp record", "unreadable: " + e.getMessage(),
                        "a timestamp entry cannot be read");
                continue;
            }
            timestamps.timestamp(entry);
        }
    }

    /** A value that cannot be carried into a tree, e.g. a string with a lone surrogate. */
    private static final class ValueProblem extends IOException {
        private static final long serialVersionUID = 1L;

        ValueProblem(String message) {
            super(message);
        }
    }
}
