package io.trailproof.core.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scanner's promise, checked against Jackson's tree on the same bytes (read as the service
 * reads stored events: {@link JsonCorpus#jackson}): whatever it accepts, Jackson accepts, and every member it reads (names, strings, numbers, literals, nested objects,
 * the bytes of every value) reads as Jackson reads it, duplicate keys included (the last wins).
 * Refusing is always allowed, since every caller then asks a full parser; but a stored event as
 * the service writes it must never be refused, or the fast path is not taken.
 */
class MemberScannerJacksonTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void storedEventsAreAcceptedAndReadAsJacksonReadsThem() {
        Random r = new Random(2026_11_28L);
        List<String> problems = new ArrayList<>();
        for (int k = 0; k < 1500; k++) {
            byte[] event = JsonCorpus.storedEvent(r);
            String p = disagreement(event);
            if (p == null && !accepts(event)) {
                p = "refused a stored event";
            }
            note(problems, p, event);
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void looseJsonIsReadAsJacksonReadsItOrRefused() {
        Random r = new Random(2026_11_29L);
        List<String> problems = new ArrayList<>();
        for (int k = 0; k < 2000; k++) {
            byte[] doc = JsonCorpus.looseDocument(r);
            note(problems, disagreement(doc), doc);
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void damagedDocumentsAreNeverReadOtherwiseThanJacksonReadsThem() {
        Random r = new Random(2026_11_30L);
        List<String> problems = new ArrayList<>();
        for (int k = 0; k < 8000; k++) {
            byte[] doc = JsonCorpus.damaged(r, k % 2 == 0 ? JsonCorpus.storedEvent(r) : JsonCorpus.looseDocument(r));
            note(problems, disagreement(doc), doc);
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void knownEdgeCasesAreReadAsJacksonReadsThemOrRefused() {
        List<String> problems = new ArrayList<>();
        for (byte[] doc : JsonCorpus.knownCases()) {
            note(problems, disagreement(doc), doc);
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void compactEdgeCasesThatJacksonAcceptsAreReadInOnePass() {
        for (String doc : List.of("{}", "{\"id\":\"\\u0022\\u005c\\\"\\\\\"}", "{\"\\u0069d\":\"a\",\"id\":\"b\"}",
                "{\"a\":[1,-2.5e3,0,1E+2,-0,0.5e-7]}", "{\"a\":{\"b\":{\"c\":[{}]}}}", "{\"id\":\"\\ud83d\\ude00\"}",
                "{\"id\":\"\\ud800\"}", "{\"a\":true,\"b\":false,\"c\":null}", "{\"caf\u00e9\":\"\ud83d\ude00\"}",
                // an event may hold names and strings beyond the limits of Jackson's defaults, which the service lifts
                "{\"a\":{\"" + "n".repeat(60_000) + "\":1},\"id\":\"" + "x".repeat(2_000_000) + "\"}")) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            assertThat(accepts(bytes)).as(doc).isTrue();
            assertThat(disagreement(bytes)).as(doc).isNull();
        }
    }

    /** Whether the scanner reads every member of {@code doc} to the end. */
    static boolean accepts(byte[] doc) {
        try {
            read(new MemberScanner(doc), doc);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** How the scanner's reading of {@code doc} differs from Jackson's; null when it agrees or refuses. */
    static String disagreement(byte[] doc) {
        JsonNode scanned;
        try {
            scanned = read(new MemberScanner(doc), doc);
        } catch (IllegalArgumentException refused) {
            return null;
        } catch (RuntimeException e) {
            return "failed with " + e;
        }
        JsonNode reference = JsonCorpus.jackson(doc);
        if (reference == null) {
            return "accepted what Jackson refuses";
        }
        if (scanned instanceof ProblemNode p) {
            return p.problem;
        }
        String difference = difference("", scanned, reference);
        return difference;
    }

    /**
     * The object as the scanner reads it, checking on the way what only the scanner knows (where
     * each value's bytes are, {@code nameIs}, {@code isHashValue}) against Jackson.
     */
    private static JsonNode read(MemberScanner m, byte[] doc) {
        ObjectNode out = NODES.objectNode();
        String problem = null;
        while (m.next()) {
            String name = m.name();
            JsonNode value = switch (m.kind()) {
                case STRING -> TextNode.valueOf(m.stringValue());
                case NUMBER -> {
                    long v = m.integerValue();
                    double d = m.doubleValue();
                    yield v != Long.MIN_VALUE ? LongNode.valueOf(v) : DoubleNode.valueOf(d);
                }
                case LITERAL -> {
                    String text = new String(doc, m.valueStart(), m.valueEnd() - m.valueStart(), StandardCharsets.US_ASCII);
                    yield text.equals("null") ? NullNode.instance : BooleanNode.valueOf(text.equals("true"));
                }
                case OBJECT -> read(m.objectValue(), doc);
                case ARRAY -> JsonCorpus.jackson(Arrays.copyOfRange(doc, m.valueStart(), m.valueEnd()));
            };
            JsonNode alone = JsonCorpus.jackson(Arrays.copyOfRange(doc, m.valueStart(), m.valueEnd()));
            if (problem == null && value instanceof ProblemNode p) {
                problem = p.problem;
            }
            if (problem == null && (alone == null || difference(name, value, alone) != null)) {
                problem = "the bytes of " + name + "'s value, read alone, read otherwise: " + (alone == null ? "refused"
                        : difference(name, value, alone));
            }
            if (problem == null && name.chars().allMatch(c -> c < 0x80) && !m.nameIs(name)) {
                problem = "nameIs(" + name + ") is false";
            }
            if (problem == null && m.nameIs(EventFields.ID) != name.equals(EventFields.ID)) {
                problem = "nameIs(id) is " + m.nameIs(EventFields.ID) + " for " + name;
            }
            if (problem == null && m.isHashValue() != (value.isTextual() && value.textValue().matches("[0-9a-f]{64}"))) {
                problem = "isHashValue is " + m.isHashValue() + " for " + value;
            }
            out.set(name, value);
        }
        return problem == null ? out : new ProblemNode(problem, out);
    }

    /** How {@code scanned} differs from {@code reference}, numbers compared by value; null when they agree. */
    private static String difference(String path, JsonNode scanned, JsonNode reference) {
        if (scanned == null) {
            return path + ": refused alone";
        }
        if (scanned.isNumber() && reference.isNumber()) {
            if (scanned instanceof LongNode) {
                return reference.isIntegralNumber() && reference.bigIntegerValue().longValue() == scanned.longValue()
                        && reference.canConvertToLong() ? null : path + ": " + scanned + " is " + reference;
            }
            double expected = reference.isBigInteger() ? new BigDecimal(reference.bigIntegerValue()).doubleValue()
                    : reference.doubleValue();
            return Double.compare(scanned.doubleValue(), expected) == 0 ? null
                    : path + ": " + scanned.doubleValue() + " is " + expected;
        }
        if (scanned.isObject() && reference.isObject()) {
            if (scanned.size() != reference.size()) {
                return path + ": members " + names(scanned) + " are " + names(reference);
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = scanned.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                JsonNode other = reference.get(e.getKey());
                if (other == null) {
                    return path + ": members " + names(scanned) + " are " + names(reference);
                }
                String d = difference(path + "." + e.getKey(), e.getValue(), other);
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        if (scanned.isArray() && reference.isArray()) {
            if (scanned.size() != reference.size()) {
                return path + ": " + scanned.size() + " items are " + reference.size();
            }
            for (int i = 0; i < scanned.size(); i++) {
                String d = difference(path + "[" + i + "]", scanned.get(i), reference.get(i));
                if (d != null) {
                    return d;
                }
            }
            return null;
        }
        return scanned.equals(reference) ? null : path + ": " + clip(scanned.toString()) + " is " + clip(reference.toString());
    }

    private static List<String> names(JsonNode o) {
        List<String> out = new ArrayList<>();
        o.fieldNames().forEachRemaining(out::add);
        return out;
    }

    private static void note(List<String> problems, String problem, byte[] doc) {
        if (problem != null && problems.size() < 20) {
            problems.add(problem + " in " + clip(new String(doc, StandardCharsets.ISO_8859_1)));
        }
    }

    private static String clip(String s) {
        return s.length() > 300 ? s.substring(0, 300) + "...(" + s.length() + " chars)" : s;
    }

    /** An object read whole, with the first thing found wrong on the way. */
    private static final class ProblemNode extends ObjectNode {
        final String problem;

        ProblemNode(String problem, ObjectNode read) {
            super(NODES);
            this.problem = problem;
            setAll(read);
        }
    }
}
