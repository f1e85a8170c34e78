package io.trailproof.core.json;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.BooleanNode;
import com.fasterxml.jackson.databind.node.ContainerNode;
import com.fasterxml.jackson.databind.node.DoubleNode;
import com.fasterxml.jackson.databind.node.IntNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.LongNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The only way untrusted JSON enters trailproof: a strict parser whose result RFC 8785 can hash
 * faithfully (src/site/events.md#accepted-fields).
 *
 * <p>Accepts exactly one JSON value in strictly valid UTF-8 (a leading byte order mark is ignored),
 * and rejects duplicate keys at any level, nesting deeper than the given depth (a top-level object
 * or array is level 1), lone surrogates in strings and keys, and numbers whose decimal value
 * changes when read as an IEEE-754 double and written back in shortest form (RFC 8785 could not
 * hash them as sent). Accepted numbers are held by value: integral values within ±2^53 as
 * int/long nodes, everything else as a double node, so {@code 4.50} and {@code 4.5} give the same
 * tree.
 */
public final class StrictJson {

    private static final long MAX_EXACT_INTEGER = 1L << 53;

    /**
     * Jackson's own limits are lifted: each would fail with a message that does not say what to do,
     * before our checks (depth, number value) could speak. The HTTP layer bounds the body size.
     */
    private static final JsonFactory FACTORY = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(Integer.MAX_VALUE)
                    .maxNumberLength(Integer.MAX_VALUE)
                    .maxStringLength(Integer.MAX_VALUE)
                    .maxNameLength(Integer.MAX_VALUE)
                    .build())
            .build();

    /** The factory with Jackson's limits lifted, for other readers of the core that make their own checks. */
    public static JsonFactory unlimitedFactory() {
        return FACTORY;
    }

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private StrictJson() {}

    /**
     * Parses {@code utf8} into a tree, or says precisely why it is not acceptable.
     *
     * @param maxDepth the deepest nesting allowed; a top-level object or array is level 1
     * @throws JsonRejection naming the path of the offending field where there is one
     */
    public static JsonNode parse(byte[] utf8, int maxDepth) throws JsonRejection {
        return parse(utf8, maxDepth, Integer.MAX_VALUE);
    }

    /**
     * As {@link #parse(byte[], int)}, and a top-level array may hold at most {@code maxTopLevelItems}
     * items: the parse stops at the first item beyond, before reading it.
     */
    public static JsonNode parse(byte[] utf8, int maxDepth, int maxTopLevelItems) throws JsonRejection {
        int bad = Utf8.firstInvalidByte(utf8);
        if (bad >= 0) {
            throw invalidUtf8(utf8, bad, maxDepth);
        }
        // Jackson guesses UTF-16/32 from zero bytes at the start; a zero byte is never valid JSON
        // text outside a string nor raw inside one, so refusing it keeps the input UTF-8.
        for (int i = 0; i < Math.min(4, utf8.length); i++) {
            if (utf8[i] == 0) {
                throw new JsonRejection(null, "the JSON contains a raw NUL byte at byte offset " + i
                        + "; send UTF-8 JSON and escape control characters in strings");
            }
        }
        return new TreeBuilder(utf8, maxDepth, maxTopLevelItems).build();
    }

    private static JsonRejection invalidUtf8(byte[] utf8, int offset, int maxDepth) {
        // Where the bad byte is in the JSON: parse the valid prefix, which ends inside that field.
        String path = null;
        try {
            byte[] prefix = Arrays.copyOf(utf8, offset);
            new TreeBuilder(prefix, maxDepth, Integer.MAX_VALUE).build();
        } catch (JsonRejection r) {
            path = r.path();
        }
        return new JsonRejection(path, "the JSON is not valid UTF-8: invalid byte sequence at byte offset "
                + offset + (path == null ? "" : " in " + path)
                + "; send the text encoded as UTF-8");
    }

    /** One open object or array, and which member of it is being read. */
    private static final class Frame {
        final ContainerNode<?> node;
        final boolean object;
        String name; // object: the member being read, null between members
        int index; // array: the element being read

        Frame(ContainerNode<?> node, boolean object) {
            this.node = node;
            this.object = object;
        }
    }

    private static final class TreeBuilder {
        private final byte[] input;
        private final int maxDepth;
        private final int maxTopLevelItems;
        private final List<Frame> stack = new ArrayList<>();
        private JsonParser parser;

        TreeBuilder(byte[] input, int maxDepth, int maxTopLevelItems) {
            this.input = input;
            this.maxDepth = maxDepth;
            this.maxTopLevelItems = maxTopLevelItems;
        }

        JsonNode build() throws JsonRejection {
            try (JsonParser p = FACTORY.createParser(input)) {
                parser = p;
                JsonNode root = readRoot();
                JsonToken after;
                try {
                    after = p.nextToken();
                } catch (StreamReadException e) {
                    after = JsonToken.NOT_AVAILABLE;
                }
                if (after != null) {
                    throw new JsonRejection(null, "unexpected content after the JSON value"
                            + at(p.currentLocation()) + "; send exactly one JSON value");
                }
                return root;
            } catch (JsonEOFException e) {
                String path = path();
                throw new JsonRejection(path, "the JSON ends unexpectedly"
                        + (path == null ? "" : " in " + path) + " (truncated input?)");
            } catch (StreamReadException e) {
                String path = path();
                String original = String.valueOf(e.getOriginalMessage());
                if (original.contains("surrogate") && original.contains("field name")) {
                    // Jackson decodes keys itself and stops at a lone surrogate before we see the key.
                    throw new JsonRejection(path, "a key " + (path == null ? "of the top-level object" : "in " + path)
                            + at(e.getLocation()) + " contains a lone surrogate; keys must be valid Unicode");
                }
                throw new JsonRejection(path, "malformed JSON" + at(e.getLocation())
                        + (path == null ? "" : " in " + path) + ": " + e.getOriginalMessage());
            } catch (IOException e) {
                throw new JsonRejection(path(), "unreadable JSON: " + e.getMessage());
            }
        }

        private JsonNode readRoot() throws IOException, JsonRejection {
            JsonToken t = parser.nextToken();
            if (t == null) {
                throw new JsonRejection(null, "the JSON is empty; send one JSON value");
            }
            JsonNode root = null;
            while (true) {
                Frame top = stack.isEmpty() ? null : stack.get(stack.size() - 1);
                if (stack.size() == 1 && !top.object && t != JsonToken.END_ARRAY && top.index >= maxTopLevelItems) {
                    throw new JsonRejection(null, "the array holds more than " + maxTopLevelItems
                            + " items; the limit is " + maxTopLevelItems + ", so send the rest in another request");
                }
                switch (t) {
                    case START_OBJECT, START_ARRAY -> {
                        if (stack.size() + 1 > maxDepth) {
                            String path = path();
                            throw new JsonRejection(path, "the JSON nests deeper than " + maxDepth
                                    + " levels" + (path == null ? "" : " at " + path)
                                    + "; flatten the structure");
                        }
                        boolean object = t == JsonToken.START_OBJECT;
                        ContainerNode<?> node = object ? NODES.objectNode() : NODES.arrayNode();
                        if (top == null) {
                            root = node;
                        } else {
                            attach(top, node);
                        }
                        stack.add(new Frame(node, object));
                    }
                    case END_OBJECT, END_ARRAY -> {
                        stack.remove(stack.size() - 1);
                        if (top != null && stack.isEmpty()) {
                            return root;
                        }
                        completed(stack.get(stack.size() - 1));
                    }
                    case FIELD_NAME -> {
                        String name = parser.currentName();
                        top.name = name;
                        if (hasLoneSurrogate(name)) {
                            String path = path();
                            throw new JsonRejection(path, "the key " + JsonPath.quoted(name) + " at "
                                    + path + " contains a lone surrogate; keys must be valid Unicode");
                        }
                        if (((ObjectNode) top.node).has(name)) {
                            String path = path();
                            throw new JsonRejection(path, "duplicate key " + JsonPath.quoted(name)
                                    + " at " + path + "; each key may appear only once in an object");
                        }
                    }
                    default -> {
                        JsonNode value = scalar(t);
                        if (top == null) {
                            return value;
                        }
                        attach(top, value);
                        completed(top);
                    }
                }
                t = parser.nextToken();
                if (t == null) {
                    throw new JsonEOFException(parser, null, "end of input inside a value");
                }
            }
        }

        private static void attach(Frame frame, JsonNode value) {
            if (frame.object) {
                ((ObjectNode) frame.node).set(frame.name, value);
            } else {
                ((ArrayNode) frame.node).add(value);
            }
        }

        private static void completed(Frame frame) {
            if (frame.object) {
                frame.name = null;
            } else {
                frame.index++;
            }
        }

        private JsonNode scalar(JsonToken t) throws IOException, JsonRejection {
            return switch (t) {
                case VALUE_STRING -> {
                    String s = parser.getText();
                    if (hasLoneSurrogate(s)) {
                        String path = path();
                        throw new JsonRejection(path, "the string" + (path == null ? "" : " at " + path)
                                + " contains a lone surrogate; strings must be valid Unicode");
                    }
                    yield TextNode.valueOf(s);
                }
                case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> number(parser.getText());
                case VALUE_TRUE -> BooleanNode.TRUE;
                case VALUE_FALSE -> BooleanNode.FALSE;
                case VALUE_NULL -> NullNode.instance;
                default -> throw new JsonRejection(path(), "unexpected JSON token " + t);
            };
        }

        private JsonNode number(String text) throws JsonRejection {
            if (text.length() <= 17 && text.indexOf('.') < 0 && text.indexOf('e') < 0
                    && text.indexOf('E') < 0) {
                long v = Long.parseLong(text);
                if (Math.abs(v) <= MAX_EXACT_INTEGER) {
                    return integral(v);
                }
            }
            double d = Double.parseDouble(text);
            if (Double.isInfinite(d)) {
                throw numberRejection(text, "is beyond the range of an IEEE-754 double");
            }
            String shortest = Rfc8785.numberToString(d);
            if (!DecimalText.sameValue(text, shortest)) {
                throw numberRejection(text, "cannot be held exactly as an IEEE-754 double (it would become "
                        + shortest + ")");
            }
            if (d == Math.rint(d) && Math.abs(d) <= MAX_EXACT_INTEGER) {
                return integral((long) d);
            }
            return DoubleNode.valueOf(d);
        }

        private static JsonNode integral(long v) {
            return v == (int) v ? IntNode.valueOf((int) v) : LongNode.valueOf(v);
        }

        private JsonRejection numberRejection(String text, String problem) {
            String path = path();
            String shown = text.length() > 40 ? text.substring(0, 37) + "..." : text;
            return new JsonRejection(path, "the number " + shown + (path == null ? "" : " at " + path)
                    + " " + problem + "; RFC 8785 cannot hash it as sent, so send it as a string");
        }

        /** The path of the value being read, or null at the root. */
        private String path() {
            if (stack.isEmpty()) {
                return null;
            }
            StringBuilder sb = new StringBuilder();
            for (Frame f : stack) {
                if (f.object) {
                    if (f.name == null) {
                        break; // between members: the innermost open object is the location
                    }
                    JsonPath.appendName(sb, f.name);
                } else {
                    JsonPath.appendIndex(sb, f.index);
                }
            }
            return sb.isEmpty() ? null : sb.toString();
        }

        private static String at(JsonLocation loc) {
            if (loc == null || loc.getLineNr() < 0) {
                return "";
            }
            return " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
        }
    }

    private static boolean hasLoneSurrogate(String s) {
        for (int i = 0, n = s.length(); i < n; i++) {
            char c = s.charAt(i);
            if (Character.isSurrogate(c)) {
                if (Character.isHighSurrogate(c) && i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
                    i++;
                } else {
                    return true;
                }
            }
        }
        return false;
    }
}
