package io.trailproof.core.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Rfc8785Test {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    @Test
    void escapesOnlyWhatRfc8785Requires() {
        ObjectNode o = F.objectNode().put("s", "\"\\\b\f\n\r\t\u0001\u001f\u007f\u0080\u2028\u2029/é€😀");
        assertThat(Rfc8785.canonicalString(o))
                .isEqualTo("{\"s\":\"\\\"\\\\\\b\\f\\n\\r\\t\\u0001\\u001f\u007f\u0080\u2028\u2029/é€😀\"}");
    }

    @Test
    void writesUtf8Bytes() {
        byte[] b = Rfc8785.canonicalize(F.textNode("é😀"));
        assertThat(b).containsExactly('"', 0xC3, 0xA9, 0xF0, 0x9F, 0x98, 0x80, '"');
    }

    @Test
    void sortsKeysByUtf16CodeUnits() {
        ObjectNode o = F.objectNode();
        // U+FB33 sorts after U+1F600 in UTF-16 (0xFB33 > 0xD83D) though not by code point.
        for (String k : List.of("\uFB33", "😀", "€", "é", "a", "A", "", "aa", "b")) {
            o.put(k, 1);
        }
        assertThat(Rfc8785.canonicalString(o))
                .isEqualTo("{\"\":1,\"A\":1,\"a\":1,\"aa\":1,\"b\":1,\"é\":1,\"€\":1,\"😀\":1,\"\uFB33\":1}");
    }

    @Test
    void writesEveryNumberNodeByItsDoubleValue() {
        ArrayNode a = F.arrayNode()
                .add(F.numberNode(1.0)).add(F.numberNode(100L)).add(F.numberNode(-0.0))
                .add(F.numberNode(1e21)).add(F.numberNode(new BigDecimal("4.50")))
                .add(F.numberNode(new BigInteger("12345678901234567890"))).add(F.numberNode(1e-7))
                .add(F.numberNode(Long.MAX_VALUE)).add(F.numberNode(0.1f)).add(F.numberNode((short) 7));
        assertThat(Rfc8785.canonicalString(a)).isEqualTo(
                "[1,100,0,1e+21,4.5,12345678901234567000,1e-7,9223372036854776000,0.10000000149011612,7]");
    }

    @Test
    void writesLiteralsAndEmptyContainers() {
        ArrayNode a = F.arrayNode().add(true).add(false).addNull().add(F.objectNode()).add(F.arrayNode());
        assertThat(Rfc8785.canonicalString(a)).isEqualTo("[true,false,null,{},[]]");
    }

    @Test
    void refusesWhatJsonCannotHold() {
        assertThatThrownBy(() -> Rfc8785.canonicalize(F.numberNode(Double.NaN)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rfc8785.canonicalize(F.numberNode(Double.POSITIVE_INFINITY)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rfc8785.canonicalize(F.textNode("a\uD800")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lone surrogate");
        assertThatThrownBy(() -> Rfc8785.canonicalize(F.pojoNode(new Object())))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void longStringsGrowTheBuffer() {
        String s = "\u0001é😀x".repeat(50_000);
        String c = Rfc8785.canonicalString(F.textNode(s));
        assertThat(c).isEqualTo("\"" + "\\u0001é😀x".repeat(50_000) + "\"");
    }

    /** Seeded, so a failure reproduces; each case is a random tree written, re-read and re-written. */
    @Test
    void canonicalFormIsAFixedPointAndIgnoresKeyOrder() throws Exception {
        Random random = new Random(0x7A11_9800FL);
        for (int i = 0; i < 2000; i++) {
            JsonNode tree = randomValue(random, 0);
            byte[] first = Rfc8785.canonicalize(tree);

            JsonNode reparsed = StrictJson.parse(first, 64);
            assertThat(Rfc8785.canonicalize(reparsed)).as("case %d", i).isEqualTo(first);

            JsonNode shuffled = shuffledCopy(tree, random);
            assertThat(Rfc8785.canonicalize(shuffled)).as("shuffled case %d", i).isEqualTo(first);
        }
    }

    /**
     * A thread reuses its working buffer: after writes large and small, a write that failed half way
     * and writes on other threads at the same time, every form equals the one a fresh thread writes.
     */
    @Test
    void aReusedBufferNeverLeaksIntoAnotherForm() throws Exception {
        Random random = new Random(0x8785_0B0FL);
        List<JsonNode> trees = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            trees.add(randomValue(random, 0));
        }
        trees.add(F.textNode("x".repeat(3 * Rfc8785.MAX_KEPT_BUFFER)));
        trees.add(F.objectNode().put("a", "b"));
        List<byte[]> fresh = new ArrayList<>();
        Thread t = new Thread(() -> trees.forEach(tree -> fresh.add(Rfc8785.canonicalize(tree))));
        t.start();
        t.join();
        List<Thread> others = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int n = 0; n < 3; n++) {
            Thread other = new Thread(() -> {
                try {
                    for (int round = 0; round < 3; round++) {
                        for (int i = trees.size() - 1; i >= 0; i--) {
                            assertThat(Rfc8785.canonicalize(trees.get(i))).isEqualTo(fresh.get(i));
                        }
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            });
            others.add(other);
            other.start();
        }
        for (int i = 0; i < trees.size(); i++) {
            if (i % 7 == 0) {
                ObjectNode bad = F.objectNode().put("a", "a long value that is written before the failure");
                bad.put("z", Double.NaN);
                assertThatThrownBy(() -> Rfc8785.canonicalize(bad)).isInstanceOf(IllegalArgumentException.class);
            }
            assertThat(Rfc8785.canonicalize(trees.get(i))).as("tree %d", i).isEqualTo(fresh.get(i));
            if (trees.get(i).isObject()) {
                assertThat(Rfc8785.canonicalObject(trees.get(i)).bytes()).as("object %d", i).isEqualTo(fresh.get(i));
            }
        }
        for (Thread other : others) {
            other.join();
        }
        assertThat(failures).isEmpty();
    }

    private static JsonNode randomValue(Random r, int depth) {
        int kind = depth >= 5 ? r.nextInt(5) : r.nextInt(7);
        return switch (kind) {
            case 0 -> F.textNode(randomString(r));
            case 1 -> randomNumber(r);
            case 2 -> F.booleanNode(r.nextBoolean());
            case 3 -> F.nullNode();
            case 4 -> F.numberNode(r.nextInt());
            case 5 -> {
                ObjectNode o = F.objectNode();
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    o.set(randomString(r), randomValue(r, depth + 1));
                }
                yield o;
            }
            default -> {
                ArrayNode a = F.arrayNode();
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    a.add(randomValue(r, depth + 1));
                }
                yield a;
            }
        };
    }

    private static JsonNode randomNumber(Random r) {
        return switch (r.nextInt(4)) {
            case 0 -> F.numberNode(r.nextLong() >> r.nextInt(64));
            case 1 -> F.numberNode(r.nextDouble() * Math.pow(10, r.nextInt(60) - 30));
            case 2 -> {
                double d;
                do {
                    d = Double.longBitsToDouble(r.nextLong());
                } while (Double.isNaN(d) || Double.isInfinite(d));
                yield F.numberNode(d);
            }
            default -> F.numberNode(new BigDecimal(BigInteger.valueOf(r.nextInt()), r.nextInt(20) - 10));
        };
    }

    private static String randomString(Random r) {
        StringBuilder sb = new StringBuilder();
        int n = r.nextInt(8);
        for (int i = 0; i < n; i++) {
            switch (r.nextInt(5)) {
                case 0 -> sb.append((char) r.nextInt(0x20)); // control characters
                case 1 -> sb.append((char) (0x20 + r.nextInt(0x60)));
                case 2 -> sb.append((char) (0x7F + r.nextInt(0x800))); // DEL, C1, Latin...
                case 3 -> sb.appendCodePoint(0x10000 + r.nextInt(0x100000 - 0x10000)); // astral pairs
                default -> {
                    char c = (char) (0x800 + r.nextInt(0xFFFF - 0x800));
                    sb.append(Character.isSurrogate(c) ? 'x' : c);
                }
            }
        }
        return sb.toString();
    }

    private static JsonNode shuffledCopy(JsonNode node, Random r) {
        if (node.isObject()) {
            List<Map.Entry<String, JsonNode>> entries = new ArrayList<>(node.properties());
            Collections.shuffle(entries, r);
            ObjectNode o = F.objectNode();
            for (Map.Entry<String, JsonNode> e : entries) {
                o.set(e.getKey(), shuffledCopy(e.getValue(), r));
            }
            return o;
        }
        if (node.isArray()) {
            ArrayNode a = F.arrayNode();
            node.forEach(child -> a.add(shuffledCopy(child, r)));
            return a;
        }
        return node;
    }

    @Test
    void addingMembersToACanonicalObjectEqualsCanonicalisingTheLargerObject() {
        Random r = new Random(8785);
        String[] alphabet = {"", "a", "b", "hash", "id", "log_index", "z", "é", "😀", "\uFB33", "A", "_"};
        for (int round = 0; round < 2_000; round++) {
            ObjectNode o = F.objectNode();
            int members = r.nextInt(6);
            for (int i = 0; i < members; i++) {
                String key = alphabet[r.nextInt(alphabet.length)] + alphabet[r.nextInt(alphabet.length)];
                o.set(key, r.nextBoolean() ? F.numberNode(r.nextInt(1000))
                        : F.objectNode().put(key, "v" + r.nextInt()).set("n", F.arrayNode().add(1.5)));
            }
            String k1;
            String k2;
            do {
                k1 = alphabet[r.nextInt(alphabet.length)] + alphabet[r.nextInt(alphabet.length)];
                k2 = alphabet[r.nextInt(alphabet.length)] + alphabet[r.nextInt(alphabet.length)];
            } while (o.has(k1) || o.has(k2) || k1.equals(k2));
            JsonNode v1 = F.textNode("x" + round);
            JsonNode v2 = F.numberNode(round);
            Rfc8785.CanonicalObject before = Rfc8785.canonicalObject(o);
            assertThat(before.bytes()).isEqualTo(Rfc8785.canonicalize(o));
            ObjectNode larger = o.deepCopy();
            larger.set(k1, v1);
            larger.set(k2, v2);
            assertThat(new String(before.with(k1, v1, k2, v2), StandardCharsets.UTF_8))
                    .isEqualTo(Rfc8785.canonicalString(larger));
        }
    }

    @Test
    void addingAMemberThatIsPresentIsRefused() {
        Rfc8785.CanonicalObject o = Rfc8785.canonicalObject(F.objectNode().put("a", 1));
        assertThatThrownBy(() -> o.with("a", F.numberNode(2), "b", F.numberNode(3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> o.with("b", F.numberNode(2), "b", F.numberNode(3)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Rfc8785.canonicalObject(F.arrayNode()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
