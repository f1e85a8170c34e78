package io.trailproof.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * A JSON tree as indented text, the text Jackson's {@link JsonNode#toPrettyString} gives (two spaces a
 * level, {@code "name" : value}), written by a streaming generator. {@code toPrettyString} first builds
 * Jackson's object mapper, its serializers and its date format, a tenth of a second of a short
 * command's start ({@code verify-export --json}) for a tree of a few members.
 */
final class PrettyJson {

    private static final JsonFactory FACTORY = new JsonFactory();

    private PrettyJson() {
    }

    static String of(JsonNode tree) {
        StringWriter text = new StringWriter();
        try (JsonGenerator g = FACTORY.createGenerator(text).useDefaultPrettyPrinter()) {
            write(g, tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);   // a StringWriter does not fail
        }
        return text.toString();
    }

    private static void write(JsonGenerator g, JsonNode node) throws IOException {
        switch (node.getNodeType()) {
            case OBJECT -> {
                g.writeStartObject();
                for (Map.Entry<String, JsonNode> member : node.properties()) {
                    g.writeFieldName(member.getKey());
                    write(g, member.getValue());
                }
                g.writeEndObject();
            }
            case ARRAY -> {
                g.writeStartArray();
                for (JsonNode item : node) {
                    write(g, item);
                }
                g.writeEndArray();
            }
            case STRING -> g.writeString(node.textValue());
            case BOOLEAN -> g.writeBoolean(node.booleanValue());
            case NUMBER -> number(g, node);
            case BINARY, POJO -> g.writeString(node.asText());
            case NULL, MISSING -> g.writeNull();
        }
    }

    /** As each number node writes itself: integers as integers, decimals as their own type. */
    private static void number(JsonGenerator g, JsonNode node) throws IOException {
        switch (node.numberType()) {
            case INT -> g.writeNumber(node.intValue());
            case LONG -> g.writeNumber(node.longValue());
            case BIG_INTEGER -> g.writeNumber(node.bigIntegerValue());
            case FLOAT -> g.writeNumber(node.floatValue());
            case DOUBLE -> g.writeNumber(node.doubleValue());
            case BIG_DECIMAL -> g.writeNumber(node.decimalValue());
        }
    }
}
