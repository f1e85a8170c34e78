package io.trailproof.core.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The scanner against Jackson (the reference) on seeded random RFC 8785 objects, and on bytes it must refuse. */
class MemberScannerTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String ALPHABET = "ab\"\\/\n\t\u0001\u001f é😀\u2028{}[],:0";

    @Test
    void membersValuesAndStringsAgreeWithJacksonOnRandomObjects() throws Exception {
        Random random = new Random(2026_11_25L);
        for (int round = 0; round < 2000; round++) {
            ObjectNode object = randomObject(random, 0);
            byte[] bytes = Rfc8785.canonicalize(object);
            JsonNode reference = JSON.readTree(bytes);
            Iterator<Map.Entry<String, JsonNode>> expected = reference.fields();
            MemberScanner m = new MemberScanner(bytes);
            while (m.next()) {
                Map.Entry<String, JsonNode> e = expected.next();
                assertThat(m.name()).isEqualTo(e.getKey());
                if (e.getKey().chars().allMatch(c -> c < 0x80)) {
                    assertThat(m.nameIs(e.getKey())).isTrue();
                }
                assertThat(m.nameIs(e.getKey() + "x")).isFalse();
                JsonNode slice = JSON.readTree(new String(bytes, m.valueStart(), m.valueEnd() - m.valueStart(),
                        StandardCharsets.UTF_8));
                assertThat(slice).isEqualTo(e.getValue());
                JsonNode v = e.getValue();
                assertThat(m.stringValue()).isEqualTo(v.isTextual() ? v.textValue() : null);
                if (v.isIntegralNumber() && v.canConvertToLong() && Math.abs(v.longValue()) < 1e17) {
                    assertThat(m.integerValue()).isEqualTo(v.longValue());
                }
                if (v.isObject()) {
                    MemberScanner inner = m.objectValue();
                    List<String> names = new ArrayList<>();
                    while (inner.next()) {
                        names.add(inner.name());
                    }
                    List<String> referenceNames = new ArrayList<>();
                    v.fieldNames().forEachRemaining(referenceNames::add);
                    assertThat(names).isEqualTo(referenceNames);
                }
            }
            assertThat(expected.hasNext()).isFalse();
        }
    }

    @Test
    void bytesThatAreNotOneCanonicalObjectAreRefused() {
        for (String bad : List.of("", "{", "[]", "{\"a\":1", "{\"a\":1,}", "{,\"a\":1}", "{\"a\" :1}", "{\"a\":1} ",
                "{\"a\":1}x", "{\"a\":\"x}", "{\"a\":\"\\q\"}", "{\"a\":\"\\u12g4\"}", "{\"a\":\"\u0001\"}",
                "{\"a\":[1,2}", "{\"a\":{\"b\":[}]}", "{\"a\":tru}", "{\"a\":nul}", "{\"a\":x}", "{a:1}",
                "{\"a\":[1, 2]}", "{\"a\":1 }", "{\"a\"}", "{\"a\":}", "{\"a\":[1,,2]}", "{\"a\":{\"b\"}}",
                "{\"a\":[x]}", "{\"a\":01}", "{\"a\":1.}", "{\"a\":-}", "{\"\\ud800\":1}", "\ufeff{\"a\":1}")) {
            assertThatThrownBy(() -> {
                MemberScanner m = new MemberScanner(bad.getBytes(StandardCharsets.UTF_8));
                while (m.next()) {
                    m.stringValue();
                }
            }).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void nestingIsBoundedAndBracketsMustPair() {
        int inner = MemberScanner.MAX_DEPTH - 1; // the payload's object is level 1
        String deep = "{\"a\":" + "[".repeat(inner) + "]".repeat(inner) + "}";
        MemberScanner ok = new MemberScanner(deep.getBytes(StandardCharsets.UTF_8));
        assertThat(ok.next()).isTrue();
        assertThat(ok.next()).isFalse();
        String tooDeep = "{\"a\":" + "[".repeat(inner + 1) + "]".repeat(inner + 1) + "}";
        assertThatThrownBy(() -> new MemberScanner(tooDeep.getBytes(StandardCharsets.UTF_8)).next())
                .isInstanceOf(IllegalArgumentException.class);
        for (String unpaired : List.of("{\"a\":[}", "{\"a\":{]}", "{\"a\":[[]}", "{\"a\":[{}}]}")) {
            assertThatThrownBy(() -> new MemberScanner(unpaired.getBytes(StandardCharsets.UTF_8)).next())
                    .as(unpaired).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void aStringThatIsNotUtf8IsRefusedEvenWhenSteppedOver() {
        byte[][] docs = {{'{', '"', 'a', '"', ':', '"', (byte) 0xC3, '"', '}'},
            {'{', '"', 'a', '"', ':', '[', '"', (byte) 0xED, (byte) 0xA0, (byte) 0x80, '"', ']', '}'},
            {'{', '"', 'a', '"', ':', '{', '"', (byte) 0xC0, (byte) 0x80, '"', ':', '1', '}', '}'}};
        for (byte[] bytes : docs) {
            MemberScanner m = new MemberScanner(bytes);
            assertThatThrownBy(m::next).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void integersOutsideThePlainFormAreNotIntegers() {
        MemberScanner m = new MemberScanner("{\"a\":1e+21,\"b\":1.5,\"c\":-7,\"d\":1234567890123456789}"
                .getBytes(StandardCharsets.UTF_8));
        m.next();
        assertThat(m.integerValue()).isEqualTo(Long.MIN_VALUE);
        assertThat(m.doubleValue()).isEqualTo(1e21);
        m.next();
        assertThat(m.integerValue()).isEqualTo(Long.MIN_VALUE);
        m.next();
        assertThat(m.integerValue()).isEqualTo(-7);
        m.next();
        assertThat(m.integerValue()).isEqualTo(Long.MIN_VALUE);
    }

    private static ObjectNode randomObject(Random random, int depth) {
        ObjectNode o = NODES.objectNode();
        int n = random.nextInt(depth == 0 ? 12 : 5);
        for (int i = 0; i < n; i++) {
            o.set(randomString(random), randomValue(random, depth + 1));
        }
        return o;
    }

    private static JsonNode randomValue(Random random, int depth) {
        int kind = random.nextInt(depth > 4 ? 5 : 7);
        return switch (kind) {
            case 0 -> NODES.textNode(randomString(random));
            case 1 -> NODES.numberNode(random.nextInt() >> random.nextInt(31));
            case 2 -> NODES.numberNode(random.nextBoolean() ? random.nextDouble() * 1e6 : random.nextLong() >> 10);
            case 3 -> NODES.booleanNode(random.nextBoolean());
            case 4 -> NODES.nullNode();
            case 5 -> randomObject(random, depth);
            default -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = random.nextInt(4); i > 0; i--) {
                    a.add(randomValue(random, depth + 1));
                }
                yield a;
            }
        };
    }

    private static String randomString(Random random) {
        StringBuilder s = new StringBuilder();
        for (int i = random.nextInt(10); i > 0; i--) {
            s.appendCodePoint(ALPHABET.codePointAt(ALPHABET.offsetByCodePoints(0,
                    random.nextInt(ALPHABET.codePointCount(0, ALPHABET.length())))));
        }
        return s.toString();
    }
}
