package io.trailproof.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.trailproof.testing.Api;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Random;

/** Seeded mutations of valid events: structural (a field gets a random value) and byte-level. */
final class EventMutator {
    private static final String[] FIELDS = {"agent_id", "session_id", "source", "capture_method", "action_type",
            "action_name", "action_status", "error_message", "action_input", "action_output", "metadata",
            "timestamp", "duration_ms", "labels", "colour", "id", "hash"};
    private static final String[] TOKENS = {"{", "}", "[", "]", "\"", ":", ",", "\\", "null", "true", "1e400",
            "9007199254740993", "12345678901234567890", "-0", "0.1", "\"\\ud800\"", "\\u0000", "\"agent_id\":\"x\",",
            "\"agent_id\":1,", "{\"a\":{\"a\":{\"a\":1}}}", " ", "\n"};
    private static final byte[] BYTES = {0, 0x1f, 0x7f, (byte) 0x80, (byte) 0xbf, (byte) 0xc0, (byte) 0xc3,
            (byte) 0xed, (byte) 0xf4, (byte) 0xff, '{', '}', '"', ','};
    private final Random random;

    EventMutator(Random random) {
        this.random = random;
    }

    byte[] event() {
        return random.nextInt(3) == 0 ? bytes(validEventText()) : Api.JSON.valueToTree(structural()).toString()
                .getBytes(StandardCharsets.UTF_8);
    }

    byte[] batch() {
        int n = 1 + random.nextInt(4);
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < n; i++) {
            sb.append(i == 0 ? "" : ",").append(random.nextInt(4) == 0 ? validEventText() : structural().toString());
        }
        String text = sb.append("]").toString();
        return random.nextInt(4) == 0 ? bytes(text) : text.getBytes(StandardCharsets.UTF_8);
    }

    private String validEventText() {
        return base().toString();
    }

    private ObjectNode base() {
        ObjectNode e = Api.JSON.createObjectNode();
        e.put("agent_id", "mut-" + random.nextInt(12));
        if (random.nextBoolean()) {
            e.put("action_type", "TOOL_CALL");
        }
        if (random.nextBoolean()) {
            e.putObject("action_input").put("q", "revenue " + random.nextInt(100)).put("n", random.nextInt(1000) / 8.0);
        }
        if (random.nextBoolean()) {
            e.putObject("labels").put("env", "prod");
        }
        if (random.nextBoolean()) {
            e.put("duration_ms", random.nextInt(100_000));
        }
        return e;
    }

    private ObjectNode structural() {
        ObjectNode e = base();
        int edits = 1 + random.nextInt(3);
        for (int i = 0; i < edits; i++) {
            String field = FIELDS[random.nextInt(FIELDS.length)];
            if (random.nextInt(6) == 0) {
                e.remove(field);
            } else {
                e.set(field, value(0));
            }
        }
        return e;
    }

    private JsonNode value(int depth) {
        return switch (random.nextInt(depth > 3 ? 7 : 9)) {
            case 0 -> Api.JSON.getNodeFactory().textNode(string());
            case 1 -> Api.JSON.getNodeFactory().numberNode(random.nextInt(2001) - 1000);
            case 2 -> Api.JSON.getNodeFactory().numberNode(random.nextDouble() * Math.pow(10, random.nextInt(40) - 20));
            case 3 -> Api.JSON.getNodeFactory().booleanNode(random.nextBoolean());
            case 4 -> Api.JSON.getNodeFactory().nullNode();
            case 5 -> Api.JSON.getNodeFactory().textNode("2026-0" + (1 + random.nextInt(9)) + "-1" + random.nextInt(10)
                    + "T10:00:00" + (random.nextBoolean() ? "Z" : "+01:00"));
            case 6 -> Api.JSON.getNodeFactory().numberNode(random.nextLong());
            case 7 -> {
                ObjectNode o = Api.JSON.createObjectNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    o.set(random.nextBoolean() ? "k" + i : string(), value(depth + 1));
                }
                yield o;
            }
            default -> {
                var a = Api.JSON.createArrayNode();
                int n = random.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(value(depth + 1));
                }
                yield a;
            }
        };
    }

    private String string() {
        int kind = random.nextInt(8);
        int len = switch (kind) {
            case 0 -> 0;
            case 1 -> 257 + random.nextInt(2000);
            default -> 1 + random.nextInt(20);
        };
        StringBuilder sb = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            int r = random.nextInt(20);
            sb.append(switch (r) {
                case 0 -> (char) random.nextInt(0x20);
                case 1 -> (char) (0x7f + random.nextInt(0x21));
                case 2 -> (char) (0xd800 + random.nextInt(0x800));
                case 3 -> (char) (0x100 + random.nextInt(0xd000));
                case 4 -> '"';
                case 5 -> '\\';
                default -> (char) ('a' + random.nextInt(26));
            });
        }
        return sb.toString();
    }

    private byte[] bytes(String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int edits = 1 + random.nextInt(4);
        for (int e = 0; e < edits; e++) {
            out.reset();
            int at = b.length == 0 ? 0 : random.nextInt(b.length + 1);
            switch (random.nextInt(6)) {
                case 0 -> { // truncate
                    out.write(b, 0, at);
                }
                case 1 -> { // delete a byte
                    out.write(b, 0, at);
                    if (at < b.length) {
                        out.write(b, at + 1, b.length - at - 1);
                    }
                }
                case 2 -> { // flip a byte
                    out.writeBytes(b);
                    if (at < b.length) {
                        byte[] c = out.toByteArray();
                        c[at] ^= (byte) (1 << random.nextInt(8));
                        out.reset();
                        out.writeBytes(c);
                    }
                }
                case 3 -> { // insert a special byte
                    out.write(b, 0, at);
                    out.write(BYTES[random.nextInt(BYTES.length)]);
                    out.write(b, at, b.length - at);
                }
                case 4 -> { // insert a token
                    out.write(b, 0, at);
                    out.writeBytes(TOKENS[random.nextInt(TOKENS.length)].getBytes(StandardCharsets.UTF_8));
                    out.write(b, at, b.length - at);
                }
                default -> { // duplicate a slice
                    int from = b.length == 0 ? 0 : random.nextInt(b.length);
                    int len = b.length == 0 ? 0 : random.nextInt(Math.min(40, b.length - from) + 1);
                    out.write(b, 0, at);
                    out.write(b, from, len);
                    out.write(b, at, b.length - at);
                }
            }
            b = out.toByteArray();
        }
        return b;
    }
}
