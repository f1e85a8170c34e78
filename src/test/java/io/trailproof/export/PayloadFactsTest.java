package io.trailproof.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The one-pass answers agree with Jackson's on events, on damaged events and on odd documents. */
class PayloadFactsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final byte[] INTERESTING =
            bytes("{}[],:\"\\ \t\n/0123456789-+.eEtrufalsnidxu\u0000\u001f\u007f");
    private static final byte[] HIGH = {(byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc3, (byte) 0xe0, (byte) 0xed,
            (byte) 0xef, (byte) 0xf0, (byte) 0xf4, (byte) 0xf5, (byte) 0xff};

    @Test
    void eventsAreAnsweredInOnePass() throws Exception {
        Random r = new Random(1);
        for (int k = 0; k < 2000; k++) {
            String id = UUID.randomUUID().toString();
            byte[] event = event(r, id);
            assertThat(PayloadFacts.scan(event)).as(new String(event, StandardCharsets.UTF_8)).isEqualTo(id);
            assertThat(PayloadFacts.isPlainJson(event)).isTrue();
            assertAgree(event);
        }
    }

    @Test
    void damagedEventsGetJacksonsAnswers() throws Exception {
        Random r = new Random(2);
        for (int k = 0; k < 60_000; k++) {
            byte[] doc = event(r, UUID.randomUUID().toString());
            int mutations = 1 + r.nextInt(3);
            for (int m = 0; m < mutations; m++) {
                doc = mutate(r, doc);
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

    private static byte[] mutate(Random r, byte[] doc) {
        int at = doc.length == 0 ? 0 : r.nextInt(doc.length);
        byte b = r.nextInt(5) == 0 ? HIGH[r.nextInt(HIGH.length)] : INTERESTING[r.nextInt(INTERESTING.length)];
        switch (r.nextInt(4)) {
            case 0 -> {
                if (doc.length > 0) {
                    doc = doc.clone();
                    doc[at] = b;
                }
            }
            case 1 -> {
                byte[] d = new byte[doc.length + 1];
                System.arraycopy(doc, 0, d, 0, at);
                d[at] = b;
                System.arraycopy(doc, at, d, at + 1, doc.length - at);
                doc = d;
            }
            case 2 -> {
                if (doc.length > 0) {
                    byte[] d = new byte[doc.length - 1];
                    System.arraycopy(doc, 0, d, 0, at);
                    System.arraycopy(doc, at + 1, d, at, doc.length - at - 1);
                    doc = d;
                }
            }
            default -> doc = Arrays.copyOf(doc, at);
        }
        return doc;
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
