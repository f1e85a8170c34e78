package io.trailproof.export;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.event.MemberScanner;
import io.trailproof.core.json.StrictJson;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * How a stored payload stands in the evidence package (src/site/evidence-format.md#1-the-document):
 * the item of {@code events} written for it, and the {@code event_id} of its proof, both exactly as
 * Jackson's tree reads the written package with the settings the verifier reads it with
 * ({@link StrictJson#unlimitedFactory()}: no limits on sizes, so that every event the service
 * accepted is readable; the last of duplicate keys wins). A stored event is compact, strictly valid
 * JSON, so one {@link MemberScanner} pass answers for it and its bytes are written as they stand;
 * whatever the scanner refuses (a damaged log, or only whitespace, a byte order mark) is answered
 * by Jackson itself. The scanner accepts only what Jackson accepts and reads it as Jackson does, so
 * the two never disagree.
 */
final class PayloadFacts {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private PayloadFacts() {
    }

    /**
     * The bytes written for the payload as one item of {@code events}: its stored bytes when they are
     * one JSON value in UTF-8; the payload's text (a byte that is not UTF-8 made U+FFFD) when that is
     * one JSON value; otherwise its text as a JSON string, so that the package stays readable and
     * verification names this event instead of refusing the whole file.
     */
    static byte[] eventItem(byte[] payload) throws IOException {
        if (isPlainJson(payload)) {
            return payload;
        }
        byte[] text = text(payload);
        if (jacksonTree(text) != null) {
            return text;
        }
        return jsonString(new String(payload, StandardCharsets.UTF_8));
    }

    /**
     * True when the scanner vouches that the payload is one JSON object in well-formed UTF-8, so that
     * its bytes are its text and can be written as they stand.
     */
    static boolean isPlainJson(byte[] payload) {
        try {
            MemberScanner m = new MemberScanner(payload);
            while (m.next()) {
                // every member is checked on the way
            }
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The top-level {@code id} of the payload's {@link #eventItem} when that is an object and the id a
     * string (the last {@code id} member: the one a reader sees), or null.
     */
    static String idOf(byte[] payload) {
        try {
            MemberScanner m = new MemberScanner(payload);
            String id = null;
            while (m.next()) {
                if (m.nameIs(EventFields.ID)) {
                    id = m.stringValue(); // null for any other kind of value
                }
            }
            return id;
        } catch (IllegalArgumentException e) {
            return jacksonIdOf(payload);
        }
    }

    /** True when the payload's text, placed in the package, is read by Jackson as exactly one JSON value. */
    static boolean jacksonIsJson(byte[] payload) {
        return jacksonTree(text(payload)) != null;
    }

    /** {@link #idOf} as Jackson answers it. */
    static String jacksonIdOf(byte[] payload) {
        JsonNode tree = jacksonTree(text(payload));
        return tree != null && tree.isObject() ? tree.path(EventFields.ID).textValue() : null;
    }

    /** The payload's bytes read as UTF-8 and written back: the same bytes unless some are not UTF-8. */
    static byte[] text(byte[] payload) {
        for (byte b : payload) {
            if (b < 0) {
                return new String(payload, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8);
            }
        }
        return payload;
    }

    /** A JSON string as the package's generator escapes it. */
    static byte[] jsonString(String s) throws IOException {
        ByteArrayOutputStream text = new ByteArrayOutputStream(s.length() + 16);
        try (JsonGenerator g = FACTORY.createGenerator(text)) {
            g.writeString(s);
        }
        return text.toByteArray();
    }

    /**
     * The one JSON value {@code text} holds as Jackson's tree reads it in the middle of a document,
     * or null. In the middle: Jackson skips a byte order mark, or guesses UTF-16, only at the start
     * of its input. A tree, not a stream of tokens: the stream steps over a string without decoding
     * it, and so takes bytes (an encoded surrogate) that a reader decoding them refuses.
     */
    private static JsonNode jacksonTree(byte[] text) {
        byte[] inArray = new byte[text.length + 2];
        inArray[0] = '[';
        System.arraycopy(text, 0, inArray, 1, text.length);
        inArray[text.length + 1] = ']';
        try (JsonParser p = StrictJson.unlimitedFactory().createParser(inArray)) {
            JsonNode tree = MAPPER.readTree(p);
            return tree == null || tree.size() != 1 || p.nextToken() != null ? null : tree.get(0);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
