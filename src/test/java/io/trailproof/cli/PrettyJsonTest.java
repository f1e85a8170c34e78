package io.trailproof.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link PrettyJson} writes the text Jackson's own {@code toPrettyString} gives (the reference here),
 * byte for byte, over seeded random trees of every kind of node, and over what it is used for: the
 * text parses back to the same tree.
 */
class PrettyJsonTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Test
    void writesWhatJacksonsMapperWrites() throws Exception {
        Random random = new Random(20261203L);
        ObjectMapper mapper = new ObjectMapper();
        for (int i = 0; i < 500; i++) {
            JsonNode tree = i % 2 == 0 ? object(random, 0) : array(random, 0);
            String text = PrettyJson.of(tree);
            assertThat(text).as("tree %d", i).isEqualTo(tree.toPrettyString());
            assertThat(mapper.readTree(text)).as("tree %d read back", i).isEqualTo(mapper.readTree(tree.toString()));
        }
    }

    @Test
    void writesTheEdgesOfEachKind() {
        ObjectNode edges = NODES.objectNode();
        edges.putObject("empty object");
        edges.putArray("empty array");
        edges.put("escapes", "\"\\/\b\f\n\r\t\u0000\u001f\u007f é 😀 \u2028");
        edges.put("", "empty name");
        edges.put("long", Long.MIN_VALUE).put("int", Integer.MAX_VALUE).put("negative zero", -0.0)
                .put("tiny", Double.MIN_VALUE).put("float", 1.1f).put("huge", new BigInteger("1" + "0".repeat(40)))
                .put("exponent", new BigDecimal("1E+400")).put("decimal", new BigDecimal("0.000001"));
        edges.putNull("null").put("true", true).put("false", false);
        edges.putArray("nested").addArray().addArray().addObject().putArray("deep").add(1);
        assertThat(PrettyJson.of(edges)).isEqualTo(edges.toPrettyString());
        assertThat(PrettyJson.of(NODES.textNode("alone"))).isEqualTo(NODES.textNode("alone").toPrettyString());
    }

    private static ObjectNode object(Random random, int depth) {
        ObjectNode o = NODES.objectNode();
        int members = random.nextInt(depth > 3 ? 3 : 7);
        for (int i = 0; i < members; i++) {
            o.set(text(random), value(random, depth + 1));
        }
        return o;
    }

    private static ArrayNode array(Random random, int depth) {
        ArrayNode a = NODES.arrayNode();
        int items = random.nextInt(depth > 3 ? 3 : 7);
        for (int i = 0; i < items; i++) {
            a.add(value(random, depth + 1));
        }
        return a;
    }

    private static JsonNode value(Random random, int depth) {
        return switch (random.nextInt(depth > 4 ? 9 : 11)) {
            case 0 -> NODES.textNode(text(random));
            case 1 -> NODES.numberNode(random.nextInt());
            case 2 -> NODES.numberNode(random.nextLong());
            case 3 -> NODES.numberNode(new BigInteger(100, random).negate());
            case 4 -> NODES.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 5 -> NODES.numberNode(random.nextFloat());
            case 6 -> NODES.numberNode(new BigDecimal(random.nextLong()).scaleByPowerOfTen(random.nextInt(60) - 30));
            case 7 -> NODES.booleanNode(random.nextBoolean());
            case 8 -> NODES.nullNode();
            case 9 -> object(random, depth);
            default -> array(random, depth);
        };
    }

    private static String text(Random random) {
        StringBuilder s = new StringBuilder();
        int length = random.nextInt(12);
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(10);
            s.appendCodePoint(kind == 0 ? random.nextInt(0x20) : kind == 1 ? 0x80 + random.nextInt(0x700)
                    : kind == 2 ? 0x1F600 + random.nextInt(0x40) : kind == 3 ? "\"\\/".charAt(random.nextInt(3))
                    : 0x20 + random.nextInt(0x5F));
        }
        return s.toString();
    }
}
