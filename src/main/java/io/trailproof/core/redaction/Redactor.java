package io.trailproof.core.redaction;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import io.trailproof.core.event.EventFields;
import io.trailproof.core.json.Rfc8785;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redaction before hashing (src/site/redaction.md). Applies the rules, in order, each to the result of the ones
 * before, to the string values inside {@code action_input}, {@code action_output} and
 * {@code metadata}, to {@code error_message} and to label values; never to keys or other fields.
 * When anything was replaced, the result holds the service field {@code redactions} (rule name to
 * count), which the hash then covers.
 *
 * <p>Pure and thread-safe: validated client fields in, new fields out; the input is never modified
 * (the request tree may be shared). Only the containers on the way to a replaced string are new;
 * every unchanged value is shared with the input, not copied.
 */
public final class Redactor {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final List<String> OBJECT_FIELDS = List.of(EventFields.ACTION_INPUT, EventFields.ACTION_OUTPUT,
            EventFields.METADATA);

    private final List<RedactionRule> rules;

    public Redactor(List<RedactionRule> rules) {
        this.rules = List.copyOf(rules);
    }

    /** The built-in rules followed by {@code extra} (a rules file's). */
    public static Redactor withBuiltIns(List<RedactionRule> extra) {
        List<RedactionRule> all = new ArrayList<>(BuiltInRedactionRules.rules());
        all.addAll(extra);
        return new Redactor(all);
    }

    public List<RedactionRule> rules() {
        return rules;
    }

    /**
     * An event after redaction.
     *
     * @param fields     the client fields to seal, with {@code redactions} when anything was replaced
     * @param counts     replacements per rule name (empty when none)
     * @param addedBytes how much longer the RFC 8785 form became (replacements and the
     *                   {@code redactions} member; may be negative): the size limit applies to the
     *                   event as sent, so the sealer allows this much more
     */
    public record Redacted(ObjectNode fields, Map<String, Integer> counts, int addedBytes) {
    }

    /** {@code clientFields} (validated, never modified) with every secret replaced. */
    public Redacted redact(ObjectNode clientFields) {
        Map<String, Integer> counts = new TreeMap<>();
        long[] added = {0};
        ObjectNode out = null;
        for (Map.Entry<String, JsonNode> field : clientFields.properties()) {
            String name = field.getKey();
            JsonNode value = field.getValue();
            JsonNode redacted = value;
            if (OBJECT_FIELDS.contains(name) || name.equals(EventFields.LABELS)) {
                redacted = redactValues(value, counts, added);
            } else if (name.equals(EventFields.ERROR_MESSAGE) && value.isTextual()) {
                redacted = redactText(value, counts, added);
            }
            if (redacted != value && out == null) {
                out = NODES.objectNode().setAll(clientFields);
            }
            if (out != null) {
                out.set(name, redacted);
            }
        }
        if (out == null) {
            return new Redacted(clientFields, Map.of(), 0);
        }
        ObjectNode record = NODES.objectNode();
        counts.forEach(record::put);
        out.set(EventFields.REDACTIONS, record);
        // "redactions":{...} and the comma before or after it
        added[0] += Rfc8785.canonicalize(record).length + Rfc8785.canonicalize(TextNode.valueOf(EventFields.REDACTIONS)).length
                + 2;
        return new Redacted(out, Collections.unmodifiableMap(counts), Math.toIntExact(added[0]));
    }

    /** Every string value inside {@code node} redacted (keys kept); {@code node} itself when nothing changed. */
    private JsonNode redactValues(JsonNode node, Map<String, Integer> counts, long[] added) {
        if (node.isTextual()) {
            return redactText(node, counts, added);
        }
        if (node.isObject()) {
            ObjectNode copy = null;
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                JsonNode r = redactValues(e.getValue(), counts, added);
                if (r != e.getValue() && copy == null) {
                    copy = NODES.objectNode().setAll((ObjectNode) node);
                }
                if (copy != null) {
                    copy.set(e.getKey(), r);
                }
            }
            return copy == null ? node : copy;
        }
        if (node.isArray()) {
            ArrayNode copy = null;
            for (int i = 0; i < node.size(); i++) {
                JsonNode r = redactValues(node.get(i), counts, added);
                if (r != node.get(i) && copy == null) {
                    copy = NODES.arrayNode(node.size()).addAll((ArrayNode) node);
                }
                if (copy != null) {
                    copy.set(i, r);
                }
            }
            return copy == null ? node : copy;
        }
        return node;
    }

    private JsonNode redactText(JsonNode node, Map<String, Integer> counts, long[] added) {
        String text = node.textValue();
        TextTraits traits = new TextTraits(text);
        boolean changed = false;
        for (RedactionRule rule : rules) {
            if (!rule.mayMatch().test(traits)) {
                continue;
            }
            RedactionRule.Applied a = rule.apply(text);
            if (a.count() > 0) {
                counts.merge(rule.name(), a.count(), Integer::sum);
                text = a.text();
                traits = new TextTraits(text);
                changed = true;
            }
        }
        if (!changed) {
            return node;
        }
        TextNode result = TextNode.valueOf(text);
        added[0] += Rfc8785.canonicalize(result).length - Rfc8785.canonicalize(node).length;
        return result;
    }
}
