package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.event.EventValidator;
import io.trailproof.core.event.JsonCorpus;
import io.trailproof.core.event.StoredEvent;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The one-pass answers agree with Jackson's tree (read as the verifier reads packages) on events, on
 * damaged events, on JSON in every form and on odd documents.
 */
class PayloadFactsTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void eventsAreAnsweredInOnePass() throws Exception {
        Random r = new Random(1);
        for (int k = 0; k < 2000; k++) {
            String id = UUID.randomUUID().toString();
            byte[] event = event(r, id);
            assertThat(PayloadFacts.isPlainJson(event)).as(new String(event, StandardCharsets.UTF_8)).isTrue();
            assertThat(PayloadFacts.idOf(event)).isEqualTo(id);
            assertAgree(event);
        }
    }

    @Test
    void whatIsWrittenIsReadAsTheFactsSayOnEveryKindOfDocument() throws Exception {
        Random r = new Random(7);
        List<byte[]> docs = new ArrayList<>(JsonCorpus.knownCases());
        for (int k = 0; k < 400; k++) {
            docs.add(JsonCorpus.storedEvent(r));
            docs.add(JsonCorpus.looseDocument(r));
        }
        for (int k = 0; k < 3000; k++) {
            docs.add(JsonCorpus.damaged(r, k % 2 == 0 ? JsonCorpus.storedEvent(r) : JsonCorpus.looseDocument(r)));
        }
        List<String> problems = new ArrayList<>();
        for (byte[] doc : docs) {
            String problem = writtenDisagreement(doc);
            if (problem != null && problems.size() < 20) {
                String text = new String(doc, StandardCharsets.ISO_8859_1);
                problems.add(problem + " in " + (text.length() > 300 ? text.substring(0, 300) + "..." : text));
            }
        }
        assertThat(problems).isEmpty();
    }

    /**
     * How the package's reading of the item written for {@code doc} differs from what the facts say;
     * null when they agree. The reader is Jackson's tree, reading the item inside an array as it
     * stands inside {@code events}.
     */
    private static String writtenDisagreement(byte[] doc) throws IOException {
        byte[] item = PayloadFacts.eventItem(doc);
        JsonNode written = JsonCorpus.jackson(inArray(item));
        if (written == null || written.size() != 1) {
            return "the item written is not one JSON value";
        }
        JsonNode value = written.get(0);
        JsonNode asItStands = isUtf8(doc) ? JsonCorpus.jackson(inArray(doc)) : null;
        if (PayloadFacts.isPlainJson(doc) && (item != doc || asItStands == null || !asItStands.get(0).isObject())) {
            return "vouched for bytes that are not one JSON object as they stand";
        }
        if (asItStands != null && asItStands.size() == 1 && !asItStands.get(0).equals(value)) {
            return "JSON as it stands was written otherwise: " + value;
        }
        String id = value.isObject() ? value.path("id").textValue() : null;
        if (!Objects.equals(PayloadFacts.idOf(doc), id)) {
            return "idOf is " + PayloadFacts.idOf(doc) + ", the written item's id " + id;
        }
        if (!Objects.equals(PayloadFacts.jacksonIdOf(doc), id)
                || PayloadFacts.jacksonIsJson(doc) != Arrays.equals(item, PayloadFacts.text(doc))) {
            return "Jackson's own answers are otherwise";
        }
        return null;
    }

    private static byte[] inArray(byte[] item) {
        byte[] out = new byte[item.length + 2];
        out[0] = '[';
        System.arraycopy(item, 0, out, 1, item.length);
        out[item.length + 1] = ']';
        return out;
    }

    @Test
    void anAcceptedEventWithANameBeyondJacksonsDefaultLimitIsWrittenAsItsBytes() throws Exception {
        // Ingestion lifts Jackson's limits (a name may be longer than its default 50,000 characters),
        // so the package must not take such an event for unreadable.
        ObjectNode fields = JSON.createObjectNode().put("agent_id", "a").put("action_type", "TOOL_CALL");
        fields.putObject("action_input").put("n".repeat(60_000), 1);
        byte[] payload = StoredEvent.seal(EventValidator.validate(fields), "019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00",
                "2026-11-22T00:00:00.000000Z", 1, "0".repeat(64), 0).payload();
        assertThat(PayloadFacts.isPlainJson(payload)).isTrue();
        assertThat(PayloadFacts.jacksonIsJson(payload)).isTrue();
        assertThat(PayloadFacts.idOf(payload)).isEqualTo("019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00");
        assertThat(PayloadFacts.jacksonIdOf(payload)).isEqualTo("019a8b2c-1d2e-7f30-8a41-5b6c7d8e9f00");
    }

    @Test
    void theLastIdIsTheOneAReaderSees() {
        for (String doc : List.of("{\"id\":\"a\",\"id\":1}", "{\"id\":\"a\",\"id\":null}", "{\"id\":\"a\",\"\\u0069d\":{}}")) {
            byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
            assertThat(PayloadFacts.idOf(bytes)).as(doc).isNull();
            assertThat(PayloadFacts.jacksonIdOf(bytes)).as(doc).isNull();
        }
        assertThat(PayloadFacts.idOf(bytes("{\"id\":1,\"\\u0069d\":\"\\u0062\"}"))).isEqualTo("b");
    }

    @Test
    void aNestedNameWithALoneSurrogateIsNotVouchedFor() {
        // Jackson refuses such a name anywhere, so these bytes written as they stand would make the package unreadable.
        byte[] doc = bytes("{\"a\":{\"\\ud83d\\u4e00\":1},\"id\":\"x\"}");
        assertThat(PayloadFacts.isPlainJson(doc)).isFalse();
        assertThat(PayloadFacts.jacksonIsJson(doc)).isFalse();
    }

    @Test
    void damagedEventsGetJacksonsAnswers() throws Exception {
        Random r = new Random(2);
        for (int k = 0; k < 20_000; k++) {
            byte[] doc = event(r, UUID.randomUUID().toString());
            int mutations = 1 + r.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                doc = JsonCorpus.mutate(r, doc);
            }
            assertAgree(doc);
        }
    }

    @Test
    void oddDocumentsGetJacksonsAnswers() {
        String[] docs = {
            "", " ", "{", "}", "{}", " {} ", "{} x", "{}{}", "[]", "\"id\"", "1", "null",
            "{\"id\":\"a\"}", "{\"id\":\"a\",\"id\":\"b\"}", "{\"id\":\"a\",\"id\":1}", "{\"id\":1}", "{\"id\":null}",
            "{\"id\":{\"id\":\"x\"}}", "{\"x\":{\"id\":\"x\"}}", "{\"x\":[{\"id\":\"x\"}],\"id\":\"y\"}",
            "{\"\\u0069d\":\"a\"}", "{\"id\":\"a\\nb\"}", "{\"id\":\"a\\u0000b\"}", "{\"id\":\"\\ud800\"}",
            "{\"id\":\"caf\u00e9\"}", "\ufeff{\"id\":\"a\"}", "{\"id\":\"a\",}", "{\"a\":[1,]}", "{\"a\":[,1]}",
            "{\"a\":01}", "{\"a\":-0}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1e}", "{\"a\":1e+5}",
            "{\"a\":1E-5,\"id\":\"z\"}", "{\"a\":truex}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12\"}", "{\"a\":\"\t\"}", "{\"a\" :  [ ] , \"id\" : \"q\" }", "{\"a\":[[],{},[{}]]}",
            "{\"a\":1}\n", "{\"a\":1}\u0000", "{'a':1}", "{a:1}", "{\"a\":1 2}", "{\"a\":\"x\"\"y\"}",
            "{\"id\":\"\"}", "{\"\":\"\"}", "{\"a\":[\"\\/\\b\\f\\r\\t\\\\\\\"\"]}", "{\"a\":NaN}", "{\"a\":Infinity}",
            "{\"a\":+1}", "{\"a\":0x10}", "{\"a\":1}}", "{\"a\":[1]]}", "{\"a\":{\"b\":1}", "{\"a\":\"\u007f\"}",
        };
        for (String d : docs) {
            assertAgree(d.getBytes(StandardCharsets.UTF_8));
        }
        assertAgree(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"', '}'});
        assertAgree(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xc0, (byte) 0x80, '"', '}'});
        assertAgree(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80, '"',
            '}'});
        assertAgree(new byte[] {'{', 0, '}', 0});
        assertAgree(bytes("{\"a\":" + "[".repeat(300) + "]".repeat(300) + ",\"id\":\"deep\"}"));
        assertAgree(bytes("{\"a\":" + "[".repeat(1200) + "]".repeat(1200) + ",\"id\":\"deeper\"}"));
        assertAgree(("{\"a\":" + "1".repeat(2000) + ",\"id\":\"long\"}").getBytes(StandardCharsets.UTF_8));
        assertAgree(("{\"" + "n".repeat(60_000) + "\":1,\"id\":\"name\"}").getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void everyOddByteIsSeenWhereverItStandsInAString() {
        byte[][] odd = {{'"'}, {'\\'}, {'\\', 'n'}, {'\\', 'u', '0', '0', '4', '1'}, {1}, {0x1f}, {0x7f}, {(byte) 0x80},
                {(byte) 0xc3, (byte) 0xa9}, {(byte) 0xc3}, {(byte) 0xe2, (byte) 0x82, (byte) 0xac}, {(byte) 0xff}};
        for (int length = 0; length < 26; length++) {
            for (int at = 0; at <= length; at++) {
                for (byte[] o : odd) {
                    byte[] text = new byte[length + o.length];
                    Arrays.fill(text, (byte) 'x');
                    System.arraycopy(o, 0, text, at, o.length);
                    for (String name : List.of("a", "id")) {
                        byte[] head = bytes("{\"" + name + "\":\"");
                        byte[] tail = bytes("\",\"b\":1}");
                        byte[] doc = new byte[head.length + text.length + tail.length];
                        System.arraycopy(head, 0, doc, 0, head.length);
                        System.arraycopy(text, 0, doc, head.length, text.length);
                        System.arraycopy(tail, 0, doc, head.length + text.length, tail.length);
                        assertAgree(doc);
                    }
                }
            }
        }
    }

    private static void assertAgree(byte[] doc) {
        String text = new String(doc, StandardCharsets.ISO_8859_1);
        if (PayloadFacts.isPlainJson(doc)) {
            assertThat(PayloadFacts.jacksonIsJson(doc)).as("isJson %s", text).isTrue();
            assertThat(new String(doc, StandardCharsets.UTF_8).getBytes(StandardCharsets.UTF_8)).as("text %s", text)
                    .isEqualTo(doc);
        }
        assertThat(PayloadFacts.idOf(doc)).as("idOf %s", text).isEqualTo(PayloadFacts.jacksonIdOf(doc));
    }

    /** An event-shaped document, keys sorted as stored events are, with nesting, numbers and escapes. */
    private static byte[] event(Random r, String id) throws Exception {
        ObjectNode e = JSON.createObjectNode();
        e.put("action_name", "tool call " + r.nextInt(1000));
        e.put("agent_id", "agent-" + r.nextInt(50));
        e.put("duration_ms", r.nextInt(100_000));
        e.put("hash", Long.toHexString(r.nextLong()) + Long.toHexString(r.nextLong()));
        e.put("id", id);
        ObjectNode input = e.putObject("input");
        input.put("query", List.of("revenue by region", "caf\u00e9 \u2603 \ud83d\ude00", "tab\there \"quoted\" \\ back",
                "line\nbreak", "\u0001 ctl").get(r.nextInt(5)));
        input.put("ratio", r.nextDouble() * Math.pow(10, r.nextInt(40) - 20));
        input.put("negative", -r.nextInt(1000));
        input.putNull("none");
        input.put("flag", r.nextBoolean());
        ArrayNode items = input.putArray("items");
        List<Object> values = new ArrayList<>(List.of(1, "two", 3.5, true));
        for (int i = 0; i < r.nextInt(5); i++) {
            items.addPOJO(values.get(r.nextInt(values.size())));
        }
        items.addArray().addObject().put("id", "nested-" + r.nextInt(9));
        e.putObject("labels").put("env", "prod");
        e.put("prev_hash", "0".repeat(64));
        e.put("sequence", r.nextInt(1_000_000));
        e.put("timestamp", "2026-11-22T03:00:00.123Z");
        return JSON.writeValueAsBytes(e);
    }

    private static boolean isUtf8(byte[] b) {
        try {
            StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(b));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
