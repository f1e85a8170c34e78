package io.trailproof.core.event;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.core.json.Rfc8785;
import io.trailproof.core.json.StrictJson;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;

/**
 * Documents for testing the hand-written scanners of stored events against Jackson: stored events
 * as the service writes them, JSON text in every form RFC 8259 allows (whitespace, escapes of any
 * character, numbers in every form, duplicate keys, deep nesting), known edge cases, and damaged
 * copies of all of these. Every generator is seeded, so a failure names a reproducible document.
 */
public final class JsonCorpus {

    /** The reference: Jackson's tree as a plain {@code new ObjectMapper()} builds it (the last of duplicate keys wins). */
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final String ALPHABET = "ab\"\\/\n\t\r\b\f\u0000\u0001\u001f\u007f\u0080\u009f é€😀\u2028{}[],:0 \ud83d\ude00";
    private static final byte[] INTERESTING =
            ascii("{}[],:\"\\ \t\n\r/0123456789-+.eEtrufalsnidxu\u0000\u001f\u007f");
    private static final byte[] HIGH = {(byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc1, (byte) 0xc3, (byte) 0xe0,
        (byte) 0xed, (byte) 0xef, (byte) 0xf0, (byte) 0xf4, (byte) 0xf5, (byte) 0xf8, (byte) 0xff};

    private JsonCorpus() {
    }

    /**
     * What Jackson makes of {@code bytes}, with the settings the service reads stored events and
     * evidence packages with ({@link StrictJson#unlimitedFactory()}: no limits on sizes): the one
     * JSON value they hold, or null when it refuses them (including anything but whitespace after
     * the value, which {@code readTree} alone would ignore). Duplicate keys are allowed and the
     * last one wins, as in a plain {@code ObjectMapper}.
     */
    public static JsonNode jackson(byte[] bytes) {
        try (JsonParser p = StrictJson.unlimitedFactory().createParser(bytes)) {
            JsonNode tree = MAPPER.readTree(p);
            if (tree == null || tree.isMissingNode() || p.nextToken() != null) {
                return null;
            }
            return tree;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** The edge cases named one by one: each is a reason a hand-written scanner could disagree with Jackson. */
    public static List<byte[]> knownCases() {
        List<byte[]> out = new ArrayList<>();
        String[] texts = {
            "", " ", "{", "}", "{}", " {} ", "{} x", "{}{}", "[]", "\"id\"", "1", "null", "{}\n", "{}\u0000",
            "{\"id\":\"a\"}", "{\"id\":\"a\",\"id\":\"b\"}", "{\"id\":\"a\",\"id\":1}", "{\"id\":1,\"id\":\"a\"}",
            "{\"id\":1}", "{\"id\":null}", "{\"id\":{\"id\":\"x\"}}", "{\"x\":{\"id\":\"x\"}}",
            "{\"x\":[{\"id\":\"x\"}],\"id\":\"y\"}", "{\"a\":{\"b\":1,\"b\":2}}",
            // escapes: of quotes and backslashes, \\u of them, surrogate pairs, lone surrogates
            "{\"\\u0069d\":\"a\"}", "{\"i\\u0064\":\"\\u0061\"}", "{\"id\":\"a\\nb\"}", "{\"id\":\"a\\u0000b\"}",
            "{\"id\":\"\\u0022\"}", "{\"id\":\"\\u005c\"}", "{\"id\":\"\\u005C\\u005c\\\\\\\"\"}", "{\"id\":\"\\\"\"}",
            "{\"id\":\"\\/\\b\\f\\n\\r\\t\\\\\\\"\"}", "{\"id\":\"\\ud83d\\ude00\"}", "{\"id\":\"\\uD83D\\uDE00\"}",
            "{\"id\":\"\\ud800\"}", "{\"id\":\"\\udc00\\ud800\"}", "{\"id\":\"\\ud83dx\"}", "{\"\\ud800\":1}",
            "{\"a\":\"\\x\"}", "{\"a\":\"\\u12\"}", "{\"a\":\"\\u12g4\"}", "{\"a\":\"\\U0041\"}", "{\"a\":\"\\\"}",
            "{\"a\":\"\\'\"}", "{\"a\":\"\t\"}", "{\"a\":\"\u001f\"}", "{\"a\":\"\u007f\"}", "{\"id\":\"caf\u00e9\"}",
            "{\"caf\u00e9\":\"\u20ac\"}", "{\"id\":\"\ud83d\ude00\"}",
            // numbers in every form
            "{\"a\":0}", "{\"a\":-0}", "{\"a\":-0.0}", "{\"a\":01}", "{\"a\":-01}", "{\"a\":00}", "{\"a\":-}",
            "{\"a\":1.}", "{\"a\":.5}", "{\"a\":1.5}", "{\"a\":1e}", "{\"a\":1e+}", "{\"a\":1e5}", "{\"a\":1E5}",
            "{\"a\":1e+5}", "{\"a\":1e-5}", "{\"a\":1.5E-5}", "{\"a\":1e+21}", "{\"a\":1e400}", "{\"a\":-1e400}",
            "{\"a\":1e-400}", "{\"a\":+1}", "{\"a\":0x10}", "{\"a\":1-2}", "{\"a\":1..2}", "{\"a\":1e5e5}",
            "{\"a\":NaN}", "{\"a\":Infinity}", "{\"a\":-Infinity}", "{\"a\":123456789012345678}",
            "{\"a\":1234567890123456789}", "{\"a\":-9223372036854775808}", "{\"a\":9223372036854775808}",
            "{\"a\":123456789012345678901234567890}", "{\"a\":0.1}", "{\"a\":[1,-2.5e3,0]}",
            // literals and structure
            "{\"a\":true}", "{\"a\":false}", "{\"a\":null}", "{\"a\":truex}", "{\"a\":tru}", "{\"a\":nul}",
            "{\"a\":True}", "{\"a\":[true,false,null]}", "{\"a\":[x]}", "{\"a\":[1,,2]}", "{\"a\":[1,]}",
            "{\"a\":[,1]}", "{\"a\":{1:2}}", "{\"a\":{\"b\"}}", "{\"a\":{\"b\":}}", "{\"a\":{\"b\" 1}}",
            "{\"a\":{,}}", "{\"a\":[\"x\":1]}", "{\"a\":{\"b\":1,}}", "{\"a\":[[],{},[{}]]}", "{\"a\":[1]]}",
            "{\"a\":{\"b\":1}", "{\"a\":1}}", "{\"a\":[1}", "{\"a\":{]}", "{\"id\":\"a\",}", "{,\"id\":\"a\"}",
            "{'a':1}", "{a:1}", "{\"a\":1 2}", "{\"a\":\"x\"\"y\"}", "{\"a\"}", "{\"a\":}", "{\"a\"::1}",
            "{\"id\":\"\"}", "{\"\":\"\"}", "{\"a\":/* c */1}", "{\"a\":1}//", "{\"a\":1,\"a\":[2]}",
            // whitespace, byte order mark, trailing garbage
            "{\"a\" :  [ ] , \"id\" : \"q\" }", "\t{\r\n\"id\"\n:\t\"w\"\r}\n", "{\"a\":[ 1 , 2 ]}",
            "\ufeff{\"id\":\"a\"}", "{\"id\":\"a\"}\ufeff", "{\"id\":\"a\"} x", "{\"id\":\"a\"}]", "{\"id\":\"a\"}}",
            "{\"id\":\"a\"}\u00a0", "{\"id\":\"a\"}\u000b", "{\"id\":\"a\"}\f",
        };
        for (String t : texts) {
            out.add(t.getBytes(StandardCharsets.UTF_8));
        }
        // invalid UTF-8: overlong, surrogate, beyond U+10FFFF, truncated, lone continuation, in names and values
        byte[][] bad = {{(byte) 0xed, (byte) 0xa0, (byte) 0x80}, {(byte) 0xc0, (byte) 0x80}, {(byte) 0xc1, (byte) 0xbf},
            {(byte) 0xe0, (byte) 0x80, (byte) 0x80}, {(byte) 0xf4, (byte) 0x90, (byte) 0x80, (byte) 0x80},
            {(byte) 0xf5, (byte) 0x80, (byte) 0x80, (byte) 0x80}, {(byte) 0xc3}, {(byte) 0xe2, (byte) 0x82},
            {(byte) 0x80}, {(byte) 0xff}, {(byte) 0xc3, (byte) 0xa9}, {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80}};
        for (byte[] b : bad) {
            out.add(concat(ascii("{\"a\":\""), b, ascii("\"}")));
            out.add(concat(ascii("{\"id\":\""), b, ascii("\"}")));
            out.add(concat(ascii("{\""), b, ascii("\":1}")));
            out.add(concat(ascii("{\"a\":[\""), b, ascii("\"],\"id\":\"z\"}")));
            out.add(concat(ascii("{\"a\":{\"b\":\""), b, ascii("\"}}")));
        }
        out.add(new byte[] {'{', 0, '}', 0});
        out.add(new byte[] {0, '{', '}'});
        out.add(new byte[] {'{', '}', 0, 0});
        // UTF-16 and UTF-32 text, which Jackson detects by itself
        out.add("{\"id\":\"a\"}".getBytes(StandardCharsets.UTF_16BE));
        out.add("{\"id\":\"a\"}".getBytes(StandardCharsets.UTF_16LE));
        out.add("{\"id\":\"a\"}".getBytes(StandardCharsets.UTF_16));
        // nesting near and beyond the limits of a scanner and of Jackson (1000)
        for (int depth : new int[] {62, 63, 64, 65, 66, 199, 200, 201, 998, 999, 1000, 1001, 1200}) {
            out.add(ascii("{\"a\":" + "[".repeat(depth) + "]".repeat(depth) + ",\"id\":\"deep\"}"));
            out.add(ascii("{\"a\":" + "{\"b\":".repeat(depth) + "1" + "}".repeat(depth) + ",\"id\":\"deep\"}"));
        }
        // sizes near the limits of Jackson's defaults (numbers of 1000 characters, names of 50,000), which the service lifts
        for (int digits : new int[] {99, 100, 101, 999, 1000, 1001, 2000}) {
            out.add(ascii("{\"a\":" + "1".repeat(digits) + ",\"id\":\"long\"}"));
            out.add(ascii("{\"a\":0." + "1".repeat(digits) + ",\"id\":\"long\"}"));
        }
        for (int length : new int[] {999, 1000, 1001, 49_999, 50_000, 50_001, 60_000}) {
            out.add(ascii("{\"" + "n".repeat(length) + "\":1,\"id\":\"name\"}"));
            out.add(ascii("{\"a\":{\"" + "n".repeat(length) + "\":1},\"id\":\"name\"}"));
        }
        out.add(("{\"" + "\u00e9".repeat(30_000) + "\":1,\"id\":\"name\"}").getBytes(StandardCharsets.UTF_8));
        for (int length : new int[] {1 << 20, (1 << 20) + 1, 3_000_000}) {
            out.add(ascii("{\"id\":\"big\",\"output\":\"" + "x".repeat(length) + "\"}"));
            out.add(("{\"id\":\"" + "\u20ac".repeat(length / 3) + "\"}").getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /** A stored event as the service writes it: a random event tree in RFC 8785 form. */
    public static byte[] storedEvent(Random r) {
        ObjectNode e = NODES.objectNode();
        e.put("action_name", randomString(r));
        e.put("action_type", List.of("TOOL_CALL", "TOOL_RESULT", "LLM_CALL").get(r.nextInt(3)));
        e.put("agent_id", "agent-" + r.nextInt(50));
        e.put("hash", hex(r));
        e.put("id", r.nextInt(8) == 0 ? randomString(r) : new UUID(r.nextLong(), r.nextLong()).toString());
        e.put("log_index", r.nextInt(1_000_000));
        e.put("prev_hash", hex(r));
        e.put("recorded_at", "2026-11-22T03:00:00.123456Z");
        e.put("schema_version", "1.0");
        e.put("sequence", 1 + r.nextInt(1_000_000));
        e.put("timestamp", "2026-11-22T03:00:00Z");
        if (r.nextBoolean()) {
            e.put("duration_ms", r.nextInt(100_000));
        }
        if (r.nextBoolean()) {
            e.putObject("labels").put("env", randomString(r)).put(randomString(r), randomString(r));
        }
        for (String member : List.of("input", "output", "metadata")) {
            if (r.nextInt(3) > 0) {
                e.set(member, randomValue(r, 2));
            }
        }
        for (int i = r.nextInt(4); i > 0; i--) {
            e.set(randomString(r), randomValue(r, 2));
        }
        return Rfc8785.canonicalize(e);
    }

    /**
     * A JSON text written as a person or another library might: whitespace anywhere between tokens,
     * any character escaped (quotes and backslashes as {@code \\u0022} and {@code \\u005c} too),
     * surrogate pairs and lone surrogates escaped, numbers in every form, and duplicate keys.
     */
    public static byte[] looseDocument(Random r) {
        StringBuilder s = new StringBuilder();
        space(r, s);
        looseObject(r, s, 1, true);
        space(r, s);
        return s.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** {@code doc} with one to three random edits: a byte changed, inserted or removed, or the end cut off. */
    public static byte[] damaged(Random r, byte[] doc) {
        for (int m = 1 + r.nextInt(3); m > 0; m--) {
            doc = mutate(r, doc);
        }
        return doc;
    }

    /** {@code doc} with one random byte changed, inserted or removed, or cut at a random place. */
    public static byte[] mutate(Random r, byte[] doc) {
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

    private static void looseObject(Random r, StringBuilder s, int depth, boolean top) {
        s.append('{');
        int n = r.nextInt(top ? 8 : 4);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            if (i > 0) {
                s.append(',');
            }
            space(r, s);
            String name = !names.isEmpty() && r.nextInt(6) == 0 ? names.get(r.nextInt(names.size()))
                    : top && r.nextInt(4) == 0 ? "id" : randomString(r);
            names.add(name);
            looseString(r, s, name);
            space(r, s);
            s.append(':');
            space(r, s);
            looseValue(r, s, depth + 1, top && name.equals("id"));
            space(r, s);
        }
        s.append('}');
    }

    private static void looseValue(Random r, StringBuilder s, int depth, boolean stringLikely) {
        int kind = stringLikely && r.nextInt(4) > 0 ? 0 : r.nextInt(depth > 5 ? 4 : 6);
        switch (kind) {
            case 0 -> looseString(r, s, randomString(r));
            case 1 -> s.append(looseNumber(r));
            case 2 -> s.append(List.of("true", "false", "null").get(r.nextInt(3)));
            case 3 -> {
                if (r.nextInt(20) == 0) {
                    s.append('"').append("x".repeat(r.nextInt(30_000))).append("\\u0022\"");
                } else {
                    looseString(r, s, randomString(r));
                }
            }
            case 4 -> looseObject(r, s, depth, false);
            default -> {
                s.append('[');
                for (int i = r.nextInt(4); i > 0; i--) {
                    space(r, s);
                    looseValue(r, s, depth + 1, false);
                    space(r, s);
                    if (i > 1) {
                        s.append(',');
                    }
                }
                s.append(']');
            }
        }
    }

    /** A JSON number in any of the forms RFC 8259 allows, some beyond a long or a double. */
    private static String looseNumber(Random r) {
        StringBuilder s = new StringBuilder();
        if (r.nextBoolean()) {
            s.append('-');
        }
        s.append(switch (r.nextInt(5)) {
            case 0 -> "0";
            case 1 -> Integer.toString(1 + r.nextInt(9));
            case 2 -> Long.toString(Math.abs(r.nextLong() >>> r.nextInt(64)) + 1);
            case 3 -> new BigInteger(200, r).add(BigInteger.ONE).toString();
            default -> Integer.toString(1 + r.nextInt(Integer.MAX_VALUE));
        });
        if (r.nextInt(3) == 0) {
            s.append('.');
            for (int i = 1 + r.nextInt(20); i > 0; i--) {
                s.append((char) ('0' + r.nextInt(10)));
            }
        }
        if (r.nextInt(3) == 0) {
            s.append(r.nextBoolean() ? 'e' : 'E');
            int sign = r.nextInt(3);
            if (sign > 0) {
                s.append(sign == 1 ? '+' : '-');
            }
            s.append(r.nextInt(r.nextBoolean() ? 30 : 500));
        }
        return s.toString();
    }

    /** {@code value} as a JSON string, each character written plainly or escaped in any allowed way. */
    private static void looseString(Random r, StringBuilder s, String value) {
        s.append('"');
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            int how = r.nextInt(4);
            if (c < 0x20 || c == '"' || c == '\\' || how == 0 || Character.isSurrogate(c) && how == 1) {
                String shortForm = switch (c) {
                    case '"' -> "\\\"";
                    case '\\' -> "\\\\";
                    case '/' -> "\\/";
                    case '\b' -> "\\b";
                    case '\f' -> "\\f";
                    case '\n' -> "\\n";
                    case '\r' -> "\\r";
                    case '\t' -> "\\t";
                    default -> null;
                };
                if (shortForm != null && r.nextBoolean()) {
                    s.append(shortForm);
                } else {
                    String hex = hex4(c);
                    s.append("\\u").append(r.nextBoolean() ? hex : hex.toUpperCase(Locale.ROOT));
                }
            } else if (Character.isHighSurrogate(c) && i + 1 < value.length() && Character.isLowSurrogate(value.charAt(i + 1))) {
                s.append(c).append(value.charAt(++i));
            } else if (Character.isSurrogate(c)) {
                s.append("\\u").append(hex4(c)); // a lone surrogate can only be written escaped
            } else {
                s.append(c);
            }
        }
        s.append('"');
    }

    private static String hex4(char c) {
        String hex = Integer.toHexString(c);
        return "0".repeat(4 - hex.length()) + hex;
    }

    private static void space(Random r, StringBuilder s) {
        if (r.nextInt(3) == 0) {
            for (int i = r.nextInt(3); i >= 0; i--) {
                s.append(" \t\n\r".charAt(r.nextInt(4)));
            }
        }
    }

    private static JsonNode randomValue(Random r, int depth) {
        int kind = r.nextInt(depth > 5 ? 6 : 8);
        return switch (kind) {
            case 0, 1 -> NODES.textNode(r.nextInt(30) == 0 ? "y".repeat(r.nextInt(50_000)) + randomString(r)
                    : randomString(r));
            case 2 -> NODES.numberNode(r.nextInt() >> r.nextInt(31));
            case 3 -> NODES.numberNode(r.nextBoolean() ? r.nextDouble() * Math.pow(10, r.nextInt(60) - 30)
                    : (double) (r.nextLong() >> r.nextInt(64)));
            case 4 -> NODES.booleanNode(r.nextBoolean());
            case 5 -> NODES.nullNode();
            case 6 -> {
                ObjectNode o = NODES.objectNode();
                for (int i = r.nextInt(5); i > 0; i--) {
                    o.set(randomString(r), randomValue(r, depth + 1));
                }
                yield o;
            }
            default -> {
                ArrayNode a = NODES.arrayNode();
                for (int i = r.nextInt(4); i > 0; i--) {
                    a.add(randomValue(r, depth + 1));
                }
                yield a;
            }
        };
    }

    /** A short string of characters that need care: escapes, controls, non-ASCII, surrogate pairs, JSON punctuation. */
    public static String randomString(Random r) {
        StringBuilder s = new StringBuilder();
        for (int i = r.nextInt(10); i > 0; i--) {
            s.appendCodePoint(ALPHABET.codePointAt(ALPHABET.offsetByCodePoints(0,
                    r.nextInt(ALPHABET.codePointCount(0, ALPHABET.length())))));
        }
        return s.toString();
    }

    private static String hex(Random r) {
        StringBuilder s = new StringBuilder(64);
        for (int i = 0; i < 4; i++) {
            s.append(String.format("%016x", r.nextLong()));
        }
        return s.toString();
    }

    private static byte[] concat(byte[]... parts) {
        int n = 0;
        for (byte[] p : parts) {
            n += p.length;
        }
        byte[] out = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, out, at, p.length);
            at += p.length;
        }
        return out;
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
